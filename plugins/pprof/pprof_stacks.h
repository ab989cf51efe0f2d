/* Distinct frames (what become pprof Locations) and distinct stacks. Stacks live in the core's
 * stack table (a prefix tree: a stack of any depth is one node, and memory grows with distinct
 * stacks, not samples); this file numbers their frames, so that each node knows its Location. */
#ifndef PPROF_STACKS_H
#define PPROF_STACKS_H

#include <stdint.h>

#include <tconv/tconv.h>

#include "pprof_index.h"

/* The parent of an outermost frame, and the id of the empty stack. Distinct from
 * PPROF_INDEX_NONE, which reports running out of memory. */
#define PPROF_NODE_ROOT (UINT32_MAX - 1)

typedef struct pprof_stacks {
    tconv_frame *frames;
    uint32_t nframes, capframes;
    pprof_index frame_ix;
    tconv_stacktab *tab;
    uint32_t *node_frame; /* stack table node -> frame id */
    uint32_t nnodes, capnodes;
} pprof_stacks;

void pprof_stacks_init(pprof_stacks *st);
void pprof_stacks_free(pprof_stacks *st);
/* The id of a frame equal to f, added if new; PPROF_INDEX_NONE when out of memory. */
uint32_t pprof_stacks_frame(pprof_stacks *st, const tconv_frame *f);
/* The node of a root-first stack; PPROF_NODE_ROOT for n == 0; PPROF_INDEX_NONE when out of
 * memory. */
uint32_t pprof_stacks_intern(pprof_stacks *st, const tconv_frame *frames, uint32_t n);
/* A node's parent (PPROF_NODE_ROOT for an outermost frame) and its frame id. */
uint32_t pprof_stacks_parent(const pprof_stacks *st, uint32_t node);
static inline uint32_t pprof_stacks_frame_of(const pprof_stacks *st, uint32_t node)
{
    return st->node_frame[node];
}

#endif
