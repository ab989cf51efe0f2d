/* An open-addressing hash index over records that live in the caller's arrays. The index keeps
 * only (hash, id) pairs; the caller decides equality, so one index type serves frames, stacks,
 * functions and sample groups alike. */
#ifndef PPROF_INDEX_H
#define PPROF_INDEX_H

#include <stddef.h>
#include <stdint.h>

typedef struct pprof_index_slot {
    uint32_t id1; /* record id + 1; 0 marks an empty slot */
    uint32_t hash;
} pprof_index_slot;

typedef struct pprof_index {
    pprof_index_slot *slots;
    size_t mask; /* capacity - 1; capacity is a power of two */
    size_t count;
} pprof_index;

/* Iteration over the candidates of one hash: call pprof_index_probe until it returns
 * UINT32_MAX (no more candidates) or the caller finds its record. */
typedef struct pprof_index_cursor {
    size_t pos;
    uint32_t hash;
} pprof_index_cursor;

#define PPROF_INDEX_NONE UINT32_MAX

void pprof_index_init(pprof_index *ix);
void pprof_index_free(pprof_index *ix);
void pprof_index_start(const pprof_index *ix, pprof_index_cursor *cur, uint32_t hash);
/* The next record id with this hash, or PPROF_INDEX_NONE; the cursor then points at the empty
 * slot where pprof_index_insert_at may put a new record. */
uint32_t pprof_index_probe(const pprof_index *ix, pprof_index_cursor *cur);
/* Insert id at the cursor's empty slot (after a probe returned PPROF_INDEX_NONE). -1 if out of
 * memory. */
int pprof_index_insert_at(pprof_index *ix, const pprof_index_cursor *cur, uint32_t id);

uint32_t pprof_hash_mix(uint32_t h, uint64_t v);

#endif
