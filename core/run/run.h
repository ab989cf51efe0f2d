/* The run layer (core/run/): one conversion from the command to the committed output (the
 * tconv_run_* host API), and the plugin kit's harness, a host of the pipeline in a test's own
 * process. The top of the core: the programs (core/cli, core/check) see only the public API.
 *
 * A run is split by concern: run.c (the run, its checks, the output and the writer),
 * run_read.c (the reader loop: each input read in line or replayed), run_jobs.c (-j: inputs read
 * ahead on worker threads) and run_mpi.c (the processes of an MPI run). What they share is
 * below. */
#ifndef TCONV_CORE_RUN_H
#define TCONV_CORE_RUN_H

#include <pthread.h>

#include "inputcheck.h"
#include "mpirank.h"
#include "parallel.h"

struct tconv_run {
    tconv_host *host;
    tconv_run_opts o; /* strings and arrays owned by the run */
    char **owned;     /* every string the run copied, freed with it */
    size_t nowned;
    tconv_ctx *ctx;
    atomic_int interrupt;
    atomic_int signo; /* the signal that asked for the interrupt (tconv_run_signal), or 0 */
    tconv_run_stats stats;
    int executed;

    /* while executing */
    const tconv_writer_class *wc;
    const tconv_reader_class *fixed; /* named with -r, or NULL: detected per input */
    tconv_options wopts;
    tconv_progress prog;
    tconv_input *in; /* being read, for progress */
    uint64_t done_bytes;
    uint32_t tried;         /* inputs opened to be read: read, failed, of unknown format */
    unsigned char *read_ok; /* per input index: read to its end without failing */
    size_t nread_ok;
    tconv_mpi *mpi;         /* one of the processes of an MPI run, or NULL */
    tconv_plan plan;        /* what the run needs (core/pipeline/plan.c) */
    tconv_collective coll;  /* the writers' service, under the plan's collective writing */
    tconv_split_conf split; /* an input read in line may be read in parts (core/parallel/split.c) */
    /* MPI, rank 0: the output, the run's status and whether it is the caller's mistake, held
     * until every rank said whether a signal stopped it (run_mpi_settle) */
    tconv_output *held;
    tconv_status held_st;
    int held_usage;
};

/* What a reader named with -r makes of an input's first bytes, taken before it reads them. */
typedef struct run_misread {
    int unrecognised; /* its probe scores them 0 */
    int blank;        /* only blanks: if they are the whole input, it is empty */
    size_t hlen;
    const tconv_reader_class *other; /* the reader detection would choose */
} run_misread;

/* ---- -j: inputs read on worker threads ---------------------------------------------------- */

/* An input a worker read into a recording with a context of its own; or, direct, one it left
 * to the main thread to read in line (not a regular file, which only the main thread may open
 * once; no reader that may run apart; anything that failed before reading, so that the main
 * thread's own attempt says it as a serial run would). */
typedef struct run_par run_par;
typedef struct run_job {
    run_par *par;
    tconv_jobs *jobs; /* whose byte budget counts the recording; NULL: none */
    int direct;
    tconv_ctx *ctx;
    tconv_rec *rec;
    tconv_input *in;
    const tconv_reader_class *rc;
    run_misread mis;
} run_job;

/* What the threads share: the run (read only), the inputs, and the event arrays of the
 * recordings replayed, to record into again. */
enum { RUN_SPARE = 64 };
struct run_par {
    tconv_run *r;
    const tconv_input_list *inputs;
    uint64_t step; /* a recording reports its bytes to the budget every step bytes */
    pthread_mutex_t mu;
    tconv_rec_buf spare[RUN_SPARE];
    size_t nspare;
};

/* Each rank's outcome to rank 0, which takes the failure of the earliest input (at finish: of
 * the lowest rank), as a single process would have stopped there, and tells every rank whether
 * to go on. After reading, rank 0 also learns which inputs were read where, and gives each
 * rank the whole run's index of each of its inputs. Warnings are added to rank 0's, in rank
 * order, once (final: at the last agreement). */
typedef struct run_coll_state {
    uint64_t fail_pos; /* input position of the failure, UINT64_MAX: none */
    uint32_t *pos;     /* by local input index: its position in the input list */
    size_t npos;
    tconv_inputcheck *check; /* after reading: the sink's checks, whose log rank 0 replays */
} run_coll_state;

/* ---- outinput.c ---- */
/* A usage error when the output is one of the inputs (same file, same path after links), lies
 * inside an input directory, or holds an input; checked before anything is read or written.
 * The same for the files a reader of h opens for an input (its class's members(); only fixed's
 * when a reader was named; h NULL: none). */
int tconv_output_check_inputs(tconv_ctx *ctx, const char *output, const char *const *inputs,
                              size_t ninputs, const tconv_host *h, const tconv_reader_class *fixed);

/* ---- run.c ---- */
/* The run's end on the process that writes: the output moved into place if the run succeeded
 * and no signal came, else removed. */
tconv_outcome run_commit(tconv_run *r, tconv_output *out, tconv_status st, int usage);
/* "a, b, c": the names of every reader (or writer), for messages. */
char *run_names(const tconv_host *h, int writers);
/* Reader options for rc, with -r (named) or detected (core/run/run.c says which are given). */
int run_parse_ropts(const tconv_run *r, const tconv_reader_class *rc, int named, tconv_options *ro,
                    char *err, size_t cap);
/* The progress, to the host's hook. */
void run_report(tconv_run *r);

/* ---- run_read.c ---- */
const tconv_reader_class *run_detect(const tconv_run *r, const unsigned char *head, size_t hlen,
                                     const char *name, const tconv_known_format **known);
void run_misread_note(const tconv_run *r, tconv_input *in, const tconv_reader_class *rc,
                      run_misread *m);
/* Reads every input into the sink; TCONV_FATAL with the error on the ctx. */
tconv_status run_read(tconv_run *r, tconv_sink *sink, int *usage, int *in_finish);
/* After reading: nothing read is a failure too. */
tconv_status run_read_checks(tconv_run *r, tconv_status st);

/* ---- run_jobs.c ---- */
void *run_job_read(void *user, size_t k, tconv_jobs *jobs, const atomic_int *abandon);
void run_job_free(void *v);
void run_job_unpartial(run_job *j, tconv_sink *sink);
unsigned run_threads(const tconv_run *r, size_t ninputs);
uint64_t run_jobs_memory(const tconv_run *r);
uint64_t run_budget_step(uint64_t budget, unsigned threads);
/* How the one input of a run without jobs may be read in parts (core/parallel/split.c). */
void run_split_conf(const tconv_run *r, tconv_split_conf *c);

/* ---- run_mpi.c ---- */
/* An MPI run's one outcome, once every rank said whether a signal stopped it. */
tconv_outcome run_mpi_settle(tconv_run *r, tconv_outcome res);
run_job *run_mpi_take(run_par *p, size_t k);
tconv_outcome run_mpi_serve(tconv_run *r);
tconv_output *run_coll_output(tconv_run *r, const tconv_output_opts *oo);
void run_bcast_wire_none(tconv_mpi *m);
tconv_status run_coll_agree(tconv_run *r, run_coll_state *cs, tconv_status st, int *usage,
                            int final);

#endif
