/* The Chrome Trace Event writer: every event of the model as one or more JSON trace events, in
 * the order they come.
 *
 * It is a direct writer, not an ordered one (TCONV_WRITER_ORDERED): the ordering stage holds the
 * whole stream until the last input is read, 22 bytes per event plus a full copy of every event
 * with args (all of a Kineto trace's), while Chrome's format needs no order at all (viewers sort
 * by time and nest X events themselves) and B/E pairs are matched per thread by whoever reads
 * them. Written as they come, events cost nothing once written: memory is the output buffer, a
 * few words per track, the open spans of each GPU stream's lanes and one stack sample per track.
 * The bytes follow from the input's bytes alone, so the output is deterministic, and a Chrome
 * trace written back reads as the same events in the same order.
 *
 * GPU streams get lanes here, as the ordering stage gives them: an X event on a GPU track that
 * would outlive the span enclosing it goes to the first lane where it nests, written as its own
 * tid "<tid> #2" named "<stream name> #2", since viewers clip or drop slices that do not nest.
 * The lanes are decided as the events come, which is the ordering stage's answer when a stream's
 * kernels come in time order, as profilers write them.
 *
 * Stack samples become nested B/E slices, one per frame, from the sample's time to the next
 * sample's on the same thread: Perfetto and chrome://tracing draw them as a flame chart over
 * time, and speedscope reads them as a profile. The format's own sample form (P events with a
 * "stackFrames" dictionary) is not drawn by Perfetto's JSON import, and speedscope, given a
 * top-level "samples", shows those samples and nothing else of the trace. */
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "chrome_writer.h"

static int chrome_w_reserve(void **p, size_t *cap, size_t need, size_t size)
{
    if (need <= *cap) return 0;
    size_t n = *cap ? *cap : 8;
    while (n < need)
        n *= 2;
    void *q = realloc(*p, n * size);
    if (!q) return -1;
    *p = q;
    *cap = n;
    return 0;
}

static tconv_status chrome_w_oom(chrome_writer *w)
{
    tconv_error_set(w->ctx, "chrome: out of memory");
    return TCONV_FATAL;
}

static chrome_wtrack *chrome_w_track(chrome_writer *w, uint32_t track)
{
    if (track >= w->ntracks) {
        uint32_t n = w->ntracks ? w->ntracks : 16;
        while (n <= track)
            n *= 2;
        chrome_wtrack *t = realloc(w->tracks, (size_t)n * sizeof *t);
        if (!t) return NULL;
        memset(t + w->ntracks, 0, (size_t)(n - w->ntracks) * sizeof *t);
        w->tracks = t;
        w->ntracks = n;
    }
    return &w->tracks[track];
}

static const char *chrome_w_text(chrome_writer *w, tconv_str s, size_t *n)
{
    *n = tconv_string_length(w->ctx, s);
    return tconv_string_get(w->ctx, s);
}

/* Starts an event: separator, ph, and the pid and tid the producer wrote. lane > 0 names the
 * lane's tid. */
static void chrome_w_start(chrome_writer *w, const char *ph, uint32_t track, uint32_t lane)
{
    chrome_wbuf *b = w->b;
    if (!w->events_open) {
        chrome_wbuf_cstr(b, w->members ? ",\n\"traceEvents\":[" : "\"traceEvents\":[");
        w->events_open = 1;
        w->members++;
    }
    chrome_wbuf_cstr(b, w->events++ ? ",\n{\"ph\":\"" : "\n{\"ph\":\"");
    chrome_wbuf_cstr(b, ph);
    chrome_wbuf_putc(b, '"');
    const tconv_track *t = tconv_track_describe(w->ctx, track);
    if (!t) return;
    size_t n, tn;
    const char *s = chrome_w_text(w, t->pid, &n);
    chrome_w_text(w, t->tid, &tn);
    if (n) {
        chrome_wbuf_cstr(b, ",\"pid\":");
        chrome_wbuf_id_text(b, s, n);
    } else if (tn || lane) {
        /* A thread of no known process (perf script without pids): viewers group threads by
         * pid, and speedscope cannot place a thread without one. */
        chrome_wbuf_cstr(b, ",\"pid\":0");
    }
    s = chrome_w_text(w, t->tid, &n);
    if (lane) {
        char sfx[24];
        int k = snprintf(sfx, sizeof sfx, " #%" PRIu32, lane + 1);
        if (chrome_w_reserve((void **)&w->tmp, &w->tmp_cap, n + (size_t)k, 1) == 0) {
            memcpy(w->tmp, s, n);
            memcpy(w->tmp + n, sfx, (size_t)k);
            chrome_wbuf_cstr(b, ",\"tid\":");
            chrome_wbuf_string(b, w->tmp, n + (size_t)k);
        }
    } else if (n) {
        chrome_wbuf_cstr(b, ",\"tid\":");
        chrome_wbuf_id_text(b, s, n);
    }
}

