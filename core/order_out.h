/* What a worker's flush of one track leaves for the main thread (core/orderjobs.c): the events
 * after the stack stage, and, in their place among them, the warnings and lanes that change
 * the run's context, which only the main thread may touch. */
#ifndef TCONV_ORDER_OUT_H
#define TCONV_ORDER_OUT_H

#include "internal.h"

enum { TCONV_ORDER_WARN_END = 1, TCONV_ORDER_WARN_UNCLOSED, TCONV_ORDER_WARN_OUTLIVES };

/* A repair of the ordering stage, as numbers and string ids: the text is made where it is told. */
typedef struct tconv_order_warn {
    int what;
    uint32_t track;
    tconv_str name, parent;
    int64_t t0, t1, t2;
} tconv_order_warn;

typedef struct tconv_order_out tconv_order_out;

/* Tells the repair now, as a one-thread flush does. */
void tconv_order_warn_now(tconv_ctx *ctx, const tconv_order_warn *w);
/* A worker keeps them for later. */
void tconv_order_out_warn(tconv_order_out *out, const tconv_order_warn *w);
/* Lane n of track, made later: returns the stand-in id the lane's events carry until then. */
uint32_t tconv_order_out_lane(tconv_order_out *out, uint32_t track, unsigned n);
/* The bytes of records the worker's flush freed. */
void tconv_order_out_freed(tconv_order_out *out, size_t bytes);

/* ---- core/order.c, for the flush on several threads ---- */
uint32_t tconv_order_ntracks(const tconv_order *o);
size_t tconv_order_track_events(const tconv_order *o, uint32_t track);
/* Less of the stage's memory held (bytes a worker's flush freed). */
void tconv_order_forget(tconv_order *o, size_t bytes);
/* One track's flush while other tracks are flushed on other threads: with out (a worker), it
 * touches neither the context nor anything of o that other tracks' flushes write; without (the
 * main thread), it touches the context as tconv_order_flush does, and nothing of o that a
 * worker reads. input and kind are the track's, taken before the workers began. */
tconv_status tconv_order_track_apart(tconv_order *o, uint32_t track, uint32_t input, unsigned kind,
                                     tconv_emit_fn emit, void *user, tconv_order_out *out);

#endif
