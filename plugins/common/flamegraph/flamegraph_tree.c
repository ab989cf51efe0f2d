/* The prefix tree behind the flame graph. Distinct stacks live in the core's stack table
 * (include/tconv/stacktab.h), which finds a stack's node by hashing and reuses the previous
 * sample's common prefix; this file keeps beside it what a flame graph draws: each node's
 * summed value and colour class. Node x here is the table's node x - 1, so the root that sums
 * every sample is node 0 (TCONV_STACK_ROOT + 1 wraps to 0). The layout sorts the nodes once by
 * (parent, name): parents are created before their children, so the groups come out parents
 * first and a single pass assigns offsets and depths. */
#include "flamegraph_tree.h"

#include <stdlib.h>
#include <string.h>

#include "flamegraph_oom.h"

struct flamegraph_tree {
    tconv_stacktab *tab;
    flamegraph_node *nodes;
    size_t n, cap;
    int64_t *other;      /* the second column, beside nodes (same capacity), or NULL */
    tconv_frame *frames; /* the stack being added, as frames */
    size_t framecap;
};

/* nodes, and other beside it, hold at least need entries */
static void flamegraph_tree_reserve(flamegraph_tree *t, size_t need)
{
    size_t cap = t->cap;
    t->nodes = flamegraph_grow(t->nodes, &t->cap, need, sizeof(*t->nodes));
    if (t->other && t->cap != cap) {
        size_t ocap = cap;
        t->other = flamegraph_grow(t->other, &ocap, t->cap, sizeof(*t->other));
    }
}

flamegraph_tree *flamegraph_tree_new(tconv_str root_name, int two_columns)
{
    flamegraph_tree *t = flamegraph_alloc(1, sizeof(*t));
    t->tab = tconv_stacktab_new();
    if (two_columns) t->other = flamegraph_alloc(1, sizeof(*t->other));
    flamegraph_tree_reserve(t, 1);
    t->nodes[0] = (flamegraph_node){0, FLAMEGRAPH_NONE, root_name, 0};
    if (t->other) t->other[0] = 0;
    t->n = 1;
    return t;
}

void flamegraph_tree_free(flamegraph_tree *t)
{
    if (!t) return;
    tconv_stacktab_destroy(t->tab);
    free(t->nodes);
    free(t->other);
    free(t->frames);
    free(t);
}

static int flamegraph_tree_sum(int64_t *acc, int64_t v)
{
    if (*acc > INT64_MAX - v) {
        *acc = INT64_MAX;
        return 1;
    }
    *acc += v;
    return 0;
}

int flamegraph_tree_add(flamegraph_tree *t, const tconv_str *names, const uint8_t *roles, size_t n,
                        int64_t v, int other)
{
    t->frames = flamegraph_grow(t->frames, &t->framecap, n + 1, sizeof(*t->frames));
    for (size_t i = 0; i < n; i++)
        t->frames[i] = (tconv_frame){.name = names[i]};
    uint32_t leaf = tconv_stacktab_intern(t->tab, t->frames, n) + 1;
    /* Nodes the table created for this stack: the frames' names and colours. */
    size_t count = (size_t)tconv_stacktab_count(t->tab) + 1;
    if (count > t->n) {
        flamegraph_tree_reserve(t, count);
        for (size_t id = t->n; id < count; id++) {
            if (t->other) t->other[id] = 0;
            uint32_t tab_id = (uint32_t)id - 1;
            size_t depth = tconv_stacktab_depth(t->tab, tab_id);
            t->nodes[id] =
                (flamegraph_node){0, tconv_stacktab_parent(t->tab, tab_id) + 1,
                                  tconv_stacktab_frame(t->tab, tab_id)->name, roles[depth - 1]};
        }
        t->n = count;
    }
    if (other && t->other) {
        int saturated = flamegraph_tree_sum(&t->other[0], v);
        for (uint32_t x = leaf; x; x = t->nodes[x].parent)
            saturated |= flamegraph_tree_sum(&t->other[x], v);
        return saturated;
    }
    int saturated = flamegraph_tree_sum(&t->nodes[0].value, v);
    for (uint32_t x = leaf; x; x = t->nodes[x].parent)
        saturated |= flamegraph_tree_sum(&t->nodes[x].value, v);
    return saturated;
}

