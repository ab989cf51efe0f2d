/* A table of stacks kept as a tree: a stack is the id of its leaf node, and stacks that share a
 * prefix share its nodes. Invariant: a node's parent was created before it, so ids grow from
 * the root and a node's depth is its parent's plus one. The GPU attribution stage keeps one
 * stack per launch call (launches come from few call sites); the stack writers keep one per
 * distinct stack, so deep nesting costs a node per level rather than a copy of every prefix. */
#include <stdint.h>
#include <string.h>

#include "stages.h"

typedef struct tconv_stacktab_node {
    uint32_t parent; /* TCONV_STACK_ROOT for a root frame */
    uint32_t depth;  /* frames from the root, this one included */
    tconv_frame frame;
} stacktab_node;

void tconv_stacktab_init(tconv_stacktab *t)
{
    memset(t, 0, sizeof(*t));
}

void tconv_stacktab_free(tconv_stacktab *t)
{
    free(t->nodes);
    free(t->slots);
    free(t->last);
    tconv_stacktab_init(t);
}

static int stacktab_same(const tconv_frame *a, const tconv_frame *b)
{
    return a->name == b->name && a->module == b->module && a->file == b->file &&
           a->line == b->line && a->flags == b->flags && a->addr == b->addr;
}

static uint32_t stacktab_hash(uint32_t parent, const tconv_frame *f)
{
    uint64_t h = ((uint64_t)parent << 32 | f->name) * 0x9E3779B97F4A7C15ull;
    h = (h ^ ((uint64_t)f->module << 32 | f->file)) * 0xC2B2AE3D27D4EB4Full;
    h = (h ^ ((uint64_t)f->line << 32 | f->flags)) * 0x9E3779B97F4A7C15ull;
    h = (h ^ f->addr) * 0xC2B2AE3D27D4EB4Full;
    return (uint32_t)(h >> 32);
}

static void stacktab_rehash(tconv_stacktab *t)
{
    size_t ns = t->nslots ? t->nslots * 2 : 256;
    uint32_t *slots = tconv_xcalloc(ns, sizeof(*slots));
    for (size_t id = 0; id < t->n; id++) {
        const stacktab_node *nd = &t->nodes[id];
        tconv_slots_put(slots, ns, stacktab_hash(nd->parent, &nd->frame), (uint32_t)id + 1);
    }
    free(t->slots);
    t->slots = slots;
    t->nslots = ns;
}

TCONV_API tconv_stacktab *tconv_stacktab_new(void)
{
    tconv_stacktab *t = tconv_xmalloc(sizeof(*t));
    tconv_stacktab_init(t);
    return t;
}

TCONV_API void tconv_stacktab_destroy(tconv_stacktab *t)
{
    if (!t) return;
    tconv_stacktab_free(t);
    free(t);
}

TCONV_API uint32_t tconv_stacktab_child(tconv_stacktab *t, uint32_t parent, const tconv_frame *f)
{
    /* Ids are uint32_t and TCONV_STACK_ROOT is the largest: the table stops short of it. */
    if (t->n >= TCONV_STACK_ROOT - 1) tconv_oom_fatal(SIZE_MAX);
    if (2 * (t->n + 1) > t->nslots) stacktab_rehash(t);
    size_t i = stacktab_hash(parent, f) & (t->nslots - 1);
    for (; t->slots[i]; i = (i + 1) & (t->nslots - 1)) {
        const stacktab_node *nd = &t->nodes[t->slots[i] - 1];
        if (nd->parent == parent && stacktab_same(&nd->frame, f)) return t->slots[i] - 1;
    }
    TCONV_GROW(t->nodes, t->cap, t->n + 1);
    stacktab_node *nd = &t->nodes[t->n];
    /* Field by field, so that padding never takes part in a comparison. */
    memset(nd, 0, sizeof(*nd));
    nd->parent = parent;
    nd->depth = parent == TCONV_STACK_ROOT ? 1 : t->nodes[parent].depth + 1;
    nd->frame.name = f->name;
    nd->frame.module = f->module;
    nd->frame.file = f->file;
    nd->frame.line = f->line;
    nd->frame.flags = f->flags;
    nd->frame.addr = f->addr;
    t->slots[i] = (uint32_t)++t->n;
    return (uint32_t)(t->n - 1);
}

TCONV_API uint32_t tconv_stacktab_intern(tconv_stacktab *t, const tconv_frame *frames, size_t n)
{
    /* Consecutive launches mostly come from the same code: skip the prefix they share. */
    size_t same = 0;
    while (same < n && same < t->nlast &&
           stacktab_same(&t->nodes[t->last[same]].frame, &frames[same]))
        same++;
    TCONV_GROW(t->last, t->lastcap, n);
    uint32_t node = same ? t->last[same - 1] : TCONV_STACK_ROOT;
    for (size_t i = same; i < n; i++) {
        node = tconv_stacktab_child(t, node, &frames[i]);
        t->last[i] = node;
    }
    t->nlast = n;
    return node;
}

TCONV_API uint32_t tconv_stacktab_count(const tconv_stacktab *t)
{
    return (uint32_t)t->n;
}

TCONV_API uint32_t tconv_stacktab_parent(const tconv_stacktab *t, uint32_t node)
{
    return node == TCONV_STACK_ROOT ? TCONV_STACK_ROOT : t->nodes[node].parent;
}

TCONV_API const tconv_frame *tconv_stacktab_frame(const tconv_stacktab *t, uint32_t node)
{
    return node == TCONV_STACK_ROOT ? NULL : &t->nodes[node].frame;
}

TCONV_API size_t tconv_stacktab_depth(const tconv_stacktab *t, uint32_t node)
{
    return node == TCONV_STACK_ROOT ? 0 : t->nodes[node].depth;
}

TCONV_API void tconv_stacktab_frames(const tconv_stacktab *t, uint32_t node, tconv_frame *out)
{
    for (size_t k = tconv_stacktab_depth(t, node); k > 0; k--) {
        out[k - 1] = t->nodes[node].frame;
        node = t->nodes[node].parent;
    }
}

size_t tconv_stacktab_bytes(const tconv_stacktab *t)
{
    return t->cap * sizeof(*t->nodes) + t->nslots * sizeof(*t->slots);
}