static void chrome_w_member_str(chrome_writer *w, const char *key, tconv_str s)
{
    chrome_wbuf_cstr(w->b, key);
    chrome_wbuf_str(w->b, s);
}

static void chrome_w_name_cat(chrome_writer *w, const tconv_event *ev)
{
    if (ev->name) chrome_w_member_str(w, ",\"name\":", ev->name);
    if (ev->cat) chrome_w_member_str(w, ",\"cat\":", ev->cat);
}

static void chrome_w_ts(chrome_writer *w, int64_t ts)
{
    chrome_wbuf_cstr(w->b, ",\"ts\":");
    chrome_wbuf_us(w->b, ts);
}

static void chrome_w_arg_value(chrome_writer *w, const tconv_arg *a)
{
    chrome_wbuf *b = w->b;
    switch (a->type) {
    case TCONV_ARG_BOOL:
        chrome_wbuf_cstr(b, a->v.i ? "true" : "false");
        break;
    case TCONV_ARG_INT:
        chrome_wbuf_i64(b, a->v.i);
        break;
    case TCONV_ARG_UINT:
        chrome_wbuf_u64(b, a->v.u);
        break;
    case TCONV_ARG_DOUBLE:
        chrome_wbuf_double(b, a->v.d);
        break;
    case TCONV_ARG_STRING:
        chrome_wbuf_str(b, a->v.s);
        break;
    case TCONV_ARG_JSON: {
        /* Compact JSON text of an object or array, as the model promises; anything else is
         * kept as a string rather than breaking the document. */
        size_t n;
        const char *s = chrome_w_text(w, a->v.s, &n);
        if (n && (s[0] == '{' || s[0] == '['))
            chrome_wbuf_put(b, s, n);
        else
            chrome_wbuf_string(b, s, n);
        break;
    }
    default:
        chrome_wbuf_cstr(b, "null");
    }
}

static void chrome_w_args(chrome_writer *w, const tconv_arg *args, uint32_t nargs)
{
    if (!nargs) return;
    chrome_wbuf_cstr(w->b, ",\"args\":{");
    for (uint32_t i = 0; i < nargs; i++) {
        if (i) chrome_wbuf_putc(w->b, ',');
        chrome_wbuf_str(w->b, args[i].key);
        chrome_wbuf_putc(w->b, ':');
        chrome_w_arg_value(w, &args[i]);
    }
    chrome_wbuf_putc(w->b, '}');
}

static void chrome_w_end(chrome_writer *w)
{
    chrome_wbuf_putc(w->b, '}');
}

/* ---- lanes ------------------------------------------------------------------------------- */

/* The lane where [ts, end] nests, opened when none does. */
static int chrome_w_lane(chrome_writer *w, chrome_wtrack *t, int64_t ts, int64_t end,
                         uint32_t *lane)
{
    for (uint32_t k = 0;; k++) {
        if (k == t->nlanes) {
            chrome_lane *l = realloc(t->lanes, (size_t)(k + 1) * sizeof *l);
            if (!l) return -1;
            memset(&l[k], 0, sizeof l[k]);
            t->lanes = l;
            t->nlanes = k + 1;
        }
        chrome_lane *l = &t->lanes[k];
        while (l->n && l->ends[l->n - 1] <= ts)
            l->n--;
        if (l->n && end > l->ends[l->n - 1]) continue;
        if (chrome_w_reserve((void **)&l->ends, &l->cap, l->n + 1, sizeof *l->ends)) return -1;
        l->ends[l->n++] = end;
        *lane = k;
        (void)w;
        return 0;
    }
}

