/* The pipeline layer (core/pipeline/): the plan of a run, decided once (plan.c), the sinks
 * readers push into and the push chain the plan builds into the writer (sink.c), the checks of
 * each push (pushcheck.c) and of each input against the others (inputcheck.h). */
#ifndef TCONV_CORE_PIPELINE_H
#define TCONV_CORE_PIPELINE_H

#include "stages.h"

/* ---- the plan of a run: what it needs, decided once (core/plan.c) ---- */
enum {
    TCONV_ROUTE_DIRECT,  /* every event to the writer as it is pushed */
    TCONV_ROUTE_ORDERED, /* through the ordering stage (TCONV_WRITER_ORDERED) */
    TCONV_ROUTE_STACKS   /* spans through the ordering and stack stages (samples, no spans) */
};
typedef struct tconv_plan {
    tconv_selection sel; /* --window, --steps, --step-name, --input, --rank */
    const tconv_writer_class *wc;
    uint32_t needs; /* the writer's TCONV_NEED_* for its options, asked once */
    /* The scheduling its flags or its needs allow, as TCONV_WRITER_EARLY_SAMPLES, _EARLY_EVENTS,
     * _SUMMED_SAMPLES and _COLLECTIVE bits. */
    uint32_t sched;
    int route;        /* TCONV_ROUTE_* */
    int order_all;    /* an ordered writer: all it takes but metadata goes through the ordering */
    int gpu;          /* the GPU attribution stage (known once the writer is open) */
    int early;        /* each input's stage output may reach the writer as the input is read */
    int partial;      /* workers and ranks send partial results (summed samples) */
    int collective;   /* in an MPI run, every rank writes its own part */
    int flush_at_end; /* TCONV_FLUSH_AT_END (a test switch): no early flush, no partial results */
} tconv_plan;
/* A plan that selects nothing and has no writer yet. */
void tconv_plan_init(tconv_plan *p);
void tconv_plan_free(tconv_plan *p);
/* The route of writer wc. */
void tconv_plan_set_writer(tconv_plan *p, const tconv_writer_class *wc);
/* The selection asks for what the writer's route can give: -1 with a usage error on ctx. */
int tconv_plan_check(const tconv_plan *p, tconv_ctx *ctx);
/* Asks the writer's needs for its options, once, before it is opened, and applies them to ctx
 * (args, GPU attribution, correlation ids); decides partial results and collective writing
 * (mpi: the run is one of several processes). */
void tconv_plan_needs(tconv_plan *p, tconv_ctx *ctx, const tconv_options *wopts, int keep_going,
                      int mpi);
/* The writer is open: the GPU attribution stage (an ABI 1.0 writer asks in open()) and the
 * early flush. */
void tconv_plan_opened(tconv_plan *p, const tconv_ctx *ctx);
/* The plan of a worker's sink (a thread of -j, a rank): the run's, with a selection of its own
 * that selects nothing. */
void tconv_plan_for_worker(const tconv_plan *run, tconv_plan *w);

/* ---- sinks: what readers push into (tconv_sink_push) ---- */
/* A sink's operations: the push, and freeing it. The run's sink (core/sink.c) and a worker's
 * (core/worker_sink.c) are each a struct whose first member is the tconv_sink. */
typedef struct tconv_sink_ops {
    tconv_status (*push)(tconv_sink *s, const tconv_event *ev);
    void (*free)(tconv_sink *s);
} tconv_sink_ops;
struct tconv_sink {
    const tconv_sink_ops *ops;
};
void tconv_sink_free(tconv_sink *s);
/* The checks every push makes first, on the event and its input's strings and tracks: *out is
 * the event normalised (its struct size, its input). TCONV_RECORD: skip it; TCONV_FATAL: the
 * error is on ctx (core/pushcheck.c). */
tconv_status tconv_push_check(tconv_ctx *ctx, const tconv_event *in, tconv_event *out);
/* Interrupted, or a worker's read no longer wanted (abandon may be NULL): the error says which. */
int tconv_push_stopped(tconv_ctx *ctx, const atomic_int *abandon);

