/* The step-time breakdown of the PyTorch TensorBoard profiler plugin's overview: each step
 * (a span the core marked TCONV_ROLE_STEP: ProfilerStep#N, or the spans --step-name names),
 * extended to the end of the device work it launched (trailing steps that launched clearly less
 * device work than the one before are left out, as the profiler may have missed their kernels),
 * is split by priority into kernel, memcpy, memset, communication, runtime, data loader and CPU
 * execution time (time already given to a role before it in that order is not counted again);
 * what is left is "other".
 *
 * Each input is one rank of a job, with its own clock and its own steps: the breakdown is made
 * per input, as for that input alone, and only then combined. The combined breakdown is the mean
 * over the inputs with steps of each one's mean (every rank weighs the same, however many steps
 * it recorded); the slowest input is the one with the longest mean step. Cutting one rank's steps
 * against another's overlapping ones would measure neither. */
#ifndef SUMMARY_STEPS_H
#define SUMMARY_STEPS_H

#include <stdint.h>

#include "csv_kineto.h"
#include <tconv/tconv.h>
#include "summary_ranges.h"

typedef enum summary_role {
    SUMMARY_KERNEL = 0,
    SUMMARY_MEMCPY,
    SUMMARY_MEMSET,
    SUMMARY_COMM,
    SUMMARY_RUNTIME,
    SUMMARY_DATALOADER,
    SUMMARY_CPU,
    SUMMARY_OTHER,
    SUMMARY_NROLES
} summary_role;

extern const char *const summary_role_names[SUMMARY_NROLES];

typedef struct summary_launch {
    int64_t start, end, corr;
} summary_launch;

/* One step: its host span, then (after finish) extended, with the time of each role in it. */
typedef struct summary_step {
    int64_t start, end;
    tconv_str name;
    int64_t role[SUMMARY_NROLES];
} summary_step;

/* CPU work of no operator category, and the role it would have (summary_steps_span). */
typedef struct summary_plain {
    int64_t start, end;
    int role;
} summary_plain;

/* One input's steps and breakdown, as if it were the only input. */
typedef struct summary_steps_input {
    summary_ranges roles[SUMMARY_NROLES - 1];
    summary_step *step; /* after finish: in time order, the first nsteps kept */
    size_t nstep, step_cap;
    summary_launch *launches;
    size_t nlaunches, launches_cap;
    summary_plain *plain;
    size_t nplain, plain_cap;
    int has_ops; /* names Kineto operators (cpu_op, Operator) */
    /* results */
    uint64_t nfound, nsteps;     /* steps in the input, and steps the breakdown covers */
    int64_t avg[SUMMARY_NROLES]; /* per step, ns */
    int64_t avg_total;
} summary_steps_input;

typedef struct summary_steps {
    tconv_ctx *ctx;
    csv_kineto *k;
    summary_steps_input *in; /* by input index */
    size_t nin, in_cap;
    int64_t *dev_end;    /* latest device end per (input, correlation id) */
    uint32_t *dev_count; /* device events per (input, correlation id) */
    size_t ndev, dev_cap, count_cap;
    tconv_map dev_index;

    /* results, over the inputs with steps */
    uint32_t ninputs;            /* inputs whose breakdown covers a step */
    uint32_t slowest;            /* the input of the longest mean step (when ninputs) */
    uint64_t nfound, nsteps;     /* summed over the inputs */
    int other_names;             /* some step is no ProfilerStep# (--step-name) */
    int64_t avg[SUMMARY_NROLES]; /* the mean of the inputs' means, ns */
    int64_t avg_total;
} summary_steps;

void summary_steps_init(summary_steps *s, tconv_ctx *ctx, csv_kineto *k);
void summary_steps_free(summary_steps *s);
void summary_steps_span(summary_steps *s, const tconv_span *span);
/* Compute the breakdowns; nsteps is 0 when no input has a step. */
void summary_steps_finish(summary_steps *s);
/* Input i's breakdown (NULL past the inputs seen: none of its spans was a step or work). */
const summary_steps_input *summary_steps_of(const summary_steps *s, uint32_t i);

#endif
