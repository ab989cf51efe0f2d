/* Reads `perf script` text one line at a time. A sample is a header line followed by its call
 * chain (leaf first, one frame per line) and a blank line; without a call chain the single frame
 * sits on the header line. Frames are named by the flame-graph rules (perf_names.c) so that the
 * folded writer reproduces stackcollapse-perf.pl and inferno; the raw dso, address and flags
 * stay on each frame for the other writers. */
#include "perf_reader.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "perf_cache.h"
#include "perf_demangle.h"
#include "perf_line.h"
#include "perf_names.h"
#include "perf_oom.h"

typedef struct perf_reader {
    tconv_ctx *ctx;
    tconv_input *in;
    tconv_sink *sink;
    const perf_opts *opt;
    perf_cache *cache;

    /* the event filter */
    char *filter;
    size_t filter_n;
    int filter_set;

    /* sample types, declared at the first sample */
    int types_set;
    int with_period;

    /* the sample being read */
    int in_event, skip;
    uint32_t track;
    int64_t ts;
    uint64_t period;
    int has_period;
    tconv_str pname, event_name;
    int java;
    tconv_frame *frames; /* leaf first */
    size_t nframes, cap;
    tconv_frame *out; /* root first, for pushing */
    size_t outcap;

    /* the thread of the previous header, to skip interning when it repeats */
    char *thread_key;
    size_t thread_key_n, thread_key_cap;
    char *event_key;
    size_t event_key_n, event_key_cap;

    /* naming scratch */
    char *a, *b;
    size_t scratch_cap;

    tconv_str s_thread_name, s_process_name;
    uint64_t line_start; /* input offset of the current line */
} perf_reader;

/* The core's overflow-checked growth (its out-of-memory end is perf_oom's). */
static void *perf_reader_grow(void *p, size_t *cap, size_t need, size_t size)
{
    tconv_array_grow(&p, cap, need, size);
    return p;
}

static void perf_reader_scratch(perf_reader *r, size_t need)
{
    if (need <= r->scratch_cap) return;
    size_t c = r->scratch_cap ? r->scratch_cap : 256;
    while (c < need)
        c *= 2;
    char *a = realloc(r->a, c), *b = a ? realloc(r->b, c) : NULL;
    if (!a || !b) perf_oom(c);
    r->a = a;
    r->b = b;
    r->scratch_cap = c;
}

/* A line that is neither what perf writes nor what it could write: a counted warning naming the
 * line, or with strict the end of the run. */
static tconv_status perf_reader_bad_line(perf_reader *r, const char *kind, const char *what,
                                         const char *line, size_t n)
{
    int cut = n > 120;
    if (r->opt->strict) {
        tconv_error_at(r->ctx, tconv_input_name(r->in), r->line_start, "line %llu: %s: %.*s%s",
                       (unsigned long long)tconv_input_line(r->in), what, (int)(cut ? 120 : n),
                       line, cut ? "..." : "");
        return TCONV_FATAL;
    }
    tconv_warning_add(r->ctx, kind, "%s:%llu: %s: %.*s%s", tconv_input_name(r->in),
                      (unsigned long long)tconv_input_line(r->in), what, (int)(cut ? 120 : n), line,
                      cut ? "..." : "");
    return TCONV_OK;
}

static int perf_reader_is_clock(const char *ev, size_t n)
{
    size_t base = n;
    const char *colon = memchr(ev, ':', n);
    if (colon) base = (size_t)(colon - ev);
    return (base == 9 && memcmp(ev, "cpu-clock", 9) == 0) ||
           (base == 10 && memcmp(ev, "task-clock", 10) == 0);
}

static size_t perf_reader_event_family(const char *ev, size_t n);

static tconv_status perf_reader_declare_types(perf_reader *r, const perf_header *h)
{
    tconv_sample_type types[2] = {{"samples", "count"}, {NULL, NULL}};
    char name[256];
    r->types_set = 1;
    r->with_period = h->has_period;
    if (!h->has_period) {
        tconv_sampletypes_set(r->ctx, 1, types, 0);
        return TCONV_OK;
    }
    if (h->has_event && h->event.n)
        snprintf(name, sizeof(name), "%.*s", (int)perf_reader_event_family(h->event.p, h->event.n),
                 h->event.p);
    else
        snprintf(name, sizeof(name), "period");
    types[1].type = name;
    types[1].unit =
        h->has_event && perf_reader_is_clock(h->event.p, h->event.n) ? "nanoseconds" : "count";
    tconv_sampletypes_set(r->ctx, 2, types, 1);
    return TCONV_OK;
}

