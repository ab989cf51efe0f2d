/* The wire form of a recording: an input read by another process of an MPI run (core/mpi.c),
 * sent as bytes to the process that replays it (core/record_wire.c). Every process runs the
 * same build on the same architecture, so numbers and event structs travel as they are in
 * memory; ids and offsets replace pointers. */
#ifndef TCONV_WIRE_H
#define TCONV_WIRE_H

#include "internal.h"

typedef struct tconv_wire {
    unsigned char *p;
    size_t len, cap; /* written */
    size_t pos;      /* read */
    int bad;         /* read past the end, or what was read makes no sense */
} tconv_wire;

void tconv_wire_put(tconv_wire *w, const void *p, size_t n);
void tconv_wire_u64(tconv_wire *w, uint64_t v);
/* A string of n bytes; NULL travels as NULL. */
void tconv_wire_bytes(tconv_wire *w, const char *s, size_t n);
void tconv_wire_str(tconv_wire *w, const char *s);
/* Reading: zeros and w->bad once past the end. */
void tconv_wire_get(tconv_wire *w, void *p, size_t n);
uint64_t tconv_wire_get_u64(tconv_wire *w);
/* A copy, NUL-terminated, its length in *n if n; NULL when NULL was sent or w is bad. */
char *tconv_wire_get_str(tconv_wire *w, size_t *n);

/* The recording rec (finished, not replayed) appended to w: its status, the worker context's
 * strings, tracks, warnings and error, its steps and its events with their args, frames and
 * values. */
void tconv_rec_encode(const tconv_rec *rec, tconv_wire *w);
/* The recording read back from w, with a context of its own in *wctx (the worker's tables as
 * they were); NULL if w is malformed. */
tconv_rec *tconv_rec_decode(tconv_wire *w, tconv_ctx **wctx);

#endif