/* ---- the run's sink: the push chain the plan builds, into the writer (core/sink.c) ---- */
/* What the sink counted, as a worker's sink also hands it over (tconv_partial). */
typedef struct tconv_sink_counts {
    uint64_t seq;                        /* events routed: the next sequence number */
    uint64_t accepted;                   /* events pushed that passed the checks, staged or not */
    uint64_t dropped[TCONV_EV_KIND_MAX]; /* that the writer does not take */
    int have_spans;
} tconv_sink_counts;
/* The sink of writer wc (open, with state wstate) along plan's route; plan outlives it. */
tconv_sink *tconv_sink_new(tconv_ctx *ctx, tconv_plan *plan, const tconv_writer_class *wc,
                           void *wstate);
/* Flush the stages and finish the writer. */
tconv_status tconv_sink_finish(tconv_sink *s);
uint64_t tconv_sink_events(const tconv_sink *s);
/* Events readers pushed that passed the checks, held by --keep-going or not. */
uint64_t tconv_sink_accepted(const tconv_sink *s);
/* Called every few thousand events, for a progress line. */
void tconv_sink_set_progress(tconv_sink *s, void (*fn)(void *user, uint64_t events), void *user);
/* A worker's: the read ends when *abandon becomes nonzero. */
void tconv_sink_set_abandon(tconv_sink *s, const atomic_int *abandon);
/* Metadata events go to tap instead of the stages and the writer (a worker's partial result). */
void tconv_sink_set_meta_tap(tconv_sink *s, tconv_status (*tap)(void *user, const tconv_event *e),
                             void *user);
/* p is freed with the sink, by free_fn; and found again. */
void tconv_sink_attach(tconv_sink *s, void *p, void (*free_fn)(void *));
void *tconv_sink_attached(const tconv_sink *s);
/* --keep-going: from stage_begin, what readers push is checked and held; commit passes it on
 * (a FATAL there is the writer's or a stage's, not the input's), discard drops it and what it
 * changed in the sink. An input's events thus reach the output whole or not at all. */
void tconv_sink_stage_begin(tconv_sink *s);
tconv_status tconv_sink_stage_commit(tconv_sink *s);
void tconv_sink_stage_discard(tconv_sink *s);
/* A recorded event, its ids those of the run's context: the rest of a push. */
tconv_status tconv_sink_replay(tconv_sink *s, tconv_event *e);
/* An input was read to its end, or left out: lanes are split off, and the stack writers' samples
 * of its spans may go to the writer now (core/sink.c says when). TCONV_FATAL: the stages or the
 * writer failed, as they would have at the finish. */
tconv_status tconv_sink_input_done(tconv_sink *s);

/* ---- partial results: an input's spans through the stages on the worker ----
 * For a writer that reads only the sums of its samples (the plan's partial results), a worker (a
 * thread of -j, a rank of an MPI run) runs the ordering and stack stages on the input it read,
 * and the recording keeps only what the writer is given directly (metadata), the samples summed
 * per (track, stack) (core/sampsum.c), and what the sink counted (below). The main thread then
 * does for the input little more than the writer's share. Where the run's sink could not take it
 * the same way as a serial run (tconv_sink_partial_ok), the input is read in line instead. */
typedef struct tconv_partial {
    tconv_sink_counts n; /* the worker's sink's, the recorded metadata not counted */
    uint64_t not_work[TCONV_ROLE_MAX];
    int have_bounds;
    int64_t first_ns, last_ns;
    uint64_t order_events, order_peak;
    uint64_t sums_at; /* the recorded events from here on are the sums */
    tconv_warning_set
        warnings; /* the stages' and the flush's, kept as the early flush keeps them */
} tconv_partial;
void tconv_partial_free(tconv_partial *p);
/* A worker's partial sink after a read that succeeded: the stages' flush, and what the sink
 * counted. NULL where the input cannot go as a partial result (it had samples of its own, the
 * stages warned outside the flush). */
tconv_partial *tconv_sink_partial_flush(tconv_sink *s);
/* The run's sink: may it take a partial result now? */
int tconv_sink_partial_ok(const tconv_sink *s);
/* The run's sink takes the counts and warnings of p (whose track numbers tmap makes the run's),
 * once the metadata before the sums was replayed; then the sums, one by one; then the end. */
tconv_status tconv_sink_partial_begin(tconv_sink *s, tconv_partial *p, const uint32_t *tmap,
                                      size_t ntmap);
tconv_status tconv_sink_partial_sum(tconv_sink *s, tconv_event *e);
void tconv_sink_partial_end_sums(tconv_sink *s);

#endif
