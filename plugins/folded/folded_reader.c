/* Reads folded stacks. The plain form is already an aggregate without time, so its lines are
 * summed per distinct stack and pushed at the end: that keeps memory bounded by distinct stacks
 * and lets decimal counts ("12.5") choose one exact fixed-point scale before the sample type is
 * declared. The extended form is one timed sample per line and streams. */
#include "folded_reader.h"

#include <stdlib.h>
#include <string.h>

#include "folded_source.h"
#include "folded_value.h"
#include "folded_oom.h"

enum { FOLDED_AUTO, FOLDED_PLAIN, FOLDED_EXTENDED };

typedef struct folded_reader {
    tconv_ctx *ctx;
    tconv_input *in;
    tconv_sink *sink;
    folded_source src;
    int format;
    int lenient;
    int64_t tolerance; /* ns: how far a launch stack may lie from its launch record */
    /* plain form: equal stacks are summed and sent once, in order of first appearance */
    tconv_stacktab *stacks;
    int64_t *values; /* per stack table node */
    uint8_t *seen_node;
    uint32_t *seen; /* nodes, in order of first appearance */
    size_t valcap, seen_node_cap, nseen, seencap;
    int decimals;
    uint32_t *ids;
    size_t idcap;
    tconv_frame *frames;
    size_t framecap;
    uint32_t track;
    int have_track;
    tconv_str s_thread_name;
    /* extended form: the previous line's thread */
    char *thread_key;
    size_t thread_key_n, thread_key_cap;
} folded_reader;

typedef struct folded_span {
    const char *p;
    size_t n;
} folded_span;

static void *folded_reader_grow(void *p, size_t *cap, size_t need, size_t size)
{
    tconv_array_grow(&p, cap, need, size); /* the core's, overflow-checked */
    return p;
}

static int folded_reader_ws(char c)
{
    return c == ' ' || c == '\t';
}

static size_t folded_reader_trim_end(const char *s, size_t n)
{
    while (n && (folded_reader_ws(s[n - 1]) || s[n - 1] == '\r'))
        n--;
    return n;
}

static int folded_reader_digits(const char *s, size_t n)
{
    if (!n) return 0;
    for (size_t i = 0; i < n; i++)
        if (s[i] < '0' || s[i] > '9') return 0;
    return 1;
}

/* "stack COUNT": the count is the last blank-separated word, the stack everything before.
 * 1, 0 when the line is not one, or folded_value_parse's refusal of the count. */
static int folded_reader_plain(const char *s, size_t n, folded_span *stack, int64_t *mant, int *dec)
{
    size_t sp = n;
    while (sp && !folded_reader_ws(s[sp - 1]))
        sp--;
    if (!sp) return 0;
    int ok = folded_value_parse(s + sp, n - sp, mant, dec);
    if (ok <= 0) return ok;
    /* only the one blank before the count separates: a frame may end in blanks (perf writes
     * a frame named " " for an address without symbol) */
    size_t e = sp - 1;
    if (!e) return 0;
    *stack = (folded_span){s, e};
    return 1;
}

typedef struct folded_ext {
    int64_t ts;
    folded_span comm, pid, tid, cpu, stack;
} folded_ext;

/* "TIMESTAMP_NS COMM PID TID CPU stack": COMM may hold blanks, so PID TID CPU are the first
 * three numeric words in a row after it. */
