/* The finish of a profile writer's run (the ordering stage's flush and the stack stage) on
 * several threads (tconv -j). Tracks are flushed independently of each other, so workers flush
 * tracks ahead, each into a buffer of what the stack stage emitted, while the main thread takes
 * the tracks in order: a track no worker has begun it flushes in line, exactly as one thread
 * does; a worker's it replays from the buffer into the writer. The writer, the warnings and
 * the lanes (new tracks of the run's context) are the main thread's, in the same order as a
 * one-thread flush makes them, so the bytes and the messages are the same.
 *
 * Memory: a buffer holds a track's samples (one per span, with its stack) until replayed; at
 * most threads + 1 buffers exist (core/jobs.c), and tracks of more than ORDERJOBS_MAX events
 * are left to the main thread, which needs no buffer. */
#include <pthread.h>
#include <stdint.h>
#include <string.h>

#include "internal.h"
#include "order_out.h"

enum { ORDERJOBS_MAX = 1 << 17 };

/* Stand-in track ids of lanes a worker made: far above any track the table can hold. */
#define ORDERJOBS_LANE 0xc0000000u

enum { OUT_EVENT, OUT_SAMPLE, OUT_WARN, OUT_LANE };

/* A sample as the stack stage makes it (frames of a name and a category, nothing but the fields
 * below set), in 56 bytes instead of a 136-byte event with 32 bytes a frame: the buffers are
 * written once and read once, and their size was most of what buffering cost. */
typedef struct out_sample {
    int64_t ts, dur;
    uint64_t seq;
    uint32_t track, name, cat, input;
    uint32_t nframes, nvalues;
    uint32_t frame_at, value_at; /* in out->names (two ids a frame) and out->values */
} out_sample;

typedef struct out_item {
    int type;
    union {
        size_t full; /* OUT_EVENT: in out->full */
        out_sample smp;
        tconv_order_warn warn;
        struct {
            uint32_t track, n;
        } lane;
    } u;
} out_item;

/* An event's frames and values are kept as offsets into arrays of the buffer's own (args, which
 * the stack stage's events seldom carry, in an arena): the buffers of replayed tracks are reused
 * for the next ones, whose arrays then cost no new pages. */
struct tconv_order_out {
    out_item *it;
    size_t n, cap;
    tconv_event *full; /* events that are not plain samples */
    size_t nfull, capfull;
    tconv_str *names; /* plain samples' frames: name, category */
    size_t nnames, capnames;
    tconv_frame *frames;
    size_t nframes, capframes;
    int64_t *values;
    size_t nvalues, capvalues;
    tconv_arena args;
    size_t freed;
    tconv_status st;
    int declined;          /* too large: the main thread flushes it in line */
    tconv_order_out *next; /* in the pool */
};

static out_item *out_add(tconv_order_out *out, int type)
{
    if (out->n == out->cap)
        tconv_big_grow((void **)&out->it, &out->cap, out->n, out->n + 1, sizeof(*out->it));
    out_item *it = &out->it[out->n++];
    it->type = type;
    return it;
}

void tconv_order_out_warn(tconv_order_out *out, const tconv_order_warn *w)
{
    out_add(out, OUT_WARN)->u.warn = *w;
}

uint32_t tconv_order_out_lane(tconv_order_out *out, uint32_t track, unsigned n)
{
    out_item *it = out_add(out, OUT_LANE);
    it->u.lane.track = track;
    it->u.lane.n = n;
    return ORDERJOBS_LANE + n;
}

void tconv_order_out_freed(tconv_order_out *out, size_t bytes)
{
    out->freed += bytes;
}

static void out_values(tconv_order_out *out, const tconv_event *ev)
{
    TCONV_GROW(out->values, out->capvalues, out->nvalues + ev->nvalues);
    memcpy(out->values + out->nvalues, ev->values, ev->nvalues * sizeof(*ev->values));
    out->nvalues += ev->nvalues;
}

/* Does the compact form hold all of ev? */
static int out_plain_sample(const tconv_event *ev)
{
    uint64_t value; /* its bits: a -0.0 is not a plain sample's */
    memcpy(&value, &ev->value, sizeof(value));
    if (ev->kind != TCONV_EV_SAMPLE || ev->flags || ev->role || ev->id || ev->corr || ev->key ||
        ev->unit || ev->text || value || ev->nargs || ev->args || ev->struct_size != sizeof(*ev) ||
        (uint64_t)ev->nframes + ev->nvalues > UINT32_MAX / 4)
        return 0;
    for (uint32_t i = 0; i < ev->nframes; i++) {
        const tconv_frame *f = &ev->frames[i];
        if (f->file || f->line || f->flags || f->addr) return 0;
    }
    return 1;
}

