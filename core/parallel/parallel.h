/* The parallel layer (core/parallel/): what lets one run spread over threads and processes and
 * still make the same output: recordings of a worker's read and their replay, their wire form,
 * a worker's sinks, the jobs of -j and their memory budget, MPI and the collective service. */
#ifndef TCONV_CORE_PARALLEL_H
#define TCONV_CORE_PARALLEL_H

#include "pipeline.h"

/* A writer's collective service in an MPI run (core/collective.c). */
struct tconv_collective {
    struct tconv_mpi *mpi;
    uint32_t *global_input; /* by this rank's input index */
    size_t ninputs;
};

/* ---- recording: an input read on a worker thread (core/record.c) ----
 * The worker's reader runs with a context of its own; the recording keeps what it did in order
 * (events with the worker's string and track ids, new strings and tracks, track kinds, sample
 * types, warnings, notices) and the main thread replays it into the run's context and sink,
 * through arrays from the worker's ids to the run's, filled as the worker's tables grew. The
 * run's context then goes through the same calls in the same order as if it had read the input
 * itself: ids, warnings and messages come out the same. */
typedef struct tconv_rec tconv_rec;
typedef struct tconv_jobs tconv_jobs; /* core/jobs.c, below */
/* The event array of a recording, kept to record another input into: memory already touched
 * costs no page faults (they were a tenth of a run's CPU time when each input had its own). */
typedef struct tconv_rec_buf {
    void *ev;
    size_t cap;     /* in recorded events */
    size_t touched; /* events' worth of it that were written, so in memory */
    uint64_t held;  /* bytes of it counted against -j's budget while it waits (tconv_rec_budget) */
} tconv_rec_buf;
/* Starts recording what is done to wctx (a fresh context of the worker's own) into buf (may be
 * empty), which the recording now owns. */
tconv_rec *tconv_rec_new(tconv_ctx *wctx, tconv_rec_buf buf);
/* Frees all but the event array, handed back to be freed or recorded into again. */
tconv_rec_buf tconv_rec_free(tconv_rec *rec);
/* Frees an event array that no recording holds. */
void tconv_rec_buf_free(tconv_rec_buf buf);
/* Bytes of memory the array holds (its pages written to). */
uint64_t tconv_rec_buf_bytes(tconv_rec_buf buf);
/* Counts the recording's bytes as it grows (its events and their copies, its steps, the worker's
 * strings and the array it was given) against jobs' budget as job k: every `step` bytes it
 * reports them (tconv_jobs_hold), which may wait there, in the reader's push. */
void tconv_rec_budget(tconv_rec *rec, tconv_jobs *jobs, size_t k, uint64_t step);
/* Bytes reported so far; and whether the jobs had the recording given up (the push failed). */
uint64_t tconv_rec_held(const tconv_rec *rec);
int tconv_rec_given_up(const tconv_rec *rec);
/* A checked event of the worker's: -1 when the recording must be given up (tconv_rec_budget).
 * The rest the reader does to the worker's context, the recording observes
 * (tconv_ctx_observe). */
int tconv_rec_event(tconv_rec *rec, const tconv_event *e);
/* While on, warnings and sample types are not recorded (a partial result's flush: it keeps its
 * warnings apart, and sets the types back). */
void tconv_rec_mute(tconv_rec *rec, int on);
/* Events recorded so far. */
uint64_t tconv_rec_count(const tconv_rec *rec);
/* A part of an input (core/parallel/split.c): the element at [offset, offset + len) is the
 * calling thread's to read when the replay reaches this point, through fn (TCONV_FATAL stops
 * the replay). */
void tconv_rec_defer(tconv_rec *rec, uint64_t offset, uint64_t len);
void tconv_rec_on_defer(tconv_rec *rec,
                        tconv_status (*fn)(void *user, uint64_t offset, uint64_t len), void *user);
/* What the recording holds in memory now: its events and their copies, steps, the worker's
 * strings. */
uint64_t tconv_rec_bytes(const tconv_rec *rec);
/* The reader returned st (its error, if any, on the worker's context). */
void tconv_rec_finish(tconv_rec *rec, tconv_status st);
/* Does it all again to ctx (whose current input is the recorded one's) and sink. Returns what
 * the reader returned, with its error moved to ctx, or TCONV_FATAL where a push of the replay
 * failed in the sink (the error is then the sink's, as a serial read would have ended there). */
tconv_status tconv_rec_replay(tconv_rec *rec, tconv_ctx *ctx, tconv_sink *sink);
/* The recording rec (finished, not replayed) appended to w: its status, the worker context's
 * strings, tracks, warnings and error, its steps and its events with their args, frames and
 * values (core/record_wire.c). */
void tconv_rec_encode(const tconv_rec *rec, tconv_wire *w);
/* The recording read back from w, with a context of its own in *wctx (the worker's tables as
 * they were); NULL if w is malformed. */
