#include "pprof_stacks.h"

#include <stdlib.h>
#include <string.h>

void pprof_stacks_init(pprof_stacks *st)
{
    memset(st, 0, sizeof *st);
    pprof_index_init(&st->frame_ix);
    pprof_index_init(&st->node_ix);
}

void pprof_stacks_free(pprof_stacks *st)
{
    free(st->frames);
    free(st->nodes);
    free(st->last);
    free(st->last_nodes);
    pprof_index_free(&st->frame_ix);
    pprof_index_free(&st->node_ix);
    pprof_stacks_init(st);
}

static int pprof_frame_equal(const tconv_frame *a, const tconv_frame *b)
{
    return a->name == b->name && a->module == b->module && a->file == b->file &&
           a->line == b->line && a->flags == b->flags && a->addr == b->addr;
}

static uint32_t pprof_frame_hash(const tconv_frame *f)
{
    uint32_t h = pprof_hash_mix(0x9e3779b9u, (uint64_t)f->name << 32 | f->module);
    h = pprof_hash_mix(h, (uint64_t)f->file << 32 | f->line);
    h = pprof_hash_mix(h, f->flags);
    return pprof_hash_mix(h, f->addr);
}

/* Grow an array to hold at least need elements; -1 when out of memory. */
static int pprof_reserve(void **arr, uint32_t *cap, uint32_t need, size_t elem)
{
    if (need <= *cap) return 0;
    if (need == UINT32_MAX) return -1;
    uint32_t ncap = *cap ? *cap : 64;
    while (ncap < need)
        ncap = ncap > UINT32_MAX / 2 ? UINT32_MAX - 1 : ncap * 2;
    void *p = realloc(*arr, (size_t)ncap * elem);
    if (!p) return -1;
    *arr = p;
    *cap = ncap;
    return 0;
}

uint32_t pprof_stacks_frame(pprof_stacks *st, const tconv_frame *f)
{
    pprof_index_cursor cur;
    pprof_index_start(&st->frame_ix, &cur, pprof_frame_hash(f));
    uint32_t id;
    while ((id = pprof_index_probe(&st->frame_ix, &cur)) != PPROF_INDEX_NONE) {
        if (pprof_frame_equal(&st->frames[id], f)) return id;
    }
    if (pprof_reserve((void **)&st->frames, &st->capframes, st->nframes + 1, sizeof *st->frames))
        return PPROF_INDEX_NONE;
    id = st->nframes;
    /* Field by field, so that struct padding never differs between equal frames. */
    tconv_frame *dst = &st->frames[id];
    memset(dst, 0, sizeof *dst);
    dst->name = f->name;
    dst->module = f->module;
    dst->file = f->file;
    dst->line = f->line;
    dst->flags = f->flags;
    dst->addr = f->addr;
    if (pprof_index_insert_at(&st->frame_ix, &cur, id)) return PPROF_INDEX_NONE;
    st->nframes++;
    return id;
}

uint32_t pprof_stacks_child(pprof_stacks *st, uint32_t parent, uint32_t frame)
{
    pprof_index_cursor cur;
    pprof_index_start(&st->node_ix, &cur,
                      pprof_hash_mix(0x85ebca6bu, (uint64_t)parent << 32 | frame));
    uint32_t id;
    while ((id = pprof_index_probe(&st->node_ix, &cur)) != PPROF_INDEX_NONE) {
        if (st->nodes[id].parent == parent && st->nodes[id].frame == frame) return id;
    }
    /* PPROF_NODE_ROOT and PPROF_INDEX_NONE are reserved values: never hand them out as ids. */
    if (st->nnodes >= PPROF_NODE_ROOT) return PPROF_INDEX_NONE;
    if (pprof_reserve((void **)&st->nodes, &st->capnodes, st->nnodes + 1, sizeof *st->nodes))
        return PPROF_INDEX_NONE;
    id = st->nnodes;
    st->nodes[id] = (pprof_node){parent, frame};
    if (pprof_index_insert_at(&st->node_ix, &cur, id)) return PPROF_INDEX_NONE;
    st->nnodes++;
    return id;
}

uint32_t pprof_stacks_intern(pprof_stacks *st, const tconv_frame *frames, uint32_t n)
{
    uint32_t same = 0;
    while (same < n && same < st->nlast && pprof_frame_equal(&frames[same], &st->last[same]))
        same++;
    if (pprof_reserve((void **)&st->last, &st->caplast, n, sizeof *st->last) ||
        pprof_reserve((void **)&st->last_nodes, &st->caplast_nodes, n, sizeof *st->last_nodes)) {
        st->nlast = 0;
        return PPROF_INDEX_NONE;
    }
    uint32_t node = same ? st->last_nodes[same - 1] : PPROF_NODE_ROOT;
    for (uint32_t i = same; i < n; i++) {
        uint32_t fr = pprof_stacks_frame(st, &frames[i]);
        if (fr == PPROF_INDEX_NONE) {
            st->nlast = 0;
            return PPROF_INDEX_NONE;
        }
        node = pprof_stacks_child(st, node, fr);
        if (node == PPROF_INDEX_NONE) {
            st->nlast = 0;
            return PPROF_INDEX_NONE;
        }
        st->last[i] = st->frames[fr];
        st->last_nodes[i] = node;
    }
    st->nlast = n;
    return node;
}
