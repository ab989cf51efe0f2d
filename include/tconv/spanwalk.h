/* The span walk: follows the stream an ordered writer receives (TCONV_WRITER_ORDERED: per
 * track, time-ordered and properly nested, spans as BEGIN/END) and reports each span as it
 * closes, with its duration, its self time (duration minus its direct children's) and its
 * depth. It is the stage the core's own stack stage (self time for pprof, folded, flame graphs)
 * is built on, published so that a writer that needs spans and self times together (csv,
 * summary) computes them the same way instead of keeping a copy of its own. Added in ABI 1.1. */
#ifndef TCONV_SPANWALK_H
#define TCONV_SPANWALK_H

#include <stdint.h>

#include "context.h"
#include "event.h"

#ifdef __cplusplus
extern "C" {
#endif

/* A span, open or closed. Read it through the pointers the walk returns; the core may append
 * fields in a later minor ABI. */
typedef struct tconv_span {
    uint32_t track, input;
    uint16_t flags;         /* TCONV_EVF_* of the BEGIN and the END */
    uint16_t role;          /* tconv_role, as the core decided it */
    uint32_t depth;         /* 0: an outermost span of its track */
    tconv_str name, cat;    /* the BEGIN's, or the END's where the BEGIN had none */
    int64_t ts;             /* start, ns */
    int64_t dur, self;      /* closed spans only */
    uint64_t id, seq, corr; /* from the BEGIN (corr also from the END) */
    const tconv_arg *args;  /* the BEGIN's, with TCONV_SPANWALK_ARGS; else NULL */
    uint32_t nargs;
} tconv_span;

typedef enum tconv_walk_step {
    TCONV_WALK_BEGIN, /* a span opened: tconv_spanwalk_open(w, depth - 1) */
    TCONV_WALK_END,   /* a span closed: tconv_spanwalk_span(w) */
    TCONV_WALK_POINT, /* any other event, inside tconv_spanwalk_depth(w) open spans */
    TCONV_WALK_META,  /* metadata (it arrives before the tracks) */
    TCONV_WALK_SKIP,  /* an END with nothing open (the ordering stage never sends one) */
    TCONV_WALK_HIDDEN /* a BEGIN or END of a span left out by TCONV_SPANWALK_WORK_ONLY */
} tconv_walk_step;

enum {
    /* Keep each open span's args until it closes (they are copied; their strings are ids). */
    TCONV_SPANWALK_ARGS = 1u << 0,
    /* Leave out spans that are not work of their track (tconv_span_is_work: the profiler's
     * window, async spans), as the stack stage does: their BEGIN and END come back as
     * TCONV_WALK_HIDDEN and their children nest in the span around them, so self and busy
     * times agree with the profile writers. */
    TCONV_SPANWALK_WORK_ONLY = 1u << 1
};

typedef struct tconv_spanwalk tconv_spanwalk;

tconv_spanwalk *tconv_spanwalk_new(const tconv_ctx *ctx, unsigned flags);
void tconv_spanwalk_destroy(tconv_spanwalk *w);
tconv_walk_step tconv_spanwalk_event(tconv_spanwalk *w, const tconv_event *ev);

/* After TCONV_WALK_END: the span that closed (valid until the next event). */
const tconv_span *tconv_spanwalk_span(const tconv_spanwalk *w);
/* Open spans on the current track; the one at depth d (0 = outermost), dur and self 0. */
uint32_t tconv_spanwalk_depth(const tconv_spanwalk *w);
const tconv_span *tconv_spanwalk_open(const tconv_spanwalk *w, uint32_t d);
/* The track of the last event (UINT32_MAX before the first span or point). */
uint32_t tconv_spanwalk_track(const tconv_spanwalk *w);
/* After TCONV_WALK_HIDDEN: the role of the span left out. */
unsigned tconv_spanwalk_hidden_role(const tconv_spanwalk *w);

#ifdef __cplusplus
}
#endif

#endif
