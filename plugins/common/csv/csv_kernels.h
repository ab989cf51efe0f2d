/* The kernels table: per kernel name, calls and durations, the launch configuration, and the
 * duration-weighted means of blocks per SM and estimated achieved occupancy, as the kernel view
 * of the PyTorch TensorBoard profiler plugin computes them (a call without the value counts
 * as 0; a kernel none of whose calls has it has no mean: a profiler that does not measure it,
 * such as nsys or rocprof, is not one that measured 0). Kernels are spans of category "kernel"
 * (and MTIA's "mtia_ccp_events"). */
#ifndef CSV_KERNELS_H
#define CSV_KERNELS_H

#include <stddef.h>
#include <stdint.h>

#include "csv_kineto.h"
#include <tconv/tconv.h>
#include <tconv/tconv.h>

typedef struct csv_kernel_row {
    tconv_str name;
    uint64_t calls;
    int64_t total, min, max;
    double blocks_weighted, occupancy_weighted; /* sums of value * duration */
    int has_blocks, has_occupancy;              /* some call had the value */
    int tensor_core;
    /* The launch configuration with the most time (the first seen among equals), and how
     * many distinct ones the kernel had. */
    tconv_str grid, block;
    int64_t regs, smem;
    int has_regs, has_smem;
    uint32_t configs;
} csv_kernel_row;

typedef struct csv_kernels csv_kernels;

csv_kernels *csv_kernels_new(tconv_ctx *ctx, csv_kineto *k);
void csv_kernels_free(csv_kernels *kt);
void csv_kernels_end(csv_kernels *kt, const tconv_span *s);
/* A row's duration-weighted mean of blocks per SM, of estimated achieved occupancy: 1 with it
 * in *mean (0 when every call lasted 0 ns: they weigh nothing), 0 when no call had the value. */
int csv_kernel_blocks(const csv_kernel_row *r, double *mean);
int csv_kernel_occupancy(const csv_kernel_row *r, double *mean);
/* Rows sorted by total time (descending), then name. */
const csv_kernel_row *csv_kernels_rows(csv_kernels *kt, size_t *n);

#endif