/* The stack stage's output on a worker: the event with copies of what it points to. */
static tconv_status out_event(void *user, const tconv_event *ev)
{
    tconv_order_out *out = user;
    if (out_plain_sample(ev) && out->nnames / 2 + ev->nframes <= UINT32_MAX &&
        out->nvalues + ev->nvalues <= UINT32_MAX) {
        out_sample *c = &out_add(out, OUT_SAMPLE)->u.smp;
        *c = (out_sample){.ts = ev->ts,
                          .dur = ev->dur,
                          .seq = ev->seq,
                          .track = ev->track,
                          .name = ev->name,
                          .cat = ev->cat,
                          .input = ev->input,
                          .nframes = ev->nframes,
                          .nvalues = ev->nvalues,
                          .frame_at = (uint32_t)(out->nnames / 2),
                          .value_at = (uint32_t)out->nvalues};
        if (out->nnames + 2 * (size_t)ev->nframes > out->capnames)
            tconv_big_grow((void **)&out->names, &out->capnames, out->nnames,
                           out->nnames + 2 * (size_t)ev->nframes, sizeof(*out->names));
        for (uint32_t i = 0; i < ev->nframes; i++) {
            out->names[out->nnames++] = ev->frames[i].name;
            out->names[out->nnames++] = ev->frames[i].module;
        }
        if (ev->nvalues) out_values(out, ev);
        return TCONV_OK;
    }
    out_add(out, OUT_EVENT)->u.full = out->nfull;
    TCONV_GROW(out->full, out->capfull, out->nfull + 1);
    tconv_event *e = &out->full[out->nfull++];
    *e = *ev;
    if (ev->nargs) e->args = tconv_arena_dup(&out->args, ev->args, ev->nargs * sizeof(*ev->args));
    if (ev->nframes) {
        if (out->nframes + ev->nframes > out->capframes)
            tconv_big_grow((void **)&out->frames, &out->capframes, out->nframes,
                           out->nframes + ev->nframes, sizeof(*out->frames));
        memcpy(out->frames + out->nframes, ev->frames, ev->nframes * sizeof(*ev->frames));
        e->frames = (const tconv_frame *)(uintptr_t)out->nframes;
        out->nframes += ev->nframes;
    }
    if (ev->nvalues) {
        e->values = (const int64_t *)(uintptr_t)out->nvalues;
        out_values(out, ev);
    }
    return TCONV_OK;
}

static void out_free(void *v)
{
    tconv_order_out *out = v;
    if (!out) return;
    tconv_big_free(out->it, out->cap, sizeof(*out->it));
    tconv_big_free(out->frames, out->capframes, sizeof(*out->frames));
    tconv_big_free(out->names, out->capnames, sizeof(*out->names));
    free(out->full);
    free(out->values);
    tconv_arena_free(&out->args);
    free(out);
}

/* The worker's flush, replayed: what emit returns stops it where it would have stopped the
 * flush (TCONV_RECORD refuses one event; anything else but TCONV_OK ends the track). */
static tconv_status out_replay(tconv_ctx *ctx, const tconv_order_out *out, tconv_emit_fn emit,
                               void *user)
{
    uint32_t *lanes = NULL;
    size_t nlanes = 0;
    tconv_frame *fr = NULL; /* a plain sample's stack, as the stack stage gave it */
    size_t capfr = 0;
    tconv_status st = TCONV_OK;
    for (size_t i = 0; i < out->n && st == TCONV_OK; i++) {
        const out_item *it = &out->it[i];
        if (it->type == OUT_WARN) {
            tconv_order_warn_now(ctx, &it->u.warn);
        } else if (it->type == OUT_LANE) {
            TCONV_GROW(lanes, nlanes, (size_t)it->u.lane.n + 1);
            lanes[it->u.lane.n] = tconv_track_lane(ctx, it->u.lane.track, it->u.lane.n);
        } else if (it->type == OUT_SAMPLE) {
            const out_sample *c = &it->u.smp;
            tconv_event e = TCONV_EVENT_INIT;
            e.kind = TCONV_EV_SAMPLE;
            e.track = c->track >= ORDERJOBS_LANE ? lanes[c->track - ORDERJOBS_LANE] : c->track;
            e.ts = c->ts;
            e.dur = c->dur;
            e.seq = c->seq;
            e.name = c->name;
            e.cat = c->cat;
            e.input = c->input;
            TCONV_GROW(fr, capfr, c->nframes);
            const tconv_str *nm = out->names + 2 * (size_t)c->frame_at;
            for (uint32_t f = 0; f < c->nframes; f++)
                fr[f] = (tconv_frame){.name = nm[2 * f], .module = nm[2 * f + 1]};
            e.frames = c->nframes ? fr : NULL;
            e.nframes = c->nframes;
            e.values = c->nvalues ? out->values + c->value_at : NULL;
            e.nvalues = c->nvalues;
            st = emit(user, &e);
            if (st == TCONV_RECORD) st = TCONV_OK;
        } else {
            tconv_event e = out->full[it->u.full];
            if (e.track >= ORDERJOBS_LANE) e.track = lanes[e.track - ORDERJOBS_LANE];
            if (e.nframes) e.frames = out->frames + (uintptr_t)e.frames;
            if (e.nvalues) e.values = out->values + (uintptr_t)e.values;
            st = emit(user, &e);
            if (st == TCONV_RECORD) st = TCONV_OK;
        }
    }
    free(lanes);
    free(fr);
    return st == TCONV_OK ? out->st : st;
}