static int folded_reader_extended(const char *s, size_t n, folded_ext *x)
{
    enum { MAXTOK = 32 };
    size_t b[MAXTOK], e[MAXTOK], nt = 0, i = 0;
    while (nt < MAXTOK) {
        while (i < n && folded_reader_ws(s[i]))
            i++;
        if (i >= n) break;
        b[nt] = i;
        while (i < n && !folded_reader_ws(s[i]))
            i++;
        e[nt] = i;
        nt++;
    }
    if (nt < 6 || !folded_reader_digits(s + b[0], e[0] - b[0]) || e[0] - b[0] > 19) return 0;
    for (size_t j = 2; j + 3 < nt; j++) {
        const char *c = s + b[j + 2];
        size_t cn = e[j + 2] - b[j + 2];
        int cpu_ok = folded_reader_digits(c, cn) || (cn >= 3 && c[0] == '[' && c[cn - 1] == ']' &&
                                                     folded_reader_digits(c + 1, cn - 2));
        if (!folded_reader_digits(s + b[j], e[j] - b[j]) ||
            !folded_reader_digits(s + b[j + 1], e[j + 1] - b[j + 1]) || !cpu_ok)
            continue;
        uint64_t ts = 0; /* 19 digits fit in 64 bits unsigned, not signed */
        for (size_t k = b[0]; k < e[0]; k++)
            ts = ts * 10 + (uint64_t)(s[k] - '0');
        /* Beyond 2^62 ns (146 years) a difference of two times would overflow int64. */
        if (ts >= (uint64_t)1 << 62) return 0;
        x->ts = (int64_t)ts;
        x->comm = (folded_span){s + b[1], e[j - 1] - b[1]};
        x->pid = (folded_span){s + b[j], e[j] - b[j]};
        x->tid = (folded_span){s + b[j + 1], e[j + 1] - b[j + 1]};
        x->cpu = (folded_span){c, cn};
        x->stack = (folded_span){s + b[j + 3], folded_reader_trim_end(s, n) - b[j + 3]};
        return 1;
    }
    return 0;
}

/* Frame names are kept as written, annotation suffixes included, so folded -> folded is the
 * identity; the suffixes also set the frame flags other writers understand. */
static uint32_t folded_reader_flags(tconv_ctx *ctx, tconv_str id)
{
    size_t n = tconv_string_length(ctx, id);
    const char *s = tconv_string_get(ctx, id);
    if (n < 4 || s[n - 4] != '_' || s[n - 3] != '[' || s[n - 1] != ']') return 0;
    switch (s[n - 2]) {
    case 'k':
        return TCONV_FRAME_KERNEL;
    case 'j':
        return TCONV_FRAME_JIT;
    case 'i':
        return TCONV_FRAME_INLINED;
    default:
        return 0;
    }
}

static uint32_t folded_reader_split(folded_reader *r, folded_span st)
{
    uint32_t k = 0;
    size_t start = 0;
    for (size_t i = 0; i <= st.n; i++) {
        if (i < st.n && st.p[i] != ';') continue;
        r->ids = folded_reader_grow(r->ids, &r->idcap, (size_t)k + 1, sizeof(*r->ids));
        r->ids[k++] = tconv_string_intern(r->ctx, st.p + start, i - start);
        start = i + 1;
    }
    return k;
}

static void folded_reader_bad(folded_reader *r, const char *line, size_t n, const char *expect)
{
    if (r->lenient) {
        tconv_warning_add(r->ctx, "folded.bad-line", "%s:%llu: expected %s; line skipped: %.*s",
                          tconv_input_name(r->in), (unsigned long long)r->src.line, expect,
                          (int)(n > 80 ? 80 : n), line);
        return;
    }
    /* A line-oriented format: the position is the line, as compilers print it. */
    tconv_error_at(r->ctx, tconv_input_name(r->in), r->src.line,
                   "expected %s, got: %.*s%s (use -R lenient=true to skip such lines)", expect,
                   (int)(n > 80 ? 80 : n), line, n > 80 ? "..." : "");
}

static tconv_status folded_reader_send(folded_reader *r, uint32_t n, int64_t ts, int64_t v)
{
    tconv_event ev = TCONV_EVENT_INIT;
    ev.kind = TCONV_EV_SAMPLE;
    ev.track = r->track;
    ev.ts = ts;
    ev.frames = r->frames;
    ev.nframes = n;
    ev.values = &v;
    ev.nvalues = 1;
    return tconv_sink_push(r->sink, &ev) == TCONV_FATAL ? TCONV_FATAL : TCONV_OK;
}

/* The frames of ids, in r->frames. */
static void folded_reader_frames(folded_reader *r, const uint32_t *ids, uint32_t n)
{
    r->frames = folded_reader_grow(r->frames, &r->framecap, n, sizeof(*r->frames));
    for (uint32_t i = 0; i < n; i++)
        r->frames[i] = (tconv_frame){.name = ids[i], .flags = folded_reader_flags(r->ctx, ids[i])};
}

static tconv_status folded_reader_push(folded_reader *r, const uint32_t *ids, uint32_t n,
                                       int64_t ts, int64_t v)
{
    folded_reader_frames(r, ids, n);
    return folded_reader_send(r, n, ts, v);
}