/* The lane's name, written at the end when the stream's name is known (Kineto names threads
 * after their events): with " #N", as the ordering stage names lanes. */
static void chrome_w_lane_name(chrome_writer *w, uint32_t track, chrome_wtrack *t, uint32_t lane)
{
    if (!lane || t->lanes[lane].named) return;
    t->lanes[lane].named = 1;
    const tconv_track *tr = tconv_track_describe(w->ctx, track);
    size_t n;
    const char *s = chrome_w_text(w, tr->thread_name ? tr->thread_name : tr->tid, &n);
    char sfx[24];
    int k = snprintf(sfx, sizeof sfx, " #%" PRIu32, lane + 1);
    chrome_w_start(w, "M", track, lane);
    chrome_wbuf_cstr(w->b, ",\"name\":\"thread_name\",\"args\":{\"name\":");
    if (chrome_w_reserve((void **)&w->tmp, &w->tmp_cap, n + (size_t)k, 1) == 0) {
        memcpy(w->tmp, s, n);
        memcpy(w->tmp + n, sfx, (size_t)k);
        chrome_wbuf_string(w->b, w->tmp, n + (size_t)k);
    } else {
        chrome_wbuf_cstr(w->b, "\"\"");
    }
    chrome_wbuf_cstr(w->b, "}}");
}

/* ---- kinds ------------------------------------------------------------------------------- */

/* An async span's id, from the track the Chrome reader made for it ("async:cat[:local|:global]:
 * id"), so that reading it back makes the same track; other producers' async tracks keep their
 * tid as the id. */
static void chrome_w_async_id(chrome_writer *w, const tconv_event *ev)
{
    const tconv_track *t = tconv_track_describe(w->ctx, ev->track);
    size_t n, cn;
    const char *s = chrome_w_text(w, t->tid, &n);
    const char *cat = chrome_w_text(w, ev->cat, &cn);
    if (n > 7 + cn && memcmp(s, "async:", 6) == 0 && memcmp(s + 6, cat, cn) == 0 &&
        s[6 + cn] == ':') {
        s += 7 + cn;
        n -= 7 + cn;
        if (n > 6 && memcmp(s, "local:", 6) == 0) {
            chrome_wbuf_cstr(w->b, ",\"id2\":{\"local\":");
            chrome_wbuf_string(w->b, s + 6, n - 6);
            chrome_wbuf_putc(w->b, '}');
            return;
        }
        if (n > 7 && memcmp(s, "global:", 7) == 0) {
            chrome_wbuf_cstr(w->b, ",\"id2\":{\"global\":");
            chrome_wbuf_string(w->b, s + 7, n - 7);
            chrome_wbuf_putc(w->b, '}');
            return;
        }
    }
    chrome_wbuf_cstr(w->b, ",\"id\":");
    chrome_wbuf_string(w->b, s, n);
}

static int chrome_w_is_async(chrome_writer *w, const tconv_event *ev)
{
    const tconv_track *t = tconv_track_describe(w->ctx, ev->track);
    return (ev->flags & TCONV_EVF_ASYNC) && t && t->kind == TCONV_TRACK_ASYNC;
}

