/* Sums of sample values per (stack, group), in order of first appearance. The group is a track
 * while events arrive, and a label set plus root frame when the profile is written. */
#ifndef PPROF_AGG_H
#define PPROF_AGG_H

#include <stdint.h>

#include "pprof_index.h"

typedef struct pprof_agg_key {
    uint32_t node;
    uint32_t group;
} pprof_agg_key;

typedef struct pprof_agg {
    uint32_t nvalues;
    pprof_agg_key *keys;
    int64_t *values; /* count * nvalues */
    uint32_t count, cap;
    /* Per node, the id + 1 of its first entry (0: none yet), found without hashing: nodes are
     * numbered densely, and with one track (or stacks no two tracks share) every entry is the
     * first of its node. The index holds only the other entries. */
    uint32_t *first;
    uint32_t nfirst;
    uint32_t root_first; /* the same for PPROF_NODE_ROOT */
    pprof_index ix;
} pprof_agg;

void pprof_agg_init(pprof_agg *ag, uint32_t nvalues);
void pprof_agg_free(pprof_agg *ag);
/* Add values to the entry (node, group). -1 when out of memory. */
int pprof_agg_add(pprof_agg *ag, uint32_t node, uint32_t group, const int64_t *values);

#endif
