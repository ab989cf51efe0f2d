/* A hash map from a two-part integer key to a 32-bit value (an index into the caller's own
 * array). Every aggregate (per op, per kernel, per stack node, per correlation id) is found
 * through one. */
#ifndef CSV_MAP_H
#define CSV_MAP_H

#include <stddef.h>
#include <stdint.h>

typedef struct csv_map_slot {
    uint64_t a;
    uint32_t b;
    uint32_t value; /* UINT32_MAX: empty */
} csv_map_slot;

typedef struct csv_map {
    csv_map_slot *slots;
    size_t nslots, n;
} csv_map;

#define CSV_MAP_NONE UINT32_MAX

void csv_map_free(csv_map *m);
/* The value of (a, b), or CSV_MAP_NONE. */
uint32_t csv_map_get(const csv_map *m, uint64_t a, uint32_t b);
/* The value of (a, b); when absent, stores value and returns it. */
uint32_t csv_map_put(csv_map *m, uint64_t a, uint32_t b, uint32_t value);

#endif
