/* The plan of a run: what it needs, decided once, from the command and the writer alone, before
 * anything is read. Which stages the events go through (the route), whether each input's stage
 * output may reach the writer as soon as the input is read (the early flush), whether workers
 * and ranks may send summed samples instead of events (partial results), whether every rank of
 * an MPI run writes its own part (collective writing), and what the selection asks.
 *
 * Everything else reads the plan: the sink builds its push chain from it (core/pipeline/sink.c),
 * the run chooses how to read and where to write from it (core/run/run.c). Every rank of an MPI run
 * makes the same plan from the same command, so they all agree without a word.
 *
 * Writers say what they need in their own terms (TCONV_NEED_STACK_SUMS, _METADATA_APART,
 * _RANK_PARTS: include/tconv/plugin.h); the scheduling flags of ABI 1.3 (TCONV_WRITER_EARLY_*,
 * _SUMMED_SAMPLES, _COLLECTIVE) say the same in the core's terms and still count. */
#include <stdlib.h>
#include <string.h>

#include "pipeline.h"

/* Test switch: every flush at the end, as before the early flush, to compare the two
 * (tests/cli/jobs-lib.sh, plugins/pprof/tests/pprof_early.sh). Read once per plan. */
static int plan_flush_at_end(void)
{
    const char *e = getenv("TCONV_FLUSH_AT_END");
    return e && *e && strcmp(e, "0") != 0;
}

void tconv_plan_init(tconv_plan *p)
{
    memset(p, 0, sizeof(*p));
    p->sel.input = -1;
    p->flush_at_end = plan_flush_at_end();
}

void tconv_plan_free(tconv_plan *p)
{
    tconv_selection_free(&p->sel);
}

/* The scheduling a writer's needs allow, in the flags' terms: a writer that reads its samples
 * only as sums per stack does not read where they come among the metadata either. */
static uint32_t plan_sched(const tconv_writer_class *wc, uint32_t needs)
{
    uint32_t f = wc->flags & (TCONV_WRITER_EARLY_SAMPLES | TCONV_WRITER_EARLY_EVENTS |
                              TCONV_WRITER_SUMMED_SAMPLES | TCONV_WRITER_COLLECTIVE);
    if (needs & (TCONV_NEED_METADATA_APART | TCONV_NEED_STACK_SUMS))
        f |= TCONV_WRITER_EARLY_SAMPLES | TCONV_WRITER_EARLY_EVENTS;
    if (needs & TCONV_NEED_STACK_SUMS) f |= TCONV_WRITER_SUMMED_SAMPLES;
    if (needs & TCONV_NEED_RANK_PARTS) f |= TCONV_WRITER_COLLECTIVE;
    return f;
}

void tconv_plan_set_writer(tconv_plan *p, const tconv_writer_class *wc)
{
    p->wc = wc;
    /* A writer of stack samples (samples, no spans) gets spans through the ordering and stack
     * stages; an ordered writer, everything it takes but metadata through the ordering stage;
     * any other, every event as it is pushed. */
    if ((wc->accepts & TCONV_KIND_BIT(TCONV_EV_SAMPLE)) && !(wc->accepts & TCONV_KINDS_SPANS))
        p->route = TCONV_ROUTE_STACKS;
    else if (wc->flags & TCONV_WRITER_ORDERED)
        p->route = TCONV_ROUTE_ORDERED;
    else
        p->route = TCONV_ROUTE_DIRECT;
    p->order_all = (wc->flags & TCONV_WRITER_ORDERED) != 0;
    p->sched = plan_sched(wc, 0);
}

int tconv_plan_check(const tconv_plan *p, tconv_ctx *ctx)
{
    const tconv_selection *sel = &p->sel;
    if ((sel->window || sel->steps) && p->route == TCONV_ROUTE_DIRECT) {
        tconv_error_usage(ctx,
                          "the %s writer streams events as they are read, so --window and "
                          "--steps cannot apply to it; use text-ordered, csv or another writer "
                          "that orders the trace",
                          p->wc->name);
        return -1;
    }
    /* An input may say its rank after its events: only a writer that holds them can wait. */
    if (sel->by_rank && p->route == TCONV_ROUTE_DIRECT) {
        tconv_error_usage(ctx,
                          "the %s writer streams events as they are read, before an input's "
                          "rank may be known, so --rank cannot apply to it; use text-ordered, "
                          "or --input N to select by position",
                          p->wc->name);
        return -1;
    }
    return 0;
}