/* The event without its modifiers: "cycles:uppp" -> "cycles", "cpu-clock:uhH" -> "cpu-clock",
 * while a tracepoint "sched:sched_switch" stays whole. */
static size_t perf_reader_event_family(const char *ev, size_t n)
{
    const char *colon = memchr(ev, ':', n);
    if (!colon) return n;
    size_t at = (size_t)(colon - ev);
    for (size_t i = at + 1; i < n; i++)
        if (!strchr("ukhIGHpPSDWebR", ev[i]) || ev[i] == 0) return n;
    return at;
}

/* Does the header's event pass the filter? The first event seen becomes the filter unless the
 * user chose one: mixing cycles with instructions would add up unrelated numbers. Modifiers do
 * not make another event ("cycles:u" is "cycles"), as in inferno. */
static int perf_reader_accepts(perf_reader *r, const perf_header *h)
{
    const char *ev = h->has_event ? h->event.p : "";
    size_t n = h->has_event ? h->event.n : 0;
    size_t fam = perf_reader_event_family(ev, n);
    if (r->opt->event) {
        size_t fn = strlen(r->opt->event);
        return (n == fn && memcmp(ev, r->opt->event, n) == 0) ||
               (fam == fn && memcmp(ev, r->opt->event, fn) == 0);
    }
    if (!r->filter_set) {
        r->filter = malloc(fam + 1);
        if (!r->filter) perf_oom(fam + 1);
        if (fam) memcpy(r->filter, ev, fam);
        r->filter[fam] = 0;
        r->filter_n = fam;
        r->filter_set = 1;
        return 1;
    }
    return fam == r->filter_n && memcmp(ev, r->filter, fam) == 0;
}

static tconv_status perf_reader_metadata(perf_reader *r, tconv_str what, tconv_str text)
{
    tconv_event ev = TCONV_EVENT_INIT;
    ev.kind = TCONV_EV_METADATA;
    ev.track = r->track;
    ev.name = what;
    ev.text = text;
    return tconv_sink_push(r->sink, &ev);
}

/* Absent fields are empty spans with a NULL pointer, which memcpy and memcmp must not see. */
static int perf_reader_same(const char *a, const perf_span *b)
{
    return b->n == 0 || memcmp(a, b->p, b->n) == 0;
}

static void perf_reader_copy(char *dst, const perf_span *src)
{
    if (src->n) memcpy(dst, src->p, src->n);
}

static tconv_str perf_reader_intern(perf_reader *r, const perf_span *s)
{
    return tconv_string_intern(r->ctx, s->n ? s->p : "", s->n);
}

/* Track, root frame name and thread metadata for the header's thread, recomputed only when
 * comm, pid or tid differ from the previous header. */
