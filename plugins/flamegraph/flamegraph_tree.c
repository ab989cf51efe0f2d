/* The prefix tree behind the flame graph. A node is found by hashing (parent, name) into an
 * open-addressing table of node ids, so a sample costs one probe per frame whatever the number of
 * siblings; consecutive samples usually share most of their stack (the stack stage emits a
 * span's children before the span), so the path of the previous sample is kept and its common
 * prefix is reused without probing at all. The layout sorts the nodes once by (parent, name):
 * parents are created before their children, so the groups come out parents first and a single
 * pass assigns offsets and depths. */
#include "flamegraph_tree.h"

#include <stdlib.h>
#include <string.h>

#include "flamegraph_oom.h"

struct flamegraph_tree {
    flamegraph_node *nodes;
    size_t n, cap;
    uint32_t *slots; /* node id + 1, 0 empty */
    size_t nslots;   /* power of two */
    uint32_t *path;  /* node ids of the previous sample's stack */
    size_t pathlen, pathcap;
};

static uint32_t flamegraph_tree_hash(uint32_t parent, tconv_str name)
{
    uint64_t h = ((uint64_t)parent << 32 | name) * 0x9E3779B97F4A7C15u;
    return (uint32_t)(h >> 32);
}

static void flamegraph_tree_rehash(flamegraph_tree *t, size_t nslots)
{
    free(t->slots);
    t->slots = flamegraph_alloc(nslots, sizeof(*t->slots));
    t->nslots = nslots;
    for (size_t i = 1; i < t->n; i++) {
        size_t s = flamegraph_tree_hash(t->nodes[i].parent, t->nodes[i].name) & (nslots - 1);
        while (t->slots[s])
            s = (s + 1) & (nslots - 1);
        t->slots[s] = (uint32_t)i + 1;
    }
}

flamegraph_tree *flamegraph_tree_new(tconv_str root_name)
{
    flamegraph_tree *t = flamegraph_alloc(1, sizeof(*t));
    t->nodes = flamegraph_grow(NULL, &t->cap, 1, sizeof(*t->nodes));
    t->nodes[0] = (flamegraph_node){0, FLAMEGRAPH_NONE, root_name, 0};
    t->n = 1;
    flamegraph_tree_rehash(t, 1024);
    return t;
}

void flamegraph_tree_free(flamegraph_tree *t)
{
    if (!t) return;
    free(t->nodes);
    free(t->slots);
    free(t->path);
    free(t);
}

static uint32_t flamegraph_tree_child(flamegraph_tree *t, uint32_t parent, tconv_str name,
                                      uint8_t role)
{
    size_t mask = t->nslots - 1, s = flamegraph_tree_hash(parent, name) & mask;
    for (; t->slots[s]; s = (s + 1) & mask) {
        uint32_t id = t->slots[s] - 1;
        if (t->nodes[id].parent == parent && t->nodes[id].name == name) return id;
    }
    if (t->n >= UINT32_MAX - 1) flamegraph_oom(SIZE_MAX); /* ids are 32-bit */
    uint32_t id = (uint32_t)t->n;
    t->nodes = flamegraph_grow(t->nodes, &t->cap, t->n + 1, sizeof(*t->nodes));
    t->nodes[t->n++] = (flamegraph_node){0, parent, name, role};
    t->slots[s] = id + 1;
    if (t->n * 2 > t->nslots) flamegraph_tree_rehash(t, t->nslots * 2); /* load at most 1/2 */
    return id;
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
                        int64_t v)
{
    t->path = flamegraph_grow(t->path, &t->pathcap, n + 1, sizeof(*t->path));
    size_t k = 0;
    while (k < n && k < t->pathlen && t->nodes[t->path[k]].name == names[k])
        k++;
    uint32_t parent = k ? t->path[k - 1] : 0;
    for (; k < n; k++)
        parent = t->path[k] = flamegraph_tree_child(t, parent, names[k], roles[k]);
    t->pathlen = n;
    int saturated = flamegraph_tree_sum(&t->nodes[0].value, v);
    for (size_t i = 0; i < n; i++)
        saturated |= flamegraph_tree_sum(&t->nodes[t->path[i]].value, v);
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