tconv_rec *tconv_rec_decode(tconv_wire *w, tconv_ctx **wctx);
/* ---- jobs: inputs read ahead by worker threads, taken in order (core/jobs.c) ---- */
/* Reads job k on some thread (j: the jobs, for tconv_jobs_hold; NULL when run apart from them);
 * abandon becomes nonzero when its result will not be wanted. */
typedef void *(*tconv_job_fn)(void *user, size_t k, tconv_jobs *j, const atomic_int *abandon);
/* n jobs for `threads` threads in all, the caller's included (threads - 1 are started). A job
 * is begun only while it is at most `threads` jobs ahead of the one the caller takes (one more
 * while the caller does that one in line): at most `threads` + 1 results exist at once. Nor is
 * one begun unless the budget (bytes; UINT64_MAX: none) has room for the largest result so far
 * besides those held. NULL when no thread could be started. */
tconv_jobs *tconv_jobs_start(size_t n, unsigned threads, uint64_t budget, tconv_job_fn fn,
                             void *user);
/* The same, with each job's size (its input's bytes; copied): a job just past the window is begun
 * before the free ones in it when it is larger than each of them. */
tconv_jobs *tconv_jobs_start_sized(size_t n, unsigned threads, uint64_t budget,
                                   const uint64_t *size, tconv_job_fn fn, void *user);
/* For the caller, in order k = 0, 1, ...: NULL when no thread has begun job k (the caller does
 * it in line), else its result once done. While waiting the caller does later jobs itself. */
void *tconv_jobs_take(tconv_jobs *j, size_t k);
/* Job k's result now holds `more` bytes more, `total` in all, and took `unpooled` of the memory
 * kept (tconv_jobs_release) as its own. Over the budget, waits until the
 * results freed bring it back under, unless k is the job the caller takes next; returns -1 (at
 * once) when k is a job the caller's own thread is doing, which must give it up (its result: "do it
 * in line"), as the caller cannot wait for bytes only it frees. */
int tconv_jobs_hold(tconv_jobs *j, size_t k, uint64_t more, uint64_t total, uint64_t unpooled);
/* A result the caller freed gave back `bytes`, and has `keep` more held in memory kept for the
 * next results: returns 1 when the total with them is within the budget, else 0, and the caller
 * must free that memory too (it is no longer counted). The next job that takes the memory says
 * so (tconv_jobs_hold's unpooled): until then a job may be begun as if it were free. */
int tconv_jobs_release(tconv_jobs *j, uint64_t bytes, uint64_t keep);
/* Abandons what is left, joins the threads, and frees the results not taken with drop. */
void tconv_jobs_stop(tconv_jobs *j, void (*drop)(void *result));

/* ---- one input read in parts (core/parallel/split.c) ---- */
/* How one input may be read in parts, set by the run (ctx->split while it reads in line). */
typedef struct tconv_split_conf {
    unsigned threads;  /* in all, the calling thread's included */
    uint64_t budget;   /* bytes of parts and their recordings held at once (--jobs-memory) */
    uint64_t part;     /* bytes of input per part */
    uint64_t min_size; /* inputs (their files) smaller than this are read whole */
    size_t read;       /* bytes asked of the input at a time; 0: 1 MiB */
} tconv_split_conf;

/* The lowest memory limit of the process's cgroups, in bytes; 0 when none is known
 * (core/memlimit.c). */
uint64_t tconv_cgroup_memory_limit(void);

/* ---- a worker's sinks (core/worker_sink.c) ---- */
/* Every check about the event itself is made on the worker's context, and what passes goes to
 * the recording; the checks against the other inputs are made when it is replayed. abandon
 * nonzero ends the read. */
tconv_sink *tconv_sink_new_recording(tconv_ctx *wctx, tconv_rec *rec, const atomic_int *abandon);
/* The recording of a recording sink; NULL for any other sink. */
tconv_rec *tconv_sink_recording(const tconv_sink *sink);
/* A whole sink along the run's plan whose writer sums the samples, and whose metadata goes to
 * the recording. */
tconv_sink *tconv_sink_new_partial(tconv_ctx *wctx, const tconv_plan *run,
                                   const tconv_writer_class *wc, tconv_rec *rec,
                                   const atomic_int *abandon);
/* After a read that succeeded: the stages' flush, the sums into the recording. NULL where the
 * input cannot go as a partial result (it had samples of its own, the stages warned outside
 * the flush, a sum overflowed): the main thread reads it in line. */
tconv_partial *tconv_sink_partial_end(tconv_sink *s);
/* The recording's partial result (NULL: a plain recording), and setting it (owned). */
const tconv_partial *tconv_rec_partial(const tconv_rec *rec);
void tconv_rec_set_partial(tconv_rec *rec, tconv_partial *p);

#endif