static tconv_status folded_reader_add_plain(folded_reader *r, folded_span st, int64_t mant, int dec)
{
    if (dec > r->decimals) {
        /* a finer count than seen so far: rescale what was summed */
        int64_t k = folded_value_pow10(dec - r->decimals);
        for (size_t i = 0; i < r->nseen; i++)
            if (__builtin_mul_overflow(r->values[r->seen[i]], k, &r->values[r->seen[i]]))
                goto overflow;
        r->decimals = dec;
    }
    int64_t v;
    if (__builtin_mul_overflow(mant, folded_value_pow10(r->decimals - dec), &v)) goto overflow;
    uint32_t k = folded_reader_split(r, st);
    folded_reader_frames(r, r->ids, k);
    uint32_t node = tconv_stacktab_intern(r->stacks, r->frames, k);
    if (node == TCONV_STACK_ROOT) return TCONV_OK; /* no frame: nothing to draw */
    r->values = folded_reader_grow(r->values, &r->valcap, (size_t)node + 1, sizeof(*r->values));
    if (node >= r->seen_node_cap) {
        size_t old = r->seen_node_cap;
        r->seen_node = folded_reader_grow(r->seen_node, &r->seen_node_cap, (size_t)node + 1, 1);
        memset(r->seen_node + old, 0, r->seen_node_cap - old);
    }
    if (!r->seen_node[node]) {
        r->seen_node[node] = 1;
        r->values[node] = 0;
        r->seen = folded_reader_grow(r->seen, &r->seencap, r->nseen + 1, sizeof(*r->seen));
        r->seen[r->nseen++] = node;
    }
    if (__builtin_add_overflow(r->values[node], v, &r->values[node])) goto overflow;
    return TCONV_OK;
overflow:
    tconv_error_at(r->ctx, tconv_input_name(r->in), r->src.line,
                   "counts add up beyond 64-bit range");
    return TCONV_FATAL;
}

static tconv_status folded_reader_emit_plain(folded_reader *r)
{
    if (!r->nseen) return TCONV_OK;
    char unit[16];
    tconv_sample_type t = {"samples", folded_value_unit(r->decimals, unit)};
    tconv_sampletypes_set(r->ctx, 1, &t, 0);
    tconv_str empty = tconv_string_intern(r->ctx, "", 0);
    r->track = tconv_track_get(r->ctx, empty, empty);
    for (size_t i = 0; i < r->nseen; i++) {
        uint32_t node = r->seen[i];
        size_t k = tconv_stacktab_depth(r->stacks, node);
        r->frames = folded_reader_grow(r->frames, &r->framecap, k, sizeof(*r->frames));
        tconv_stacktab_frames(r->stacks, node, r->frames);
        if (folded_reader_send(r, (uint32_t)k, 0, r->values[node]) != TCONV_OK) return TCONV_FATAL;
    }
    return TCONV_OK;
}

static tconv_status folded_reader_thread(folded_reader *r, const folded_ext *x)
{
    size_t kn = x->comm.n + x->pid.n + x->tid.n + 2;
    if (kn == r->thread_key_n && memcmp(r->thread_key, x->comm.p, x->comm.n) == 0 &&
        r->thread_key[x->comm.n] == 0 &&
        memcmp(r->thread_key + x->comm.n + 1, x->pid.p, x->pid.n) == 0 &&
        r->thread_key[x->comm.n + 1 + x->pid.n] == 0 &&
        memcmp(r->thread_key + x->comm.n + 2 + x->pid.n, x->tid.p, x->tid.n) == 0)
        return TCONV_OK;
    r->thread_key = folded_reader_grow(r->thread_key, &r->thread_key_cap, kn, 1);
    char *k = r->thread_key;
    memcpy(k, x->comm.p, x->comm.n);
    k[x->comm.n] = 0;
    memcpy(k + x->comm.n + 1, x->pid.p, x->pid.n);
    k[x->comm.n + 1 + x->pid.n] = 0;
    memcpy(k + x->comm.n + 2 + x->pid.n, x->tid.p, x->tid.n);
    r->thread_key_n = kn;
    tconv_str comm = tconv_string_intern(r->ctx, x->comm.p, x->comm.n);
    r->track = tconv_track_get(r->ctx, tconv_string_intern(r->ctx, x->pid.p, x->pid.n),
                               tconv_string_intern(r->ctx, x->tid.p, x->tid.n));
    const tconv_track *t = tconv_track_describe(r->ctx, r->track);
    if (t && t->thread_name != comm) {
        tconv_event ev = TCONV_EVENT_INIT;
        ev.kind = TCONV_EV_METADATA;
        ev.track = r->track;
        ev.name = r->s_thread_name;
        ev.text = comm;
        if (tconv_sink_push(r->sink, &ev) == TCONV_FATAL) return TCONV_FATAL;
    }
    return TCONV_OK;
}

