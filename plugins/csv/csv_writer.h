/* The csv writer's state, shared by the files that write its tables. */
#ifndef CSV_WRITER_H
#define CSV_WRITER_H

#include <tconv/tconv.h>

#include "csv_buf.h"
#include "csv_kernels.h"
#include "csv_kineto.h"
#include "csv_memory.h"
#include "csv_ops.h"
#include "csv_stacks.h"
#include <tconv/tconv.h>

typedef enum csv_table {
    CSV_TABLE_EVENTS = 0,
    CSV_TABLE_OPS,
    CSV_TABLE_KERNELS,
    CSV_TABLE_STACKS,
    CSV_TABLE_MEMORY,
    CSV_TABLE_COUNTERS
} csv_table;

/* A row of the events table waiting for its span (or its outermost enclosing span) to end. */
typedef struct csv_pending {
    uint16_t kind; /* TCONV_EV_BEGIN for spans */
    uint32_t track, depth;
    int64_t ts, dur, self;
    tconv_str name, cat;
    size_t args_at, args_len; /* in csv_writer.pending_args */
} csv_pending;

typedef struct csv_writer {
    tconv_ctx *ctx;
    tconv_output *out;
    csv_table table;
    const char *eol;
    csv_ops_mode ops_mode;
    csv_buf row;
    tconv_spanwalk *walk;
    uint64_t not_work; /* stacks table: spans left out, not work of their track */
    csv_kineto kineto;
    csv_ops *ops;
    csv_kernels *kernels;
    csv_stacks stacks;
    csv_memory *memory;

    /* events table */
    csv_pending *pending;
    size_t npending, pending_cap;
    size_t *open_rows; /* pending row of each open span, by depth */
    size_t open_cap;
    csv_buf pending_args;
    csv_buf track_fields; /* "pid,tid,process,thread" of track_cached */
    uint32_t track_cached;
    csv_buf scratch;
} csv_writer;

tconv_status csv_events_header(csv_writer *w);
tconv_status csv_events_event(csv_writer *w, const tconv_event *ev);
tconv_status csv_events_finish(csv_writer *w);
void csv_events_free(csv_writer *w);

/* csv_memory_table.c */
tconv_status csv_memory_write(csv_writer *w);

/* csv_series.c */
tconv_status csv_series_header(csv_writer *w);
tconv_status csv_series_event(csv_writer *w, const tconv_event *ev);

tconv_status csv_tables_write(csv_writer *w);

/* The fields pid, tid, process, thread of a track, for rows. */
void csv_track_fields(csv_writer *w, uint32_t track, csv_buf *out);

#endif
