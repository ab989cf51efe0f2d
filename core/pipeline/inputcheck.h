/* The checks of an input's events against the inputs before it (core/pipeline/inputcheck.c): one
 * output holds one set of sample types, and a profile writer, which turns spans into samples of its
 * own types, holds one input's spans and another's samples only if the types agree.
 *
 * The sink makes them as events come (core/pipeline/sink.c). In an MPI run whose writer runs on
 * every rank, each rank's sink sees its own inputs only, which may disagree where the run's do not
 * (an input that declares no sample types inherits the last declared, maybe on another rank):
 * there the sink's checks only log what they are given, input by input, and rank 0 makes them
 * over every rank's log in the run's input order (core/run/run.c), with this same code, so the run
 * fails where, and as, one process would. */
#ifndef TCONV_INPUTCHECK_H
#define TCONV_INPUTCHECK_H

#include "pipeline.h"
#include "wire.h"

typedef struct tconv_inputcheck tconv_inputcheck;

/* writer: its name, for messages; stacks: it gets spans as samples (a profile writer), of the
 * GPU attribution's three types if gpu, else of the stack stage's two. */
tconv_inputcheck *tconv_inputcheck_new(const char *writer, int stacks, int gpu);
void tconv_inputcheck_free(tconv_inputcheck *c);

/* The sample types of ctx as text: "samples/count, wall/nanoseconds" (malloc'd). */
char *tconv_inputcheck_types_text(const tconv_sample_type *t, size_t n);

/* Whether a sample of input must be checked (each input's first), a span (the run's first, for
 * a profile writer; a rank's first, logged, is enough: the run's is one of them). */
int tconv_inputcheck_wants_sample(const tconv_inputcheck *c, uint32_t input);
int tconv_inputcheck_wants_span(const tconv_inputcheck *c);
/* The first sample of input, named name, of the sample types ctx holds now: own when the input
 * declared them itself (else they are an earlier input's). TCONV_FATAL with the error on ctx. */
tconv_status tconv_inputcheck_sample(tconv_inputcheck *c, tconv_ctx *ctx, uint32_t input,
                                     const char *name, int own);
/* The first span, in input. */
tconv_status tconv_inputcheck_span(tconv_inputcheck *c, tconv_ctx *ctx, uint32_t input,
                                   const char *name);

/* --keep-going: the checks as an input found them, to forget what a failed input told them. */
typedef struct tconv_inputcheck_mark {
    int had_samples, had_spans;
    uint32_t sample_last;
    size_t nlog;
} tconv_inputcheck_mark;
void tconv_inputcheck_save(const tconv_inputcheck *c, tconv_inputcheck_mark *m);
void tconv_inputcheck_restore(tconv_inputcheck *c, const tconv_inputcheck_mark *m);

/* ---- MPI, a writer on every rank ---- */
/* The sink's. */
tconv_inputcheck *tconv_sink_inputcheck(tconv_sink *s);
/* From now on the checks keep their log and check nothing. */
void tconv_inputcheck_log_start(tconv_inputcheck *c);
/* input (the ctx's current) was read to its end: the sample types it leaves to the next. */
void tconv_inputcheck_input_end(tconv_inputcheck *c, tconv_ctx *ctx, uint32_t input);
/* The log, with each input's index replaced by pos[index], its position in the run's inputs. */
void tconv_inputcheck_log_encode(const tconv_inputcheck *c, const uint32_t *pos, size_t npos,
                                 tconv_wire *w);
/* Rank 0: every rank's log, appended in rank order from the ranks' messages. */
typedef struct tconv_inputcheck_log tconv_inputcheck_log;
tconv_inputcheck_log *tconv_inputcheck_log_new(void);
void tconv_inputcheck_log_decode(tconv_inputcheck_log *l, tconv_wire *w);
void tconv_inputcheck_log_free(tconv_inputcheck_log *l);
/* The logged checks made again by new checks like c, in the run's input order, up to the input
 * at position limit (where reading failed first; UINT64_MAX: nowhere). TCONV_FATAL with the
 * error on ctx and the failing input's position in *at. */
tconv_status tconv_inputcheck_replay(const tconv_inputcheck *c, tconv_ctx *ctx,
                                     tconv_inputcheck_log *l, uint64_t limit, uint64_t *at);

#endif