/* Whether a worker (a thread of -j, a rank of an MPI run) may run the ordering and stack stages
 * on the input it read and send the samples summed (core/pipeline/sink.c, "partial results"): for a
 * writer that reads its samples only as sums and may get them early, with nothing that needs
 * the whole run before the stages (GPU attribution, any selection) and nothing that must undo an
 * input's events (--keep-going). */
static int plan_partial(const tconv_plan *p, const tconv_ctx *ctx, int keep_going)
{
    const tconv_selection *sel = &p->sel;
    uint32_t f = p->sched;
    return !keep_going && (f & TCONV_WRITER_SUMMED_SAMPLES) && (f & TCONV_WRITER_EARLY_SAMPLES) &&
           !(p->needs & TCONV_NEED_EACH_SAMPLE) && p->route == TCONV_ROUTE_STACKS &&
           !ctx->gpu_attribute && !sel->window && !sel->steps && !sel->step_name && !sel->by_rank &&
           sel->input < 0 && !sel->keep && !p->flush_at_end;
}

/* Every rank runs the whole pipeline on its own inputs, and the writers combine their parts at
 * finish (collective.h). Not for what needs the whole run before the stages start or prints as
 * it goes: --window, --steps and --rank (resolved over every input), --keep-going (each failed
 * input's message goes out in its place). Those runs replay on rank 0, as other writers' do. */
static int plan_collective(const tconv_plan *p, int mpi, int keep_going)
{
    const tconv_selection *sel = &p->sel;
    return mpi && (p->sched & TCONV_WRITER_COLLECTIVE) && !sel->window && !sel->steps &&
           !sel->step_name && !sel->by_rank && !keep_going;
}

void tconv_plan_needs(tconv_plan *p, tconv_ctx *ctx, const tconv_options *wopts, int keep_going,
                      int mpi)
{
    uint32_t (*needs)(const tconv_options *) = TCONV_CLASS_GET(p->wc, needs);
    p->needs = needs ? needs(wopts) : TCONV_NEED_ARGS;
    if (needs) {
        if (!(p->needs & TCONV_NEED_ARGS)) tconv_args_ignore(ctx);
        if (p->needs & TCONV_NEED_GPU_ATTRIBUTION) tconv_gpu_attribute(ctx);
        if (p->needs & TCONV_NEED_CORR) ctx->need_corr = 1;
    }
    p->sched = plan_sched(p->wc, p->needs);
    p->partial = plan_partial(p, ctx, keep_going);
    p->collective = plan_collective(p, mpi, keep_going);
}

/* May what the stages made of an input reach the writer as soon as the input is read, rather
 * than after all inputs? Only where the bytes, the warnings and the messages come out as from the
 * flush at the end:
 *   - the writer says its output does not depend on when that comes among the events it is given
 *     directly (metadata): for the stack stage's samples (pprof and folded ignore metadata
 *     events; text-stacks prints them in order, so would change), or for an ordered writer's
 *     events (otf2 keeps metadata per input and uses it at its finish; text-ordered prints it
 *     first, so would change);
 *   - no GPU attribution: it matches launches to GPU work across tracks and inputs, and flushes
 *     what is left of it after the last track;
 *   - no --window or --steps: the window is relative to the first time of the whole trace and
 *     the steps are found over all inputs; no --rank, whose inputs are known only at the end.
 * Direct samples and failures are dealt with as they come (tconv_sink_input_done). */
void tconv_plan_opened(tconv_plan *p, const tconv_ctx *ctx)
{
    const tconv_selection *sel = &p->sel;
    /* A writer of ABI 1.0 asks for GPU attribution in its open(), which comes before this. */
    p->gpu = p->route == TCONV_ROUTE_STACKS && ctx->gpu_attribute;
    int allowed = p->route == TCONV_ROUTE_STACKS    ? (p->sched & TCONV_WRITER_EARLY_SAMPLES) != 0
                  : p->route == TCONV_ROUTE_ORDERED ? (p->sched & TCONV_WRITER_EARLY_EVENTS) != 0
                                                    : 0;
    p->early =
        allowed && !p->gpu && !sel->window && !sel->steps && !sel->by_rank && !p->flush_at_end;
}

void tconv_plan_for_worker(const tconv_plan *run, tconv_plan *w)
{
    *w = *run;
    /* What the selection holds is the run's: a worker's sink runs only where nothing is
     * selected (partial results), with a selection of its own that marks the steps alike. */
    memset(&w->sel, 0, sizeof(w->sel));
    w->sel.input = -1;
}
