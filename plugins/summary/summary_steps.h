/* The step-time breakdown of the PyTorch TensorBoard profiler plugin's overview: each
 * ProfilerStep#, extended to the end of the device work it launched (trailing steps that
 * launched clearly less device work than the one before are left out, as the profiler may have
 * missed their kernels), is split by priority
 * into kernel, memcpy, memset, communication, runtime, data loader and CPU execution time
 * (time already given to a role before it in that order is not counted again); what is left
 * is "other". */
#ifndef SUMMARY_STEPS_H
#define SUMMARY_STEPS_H

#include <stdint.h>

#include "csv_kineto.h"
#include <tconv/tconv.h>
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
    uint32_t input;
} summary_launch;

typedef struct summary_steps {
    tconv_ctx *ctx;
    csv_kineto *k;
    summary_ranges roles[SUMMARY_NROLES - 1];
    summary_ranges steps; /* host ranges, in order of appearance */
    summary_launch *launches;
    size_t nlaunches, launches_cap;
    int64_t *dev_end;    /* latest device end per (input, correlation id) */
    uint32_t *dev_count; /* device events per (input, correlation id) */
    size_t ndev, dev_cap, count_cap;
    tconv_map dev_index;

    /* results */
    uint64_t nfound, nsteps;     /* steps in the input, and steps the breakdown covers */
    int64_t avg[SUMMARY_NROLES]; /* per step, ns */
    int64_t avg_total;
} summary_steps;

void summary_steps_init(summary_steps *s, tconv_ctx *ctx, csv_kineto *k);
void summary_steps_free(summary_steps *s);
void summary_steps_span(summary_steps *s, const tconv_span *span);
/* Compute the breakdown; nsteps is 0 when the input has no ProfilerStep#. */
void summary_steps_finish(summary_steps *s);

#endif