static tconv_status chrome_w_span(chrome_writer *w, const tconv_event *ev)
{
    int async = chrome_w_is_async(w, ev);
    uint32_t lane = 0;
    if (ev->kind == TCONV_EV_COMPLETE && w->lanes) {
        const tconv_track *tr = tconv_track_describe(w->ctx, ev->track);
        if (tr && tr->kind == TCONV_TRACK_GPU) {
            chrome_wtrack *t = chrome_w_track(w, ev->track);
            int64_t dur = ev->dur > 0 ? ev->dur : 0;
            if (!t || chrome_w_lane(w, t, ev->ts, ev->ts + dur, &lane)) return chrome_w_oom(w);
        }
    }
    const char *ph = ev->kind == TCONV_EV_COMPLETE ? "X"
                     : ev->kind == TCONV_EV_BEGIN  ? (async ? "b" : "B")
                                                   : (async ? "e" : "E");
    tconv_str end_name = 0;
    if (!async && ev->kind != TCONV_EV_COMPLETE) {
        chrome_wtrack *t = chrome_w_track(w, ev->track);
        if (!t) return chrome_w_oom(w);
        if (ev->kind == TCONV_EV_BEGIN) {
            if (chrome_w_reserve((void **)&t->open, &t->open_cap, t->nopen + 1, sizeof *t->open))
                return chrome_w_oom(w);
            t->open[t->nopen++] = ev->name;
        } else if (t->nopen) {
            end_name = t->open[--t->nopen];
        }
    }
    chrome_w_start(w, ph, ev->track, lane);
    if (!ev->name && end_name) chrome_w_member_str(w, ",\"name\":", end_name);
    chrome_w_name_cat(w, ev);
    chrome_w_ts(w, ev->ts);
    if (ev->kind == TCONV_EV_COMPLETE) {
        chrome_wbuf_cstr(w->b, ",\"dur\":");
        chrome_wbuf_us(w->b, ev->dur > 0 ? ev->dur : 0);
    }
    if (async) chrome_w_async_id(w, ev);
    chrome_w_args(w, ev->args, ev->nargs);
    chrome_w_end(w);
    return TCONV_OK;
}

static tconv_status chrome_w_instant(chrome_writer *w, const tconv_event *ev)
{
    int async = chrome_w_is_async(w, ev);
    chrome_w_start(w, async ? "n" : "i", ev->track, 0);
    chrome_w_name_cat(w, ev);
    chrome_w_ts(w, ev->ts);
    if (async)
        chrome_w_async_id(w, ev);
    else
        chrome_wbuf_cstr(w->b, ev->flags & TCONV_EVF_SCOPE_GLOBAL    ? ",\"s\":\"g\""
                               : ev->flags & TCONV_EVF_SCOPE_PROCESS ? ",\"s\":\"p\""
                                                                     : ",\"s\":\"t\"");
    chrome_w_args(w, ev->args, ev->nargs);
    chrome_w_end(w);
    if (ev->name == w->s_memory_instant) {
        w->memory_open = 1;
        w->memory_ts = ev->ts;
    }
    return TCONV_OK;
}

/* Counter values are mostly counts: written as integers when they are, as the input had them. */
static void chrome_w_counter_value(chrome_writer *w, double v)
{
    if (v == (double)(int64_t)v && v > -9007199254740992.0 && v < 9007199254740992.0 &&
        !(v == 0 && signbit(v)))
        chrome_wbuf_i64(w->b, (int64_t)v);
    else
        chrome_wbuf_double(w->b, v);
}

static tconv_status chrome_w_counter(chrome_writer *w, const tconv_event *ev)
{
    if (w->memory_open && ev->ts == w->memory_ts && ev->cat == w->s_memory &&
        ev->unit == w->s_bytes && (ev->name == w->s_allocated || ev->name == w->s_reserved))
        return TCONV_OK;
    size_t n, un;
    const char *name = chrome_w_text(w, ev->name, &n);
    const char *unit = chrome_w_text(w, ev->unit, &un);
    chrome_w_start(w, "C", ev->track, 0);
    /* A counter with an id reads back as "name[id]" with that id: write the name without it. */
    if (ev->id && n > 2 && name[n - 1] == ']') {
        size_t open = n - 1;
        while (open > 0 && name[open] != '[')
            open--;
        if (name[open] == '[' && open > 0) {
            chrome_wbuf_cstr(w->b, ",\"name\":");
            chrome_wbuf_string(w->b, name, open);
            chrome_wbuf_cstr(w->b, ",\"id\":");
            chrome_wbuf_string(w->b, name + open + 1, n - open - 2);
            goto named;
        }
    }
    /* Chrome counters have no unit: it goes in the name, which viewers show. */
    if (un) {
        if (chrome_w_reserve((void **)&w->tmp, &w->tmp_cap, n + un + 3, 1)) return chrome_w_oom(w);
        memcpy(w->tmp, name, n);
        memcpy(w->tmp + n, " (", 2);
        memcpy(w->tmp + n + 2, unit, un);
        w->tmp[n + 2 + un] = ')';
        chrome_wbuf_cstr(w->b, ",\"name\":");
        chrome_wbuf_string(w->b, w->tmp, n + un + 3);
    } else {
        chrome_wbuf_cstr(w->b, ",\"name\":");
        chrome_wbuf_string(w->b, name, n);
    }
named:
    if (ev->cat) chrome_w_member_str(w, ",\"cat\":", ev->cat);
    chrome_w_ts(w, ev->ts);
    chrome_wbuf_cstr(w->b, ",\"args\":{");
    chrome_wbuf_str(w->b, ev->key);
    chrome_wbuf_putc(w->b, ':');
    chrome_w_counter_value(w, ev->value);
    chrome_wbuf_putc(w->b, '}');
    chrome_w_end(w);
    return TCONV_OK;
}