static tconv_status perf_reader_thread(perf_reader *r, const perf_header *h)
{
    size_t kn = h->comm.n + h->pid.n + h->tid.n + 2;
    if (kn == r->thread_key_n && perf_reader_same(r->thread_key, &h->comm) &&
        r->thread_key[h->comm.n] == 0 && perf_reader_same(r->thread_key + h->comm.n + 1, &h->pid) &&
        r->thread_key[h->comm.n + 1 + h->pid.n] == 0 &&
        perf_reader_same(r->thread_key + h->comm.n + 2 + h->pid.n, &h->tid))
        return TCONV_OK;
    r->thread_key = perf_reader_grow(r->thread_key, &r->thread_key_cap, kn, 1);
    char *k = r->thread_key;
    perf_reader_copy(k, &h->comm);
    k[h->comm.n] = 0;
    perf_reader_copy(k + h->comm.n + 1, &h->pid);
    k[h->comm.n + 1 + h->pid.n] = 0;
    perf_reader_copy(k + h->comm.n + 2 + h->pid.n, &h->tid);
    r->thread_key_n = kn;

    tconv_ctx *ctx = r->ctx;
    tconv_str comm = perf_reader_intern(r, &h->comm);
    tconv_str pid = perf_reader_intern(r, &h->pid);
    tconv_str tid = perf_reader_intern(r, &h->tid);
    r->track = tconv_track_get(ctx, pid, tid);

    /* The root frame as stackcollapse-perf names it: spaces become '_' and an unknown pid
     * reads "?". */
    size_t cap = h->comm.n + h->pid.n + h->tid.n + 8;
    perf_reader_scratch(r, cap);
    char *p = r->a;
    size_t o = 0;
    for (size_t i = 0; i < h->comm.n; i++)
        p[o++] = h->comm.p[i] == ' ' ? '_' : h->comm.p[i];
    if (r->opt->pid || r->opt->tid) {
        p[o++] = '-';
        if (h->pid.n) {
            perf_reader_copy(p + o, &h->pid);
            o += h->pid.n;
        } else {
            p[o++] = '?';
        }
        if (r->opt->tid) {
            p[o++] = '/';
            perf_reader_copy(p + o, &h->tid);
            o += h->tid.n;
        }
    }
    r->pname = tconv_string_intern(ctx, p, o);
    /* Java symbols are tidied for any process whose root frame starts with "java", as in
     * inferno and stackcollapse-perf.pl since 2019 ("java-1234" included). */
    r->java = o >= 4 && memcmp(p, "java", 4) == 0;

    const tconv_track *t = tconv_track_describe(ctx, r->track);
    tconv_status st = TCONV_OK;
    if (h->comm.n && t && t->thread_name != comm)
        st = perf_reader_metadata(r, r->s_thread_name, comm);
    if (st == TCONV_OK && h->comm.n && h->pid.n && h->pid.n == h->tid.n &&
        memcmp(h->pid.p, h->tid.p, h->pid.n) == 0) {
        t = tconv_track_describe(ctx, r->track);
        if (t && t->process_name != comm) st = perf_reader_metadata(r, r->s_process_name, comm);
    }
    return st == TCONV_FATAL ? TCONV_FATAL : TCONV_OK;
}

static void perf_reader_event_name(perf_reader *r, const perf_header *h)
{
    perf_span ev = h->has_event ? h->event : (perf_span){NULL, 0};
    if (r->event_key && ev.n == r->event_key_n && perf_reader_same(r->event_key, &ev)) return;
    r->event_key = perf_reader_grow(r->event_key, &r->event_key_cap, ev.n + 1, 1);
    perf_reader_copy(r->event_key, &ev);
    r->event_key_n = ev.n;
    r->event_name = perf_reader_intern(r, &ev);
}

/* Append name bytes to the b scratch buffer at *o. */
static void perf_reader_put(perf_reader *r, size_t *o, const char *s, size_t n)
{
    perf_reader_scratch(r, *o + n + 1);
    memcpy(r->b + *o, s, n);
    *o += n;
}

/* Resolve one call-chain line into frames (root first). Returns the count; *uses_pc is set when
 * the names depend on the address, which makes the result unfit for the cache. */
