/* The Firefox Profiler reader: the processed profile (what profiler.firefox.com stores and samply
 * writes) and the raw Gecko profile (what Firefox records). Both keep a thread as tables that
 * index each other (samples -> stacks -> frames -> functions -> resources -> libraries, strings
 * in a string table); they differ in how a table is laid out, which firefox_table.c hides, and
 * in how a frame is described, which firefox_frames.c reads. */
#ifndef FIREFOX_READER_H
#define FIREFOX_READER_H

#include <stddef.h>
#include <stdint.h>

#include <jansson.h>
#include <tconv/tconv.h>

extern const tconv_reader_class firefox_reader_class;

int firefox_probe(const unsigned char *buf, size_t len);
/* ---- tables (firefox_table.c) ------------------------------------------------------------- */

/* A table is either columns ({"length": n, "col": [...], ...}: the processed format) or rows
 * ({"schema": {"col": index, ...}, "data": [[...], ...]}: Gecko). */
typedef struct firefox_table {
    json_t *obj;
    json_t *data; /* rows: the data array; NULL for columns */
    json_t *schema;
    size_t length;
} firefox_table;

typedef struct firefox_col {
    json_t *array; /* columns: the column */
    json_t *data;  /* rows: the table's rows */
    size_t index;  /* rows: the column's index in a row */
    int present;
} firefox_col;

/* 0, or -1 when obj is not a table (then *t is empty: length 0). */
int firefox_table_open(json_t *obj, firefox_table *t);
firefox_col firefox_table_col(const firefox_table *t, const char *name);
/* The cell, or NULL (absent column or row, JSON null). */
json_t *firefox_cell(const firefox_col *c, size_t row);
/* A cell as an index: -1 for none or null, -2 for a value that is no index. */
int64_t firefox_cell_index(const firefox_col *c, size_t row);
/* A cell as a number; 0 when it is none. */
int firefox_cell_number(const firefox_col *c, size_t row, double *out);

/* ---- a thread and what it refers to ------------------------------------------------------ */

typedef struct firefox_thread {
    json_t *obj;
    json_t *strings;    /* the string table (an array of strings) */
    json_t *libs;       /* the libraries (an array of objects) */
    json_t *categories; /* meta.categories */
    int gecko;
    int64_t offset_ns; /* added to every time: a Gecko subprocess's start after the root's */
    size_t index;      /* in the document's order, for messages and tid-less threads */
} firefox_thread;

typedef struct firefox_reader {
    tconv_ctx *ctx;
    tconv_sink *sink;
    const char *name;
    int want_args;
    json_t *shared; /* processed format: profile.shared (strings from version 53 on) */
    json_t *shared_strings;
    /* value indices of the sample types, -1 when unused */
    int v_samples, v_time, v_bytes, v_cpu;
    size_t nvalues;
    double cpu_scale; /* ns per unit of threadCPUDelta */
    /* one thread's frames (built per thread), one sample's stack */
    tconv_frame *frames;
    size_t nframes, frames_cap;
    int32_t *prefix, *stack_frame; /* the stack table */
    size_t nstacks, stacks_cap;
    tconv_frame *stack;
    size_t stack_cap;
    tconv_arg *args;
    size_t args_cap;
    uint64_t no_stack; /* samples without a stack, left out */
    tconv_str s_empty, s_thread_name, s_process_name;
} firefox_reader;

/* The thread's table of this name, or, when the thread has none, profile.shared's (where
 * newer processed versions may keep the tables all threads share). */
json_t *firefox_thread_table(const firefox_reader *r, const firefox_thread *th, const char *name);

/* A string of the thread's table by index, interned; 0 when out of range or not a string. */
tconv_str firefox_string(firefox_reader *r, const firefox_thread *th, int64_t idx);

/* firefox_frames.c: the thread's frame table as r->frames (-1: the error is set). */
int firefox_frames_build(firefox_reader *r, const firefox_thread *th);

/* firefox_thread.c: the thread's samples, then its markers, pushed. */
tconv_status firefox_thread_read(firefox_reader *r, const firefox_thread *th);

/* firefox_markers.c: the thread's markers as spans and instants on tracks of their own. */
tconv_status firefox_markers_read(firefox_reader *r, const firefox_thread *th, tconv_str pid,
                                  tconv_str tid);

#endif
