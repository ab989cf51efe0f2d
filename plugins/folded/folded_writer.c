/* Folded stacks as stackcollapse-*.pl and inferno write them: samples are summed per distinct
 * stack and written sorted by the stack's bytes (Perl's `sort`, inferno's ordered map), so
 * tconv's output can be compared byte for byte with theirs. */
#include "folded_writer.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "folded_oom.h"
#include "folded_stacks.h"
#include "folded_value.h"

enum { FOLDED_ROOT_NONE, FOLDED_ROOT_COMM, FOLDED_ROOT_PID, FOLDED_ROOT_TID };

typedef struct folded_writer {
    tconv_ctx *ctx;
    tconv_output *out;
    int root;
    int unit_ns;
    folded_stacks *stacks;
    int mode_known;
    size_t vindex;
    int span_mode; /* values are self times in ns from the core's stack stage */
    int decimals;  /* fixed-point values from the folded reader */
    int gpu;       /* -W value=gpu: only the GPU time the core attributed to launching stacks */
    int no_gpu;    /* ... and the input had no gpu sample type */
    uint32_t *key;
    size_t keycap;
    uint32_t *clean; /* name id -> id of its folded-safe form, plus 1 */
    size_t cleancap;
    uint32_t *roots; /* track -> root frame id, plus 1 */
    size_t rootcap;
    char *buf;
    size_t bufcap;
    int overflowed;
    size_t zero_lines; /* stacks whose time is 0 in the unit, not written */
} folded_writer;

static void *folded_writer_grow(void *p, size_t *cap, size_t need, size_t size, int zero)
{
    if (need <= *cap) return p;
    size_t c = *cap ? *cap : 64;
    while (c < need)
        c *= 2;
    char *q = realloc(p, c * size);
    if (!q) folded_oom(c * size);
    if (zero) memset(q + *cap * size, 0, (c - *cap) * size);
    *cap = c;
    return q;
}

static tconv_status folded_writer_open(tconv_ctx *ctx, tconv_output *out, const tconv_options *o,
                                       void **state)
{
    folded_writer *w = calloc(1, sizeof(*w));
    if (!w) folded_oom(sizeof(*w));
    w->ctx = ctx;
    w->out = out;
    const char *root = tconv_option_get_string(o, "root");
    w->root = strcmp(root, "comm") == 0           ? FOLDED_ROOT_COMM
              : strcmp(root, "comm-pid") == 0     ? FOLDED_ROOT_PID
              : strcmp(root, "comm-pid/tid") == 0 ? FOLDED_ROOT_TID
                                                  : FOLDED_ROOT_NONE;
    /* One unit for every time value, CPU self time and GPU time alike: ns unless asked, since
     * rounding to µs erases short kernels and makes the lines miss the busy time. */
    w->unit_ns = strcmp(tconv_option_get_string(o, "unit"), "ns") == 0;
    w->gpu = strcmp(tconv_option_get_string(o, "value"), "gpu") == 0;
    w->stacks = folded_stacks_new();
    *state = w;
    return TCONV_OK;
}

/* Folded text cannot hold ';' inside a frame nor a line break: ';' becomes ':' as in
 * stackcollapse-perf.pl, breaks become spaces. */
static uint32_t folded_writer_clean(folded_writer *w, tconv_str id)
{
    w->clean = folded_writer_grow(w->clean, &w->cleancap, (size_t)id + 1, sizeof(*w->clean), 1);
    if (w->clean[id]) return w->clean[id] - 1;
    const char *s = tconv_string_get(w->ctx, id);
    size_t n = tconv_string_length(w->ctx, id);
    tconv_str out = id;
    if (strpbrk(s, ";\n\r")) {
        w->buf = folded_writer_grow(w->buf, &w->bufcap, n + 1, 1, 0);
        for (size_t i = 0; i < n; i++)
            w->buf[i] = s[i] == ';' ? ':' : (s[i] == '\n' || s[i] == '\r') ? ' ' : s[i];
        out = tconv_string_intern(w->ctx, w->buf, n);
    }
    w->clean = folded_writer_grow(w->clean, &w->cleancap, (size_t)id + 1, sizeof(*w->clean), 1);
    w->clean[id] = out + 1;
    return out;
}

