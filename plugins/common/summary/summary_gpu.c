/* Per-device totals and kernel busy time. */
#include <stdlib.h>
#include <string.h>

#include "csv_sat.h"
#include "summary_gpu.h"

void summary_gpu_init(summary_gpu *g, tconv_ctx *ctx, csv_kineto *k)
{
    memset(g, 0, sizeof *g);
    g->ctx = ctx;
    g->k = k;
}

void summary_gpu_free(summary_gpu *g)
{
    for (size_t i = 0; i < g->n; i++)
        summary_ranges_free(&g->dev[i].kernels);
    free(g->dev);
    tconv_map_free(&g->index);
}

void summary_gpu_span(summary_gpu *g, const tconv_span *span)
{
    csv_role role = csv_kineto_role(g->k, span->role, span->cat);
    if (!csv_role_is_device(role)) return;
    int64_t number = 0;
    int by_arg = csv_arg_int(g->ctx, span->args, span->nargs, "device", &number);
    tconv_str pid = 0;
    if (!by_arg) {
        const tconv_track *t = tconv_track_describe(g->ctx, span->track);
        pid = t ? t->pid : 0;
    }
    /* Key: the device number, or the pid's string id with the top bit set. */
    uint64_t key = by_arg ? (uint64_t)number : (1ull << 63) | pid;
    uint32_t i = tconv_map_put(&g->index, key, span->input, (uint32_t)g->n);
    if (i == g->n) {
        TCONV_ARRAY_GROW(g->dev, g->cap, g->n + 1);
        g->dev[i] =
            (summary_device){.by_arg = by_arg, .number = number, .pid = pid, .input = span->input};
        g->n++;
    }
    summary_device *d = &g->dev[i];
    switch (role) {
    case CSV_ROLE_KERNEL:
        d->nkernels++;
        d->kernel_time = csv_sat_add(d->kernel_time, span->dur);
        summary_ranges_add(&d->kernels, span->ts, span->ts + span->dur);
        break;
    case CSV_ROLE_MEMCPY:
        d->nmemcpy++;
        d->memcpy_time = csv_sat_add(d->memcpy_time, span->dur);
        break;
    default:
        d->nmemset++;
        d->memset_time = csv_sat_add(d->memset_time, span->dur);
        break;
    }
}

static const tconv_ctx *summary_gpu_sort_ctx;

static int summary_gpu_cmp(const void *pa, const void *pb)
{
    const summary_device *a = pa, *b = pb;
    if (a->input != b->input) return a->input < b->input ? -1 : 1;
    if (a->by_arg != b->by_arg) return a->by_arg ? -1 : 1;
    if (a->by_arg) return (a->number > b->number) - (a->number < b->number);
    return strcmp(tconv_string_get(summary_gpu_sort_ctx, a->pid),
                  tconv_string_get(summary_gpu_sort_ctx, b->pid));
}

void summary_gpu_finish(summary_gpu *g)
{
    for (size_t i = 0; i < g->n; i++) {
        summary_ranges_merge(&g->dev[i].kernels);
        g->dev[i].busy = summary_ranges_sum(&g->dev[i].kernels);
    }
    summary_gpu_sort_ctx = g->ctx;
    if (g->n > 1) qsort(g->dev, g->n, sizeof *g->dev, summary_gpu_cmp);
}
