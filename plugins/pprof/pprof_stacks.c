/* Frame numbering beside the core's stack table. */
#include "pprof_stacks.h"

#include <stdlib.h>
#include <string.h>

void pprof_stacks_init(pprof_stacks *st)
{
    memset(st, 0, sizeof *st);
    pprof_index_init(&st->frame_ix);
    st->tab = tconv_stacktab_new();
}

void pprof_stacks_free(pprof_stacks *st)
{
    free(st->frames);
    free(st->node_frame);
    tconv_stacktab_destroy(st->tab);
    pprof_index_free(&st->frame_ix);
    memset(st, 0, sizeof *st);
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

uint32_t pprof_stacks_intern(pprof_stacks *st, const tconv_frame *frames, uint32_t n)
{
    uint32_t node = tconv_stacktab_intern(st->tab, frames, n);
    if (node == TCONV_STACK_ROOT) return PPROF_NODE_ROOT;
    /* Number the frames of the nodes the table created; parents come first. */
    uint32_t count = tconv_stacktab_count(st->tab);
    if (count >= PPROF_NODE_ROOT) return PPROF_INDEX_NONE;
    if (pprof_reserve((void **)&st->node_frame, &st->capnodes, count, sizeof *st->node_frame))
        return PPROF_INDEX_NONE;
    for (; st->nnodes < count; st->nnodes++) {
        uint32_t fr = pprof_stacks_frame(st, tconv_stacktab_frame(st->tab, st->nnodes));
        if (fr == PPROF_INDEX_NONE) return PPROF_INDEX_NONE;
        st->node_frame[st->nnodes] = fr;
    }
    return node;
}

uint32_t pprof_stacks_parent(const pprof_stacks *st, uint32_t node)
{
    uint32_t p = tconv_stacktab_parent(st->tab, node);
    return p == TCONV_STACK_ROOT ? PPROF_NODE_ROOT : p;
}
