/* The stacks of a flame graph as a prefix tree: one node per distinct (parent, frame name), each
 * holding the summed value of every sample through it. Memory is linear in the number of distinct
 * nodes, whatever the depth of the stacks. */
#ifndef FLAMEGRAPH_TREE_H
#define FLAMEGRAPH_TREE_H

#include <stddef.h>
#include <stdint.h>

#include "tconv/tconv.h"

#define FLAMEGRAPH_NONE UINT32_MAX

typedef struct flamegraph_node {
    int64_t value;   /* summed value of the samples through this node, saturated */
    uint32_t parent; /* FLAMEGRAPH_NONE for the root */
    tconv_str name;
    uint8_t role; /* colour class of the frame (flamegraph_colour.h), from its first sample */
} flamegraph_node;

typedef struct flamegraph_tree flamegraph_tree;

/* A tree holding only the root (node 0), named root_name. With two_columns, every node also
 * sums a second value (flamegraph_tree_other), the profile a differential graph compares with;
 * the layout follows the first. */
flamegraph_tree *flamegraph_tree_new(tconv_str root_name, int two_columns);
void flamegraph_tree_free(flamegraph_tree *t);

/* Add value v to the root and to every node of the stack names[0..n) (root first), creating the
 * missing ones with the given roles; to the second column when other is nonzero (a tree made
 * with two_columns). 1 when a sum saturated at INT64_MAX, else 0. */
int flamegraph_tree_add(flamegraph_tree *t, const tconv_str *names, const uint8_t *roles, size_t n,
                        int64_t v, int other);

size_t flamegraph_tree_count(const flamegraph_tree *t);
const flamegraph_node *flamegraph_tree_nodes(const flamegraph_tree *t);
/* The second column, one value per node; NULL for a tree of one column. */
const int64_t *flamegraph_tree_other(const flamegraph_tree *t);

/* The layout of a flame graph: node ids ordered so that every node's children follow their
 * parent's group in name order (bytewise), each node's offset (the values of its earlier
 * siblings and of its parent's offset: where its frame starts) and depth (root 0). The arrays
 * hold flamegraph_tree_count() entries and belong to the caller (free()). */
typedef struct flamegraph_layout {
    uint32_t *order;
    int64_t *offset;
    uint32_t *depth;
} flamegraph_layout;

void flamegraph_tree_layout(const flamegraph_tree *t, const tconv_ctx *ctx, flamegraph_layout *l);
void flamegraph_layout_free(flamegraph_layout *l);

#endif
