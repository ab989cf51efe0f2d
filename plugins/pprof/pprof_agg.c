#include "pprof_agg.h"
#include "pprof_stacks.h"

#include <stdlib.h>
#include <string.h>

void pprof_agg_init(pprof_agg *ag, uint32_t nvalues)
{
    memset(ag, 0, sizeof *ag);
    ag->nvalues = nvalues;
    pprof_index_init(&ag->ix);
}

void pprof_agg_free(pprof_agg *ag)
{
    free(ag->keys);
    free(ag->values);
    free(ag->first);
    pprof_index_free(&ag->ix);
    pprof_agg_init(ag, 0);
}

static int pprof_agg_grow(pprof_agg *ag)
{
    if (ag->cap >= UINT32_MAX / 2) return -1;
    uint32_t ncap = ag->cap ? ag->cap * 2 : 256;
    pprof_agg_key *keys = realloc(ag->keys, (size_t)ncap * sizeof *keys);
    if (!keys) return -1;
    ag->keys = keys;
    size_t vbytes = (size_t)ncap * ag->nvalues * sizeof *ag->values;
    int64_t *values = realloc(ag->values, vbytes ? vbytes : 1);
    if (!values) return -1;
    ag->values = values;
    ag->cap = ncap;
    return 0;
}

/* The first-entry slot of node; NULL when out of memory. */
static uint32_t *pprof_agg_first(pprof_agg *ag, uint32_t node)
{
    if (node == PPROF_NODE_ROOT) return &ag->root_first;
    if (node >= ag->nfirst) {
        if (node >= UINT32_MAX / 2) return NULL;
        uint32_t n = ag->nfirst ? ag->nfirst : 1024;
        while (n <= node)
            n *= 2;
        uint32_t *f = realloc(ag->first, (size_t)n * sizeof *f);
        if (!f) return NULL;
        memset(f + ag->nfirst, 0, (size_t)(n - ag->nfirst) * sizeof *f);
        ag->first = f;
        ag->nfirst = n;
    }
    return &ag->first[node];
}

int pprof_agg_add(pprof_agg *ag, uint32_t node, uint32_t group, const int64_t *values)
{
    uint32_t *first = pprof_agg_first(ag, node);
    if (!first) return -1;
    uint32_t id = PPROF_INDEX_NONE;
    pprof_index_cursor cur;
    if (*first && ag->keys[*first - 1].group == group) {
        id = *first - 1;
    } else if (*first) {
        pprof_index_start(&ag->ix, &cur, pprof_hash_mix(0xc2b2ae35u, (uint64_t)node << 32 | group));
        while ((id = pprof_index_probe(&ag->ix, &cur)) != PPROF_INDEX_NONE) {
            if (ag->keys[id].node == node && ag->keys[id].group == group) break;
        }
    }
    if (id == PPROF_INDEX_NONE) {
        if (ag->count == ag->cap && pprof_agg_grow(ag) != 0) return -1;
        id = ag->count;
        if (!*first)
            *first = id + 1;
        else if (pprof_index_insert_at(&ag->ix, &cur, id) != 0)
            return -1;
        ag->keys[id] = (pprof_agg_key){node, group};
        memset(&ag->values[(size_t)id * ag->nvalues], 0, ag->nvalues * sizeof *ag->values);
        ag->count++;
    }
    int64_t *dst = &ag->values[(size_t)id * ag->nvalues];
    for (uint32_t i = 0; i < ag->nvalues; i++) {
        /* Wrap like the unsigned sum rather than invoke undefined overflow. */
        dst[i] = (int64_t)((uint64_t)dst[i] + (uint64_t)values[i]);
    }
    return 0;
}