/* The thread root frame as stackcollapse-perf names it: "comm", "comm-PID", "comm-PID/TID",
 * spaces in comm replaced by '_', an unknown pid written '?'. */
static uint32_t folded_writer_root(folded_writer *w, uint32_t track)
{
    w->roots = folded_writer_grow(w->roots, &w->rootcap, (size_t)track + 1, sizeof(*w->roots), 1);
    if (w->roots[track]) return w->roots[track] - 1;
    const tconv_track *t = tconv_track_describe(w->ctx, track);
    char label[512];
    const char *comm = "";
    if (t && t->thread_name)
        comm = tconv_string_get(w->ctx, t->thread_name);
    else if (t && t->process_name)
        comm = tconv_string_get(w->ctx, t->process_name);
    else
        comm = tconv_track_label(w->ctx, track, label, sizeof(label));
    const char *pid = t && t->pid ? tconv_string_get(w->ctx, t->pid) : "?";
    const char *tid = t && t->tid ? tconv_string_get(w->ctx, t->tid) : "?";
    size_t cn = strlen(comm), pn = strlen(pid), tn = strlen(tid);
    w->buf = folded_writer_grow(w->buf, &w->bufcap, cn + pn + tn + 4, 1, 0);
    char *p = w->buf;
    size_t o = 0;
    for (size_t i = 0; i < cn; i++)
        p[o++] = comm[i] == ' ' ? '_' : comm[i];
    if (w->root >= FOLDED_ROOT_PID) {
        p[o++] = '-';
        memcpy(p + o, pid, pn);
        o += pn;
    }
    if (w->root == FOLDED_ROOT_TID) {
        p[o++] = '/';
        memcpy(p + o, tid, tn);
        o += tn;
    }
    tconv_str id = folded_writer_clean(w, tconv_string_intern(w->ctx, p, o));
    w->roots = folded_writer_grow(w->roots, &w->rootcap, (size_t)track + 1, sizeof(*w->roots), 1);
    w->roots[track] = id + 1;
    return id;
}

/* Which value to write: the one the input calls its default (the period of perf samples, the
 * count otherwise); spans arrive as self times, which are converted to -W unit. */
static void folded_writer_mode(folded_writer *w)
{
    size_t n = 0, def = 0;
    const tconv_sample_type *types = tconv_sampletypes_get(w->ctx, &n, &def);
    w->mode_known = 1;
    if (w->gpu) {
        size_t i = 0;
        while (i < n && !(types[i].type && strcmp(types[i].type, "gpu") == 0))
            i++;
        w->no_gpu = i == n;
        w->vindex = i;
        w->span_mode = 1; /* nanoseconds, written in -W unit */
        return;
    }
    if (!types || !n) return;
    w->vindex = def < n ? def : 0;
    const tconv_sample_type *t = &types[w->vindex];
    w->span_mode =
        t->type && t->unit && strcmp(t->type, "wall") == 0 && strcmp(t->unit, "nanoseconds") == 0;
    w->decimals = folded_value_unit_decimals(t->unit);
}

static tconv_status folded_writer_event(void *state, const tconv_event *ev)
{
    folded_writer *w = state;
    if (ev->kind != TCONV_EV_SAMPLE) return TCONV_OK;
    if (!w->mode_known) folded_writer_mode(w);
    int64_t v = w->vindex < ev->nvalues ? ev->values[w->vindex] : 1;
    /* CPU self time carries no GPU time: only the attributed GPU samples have any. */
    if (w->gpu && (w->no_gpu || w->vindex >= ev->nvalues || v <= 0)) return TCONV_OK;
    size_t n = ev->nframes + 1;
    w->key = folded_writer_grow(w->key, &w->keycap, n, sizeof(*w->key), 0);
    uint32_t k = 0;
    if (w->root != FOLDED_ROOT_NONE) w->key[k++] = folded_writer_root(w, ev->track);
    for (uint32_t i = 0; i < ev->nframes; i++)
        w->key[k++] = folded_writer_clean(w, ev->frames[i].name);
    if (!k) return TCONV_OK; /* a sample without any frame has no line to go on */
    if (folded_stacks_add(w->stacks, w->key, k, v) < 0 && !w->overflowed) {
        w->overflowed = 1;
        tconv_warning_add(w->ctx, "folded.overflow",
                          "a stack's summed value does not fit in 64 bits; written saturated");
    }
    return TCONV_OK;
}

