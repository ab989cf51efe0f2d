/* The memory analysis: memory use over time, one point per allocation, free or counter value,
 * from PyTorch "[memory]" instants and memory counters (csv_memory.c says which). Shared by the
 * csv writer's memory table and the HTML report's memory chart. */
#ifndef CSV_MEMORY_H
#define CSV_MEMORY_H

#include <stddef.h>
#include <stdint.h>

#include <tconv/tconv.h>

enum {
    CSV_MEM_BYTES = 0,
    CSV_MEM_ALLOCATED,
    CSV_MEM_RESERVED,
    CSV_MEM_FREE,
    CSV_MEM_PEAK,
    CSV_MEM_NVALUES
};

typedef struct csv_mem_point {
    int64_t ts;
    uint64_t seq;
    uint32_t track, input;
    tconv_str device;
    int64_t type, id;
    uint8_t has_type, has_id, from_counter;
    uint8_t has[CSV_MEM_NVALUES];
    double v[CSV_MEM_NVALUES];
    tconv_arg addr; /* key 0: none */
    uint32_t next; /* the next counter point of the same (time, track), TCONV_MAP_NONE at the end */
} csv_mem_point;

typedef struct csv_memory csv_memory;

csv_memory *csv_memory_new(tconv_ctx *ctx);
void csv_memory_free(csv_memory *m);
void csv_memory_event(csv_memory *m, const tconv_event *ev);
/* Once every event was seen (call once): the points in time order, then input, track and
 * sequence; counter points that repeat an input's instants left out; "Total Allocated"
 * filled in with the running sum of Bytes where the trace has none. */
const csv_mem_point *csv_memory_points(csv_memory *m, size_t *n);

#endif
