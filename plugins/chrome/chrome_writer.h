/* The Chrome Trace Event writer's state. */
#ifndef CHROME_WRITER_H
#define CHROME_WRITER_H

#include <stddef.h>
#include <stdint.h>

#include <tconv/tconv.h>

#include "chrome_wbuf.h"

/* One lane of a GPU stream: the ends of the spans open on it, innermost last. */
typedef struct chrome_lane {
    int64_t *ends;
    size_t n, cap;
    int named; /* its thread_name is written */
} chrome_lane;

/* What the writer keeps per track: its lanes, and the stack sample waiting for the next one,
 * whose time gives it its length. */
typedef struct chrome_wtrack {
    chrome_lane *lanes;
    uint32_t nlanes;
    int has_sample;  /* its frames are open */
    int seen_sample; /* sample_ts is the time of its last sample */
    int64_t sample_ts, sample_dur, interval;
    tconv_frame *frames;
    uint32_t nframes, frames_cap;
    /* The names of the B events still open, for the E events that come without one: viewers
     * such as speedscope match an E to its B by name. */
    tconv_str *open;
    size_t nopen, open_cap;
} chrome_wtrack;

typedef struct chrome_topmeta {
    tconv_str name, text;
} chrome_topmeta;

typedef struct chrome_writer {
    tconv_ctx *ctx;
    chrome_wbuf *b;
    uint64_t events; /* written to traceEvents */
    int events_open; /* "traceEvents":[ is written */
    size_t members;  /* of the top-level object, written */
    int lanes;       /* option */
    chrome_wtrack *tracks;
    uint32_t ntracks;
    chrome_topmeta *top;
    size_t ntop, top_cap;
    /* A [memory] instant just written: the counters the Chrome reader derives from it follow,
     * and are left out since reading the instant back derives them again. */
    int memory_open;
    int64_t memory_ts;
    tconv_str s_memory, s_allocated, s_reserved, s_bytes, s_memory_instant;
    tconv_str s_id, s_id2_local, s_id2_global; /* the args a flow's own id comes in */
    char *tmp;
    size_t tmp_cap;
} chrome_writer;

tconv_status chrome_writer_event(chrome_writer *w, const tconv_event *ev);
tconv_status chrome_writer_finish(chrome_writer *w);
void chrome_writer_free(chrome_writer *w);

#endif
