/* The summary writer's state: what it collects while the events go by, and the report it
 * prints at the end. */
#ifndef SUMMARY_H
#define SUMMARY_H

#include <tconv/tconv.h>

#include "csv_buf.h"
#include "csv_kernels.h"
#include "csv_kineto.h"
#include "csv_ops.h"
#include "csv_stacks.h"
#include <tconv/tconv.h>
#include "summary_gpu.h"
#include "summary_steps.h"

typedef struct summary_track {
    uint64_t events; /* spans and points, not metadata */
    int64_t busy;    /* summed durations of its outermost spans */
} summary_track;

typedef struct summary_cat {
    tconv_str cat;
    uint64_t spans;
    int64_t self;
} summary_cat;

typedef struct summary {
    tconv_ctx *ctx;
    tconv_output *out;
    size_t top;
    size_t width; /* names cut to this many bytes; 0: never */
    tconv_spanwalk *walk;
    csv_kineto kineto;
    csv_ops *ops;
    csv_kernels *kernels;
    csv_stacks stacks;
    summary_steps steps;
    summary_gpu gpu;

    uint64_t kinds[TCONV_EV_KIND_MAX]; /* spans are counted under TCONV_EV_COMPLETE */
    summary_track *tracks;
    size_t tracks_cap;
    summary_cat *cats;
    size_t ncats, cats_cap;
    tconv_map cat_index;
    csv_buf buf, tmp;

    /* Spans that are not work of their track (tconv_span_is_work) are left out of the walk
     * (TCONV_SPANWALK_WORK_ONLY), so their children count toward the work span around them, as in
     * pprof and folded. */
    uint64_t not_work[TCONV_ROLE_MAX]; /* spans left out, by role */
} summary;

/* summary_collect.c */
void summary_collect(summary *s, const tconv_event *ev);

/* summary_report.c */
tconv_status summary_report(summary *s);

#endif