static uint32_t perf_reader_resolve(perf_reader *r, const perf_frame_line *f, tconv_frame *outf,
                                    uint32_t max, int *uses_pc)
{
    const perf_opts *opt = r->opt;
    const char *sym = f->sym.p;
    size_t symn = f->sym.n;
    const char *dso = f->has_dso ? f->dso.p : "[unknown]";
    size_t dson = f->has_dso ? f->dso.n : 9;
    if (!symn) {
        /* "addr  (dso)" keeps a blank name, as both reference tools do; "addr" alone (-F ip) is
         * an unknown symbol. */
        sym = f->has_dso ? " " : "[unknown]";
        symn = f->has_dso ? 1 : 9;
    }
    symn = perf_names_strip_offset(sym, symn);
    if (symn && sym[0] == '(') return 0; /* a process name, not a function */
    int is_inlined = f->has_dso && dson == 7 && memcmp(dso, "inlined", 7) == 0;
    if (is_inlined && opt->inlined == PERF_INLINE_DROP) return 0;

    char *demangled = r->opt->demangle ? perf_demangle(sym, symn) : NULL;
    if (demangled) {
        sym = demangled;
        symn = strlen(demangled);
    }
    perf_reader_scratch(r, 2 * (symn + dson + f->pc.n) + 64);
    size_t fixed = perf_names_fix_rust(sym, symn, r->a, r->scratch_cap);
    if (fixed) {
        sym = r->a;
        symn = fixed;
    }
    int kernel = perf_names_is_kernel(dso, dson);
    int jit = perf_names_is_jit(dso, dson);
    tconv_str module = is_inlined || !f->has_dso ? 0 : tconv_string_intern(r->ctx, dso, dson);

    /* Java inlining as perf-map-agent writes it: "outer->inlined->more". */
    uint32_t count = 0;
    size_t start = 0;
    for (size_t part = 0;; part++) {
        size_t end = start;
        while (end < symn && !(sym[end] == '-' && end + 1 < symn && sym[end + 1] == '>'))
            end++;
        const char *ps = sym + start;
        size_t pn = end - start;
        size_t o = 0;
        if (pn == 9 && memcmp(ps, "[unknown]", 9) == 0) {
            perf_reader_scratch(r, dson + f->pc.n + 16);
            o = perf_names_unknown(dso, dson, f->pc.p, f->pc.n, opt->addrs, r->b, r->scratch_cap);
            if (opt->addrs) *uses_pc = 1;
        } else {
            perf_reader_put(r, &o, ps, pn);
        }
        o = perf_names_tidy_generic(r->b, o);
        if (r->java) o = perf_names_tidy_java(r->b, o);
        uint32_t flags = 0;
        if (kernel) flags |= TCONV_FRAME_KERNEL;
        if (jit) flags |= TCONV_FRAME_JIT;
        if (part > 0 || is_inlined) flags |= TCONV_FRAME_INLINED;
        if (part > 0 || (is_inlined && opt->inlined == PERF_INLINE_MARK)) {
            if (!perf_names_contains(r->b, o, "_[i]")) perf_reader_put(r, &o, "_[i]", 4);
        } else if (opt->kernel && kernel) {
            perf_reader_put(r, &o, "_[k]", 4);
        } else if (opt->jit && jit && !perf_names_contains(r->b, o, "_[j]")) {
            perf_reader_put(r, &o, "_[j]", 4);
        }
        if (count < max) {
            outf[count] = (tconv_frame){
                .name = tconv_string_intern(r->ctx, r->b, o), .module = module, .flags = flags};
            count++;
        }
        if (end >= symn) break;
        start = end + 2;
    }
    free(demangled);
    return count;
}

static void perf_reader_add_frames(perf_reader *r, const tconv_frame *fr, uint32_t n, uint64_t addr)
{
    r->frames = perf_reader_grow(r->frames, &r->cap, r->nframes + n, sizeof(*r->frames));
    /* leaf first: the line's innermost part goes first */
    for (uint32_t i = n; i > 0; i--) {
        tconv_frame f = fr[i - 1];
        f.addr = addr;
        r->frames[r->nframes++] = f;
    }
}

/* A call-chain line whose address has been read (perf_line_frame_head). Returns 0 if the rest
 * of the line is not a frame. The text after the address is looked up first: a line seen before
 * needs no parsing beyond its address. */
static int perf_reader_frame(perf_reader *r, perf_frame_line *f)
{
    enum { MAXPARTS = 256 };
    tconv_frame parts[MAXPARTS];
    perf_cache_hit hit;
    uint64_t h = perf_cache_hash(f->text.p, f->text.n, (uint32_t)r->java);
    if (perf_cache_find(r->cache, f->text.p, f->text.n, h, &hit)) {
        if (!r->skip) perf_reader_add_frames(r, hit.frames, hit.nframes, f->addr);
        return 1;
    }
    if (!perf_line_frame_body(f)) return 0;
    if (r->skip) return 1;
    int uses_pc = 0;
    uint32_t n = perf_reader_resolve(r, f, parts, MAXPARTS, &uses_pc);
    if (!uses_pc) perf_cache_put(r->cache, f->text.p, f->text.n, h, parts, n);
    perf_reader_add_frames(r, parts, n, f->addr);
    return 1;
}