/* The arg that holds the flow's id as the producer wrote it (the Chrome reader's "id",
 * "id2.local" or "id2.global"), or -1. */
static int chrome_w_flow_id_arg(const chrome_writer *w, const tconv_event *ev)
{
    for (uint32_t i = 0; i < ev->nargs; i++) {
        const tconv_arg *a = &ev->args[i];
        if ((a->key == w->s_id || a->key == w->s_id2_local || a->key == w->s_id2_global) &&
            (a->type == TCONV_ARG_INT || a->type == TCONV_ARG_UINT || a->type == TCONV_ARG_STRING))
            return (int)i;
    }
    return -1;
}

/* A flow keeps the producer's id when it came with one (a Kineto flow id is the correlation id
 * users join on); else the reader's hash of (category, name, id) says which events belong
 * together. */
static tconv_status chrome_w_flow(chrome_writer *w, const tconv_event *ev)
{
    const char *ph = ev->kind == TCONV_EV_FLOW_START  ? "s"
                     : ev->kind == TCONV_EV_FLOW_STEP ? "t"
                                                      : "f";
    chrome_w_start(w, ph, ev->track, 0);
    chrome_w_name_cat(w, ev);
    chrome_w_ts(w, ev->ts);
    int k = chrome_w_flow_id_arg(w, ev);
    if (k >= 0) {
        const tconv_arg *a = &ev->args[k];
        chrome_wbuf_cstr(w->b, a->key == w->s_id          ? ",\"id\":"
                               : a->key == w->s_id2_local ? ",\"id2\":{\"local\":"
                                                          : ",\"id2\":{\"global\":");
        chrome_w_arg_value(w, a);
        if (a->key != w->s_id) chrome_wbuf_putc(w->b, '}');
    } else {
        char id[24];
        snprintf(id, sizeof id, "0x%" PRIx64, ev->id);
        chrome_wbuf_cstr(w->b, ",\"id\":\"");
        chrome_wbuf_cstr(w->b, id);
        chrome_wbuf_putc(w->b, '"');
    }
    if (ev->flags & TCONV_EVF_BIND_ENCLOSING) chrome_wbuf_cstr(w->b, ",\"bp\":\"e\"");
    if (k >= 0) {
        /* The other args, around the one written as the id. */
        if (ev->nargs > 1) {
            chrome_wbuf_cstr(w->b, ",\"args\":{");
            int first = 1;
            for (uint32_t i = 0; i < ev->nargs; i++) {
                if ((int)i == k) continue;
                if (!first) chrome_wbuf_putc(w->b, ',');
                first = 0;
                chrome_wbuf_str(w->b, ev->args[i].key);
                chrome_wbuf_putc(w->b, ':');
                chrome_w_arg_value(w, &ev->args[i]);
            }
            chrome_wbuf_putc(w->b, '}');
        }
    } else {
        chrome_w_args(w, ev->args, ev->nargs);
    }
    chrome_w_end(w);
    return TCONV_OK;
}

static int chrome_w_is(chrome_writer *w, tconv_str s, const char *lit)
{
    return strcmp(tconv_string_get(w->ctx, s), lit) == 0;
}

