/* The pprof writer's state, shared by the files that fill it (pprof_writer.c) and write it out
 * (pprof_encode.c). */
#ifndef PPROF_WRITER_H
#define PPROF_WRITER_H

#include <stdint.h>

#include <tconv/plugin.h>
#include <tconv/steps.h>

#include "pprof_agg.h"
#include "pprof_meta.h"
#include "pprof_stacks.h"

typedef enum pprof_labels_mode {
    PPROF_LABELS_ALL = 0, /* pid, tid, thread, process (and input with several inputs) */
    PPROF_LABELS_PID,     /* pid, process, input: threads of a process merge */
    PPROF_LABELS_NONE     /* everything merges */
} pprof_labels_mode;

typedef enum pprof_root_mode {
    PPROF_ROOT_GPU = 0, /* GPU stream tracks get their stream's name as outermost frame */
    PPROF_ROOT_ALL,     /* every track does */
    PPROF_ROOT_NONE
} pprof_root_mode;

typedef enum pprof_category_mode {
    PPROF_CATEGORY_FILE = 0, /* a frame without a source file gets its category as filename */
    PPROF_CATEGORY_SYSTEM,   /* the category becomes the function's system_name */
    PPROF_CATEGORY_NONE
} pprof_category_mode;

typedef struct pprof_writer {
    tconv_ctx *ctx;
    tconv_output *out;

    /* options */
    pprof_labels_mode labels;
    pprof_root_mode root;
    pprof_category_mode category;
    int64_t unit_div; /* divisor for nanosecond values: 1, 1000, ... */
    const char *unit_name;
    const char *sample_type; /* NULL: the producer's default */
    int has_start, has_end;
    int64_t start, end;
    const char *track_filter; /* comma-separated glob patterns, NULL for all */
    int steps_merged;         /* -W steps=merge: one ProfilerStep frame, the number a label */
    int level;                /* gzip level */

    /* what arrived */
    int have_types;
    uint32_t nvalues;
    pprof_stacks stacks;
    pprof_agg agg; /* group = track id */
    pprof_meta meta;
} pprof_writer;

/* Write the whole profile: the finish step. */
tconv_status pprof_encode(pprof_writer *w);

#endif