/* Bytewise comparison of two stacks as their joined text "a;b;c", without building it. */
typedef struct folded_cursor {
    const folded_writer *w;
    const uint32_t *ids;
    uint32_t n, k;
    const char *s;
    size_t len, pos;
} folded_cursor;

static void folded_cursor_at(folded_cursor *c, uint32_t k)
{
    c->k = k;
    c->pos = 0;
    if (k < c->n) {
        c->s = tconv_string_get(c->w->ctx, c->ids[k]);
        c->len = tconv_string_length(c->w->ctx, c->ids[k]);
    }
}

/* The next byte, or -1 at the end of the stack. */
static int folded_cursor_next(folded_cursor *c)
{
    if (c->k >= c->n) return -1;
    if (c->pos < c->len) return (unsigned char)c->s[c->pos++];
    if (c->k + 1 >= c->n) {
        c->k = c->n;
        return -1;
    }
    folded_cursor_at(c, c->k + 1);
    return ';';
}

static int folded_writer_cmp(const folded_writer *w, uint32_t a, uint32_t b)
{
    uint32_t na, nb;
    int64_t va, vb;
    const uint32_t *ia = folded_stacks_get(w->stacks, a, &na, &va);
    const uint32_t *ib = folded_stacks_get(w->stacks, b, &nb, &vb);
    uint32_t i = 0;
    while (i < na && i < nb && ia[i] == ib[i])
        i++;
    if (i == na && i == nb) return 0;
    folded_cursor ca = {w, ia, na, 0, NULL, 0, 0}, cb = {w, ib, nb, 0, NULL, 0, 0};
    /* the common frames are equal text; the stack that ran out of frames is the prefix */
    if (i == na) return -1;
    if (i == nb) return 1;
    folded_cursor_at(&ca, i);
    folded_cursor_at(&cb, i);
    for (;;) {
        int x = folded_cursor_next(&ca), y = folded_cursor_next(&cb);
        if (x != y) return x < y ? -1 : 1;
        if (x < 0) return 0;
    }
}

static void folded_writer_sort(const folded_writer *w, uint32_t *idx, uint32_t *tmp, size_t n)
{
    /* bottom-up merge sort: stable, no recursion, no global comparator state */
    for (size_t width = 1; width < n; width *= 2) {
        for (size_t lo = 0; lo < n; lo += 2 * width) {
            size_t mid = lo + width < n ? lo + width : n;
            size_t hi = lo + 2 * width < n ? lo + 2 * width : n;
            size_t i = lo, j = mid, o = lo;
            while (i < mid && j < hi)
                tmp[o++] = folded_writer_cmp(w, idx[j], idx[i]) < 0 ? idx[j++] : idx[i++];
            while (i < mid)
                tmp[o++] = idx[i++];
            while (j < hi)
                tmp[o++] = idx[j++];
        }
        memcpy(idx, tmp, n * sizeof(*idx));
    }
}

static tconv_status folded_writer_line(folded_writer *w, const uint32_t *ids, uint32_t n, int64_t v)
{
    /* A time that is 0 in the unit draws nothing and only makes the line count lie. */
    if (w->span_mode) {
        v = folded_value_round_ns(v, w->unit_ns ? 1 : 1000);
        if (v == 0) {
            w->zero_lines++;
            return TCONV_OK;
        }
    }
    size_t need = 64;
    for (uint32_t i = 0; i < n; i++)
        need += tconv_string_length(w->ctx, ids[i]) + 1;
    w->buf = folded_writer_grow(w->buf, &w->bufcap, need, 1, 0);
    char *p = w->buf;
    size_t o = 0;
    for (uint32_t i = 0; i < n; i++) {
        size_t len = tconv_string_length(w->ctx, ids[i]);
        if (i) p[o++] = ';';
        memcpy(p + o, tconv_string_get(w->ctx, ids[i]), len);
        o += len;
    }
    p[o++] = ' ';
    if (w->span_mode)
        o += folded_value_format(p + o, v, 0);
    else
        o += folded_value_format(p + o, v, w->decimals);
    p[o++] = '\n';
    return tconv_output_write(w->out, p, o) < 0 ? TCONV_FATAL : TCONV_OK;
}