static void chrome_w_top_value(chrome_writer *w, tconv_str text)
{
    size_t n;
    const char *s = chrome_w_text(w, text, &n);
    /* The reader keeps a member's value as its JSON text when it is no string. */
    int raw = n && (s[0] == '{' || s[0] == '[' || strcmp(s, "true") == 0 ||
                    strcmp(s, "false") == 0 || strcmp(s, "null") == 0);
    if (!raw && n) {
        char *end;
        (void)strtod(s, &end);
        raw = end == s + n && (s[0] == '-' || (s[0] >= '0' && s[0] <= '9'));
    }
    if (raw)
        chrome_wbuf_put(w->b, s, n);
    else
        chrome_wbuf_string(w->b, s, n);
}

static const char *const chrome_w_reserved[] = {"traceEvents", "stackFrames", "samples"};

/* Members that would clash with what this writer writes. */
static int chrome_w_top_reserved(chrome_writer *w, tconv_str name)
{
    for (size_t k = 0; k < sizeof chrome_w_reserved / sizeof chrome_w_reserved[0]; k++)
        if (chrome_w_is(w, name, chrome_w_reserved[k])) return 1;
    return 0;
}

static void chrome_w_top_member(chrome_writer *w, tconv_str name, tconv_str text)
{
    if (w->members++) chrome_wbuf_cstr(w->b, ",\n");
    chrome_wbuf_str(w->b, name);
    chrome_wbuf_putc(w->b, ':');
    chrome_w_top_value(w, text);
}

static tconv_status chrome_w_metadata(chrome_writer *w, const tconv_event *ev)
{
    const tconv_track *t = tconv_track_describe(w->ctx, ev->track);
    size_t n;
    const char *what = chrome_w_text(w, ev->name, &n);
    int pt =
        (n > 8 && memcmp(what, "process_", 8) == 0) || (n > 7 && memcmp(what, "thread_", 7) == 0);
    /* What a trace says of itself (Kineto's baseTimeNanoseconds, distributedInfo, ...): a
     * member of the top-level object, after the events. */
    if (t && !t->pid && !t->tid && !pt) {
        if (chrome_w_top_reserved(w, ev->name)) return TCONV_OK;
        /* Members before the events stay before them, where the producer put them. */
        if (!w->events_open) {
            chrome_w_top_member(w, ev->name, ev->text);
            return TCONV_OK;
        }
        for (size_t i = 0; i < w->ntop; i++)
            if (w->top[i].name == ev->name) {
                w->top[i].text = ev->text;
                return TCONV_OK;
            }
        if (chrome_w_reserve((void **)&w->top, &w->top_cap, w->ntop + 1, sizeof *w->top))
            return chrome_w_oom(w);
        w->top[w->ntop].name = ev->name;
        w->top[w->ntop++].text = ev->text;
        return TCONV_OK;
    }
    /* The Chrome reader names an async track after its first event itself. */
    if (t && t->kind == TCONV_TRACK_ASYNC && chrome_w_is(w, ev->name, "thread_name") &&
        strncmp(tconv_string_get(w->ctx, t->tid), "async:", 6) == 0)
        return TCONV_OK;
    chrome_w_start(w, "M", ev->track, 0);
    chrome_w_member_str(w, ",\"name\":", ev->name);
    if (ev->cat) chrome_w_member_str(w, ",\"cat\":", ev->cat);
    chrome_w_ts(w, ev->ts);
    if (ev->nargs) {
        chrome_w_args(w, ev->args, ev->nargs);
    } else {
        int sort = n > 11 && strcmp(what + n - 11, "_sort_index") == 0;
        size_t tn;
        const char *text = chrome_w_text(w, ev->text, &tn);
        chrome_wbuf_cstr(w->b, sort ? ",\"args\":{\"sort_index\":" : ",\"args\":{\"name\":");
        if (sort && tn)
            chrome_wbuf_id_text(w->b, text, tn);
        else
            chrome_wbuf_string(w->b, text, tn);
        chrome_wbuf_putc(w->b, '}');
    }
    chrome_w_end(w);
    return TCONV_OK;
}

/* ---- stack samples ----------------------------------------------------------------------- */

/* One frame of a sample as B or E; the E repeats the B's name and args, which speedscope
 * compares to match them. */
