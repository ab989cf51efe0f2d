/* A hash map from a two-part integer key (a 64-bit and a 32-bit part: an interned string and a
 * track, a correlation id and an input, ...) to a 32-bit value, which is meant to be an index
 * into the caller's own array of records. It is the one map plugins need for aggregating per
 * name, per op, per kernel or per id, so that no plugin keeps a hash table of its own. Open
 * addressing, doubling at half load; out of memory ends in the handler of
 * tconv_oom_handler_set, like every core allocation. Added in ABI 1.1. */
#ifndef TCONV_MAP_H
#define TCONV_MAP_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef struct tconv_map_slot {
    uint64_t a;
    uint32_t b;
    uint32_t value; /* TCONV_MAP_NONE: empty */
} tconv_map_slot;

/* Zero-initialise ({0}) before use; the layout is part of the ABI (it lives in callers'
 * structs). */
typedef struct tconv_map {
    tconv_map_slot *slots;
    size_t nslots, n;
} tconv_map;

#define TCONV_MAP_NONE UINT32_MAX

void tconv_map_free(tconv_map *m);
/* The value of (a, b), or TCONV_MAP_NONE. */
uint32_t tconv_map_get(const tconv_map *m, uint64_t a, uint32_t b);
/* The value of (a, b); when absent, stores value (not TCONV_MAP_NONE) and returns it. */
uint32_t tconv_map_put(tconv_map *m, uint64_t a, uint32_t b, uint32_t value);
/* Stores value (not TCONV_MAP_NONE) for (a, b), replacing what was there. */
void tconv_map_set(tconv_map *m, uint64_t a, uint32_t b, uint32_t value);

/* Grow *p, an array of *cap elements of elem bytes, to hold at least need elements (new
 * elements are not cleared). The size is checked for overflow; out of memory ends in the
 * handler of tconv_oom_handler_set. */
void tconv_array_grow(void **p, size_t *cap, size_t need, size_t elem);
#define TCONV_ARRAY_GROW(arr, cap, need)                                                           \
    tconv_array_grow((void **)&(arr), &(cap), (need), sizeof(*(arr)))
/* n zeroed elements of size bytes, checked for overflow; out of memory as above. */
void *tconv_array_alloc(size_t n, size_t size);

#ifdef __cplusplus
}
#endif

#endif