static void perf_reader_srcline(perf_reader *r, perf_span file, uint32_t line)
{
    if (r->skip || !r->nframes) return;
    tconv_frame *f = &r->frames[r->nframes - 1];
    if (file.n == 2 && memcmp(file.p, "??", 2) == 0) return;
    f->file = tconv_string_intern(r->ctx, file.p, file.n);
    f->line = line;
}

static tconv_status perf_reader_finish_sample(perf_reader *r)
{
    tconv_status st = TCONV_OK;
    if (r->in_event && !r->skip && r->nframes) {
        size_t n = r->nframes + (r->opt->comm ? 1 : 0);
        r->out = perf_reader_grow(r->out, &r->outcap, n, sizeof(*r->out));
        size_t o = 0;
        if (r->opt->comm) r->out[o++] = (tconv_frame){.name = r->pname};
        tconv_str module = 0;
        for (size_t i = r->nframes; i > 0; i--) {
            tconv_frame f = r->frames[i - 1];
            /* an "(inlined)" frame lives in the dso of the caller it was inlined into */
            if (f.module)
                module = f.module;
            else if (f.flags & TCONV_FRAME_INLINED)
                f.module = module;
            r->out[o++] = f;
        }
        int64_t values[2] = {1, r->has_period ? (int64_t)r->period : 1};
        tconv_event ev = TCONV_EVENT_INIT;
        ev.kind = TCONV_EV_SAMPLE;
        ev.track = r->track;
        ev.ts = r->ts;
        ev.name = r->event_name;
        ev.frames = r->out;
        ev.nframes = (uint32_t)o;
        ev.values = values;
        ev.nvalues = r->with_period ? 2 : 1;
        st = tconv_sink_push(r->sink, &ev);
    }
    r->in_event = 0;
    r->skip = 0;
    r->nframes = 0;
    return st == TCONV_FATAL ? TCONV_FATAL : TCONV_OK;
}

static tconv_status perf_reader_header(perf_reader *r, const perf_header *h)
{
    r->in_event = 1;
    r->nframes = 0;
    if (!perf_reader_accepts(r, h)) {
        r->skip = 1;
        tconv_warning_add(r->ctx, "perf.other-event",
                          "samples of event '%.*s' skipped: only '%s' is read (choose with -R "
                          "event=NAME)",
                          (int)(h->has_event ? h->event.n : 0), h->has_event ? h->event.p : "",
                          r->opt->event ? r->opt->event : r->filter);
        return TCONV_OK;
    }
    r->skip = 0;
    if (!r->types_set && perf_reader_declare_types(r, h) != TCONV_OK) return TCONV_FATAL;
    if (perf_reader_thread(r, h) != TCONV_OK) return TCONV_FATAL;
    perf_reader_event_name(r, h);
    r->ts = h->has_time ? h->time_ns : 0;
    r->has_period = h->has_period;
    r->period = h->period;
    if (h->rest.n) {
        /* no call chain: the sample's only frame follows the event on the same line */
        perf_frame_line f;
        if (perf_line_frame(h->rest.p, h->rest.n, &f) && f.has_dso) {
            perf_reader_frame(r, &f);
            return perf_reader_finish_sample(r);
        }
    }
    return TCONV_OK;
}

static int perf_reader_ws(char c)
{
    return c == ' ' || c == '\t';
}

