/* A worker's sinks (a thread of tconv -j, a rank of an MPI run): what its reader pushes into
 * while the run's sink (core/pipeline/sink.c) is on another thread or in another process.
 *
 *   - The recording sink makes every check about the event itself (core/pipeline/pushcheck.c) on
 * the worker's context, and records what passes (core/parallel/record.c); the run's sink makes the
 *     checks against the other inputs when the recording is replayed.
 *   - The partial sink, for a writer that reads only the sums of its samples (the plan's partial
 *     results, core/pipeline/plan.c), is a run's sink of the worker's own: the input's spans go
 * through its ordering and stack stages, its writer sums the samples (core/stages/sampsum.c), and
 * its metadata goes to the recording, for the run's track table. At the end the recording holds the
 * metadata, then the sums, and the sink's counts and warnings as a partial result. */
#include <string.h>

#include "parallel.h"

enum { WORKER_PROGRESS_EVERY = 1 << 16 };

/* ---- the recording sink ---------------------------------------------------------------------- */

typedef struct rec_sink {
    tconv_sink sink;
    tconv_ctx *ctx;
    tconv_rec *rec;
    const atomic_int *abandon;
    uint64_t accepted;
} rec_sink;

static tconv_status rec_sink_push(tconv_sink *sink, const tconv_event *in)
{
    rec_sink *s = (rec_sink *)sink;
    tconv_event e;
    tconv_status st = tconv_push_check(s->ctx, in, &e);
    if (st != TCONV_OK) return st;
    if ((++s->accepted & (WORKER_PROGRESS_EVERY - 1)) == 0 &&
        tconv_push_stopped(s->ctx, s->abandon))
        return TCONV_FATAL;
    /* A recording under -j's byte budget may be given up to the main thread, which then reads
     * the input in line. */
    if (tconv_rec_event(s->rec, &e) < 0) {
        if (!tconv_error_pending(s->ctx)) tconv_error_set(s->ctx, "abandoned");
        return TCONV_FATAL;
    }
    return TCONV_OK;
}

static void rec_sink_free(tconv_sink *sink)
{
    free(sink);
}

static const tconv_sink_ops rec_sink_ops = {rec_sink_push, rec_sink_free};

tconv_sink *tconv_sink_new_recording(tconv_ctx *wctx, tconv_rec *rec, const atomic_int *abandon)
{
    rec_sink *s = tconv_xcalloc(1, sizeof(*s));
    s->sink.ops = &rec_sink_ops;
    s->ctx = wctx;
    s->rec = rec;
    s->abandon = abandon;
    return &s->sink;
}

tconv_rec *tconv_sink_recording(const tconv_sink *sink)
{
    return sink->ops == &rec_sink_ops ? ((const rec_sink *)sink)->rec : NULL;
}

/* ---- the partial sink ------------------------------------------------------------------------ */

/* The writer of a worker's partial sink, and what it needs. */
typedef struct part_state {
    tconv_plan plan; /* the run's, with a selection of the worker's own */
    tconv_writer_class wc;
    tconv_rec *rec;
    tconv_sums *sums;
    int bad; /* something but the stack stage's samples would have reached the writer */
} part_state;

/* The writer's calls: the stack stage's samples are summed; anything else (an input's own
 * samples, which also stop the partial result, or other events the writer takes directly) means
 * the input is read in line. */
static tconv_status part_event(void *state, const tconv_event *ev)
{
    part_state *ps = state;
    if (ev->kind != TCONV_EV_SAMPLE || tconv_sums_add(ps->sums, ev) < 0) ps->bad = 1;
    return TCONV_OK;
}

static tconv_status part_meta(void *user, const tconv_event *e)
{
    part_state *ps = user;
    return tconv_rec_event(ps->rec, e) < 0 ? TCONV_FATAL : TCONV_OK;
}

static void part_free(void *state)
{
    part_state *ps = state;
    tconv_sums_free(ps->sums);
    tconv_plan_free(&ps->plan);
    free(ps);
}

tconv_sink *tconv_sink_new_partial(tconv_ctx *wctx, const tconv_plan *run,
                                   const tconv_writer_class *wc, tconv_rec *rec,
                                   const atomic_int *abandon)
{
    part_state *ps = tconv_xcalloc(1, sizeof(*ps));
    tconv_plan_for_worker(run, &ps->plan);
    /* A plugin of an older minor has a shorter class: what it lacks reads as zero. */
    size_t n = wc->struct_size < sizeof(ps->wc) ? wc->struct_size : sizeof(ps->wc);
    memcpy(&ps->wc, wc, n);
    ps->wc.event = part_event;
    ps->rec = rec;
    ps->sums = tconv_sums_new();
    tconv_sink *sink = tconv_sink_new(wctx, &ps->plan, &ps->wc, ps);
    tconv_sink_set_abandon(sink, abandon);
    tconv_sink_set_meta_tap(sink, part_meta, ps);
    tconv_sink_attach(sink, ps, part_free);
    return sink;
}

tconv_partial *tconv_sink_partial_end(tconv_sink *sink)
{
    part_state *ps = tconv_sink_attached(sink);
    if (ps->bad) return NULL;
    /* The flush's warnings stay apart (the sink keeps them, as the run's early flush does), and
     * the sample types it sets are put back: neither is recorded. */
    tconv_rec_mute(ps->rec, 1);
    tconv_partial *p = tconv_sink_partial_flush(sink);
    tconv_rec_mute(ps->rec, 0);
    if (!p || ps->bad) {
        tconv_partial_free(p);
        return NULL;
    }
    p->sums_at = tconv_rec_count(ps->rec);
    for (size_t i = 0; i < tconv_sums_count(ps->sums); i++)
        if (tconv_rec_event(ps->rec, tconv_sums_get(ps->sums, i)) < 0) {
            tconv_partial_free(p);
            return NULL;
        }
    return p;
}