static tconv_status folded_reader_add_extended(folded_reader *r, const folded_ext *x)
{
    if (folded_reader_thread(r, x) != TCONV_OK) return TCONV_FATAL;
    uint32_t k = folded_reader_split(r, x->stack);
    return folded_reader_push(r, r->ids, k, x->ts, 1);
}

/* Extended lines are what uprobe profilers record at each launch call (cudaLaunchKernel): under
 * GPU attribution the core pairs them with a GPU trace's launch records. */
static void folded_reader_extended_start(folded_reader *r)
{
    tconv_sample_type t = {"samples", "count"};
    tconv_sampletypes_set(r->ctx, 1, &t, 0);
    tconv_launchstacks_declare(r->ctx, r->tolerance);
}

static tconv_status folded_reader_loop(folded_reader *r)
{
    const char *line;
    size_t len;
    while ((line = folded_source_next(&r->src, &len))) {
        size_t n = folded_reader_trim_end(line, len);
        size_t b = 0;
        while (b < n && folded_reader_ws(line[b]))
            b++;
        if (b == n || line[b] == '#') continue;
        if (r->format == FOLDED_AUTO) {
            folded_ext x;
            r->format = folded_reader_extended(line, n, &x) ? FOLDED_EXTENDED : FOLDED_PLAIN;
            if (r->format == FOLDED_EXTENDED) folded_reader_extended_start(r);
        }
        if (r->format == FOLDED_EXTENDED) {
            folded_ext x;
            if (!folded_reader_extended(line, n, &x)) {
                folded_reader_bad(r, line, n, "'TIMESTAMP_NS COMM PID TID CPU frame;frame;...'");
                if (r->lenient) continue;
                return TCONV_FATAL;
            }
            if (folded_reader_add_extended(r, &x) != TCONV_OK) return TCONV_FATAL;
            continue;
        }
        folded_span st;
        int64_t mant;
        int dec;
        int ok = folded_reader_plain(line, n, &st, &mant, &dec);
        if (ok <= 0) {
            folded_reader_bad(r, line, n,
                              ok == FOLDED_VALUE_TOO_BIG ? "a COUNT within 64-bit range"
                              : ok == FOLDED_VALUE_TOO_FINE
                                  ? "a COUNT with at most 9 decimals (tconv keeps counts exact)"
                                  : "'frame;frame;... COUNT'");
            if (r->lenient) continue;
            return TCONV_FATAL;
        }
        if (folded_reader_add_plain(r, st, mant, dec) != TCONV_OK) return TCONV_FATAL;
    }
    if (tconv_error_pending(r->ctx)) return TCONV_FATAL;
    return r->format == FOLDED_EXTENDED ? TCONV_OK : folded_reader_emit_plain(r);
}

/* "500us", "2ms", "1s", "1500" (ns): the tolerance option. -1 if it is none of these. */
static int64_t folded_reader_duration(const char *s)
{
    static const struct {
        const char *unit;
        int64_t ns;
    } units[] = {{"", 1}, {"ns", 1}, {"us", 1000}, {"ms", 1000000}, {"s", 1000000000}};
    char *end;
    double v = strtod(s, &end);
    if (end == s || !(v >= 0)) return -1;
    for (size_t i = 0; i < sizeof(units) / sizeof(units[0]); i++) {
        double ns = v * (double)units[i].ns;
        if (strcmp(end, units[i].unit) == 0 && ns < 9.2e18) return (int64_t)(ns + 0.5);
    }
    return -1;
}