static tconv_status perf_reader_loop(perf_reader *r)
{
    size_t len;
    const char *line;
    perf_header h;
    perf_frame_line f;
    for (;;) {
        r->line_start = tconv_input_offset(r->in);
        if (!(line = tconv_input_getline(r->in, &len))) break;
        if (len && line[0] == '#') continue;
        size_t n = perf_line_trim_end(line, len);
        if (!n) {
            if (perf_reader_finish_sample(r) != TCONV_OK) return TCONV_FATAL;
            continue;
        }
        if (r->in_event) {
            /* perf indents call-chain lines; an unindented header right after a call chain,
             * without the blank line between, ends the previous sample rather than being
             * swallowed by it. */
            if (!perf_reader_ws(line[0]) && perf_line_header(line, n, &h)) {
                if (perf_reader_finish_sample(r) != TCONV_OK) return TCONV_FATAL;
                if (perf_reader_header(r, &h) != TCONV_OK) return TCONV_FATAL;
                continue;
            }
            if (perf_line_frame_head(line, n, &f) && perf_reader_frame(r, &f)) continue;
            perf_span file;
            uint32_t lineno;
            if (r->nframes && perf_line_srcline(line, n, &file, &lineno)) {
                perf_reader_srcline(r, file, lineno);
                continue;
            }
            if (!r->skip && perf_reader_bad_line(r, "perf.weird-stack-line",
                                                 "not a call-chain frame", line, n) != TCONV_OK)
                return TCONV_FATAL;
            continue;
        }
        if (!perf_line_header(line, n, &h)) {
            if (perf_reader_bad_line(r, "perf.weird-event-line", "not a sample header", line, n) !=
                TCONV_OK)
                return TCONV_FATAL;
            continue;
        }
        if (perf_reader_header(r, &h) != TCONV_OK) return TCONV_FATAL;
    }
    if (tconv_error_pending(r->ctx)) return TCONV_FATAL;
    /* The last sample counts even without a blank line after it (stackcollapse-perf.pl drops
     * it; inferno keeps it). */
    return perf_reader_finish_sample(r);
}

/* "PERFILE2": the binary file perf record writes, which only perf itself can decode. */
static int perf_reader_is_data(const unsigned char *buf, size_t len)
{
    return len >= 8 && memcmp(buf, "PERFILE2", 8) == 0;
}

tconv_status perf_reader_run(tconv_ctx *ctx, tconv_input *in, const perf_opts *opts,
                             tconv_sink *sink)
{
    size_t hlen;
    const unsigned char *head = tconv_input_peek(in, &hlen);
    if (perf_reader_is_data(head, hlen)) {
        const char *name = tconv_input_name(in);
        tconv_error_set(ctx,
                        "%s: this is a binary perf.data; run `perf script -i %s > %s.txt` first "
                        "and convert the text",
                        name, name, name);
        return TCONV_FATAL;
    }
    perf_reader r;
    memset(&r, 0, sizeof(r));
    r.ctx = ctx;
    r.in = in;
    r.sink = sink;
    r.opt = opts;
    r.cache = perf_cache_new();
    r.s_thread_name = tconv_string_intern_cstr(ctx, "thread_name");
    r.s_process_name = tconv_string_intern_cstr(ctx, "process_name");
    tconv_status st = perf_reader_loop(&r);
    perf_cache_free(r.cache);
    free(r.filter);
    free(r.frames);
    free(r.out);
    free(r.thread_key);
    free(r.event_key);
    free(r.a);
    free(r.b);
    return st;
}

int perf_reader_probe(const unsigned char *buf, size_t len)
{
    /* Like inferno's guess: the first line that is not a comment must be a sample header, and
     * a header followed by a call-chain frame settles it. */
    /* Claimed, so that the reader can say how to turn it into text. */
    if (perf_reader_is_data(buf, len)) return 60;
    const char *s = (const char *)buf;
    size_t i = 0;
    int headers = 0, lines = 0, comments = 0, in_event = 0;
    while (i < len && lines < 64) {
        const char *nl = memchr(s + i, '\n', len - i);
        if (!nl) break; /* the last line may be cut short */
        size_t n = (size_t)(nl - (s + i));
        const char *line = s + i;
        i += n + 1;
        lines++;
        if (n && line[0] == '#') {
            comments++;
            continue;
        }
        size_t t = perf_line_trim_end(line, n);
        if (!t) {
            in_event = 0;
            continue;
        }
        perf_header h;
        perf_frame_line f;
        if (in_event) return perf_line_frame(line, t, &f) && f.has_dso ? 90 : 0;
        if (!perf_line_header(line, t, &h) || !(h.has_event || h.has_time)) return 0;
        if (h.rest.n && perf_line_frame(h.rest.p, h.rest.n, &f) && f.has_dso) return 90;
        headers++;
        in_event = 1;
    }
    if (headers) return 40;
    if (comments && lines == comments) return 10;
    return 0;
}
