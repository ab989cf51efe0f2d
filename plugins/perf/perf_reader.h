/* The `perf script` reader: turns each sample of the selected event into a SAMPLE event. */
#ifndef PERF_READER_H
#define PERF_READER_H

#include "tconv/tconv.h"

enum { PERF_INLINE_KEEP = 0, PERF_INLINE_MARK, PERF_INLINE_DROP };

typedef struct perf_opts {
    int pid;           /* root frame "comm-PID" */
    int tid;           /* root frame "comm-PID/TID" */
    int kernel;        /* "_[k]" on kernel frames */
    int jit;           /* "_[j]" on JIT frames */
    int addrs;         /* keep addresses of unknown symbols */
    int comm;          /* the process name is the root frame */
    int inlined;       /* PERF_INLINE_* for "(inlined)" frames */
    int strict;        /* a malformed line ends the run */
    int demangle;      /* demangle C++ names perf left mangled */
    const char *event; /* the event to read; NULL: the first one in the input */
} perf_opts;

tconv_status perf_reader_run(tconv_ctx *ctx, tconv_input *in, const perf_opts *opts,
                             tconv_sink *sink);

/* 0..100: how much the first bytes look like `perf script` output. */
int perf_reader_probe(const unsigned char *buf, size_t len);

#endif
