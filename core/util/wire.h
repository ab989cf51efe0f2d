/* The wire codec (core/util/wire.c): what one process of an MPI run sends another, as bytes (a
 * recording, core/parallel/record_wire.c; the input checks' log; the run's plan and agreement).
 * Every process runs the same build on the same architecture, so numbers and structs travel as they
 * are in memory; ids and offsets replace pointers. */
#ifndef TCONV_WIRE_H
#define TCONV_WIRE_H

#include "util.h"

struct tconv_wire {
    unsigned char *p;
    size_t len, cap; /* written */
    size_t pos;      /* read */
    int bad;         /* read past the end, or what was read makes no sense */
};

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
/* A count of items that the rest of the message could hold, at least `each` bytes per item;
 * 0 and w->bad when it could not. */
size_t tconv_wire_get_count(tconv_wire *w, size_t each);
/* The next n bytes, copied into a (NULL for none). */
void *tconv_wire_get_dup(tconv_wire *w, tconv_arena *a, size_t n);

#endif