typedef struct orderjobs {
    tconv_ctx *ctx;
    tconv_order *o;
    pthread_mutex_t mu;
    tconv_order_out *pool; /* buffers of replayed tracks */
    uint32_t *track;       /* the tracks with events, in order */
    uint32_t *input;
    unsigned *kind;
} orderjobs;

static void *orderjobs_track(void *user, size_t k, const atomic_int *abandon)
{
    (void)abandon; /* a track is bounded: it is flushed to its end */
    orderjobs *p = user;
    pthread_mutex_lock(&p->mu);
    tconv_order_out *out = p->pool;
    if (out) p->pool = out->next;
    pthread_mutex_unlock(&p->mu);
    if (!out) out = tconv_xcalloc(1, sizeof(*out));
    if (tconv_order_track_events(p->o, p->track[k]) > ORDERJOBS_MAX) {
        out->declined = 1;
        return out;
    }
    tconv_stack *stack = tconv_stack_new(p->ctx, out_event, out);
    out->st = tconv_order_track_apart(p->o, p->track[k], p->input[k], p->kind[k], tconv_stack_event,
                                      stack, out);
    tconv_stack_free(stack);
    return out;
}

tconv_status tconv_order_flush_stacks(tconv_ctx *ctx, tconv_order *o, unsigned threads,
                                      tconv_stack *stack, tconv_emit_fn emit, void *user)
{
    orderjobs p = {.ctx = ctx, .o = o};
    pthread_mutex_init(&p.mu, NULL);
    uint32_t nt = tconv_order_ntracks(o);
    size_t n = 0;
    p.track = tconv_xmalloc((nt ? nt : 1) * sizeof(*p.track));
    p.input = tconv_xmalloc((nt ? nt : 1) * sizeof(*p.input));
    p.kind = tconv_xmalloc((nt ? nt : 1) * sizeof(*p.kind));
    for (uint32_t t = 0; t < nt; t++) {
        if (!tconv_order_track_events(o, t)) continue;
        const tconv_track *k = tconv_track_describe(ctx, t);
        p.track[n] = t;
        p.input[n] = k->input;
        p.kind[n] = k->kind;
        n++;
    }
    tconv_jobs *jobs = n > 1 ? tconv_jobs_start(n, threads, orderjobs_track, &p) : NULL;
    tconv_status st = TCONV_OK;
    for (size_t k = 0; k < n && st == TCONV_OK; k++) {
        tconv_order_out *out = jobs ? tconv_jobs_take(jobs, k) : NULL;
        if (out && !out->declined) {
            st = out_replay(ctx, out, emit, user);
            tconv_order_forget(o, out->freed);
        } else {
            st = tconv_order_track_apart(o, p.track[k], p.input[k], p.kind[k], tconv_stack_event,
                                         stack, NULL);
        }
        if (out) { /* emptied for the next track */
            out->n = out->nfull = out->nnames = out->nframes = out->nvalues = out->freed = 0;
            out->st = TCONV_OK;
            out->declined = 0;
            tconv_arena_free(&out->args);
            pthread_mutex_lock(&p.mu);
            out->next = p.pool;
            p.pool = out;
            pthread_mutex_unlock(&p.mu);
        }
    }
    tconv_jobs_stop(jobs, out_free);
    while (p.pool) {
        tconv_order_out *next = p.pool->next;
        out_free(p.pool);
        p.pool = next;
    }
    pthread_mutex_destroy(&p.mu);
    free(p.track);
    free(p.input);
    free(p.kind);
    return st;
}