static tconv_status folded_reader_read(tconv_ctx *ctx, tconv_input *in, const tconv_options *o,
                                       tconv_sink *sink)
{
    folded_reader r;
    memset(&r, 0, sizeof(r));
    r.ctx = ctx;
    r.in = in;
    r.sink = sink;
    const char *fmt = tconv_option_get_string(o, "format");
    r.format = strcmp(fmt, "plain") == 0      ? FOLDED_PLAIN
               : strcmp(fmt, "extended") == 0 ? FOLDED_EXTENDED
                                              : FOLDED_AUTO;
    r.lenient = tconv_option_get_bool(o, "lenient") && !tconv_option_get_bool(o, "strict");
    r.s_thread_name = tconv_string_intern_cstr(ctx, "thread_name");
    const char *tol = tconv_option_get_string(o, "tolerance");
    r.tolerance = folded_reader_duration(tol);
    if (r.tolerance < 0) {
        tconv_error_usage(ctx, "folded: tolerance=%s is not a duration (like 1500, 200us, 2ms)",
                          tol);
        return TCONV_FATAL;
    }
    if (r.format == FOLDED_EXTENDED) folded_reader_extended_start(&r);
    if (folded_source_open(&r.src, in) < 0) return TCONV_FATAL;
    r.stacks = tconv_stacktab_new();
    tconv_status st = folded_reader_loop(&r);
    tconv_stacktab_destroy(r.stacks);
    free(r.values);
    free(r.seen_node);
    free(r.seen);
    folded_source_close(&r.src);
    free(r.ids);
    free(r.frames);
    free(r.thread_key);
    return st;
}

static int folded_reader_probe(const unsigned char *buf, size_t len)
{
    if (folded_source_is_utf16(buf, len)) return 50;
    const char *s = (const char *)buf;
    size_t i = 0;
    if (len >= 3 && memcmp(s, "\xef\xbb\xbf", 3) == 0) i = 3;
    int good = 0;
    while (i < len && good < 8) {
        const char *nl = memchr(s + i, '\n', len - i);
        if (!nl) break;
        size_t n = folded_reader_trim_end(s + i, (size_t)(nl - (s + i)));
        const char *line = s + i;
        i = (size_t)(nl - s) + 1;
        if (!n || line[0] == '#') continue;
        folded_ext x;
        folded_span st;
        int64_t m;
        int d;
        int plain = 0;
        if (folded_reader_extended(line, n, &x)) {
            good++;
        } else if ((plain = folded_reader_plain(line, n, &st, &m, &d)) < 0) {
            continue; /* folded, with a count the reader will refuse: st is not set */
        } else if (plain > 0) {
            /* a stack needs a ';' somewhere to look like one */
            good += memchr(st.p, ';', st.n) ? 1 : 0;
            if (!memchr(st.p, ';', st.n) && !good) return 20;
        } else {
            return 0;
        }
    }
    return good ? 80 : 0;
}

static const tconv_option_desc folded_reader_options[] = {
    {"format", TCONV_OPT_ENUM, "auto", "auto|plain|extended",
     "plain 'stack COUNT' lines, extended 'TIMESTAMP_NS COMM PID TID CPU stack' lines, or "
     "decide from the first line"},
    {"lenient", TCONV_OPT_BOOL, "false", NULL,
     "skip malformed lines with a counted warning instead of failing"},
    {"strict", TCONV_OPT_BOOL, "false", NULL,
     "fail at a malformed line even with lenient (set by tconv --strict)"},
    {"tolerance", TCONV_OPT_STRING, "1ms", NULL,
     "extended form under GPU attribution (-W gpu=attribute, -W value=gpu): how far in time a "
     "stack may lie from its launch record once the clocks are aligned; ns, or 200us, 2ms"},
    {0},
};

const tconv_reader_class folded_reader_class = {
    .struct_size = sizeof(tconv_reader_class),
    .name = "folded",
    .description = "folded stacks ('frame;frame COUNT', as from stackcollapse/inferno) and the "
                   "extended per-sample form with time and thread",
    .extensions = "folded|collapsed|folded.txt|stacks",
    .options = folded_reader_options,
    .probe = folded_reader_probe,
    .read = folded_reader_read,
    .flags = TCONV_READER_CONCURRENT,
};
