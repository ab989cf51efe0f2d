/* The line grammar of `perf script` text: sample header lines and call-chain frame lines. Pure
 * functions over one line; the spans they return point into that line. */
#ifndef PERF_LINE_H
#define PERF_LINE_H

#include <stddef.h>
#include <stdint.h>

typedef struct perf_span {
    const char *p;
    size_t n;
} perf_span;

/* "comm pid/tid [cpu] secs.frac: period event: rest". Every field but the thread id is optional;
 * absent spans have n == 0. */
typedef struct perf_header {
    perf_span comm; /* trimmed; may contain spaces */
    perf_span pid;  /* only when written as pid/tid */
    perf_span tid;
    int has_cpu;
    int cpu;
    int has_time;
    int64_t time_ns;
    int has_period;
    uint64_t period;
    int has_event;
    perf_span event; /* as written, modifiers included ("cycles:uppp"), without the final ':' */
    perf_span rest;  /* what follows the event: a frame when there is no call chain */
} perf_header;

/* 1 if the line is a sample header. */
int perf_line_header(const char *line, size_t len, perf_header *h);

/* "  addr sym+0xoff (dso)". sym may be empty, the dso absent (`-F ip,sym`). */
typedef struct perf_frame_line {
    perf_span pc;
    uint64_t addr;
    perf_span text; /* everything after the address */
    perf_span sym;
    perf_span dso; /* inside the parentheses, without a "+0x" dso offset */
    int has_dso;
} perf_frame_line;

/* 1 if the line is a call-chain frame. */
int perf_line_frame(const char *line, size_t len, perf_frame_line *f);
/* The two halves of perf_line_frame, for callers that can skip the second: the address and the
 * text after it (1 if the line starts with an address), then sym and dso from that text (1 unless
 * the line is damaged). */
int perf_line_frame_head(const char *line, size_t len, perf_frame_line *f);
int perf_line_frame_body(perf_frame_line *f);

/* A source line printed under a frame by `-F +srcline`: "  path/file.c:123". */
int perf_line_srcline(const char *line, size_t len, perf_span *file, uint32_t *lineno);

/* Length without trailing blanks. */
size_t perf_line_trim_end(const char *s, size_t n);

#endif
