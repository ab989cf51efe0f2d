/* Per GPU (or other accelerator): kernel busy time (the union of its kernels' intervals over
 * all its streams), kernel, memcpy and memset counts and times. A device is known by the
 * "device" arg of its work (Kineto), else by the process of its track. */
#ifndef SUMMARY_GPU_H
#define SUMMARY_GPU_H

#include <stdint.h>

#include "csv_kineto.h"
#include <tconv/tconv.h>
#include <tconv/tconv.h>
#include "summary_ranges.h"

typedef struct summary_device {
    int by_arg;     /* known by its "device" arg */
    int64_t number; /* the device number when by_arg */
    tconv_str pid;  /* else the process of its track */
    uint32_t input;
    summary_ranges kernels;
    uint64_t nkernels, nmemcpy, nmemset;
    int64_t kernel_time, memcpy_time, memset_time;
    int64_t busy; /* after summary_gpu_finish */
} summary_device;

typedef struct summary_gpu {
    tconv_ctx *ctx;
    csv_kineto *k;
    summary_device *dev;
    size_t n, cap;
    tconv_map index;
} summary_gpu;

void summary_gpu_init(summary_gpu *g, tconv_ctx *ctx, csv_kineto *k);
void summary_gpu_free(summary_gpu *g);
void summary_gpu_span(summary_gpu *g, const tconv_span *span);
/* Busy times, and devices sorted by input, then number or process. */
void summary_gpu_finish(summary_gpu *g);

#endif
