/* A small open-addressing hash map from a 128-bit key (two uint64) to a uint32 index: finds the
 * region, series, attribute or marker definition an event refers to. */
#ifndef TCONV_OTF2_MAP_H
#define TCONV_OTF2_MAP_H

#include <stddef.h>
#include <stdint.h>

typedef struct otf2_map_slot {
    uint64_t a, b;
    uint32_t v; /* value + 1; 0 marks an empty slot */
} otf2_map_slot;

typedef struct otf2_map {
    otf2_map_slot *slots;
    size_t n, cap; /* cap is 0 or a power of two */
} otf2_map;

/* The value stored for (a, b), or UINT32_MAX if none. */
uint32_t otf2_map_get(const otf2_map *m, uint64_t a, uint64_t b);
/* Store v (< UINT32_MAX) for (a, b), replacing any previous value. */
void otf2_map_put(otf2_map *m, uint64_t a, uint64_t b, uint32_t v);
void otf2_map_free(otf2_map *m);

#endif