static void chrome_w_sample_frame(chrome_writer *w, uint32_t track, const tconv_frame *f,
                                  const char *ph, int64_t ts)
{
    chrome_w_start(w, ph, track, 0);
    chrome_w_member_str(w, ",\"name\":", f->name);
    if (f->module) chrome_w_member_str(w, ",\"cat\":", f->module);
    chrome_w_ts(w, ts);
    if (f->file) {
        chrome_wbuf_cstr(w->b, ",\"args\":{\"file\":");
        chrome_wbuf_str(w->b, f->file);
        if (f->line) {
            chrome_wbuf_cstr(w->b, ",\"line\":");
            chrome_wbuf_u64(w->b, f->line);
        }
        chrome_wbuf_putc(w->b, '}');
    }
    chrome_w_end(w);
}

static int chrome_w_same_frame(const tconv_frame *a, const tconv_frame *b)
{
    return a->name == b->name && a->module == b->module && a->file == b->file && a->line == b->line;
}

/* What speedscope tells frames apart by: the name and the args (file, line) it prints. */
static int chrome_w_same_key(const tconv_frame *a, const tconv_frame *b)
{
    return a->name == b->name && a->file == b->file && (!a->file || a->line == b->line);
}

/* Close the open frames above depth keep at ts, before the frame next opens there, if any.
 * B/E rather than X: only explicit ends say how equal intervals nest.
 *
 * The ends go innermost first, as a stack closes, with one exception that speedscope needs.
 * Its importer (1.25) takes, at one timestamp, the next B before the next E when both have
 * the same name and args, so that a zero-length slice opens and closes in order; it then ends
 * whatever E matches the top of its stack. When a closing frame that looks like next (the
 * first frame to open) has other closing frames outside it, the innermost-first order reaches
 * it while those are open: speedscope opens next on top of the stack, spends the E on it, and
 * every E after that misses its slice ("Tried to end ... Doing nothing instead"), leaving a
 * chain of frames open for the rest of the thread. The cure is to lead with the E of the
 * outermost closing frame that does not look like next, if a frame inside it does: speedscope
 * ends the inner frames by matching the top of its stack, and the leading E stays first in
 * its queue until its own frame is the top. What remains then all looks like next, which
 * speedscope handles by keeping such a frame open as next, the same name and args. Perfetto
 * matches an E by name among the open slices of its track and pops the stack once the inner
 * ones end at the same time, so it draws the same slices. */
static void chrome_w_sample_close(chrome_writer *w, uint32_t track, chrome_wtrack *t, uint32_t keep,
                                  const tconv_frame *next, int64_t ts)
{
    uint32_t lead = t->nframes;
    if (next) {
        uint32_t d = keep;
        while (d < t->nframes && chrome_w_same_key(&t->frames[d], next))
            d++;
        for (uint32_t i = d + 1; i < t->nframes; i++)
            if (chrome_w_same_key(&t->frames[i], next)) {
                lead = d;
                chrome_w_sample_frame(w, track, &t->frames[d], "E", ts);
                break;
            }
    }
    for (uint32_t i = t->nframes; i-- > keep;)
        if (i != lead) chrome_w_sample_frame(w, track, &t->frames[i], "E", ts);
    t->nframes = keep;
}

/* When the last sample of a track ends: its own dur, else the track's last gap, else 1 µs. */
static int64_t chrome_w_sample_end(const chrome_wtrack *t)
{
    return t->sample_ts + (t->sample_dur > 0 ? t->sample_dur : t->interval ? t->interval : 1000);
}

/* A sample lasts until the next one on its thread (or for its own dur when the producer gave a
 * shorter one). Frames that the next sample shares from the root stay open, so a slice spans
 * the consecutive samples through it, as speedscope's time order view and Perfetto draw a
 * profile, and no frame closes and reopens at the same time.
 *
 * A sample that does not come after the previous one on its thread (a capture without times,
 * perf script's output without its time field, or a repeated timestamp) starts 1 µs after it:
 * at one time it would last nothing, and its frames would open and close where no viewer
 * shows them and where speedscope cannot pair them. */
