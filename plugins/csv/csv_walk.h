/* The span walker: follows the ordered stream of a TCONV_WRITER_ORDERED writer (per track,
 * time-ordered and nested, spans as BEGIN/END) and reports each span when it ends, with its
 * duration, self time (duration minus its direct children's), depth and the BEGIN's args. */
#ifndef CSV_WALK_H
#define CSV_WALK_H

#include <stddef.h>
#include <stdint.h>

#include <tconv/tconv.h>

typedef struct csv_span {
    uint32_t track, input;
    uint16_t flags;
    uint16_t role;  /* tconv_role, as the core decided it */
    uint32_t depth; /* 0: an outermost span of its track */
    tconv_str name, cat;
    int64_t ts, dur, self;
    uint64_t id, seq;
    uint64_t corr;         /* correlation id of a launch and its GPU work, 0 if none */
    const tconv_arg *args; /* valid until the next call */
    uint32_t nargs;
} csv_span;

typedef enum csv_step {
    CSV_WALK_BEGIN, /* a span opened at depth w->depth - 1 */
    CSV_WALK_END,   /* a span closed: see span */
    CSV_WALK_POINT, /* any other event, inside w->depth open spans */
    CSV_WALK_META,  /* metadata (arrives before the tracks) */
    CSV_WALK_SKIP,  /* an END with nothing open (cannot happen after the ordering stage) */
    CSV_WALK_HIDDEN /* a BEGIN or END of a span that is not work (csv_walk_work_only) */
} csv_step;

typedef struct csv_walk_frame {
    tconv_str name, cat;
    uint16_t flags, role;
    uint64_t corr;
    int64_t ts, children;
    uint64_t id, seq;
    size_t args_at;
    uint32_t nargs;
} csv_walk_frame;

typedef struct csv_walk {
    uint32_t track;    /* the track being walked, UINT32_MAX before the first */
    uint32_t depth;    /* open spans */
    int track_changed; /* the last event started a new track */
    csv_walk_frame *frames;
    size_t cap;
    tconv_arg *args; /* the open spans' args, stacked */
    size_t nargs, args_cap;
    csv_span span;
    /* csv_walk_work_only: per open span, 0 if walked, else its role + 1 */
    const tconv_ctx *work_ctx;
    uint16_t *hidden;
    size_t nhidden, hidden_cap;
    uint16_t hidden_role; /* after CSV_WALK_HIDDEN: the span's role */
} csv_walk;

void csv_walk_init(csv_walk *w);
void csv_walk_free(csv_walk *w);
csv_step csv_walk_event(csv_walk *w, const tconv_event *ev);
/* Leave out spans that are not work of their track (tconv_span_is_work: the profiler's window,
 * async spans), as the core's stack stage does for pprof and folded: their BEGIN and END come
 * back as CSV_WALK_HIDDEN and their children nest in the span around them, so self and busy
 * times agree with the profile writers. */
void csv_walk_work_only(csv_walk *w, const tconv_ctx *ctx);
/* The open span at depth d (0 = outermost). */
static inline const csv_walk_frame *csv_walk_frame_at(const csv_walk *w, uint32_t d)
{
    return &w->frames[d];
}

#endif