static tconv_status folded_writer_finish(void *state)
{
    folded_writer *w = state;
    size_t n = folded_stacks_count(w->stacks);
    if (n > UINT32_MAX) {
        tconv_error_set(w->ctx, "folded: too many distinct stacks (%zu)", n);
        return TCONV_FATAL;
    }
    uint32_t *idx = malloc((n + 1) * sizeof(*idx)), *tmp = malloc((n + 1) * sizeof(*tmp));
    if (!idx || !tmp) folded_oom((n + 1) * sizeof(*idx));
    for (size_t i = 0; i < n; i++)
        idx[i] = (uint32_t)i;
    folded_writer_sort(w, idx, tmp, n);
    free(tmp);
    tconv_status st = TCONV_OK;
    for (size_t i = 0; i < n && st == TCONV_OK; i++) {
        uint32_t k;
        int64_t v;
        const uint32_t *ids = folded_stacks_get(w->stacks, idx[i], &k, &v);
        st = folded_writer_line(w, ids, k, v);
    }
    free(idx);
    if (w->zero_lines)
        tconv_note(w->ctx, "folded: %zu stacks with 0 %s of time left out%s", w->zero_lines,
                   w->unit_ns ? "ns" : "µs", w->unit_ns ? "" : " (-W unit=ns keeps them)");
    return st;
}

static void folded_writer_destroy(void *state)
{
    folded_writer *w = state;
    if (!w) return;
    folded_stacks_free(w->stacks);
    free(w->key);
    free(w->clean);
    free(w->roots);
    free(w->buf);
    free(w);
}

static const tconv_option_desc folded_writer_options[] = {
    {"root", TCONV_OPT_ENUM, "none", "none|comm|comm-pid|comm-pid/tid",
     "add a root frame naming the thread, as stackcollapse-perf does (comm, --pid, --tid); "
     "perf input already has one unless read with -R comm=false"},
    {"unit", TCONV_OPT_ENUM, "ns", "ns|us",
     "unit of every time value, span self time (trace input) and GPU time alike: exact "
     "nanoseconds, or microseconds rounded to nearest per stack; a stack whose time is 0 in "
     "the unit is left out; sample input is written as its counts or periods"},
    {"value", TCONV_OPT_ENUM, "cpu", "cpu|gpu",
     "cpu: self time of spans (or the samples' own value); gpu: only GPU kernels, copies and "
     "sets, each on the CPU stack that launched it, ending in a '[gpu] name' frame"},
    {0},
};

/* Samples carry frames and values only: readers need not build the args of spans. */
static uint32_t folded_writer_needs(const tconv_options *o)
{
    return strcmp(tconv_option_get_string(o, "value"), "gpu") == 0 ? TCONV_NEED_GPU_ATTRIBUTION : 0;
}

const tconv_writer_class folded_writer_class = {
    .struct_size = sizeof(tconv_writer_class),
    .name = "folded",
    .description = "folded stacks for flamegraph.pl/inferno: 'frame;frame value' per stack, "
                   "sorted; the value is in one unit per run: span self times in -W unit, or "
                   "the samples' default type (perf: the period, e.g. cycles or ns; folded: "
                   "counts); inputs whose sample types differ are refused",
    .options = folded_writer_options,
    .accepts = TCONV_KIND_BIT(TCONV_EV_SAMPLE) | TCONV_KIND_BIT(TCONV_EV_METADATA),
    .flags = 0,
    .open = folded_writer_open,
    .event = folded_writer_event,
    .finish = folded_writer_finish,
    .destroy = folded_writer_destroy,
    .extensions = "folded",
    .needs = folded_writer_needs,
};
