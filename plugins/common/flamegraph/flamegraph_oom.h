/* Out of memory deep inside the tree, where no status can travel back: the run ends as the core
 * ends it (core/util/memory.c), with the same message and exit status 1, and the core's exit
 * handler removes the temporary output. */
#ifndef FLAMEGRAPH_OOM_H
#define FLAMEGRAPH_OOM_H

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <tconv/tconv.h>

_Noreturn static inline void flamegraph_oom(size_t n)
{
    fprintf(stderr, "tconv: error: out of memory (allocating %zu bytes)\n", n);
    exit(1);
}

static inline void *flamegraph_alloc(size_t n, size_t size)
{
    void *p = n ? calloc(n, size) : malloc(1);
    if (!p) flamegraph_oom(n * size);
    return p;
}

/* Grow *p to hold need elements of size bytes; the new part is zeroed. */
static inline void *flamegraph_grow(void *p, size_t *cap, size_t need, size_t size)
{
    size_t old = *cap;
    tconv_array_grow(&p, cap, need, size); /* the core's, overflow-checked */
    memset((char *)p + old * size, 0, (*cap - old) * size);
    return p;
}

#endif