static tconv_status chrome_w_sample(chrome_writer *w, const tconv_event *ev)
{
    chrome_wtrack *t = chrome_w_track(w, ev->track);
    if (!t) return chrome_w_oom(w);
    int64_t ts = ev->ts;
    if (t->seen_sample && ts <= t->sample_ts) ts = t->sample_ts + 1000;
    uint32_t keep = 0;
    if (t->has_sample) {
        int64_t gap = ts - t->sample_ts;
        if (ev->ts > t->sample_ts) t->interval = gap;
        if (t->sample_dur > 0 && t->sample_dur < gap) {
            chrome_w_sample_close(w, ev->track, t, 0, NULL, t->sample_ts + t->sample_dur);
        } else {
            while (keep < t->nframes && keep < ev->nframes &&
                   chrome_w_same_frame(&t->frames[keep], &ev->frames[keep]))
                keep++;
            chrome_w_sample_close(w, ev->track, t, keep,
                                  keep < ev->nframes ? &ev->frames[keep] : NULL, ts);
        }
    }
    size_t cap = t->frames_cap;
    if (chrome_w_reserve((void **)&t->frames, &cap, ev->nframes ? ev->nframes : 1,
                         sizeof *t->frames))
        return chrome_w_oom(w);
    t->frames_cap = (uint32_t)cap;
    for (uint32_t i = keep; i < ev->nframes; i++) {
        t->frames[i] = ev->frames[i];
        chrome_w_sample_frame(w, ev->track, &t->frames[i], "B", ts);
    }
    t->nframes = ev->nframes;
    t->sample_ts = ts;
    t->seen_sample = 1;
    t->sample_dur = ev->dur;
    t->has_sample = ev->nframes > 0;
    return TCONV_OK;
}

/* ---- entry points ------------------------------------------------------------------------ */

tconv_status chrome_writer_event(chrome_writer *w, const tconv_event *ev)
{
    if (ev->kind != TCONV_EV_COUNTER && ev->kind != TCONV_EV_METADATA) w->memory_open = 0;
    tconv_status st;
    switch (ev->kind) {
    case TCONV_EV_BEGIN:
    case TCONV_EV_END:
    case TCONV_EV_COMPLETE:
        st = chrome_w_span(w, ev);
        break;
    case TCONV_EV_INSTANT:
        st = chrome_w_instant(w, ev);
        break;
    case TCONV_EV_COUNTER:
        st = chrome_w_counter(w, ev);
        break;
    case TCONV_EV_FLOW_START:
    case TCONV_EV_FLOW_STEP:
    case TCONV_EV_FLOW_END:
        st = chrome_w_flow(w, ev);
        break;
    case TCONV_EV_METADATA:
        st = chrome_w_metadata(w, ev);
        break;
    case TCONV_EV_SAMPLE:
        st = chrome_w_sample(w, ev);
        break;
    default:
        st = TCONV_OK;
    }
    if (st == TCONV_OK && w->b->failed) st = TCONV_FATAL;
    return st;
}

tconv_status chrome_writer_finish(chrome_writer *w)
{
    for (uint32_t i = 0; i < w->ntracks; i++) {
        chrome_wtrack *t = &w->tracks[i];
        for (uint32_t k = 1; k < t->nlanes; k++)
            chrome_w_lane_name(w, i, t, k);
        if (t->has_sample) chrome_w_sample_close(w, i, t, 0, NULL, chrome_w_sample_end(t));
    }
    if (!w->events_open) {
        /* A trace without events still has the member viewers look for. */
        chrome_wbuf_cstr(w->b, w->members ? ",\n\"traceEvents\":[" : "\"traceEvents\":[");
        w->members++;
    }
    chrome_wbuf_cstr(w->b, w->events ? "\n]" : "]");
    for (size_t i = 0; i < w->ntop; i++)
        chrome_w_top_member(w, w->top[i].name, w->top[i].text);
    chrome_wbuf_cstr(w->b, "}\n");
    return chrome_wbuf_close(w->b) ? TCONV_FATAL : TCONV_OK;
}

void chrome_writer_free(chrome_writer *w)
{
    for (uint32_t i = 0; i < w->ntracks; i++) {
        for (uint32_t k = 0; k < w->tracks[i].nlanes; k++)
            free(w->tracks[i].lanes[k].ends);
        free(w->tracks[i].lanes);
        free(w->tracks[i].frames);
        free(w->tracks[i].open);
    }
    free(w->tracks);
    free(w->top);
    free(w->tmp);
}
