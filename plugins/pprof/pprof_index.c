#include "pprof_index.h"

#include <stdlib.h>

void pprof_index_init(pprof_index *ix)
{
    ix->slots = NULL;
    ix->mask = 0;
    ix->count = 0;
}

void pprof_index_free(pprof_index *ix)
{
    free(ix->slots);
    pprof_index_init(ix);
}

void pprof_index_start(const pprof_index *ix, pprof_index_cursor *cur, uint32_t hash)
{
    cur->hash = hash;
    cur->pos = ix->slots ? (hash & ix->mask) : 0;
}

uint32_t pprof_index_probe(const pprof_index *ix, pprof_index_cursor *cur)
{
    if (!ix->slots) return PPROF_INDEX_NONE;
    for (;;) {
        const pprof_index_slot *s = &ix->slots[cur->pos];
        if (s->id1 == 0) return PPROF_INDEX_NONE;
        cur->pos = (cur->pos + 1) & ix->mask;
        if (s->hash == cur->hash) return s->id1 - 1;
    }
}

static int pprof_index_grow(pprof_index *ix)
{
    size_t cap = ix->slots ? (ix->mask + 1) * 2 : 64;
    pprof_index_slot *slots = calloc(cap, sizeof *slots);
    if (!slots) return -1;
    if (ix->slots) {
        for (size_t i = 0; i <= ix->mask; i++) {
            pprof_index_slot s = ix->slots[i];
            if (s.id1 == 0) continue;
            size_t pos = s.hash & (cap - 1);
            while (slots[pos].id1 != 0)
                pos = (pos + 1) & (cap - 1);
            slots[pos] = s;
        }
        free(ix->slots);
    }
    ix->slots = slots;
    ix->mask = cap - 1;
    return 0;
}

int pprof_index_insert_at(pprof_index *ix, const pprof_index_cursor *cur, uint32_t id)
{
    /* Keep the load under 1/2 so that probe chains stay short. */
    if (!ix->slots || (ix->count + 1) * 2 > ix->mask + 1) {
        if (pprof_index_grow(ix) != 0) return -1;
        /* The table moved: find the empty slot again. */
        size_t pos = cur->hash & ix->mask;
        while (ix->slots[pos].id1 != 0)
            pos = (pos + 1) & ix->mask;
        ix->slots[pos] = (pprof_index_slot){id + 1, cur->hash};
    } else {
        /* An unsuccessful probe leaves the cursor on the empty slot that ended the chain. */
        ix->slots[cur->pos] = (pprof_index_slot){id + 1, cur->hash};
    }
    ix->count++;
    return 0;
}

uint32_t pprof_hash_mix(uint32_t h, uint64_t v)
{
    /* A multiply-xorshift step (splitmix64 finaliser) folded to 32 bits: cheap and good enough
     * to spread small consecutive ids. */
    uint64_t x = ((uint64_t)h << 32 | h) ^ v;
    x ^= x >> 30;
    x *= 0xbf58476d1ce4e5b9ULL;
    x ^= x >> 27;
    x *= 0x94d049bb133111ebULL;
    x ^= x >> 31;
    return (uint32_t)x ^ (uint32_t)(x >> 32);
}