size_t flamegraph_tree_count(const flamegraph_tree *t)
{
    return t->n;
}

const flamegraph_node *flamegraph_tree_nodes(const flamegraph_tree *t)
{
    return t->nodes;
}

const int64_t *flamegraph_tree_other(const flamegraph_tree *t)
{
    return t->other;
}

/* Nodes by parent id, then by name bytes (a shorter name before a longer one it starts). */
static int flamegraph_tree_cmp(const flamegraph_tree *t, const tconv_ctx *ctx, uint32_t a,
                               uint32_t b)
{
    const flamegraph_node *x = &t->nodes[a], *y = &t->nodes[b];
    if (x->parent != y->parent) return x->parent < y->parent ? -1 : 1;
    if (x->name == y->name) return 0;
    size_t lx = tconv_string_length(ctx, x->name), ly = tconv_string_length(ctx, y->name);
    int c =
        memcmp(tconv_string_get(ctx, x->name), tconv_string_get(ctx, y->name), lx < ly ? lx : ly);
    if (c) return c;
    return lx < ly ? -1 : lx > ly;
}

/* Bottom-up merge sort: stable, no recursion, no global comparator state. */
static void flamegraph_tree_sort(const flamegraph_tree *t, const tconv_ctx *ctx, uint32_t *idx,
                                 size_t n)
{
    uint32_t *tmp = flamegraph_alloc(n, sizeof(*tmp));
    for (size_t width = 1; width < n; width *= 2) {
        for (size_t lo = 0; lo < n; lo += 2 * width) {
            size_t mid = lo + width < n ? lo + width : n;
            size_t hi = lo + 2 * width < n ? lo + 2 * width : n;
            size_t i = lo, j = mid, o = lo;
            while (i < mid && j < hi)
                tmp[o++] = flamegraph_tree_cmp(t, ctx, idx[j], idx[i]) < 0 ? idx[j++] : idx[i++];
            while (i < mid)
                tmp[o++] = idx[i++];
            while (j < hi)
                tmp[o++] = idx[j++];
        }
        memcpy(idx, tmp, n * sizeof(*idx));
    }
    free(tmp);
}

void flamegraph_tree_layout(const flamegraph_tree *t, const tconv_ctx *ctx, flamegraph_layout *l)
{
    size_t n = t->n;
    l->order = flamegraph_alloc(n, sizeof(*l->order));
    l->offset = flamegraph_alloc(n, sizeof(*l->offset));
    l->depth = flamegraph_alloc(n, sizeof(*l->depth));
    /* the root (parent FLAMEGRAPH_NONE) sorts last: put it first by hand */
    for (size_t i = 1; i < n; i++)
        l->order[i - 1] = (uint32_t)i;
    flamegraph_tree_sort(t, ctx, l->order, n - 1);
    memmove(l->order + 1, l->order, (n - 1) * sizeof(*l->order));
    l->order[0] = 0;
    /* siblings are contiguous and each group follows the group holding its parent */
    int64_t next = 0;
    uint32_t group = FLAMEGRAPH_NONE;
    for (size_t i = 1; i < n; i++) {
        uint32_t id = l->order[i], p = t->nodes[id].parent;
        if (p != group) {
            group = p;
            next = l->offset[p];
        }
        l->offset[id] = next;
        l->depth[id] = l->depth[p] + 1;
        next = next > INT64_MAX - t->nodes[id].value ? INT64_MAX : next + t->nodes[id].value;
    }
}

void flamegraph_layout_free(flamegraph_layout *l)
{
    free(l->order);
    free(l->offset);
    free(l->depth);
    *l = (flamegraph_layout){0};
}
