/* Distinct frames and distinct stacks. A stack is a node of a trie (parent node, frame), so a
 * stack of any depth is one id and memory grows with the number of distinct stacks, not with the
 * number of samples. */
#ifndef PPROF_STACKS_H
#define PPROF_STACKS_H

#include <stdint.h>

#include <tconv/event.h>

#include "pprof_index.h"

/* The parent of an outermost frame, and the id of the empty stack. Distinct from
 * PPROF_INDEX_NONE, which reports running out of memory. */
#define PPROF_NODE_ROOT (UINT32_MAX - 1)

typedef struct pprof_node {
    uint32_t parent; /* PPROF_NODE_ROOT for an outermost frame */
    uint32_t frame;
} pprof_node;

typedef struct pprof_stacks {
    tconv_frame *frames;
    uint32_t nframes, capframes;
    pprof_index frame_ix;
    pprof_node *nodes;
    uint32_t nnodes, capnodes;
    pprof_index node_ix;
    /* The previous stack, root first, with its node per depth: consecutive samples usually share
     * most of their stack, and comparing frames is cheaper than hashing them. */
    tconv_frame *last;
    uint32_t *last_nodes;
    uint32_t nlast, caplast, caplast_nodes;
} pprof_stacks;

void pprof_stacks_init(pprof_stacks *st);
void pprof_stacks_free(pprof_stacks *st);
/* The id of a frame equal to f, added if new; PPROF_INDEX_NONE when out of memory. */
uint32_t pprof_stacks_frame(pprof_stacks *st, const tconv_frame *f);
/* The node (parent, frame), added if new; PPROF_INDEX_NONE when out of memory. */
uint32_t pprof_stacks_child(pprof_stacks *st, uint32_t parent, uint32_t frame);
/* The node of a root-first stack; PPROF_NODE_ROOT for n == 0; PPROF_INDEX_NONE when out of
 * memory. */
uint32_t pprof_stacks_intern(pprof_stacks *st, const tconv_frame *frames, uint32_t n);

#endif
