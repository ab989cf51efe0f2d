/* A growable byte buffer with LEB128 varints: the compact form in which the writer keeps events
 * until their location is written. Times are stored as deltas from the previous record of the
 * same location, so a typical Enter or Leave takes 4 to 6 bytes. */
#ifndef TCONV_OTF2_BYTES_H
#define TCONV_OTF2_BYTES_H

#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <tconv/tconv.h>

#include "otf2_oom.h"

typedef struct otf2_bytes {
    uint8_t *p;
    size_t len, cap;
} otf2_bytes;

/* Make room for n more bytes. Large buffers are realloc'ed, which glibc does by remapping
 * pages rather than copying, and untouched capacity costs no resident memory. */
static inline void otf2_bytes_reserve(otf2_bytes *b, size_t n)
{
    if (b->len + n <= b->cap) return;
    size_t cap = b->cap ? b->cap : 64;
    while (cap < b->len + n)
        cap = cap < (1u << 20) ? cap * 2 : cap + cap / 2;
    uint8_t *p = realloc(b->p, cap);
    if (!p) otf2_oom();
    b->p = p;
    b->cap = cap;
}

/* Grow the array *p of *cap elements of size bytes to hold at least need elements. */
static inline void otf2_grow(void **p, size_t *cap, size_t need, size_t size)
{
    tconv_array_grow(p, cap, need, size); /* the core's, overflow-checked */
}
#define OTF2W_GROW(arr, cap, need) otf2_grow((void **)&(arr), &(cap), (need), sizeof(*(arr)))

static inline void otf2_bytes_free(otf2_bytes *b)
{
    free(b->p);
    b->p = NULL;
    b->len = b->cap = 0;
}

/* The put functions assume the caller reserved enough room (10 bytes per varint). */
static inline void otf2_put_u8(otf2_bytes *b, uint8_t v)
{
    b->p[b->len++] = v;
}

static inline void otf2_put_uv(otf2_bytes *b, uint64_t v)
{
    while (v >= 0x80) {
        b->p[b->len++] = (uint8_t)(v | 0x80);
        v >>= 7;
    }
    b->p[b->len++] = (uint8_t)v;
}

static inline void otf2_put_sv(otf2_bytes *b, int64_t v)
{
    otf2_put_uv(b, ((uint64_t)v << 1) ^ (uint64_t)(v >> 63));
}

static inline void otf2_put_f64(otf2_bytes *b, double v)
{
    memcpy(b->p + b->len, &v, sizeof(v));
    b->len += sizeof(v);
}

static inline void otf2_put_raw(otf2_bytes *b, const void *src, size_t n)
{
    memcpy(b->p + b->len, src, n);
    b->len += n;
}

/* A read cursor over a buffer the writer produced itself, so no bounds checks beyond the end. */
typedef struct otf2_cursor {
    const uint8_t *p, *end;
} otf2_cursor;

static inline uint8_t otf2_get_u8(otf2_cursor *c)
{
    return *c->p++;
}

static inline uint64_t otf2_get_uv(otf2_cursor *c)
{
    uint64_t v = 0;
    unsigned shift = 0;
    uint8_t byte;
    do {
        byte = *c->p++;
        v |= (uint64_t)(byte & 0x7f) << shift;
        shift += 7;
    } while (byte & 0x80);
    return v;
}

static inline int64_t otf2_get_sv(otf2_cursor *c)
{
    uint64_t u = otf2_get_uv(c);
    return (int64_t)(u >> 1) ^ -(int64_t)(u & 1);
}

static inline double otf2_get_f64(otf2_cursor *c)
{
    double v;
    memcpy(&v, c->p, sizeof(v));
    c->p += sizeof(v);
    return v;
}

#endif
