/* Array growth for the aggregates. Out of memory ends the run as the core ends it
 * (core/memory.c): a converter has no way to go on without the memory it needs, and the
 * aggregates grow in too many places to carry a status back from each. The message and exit
 * status 1 are the core's, and its exit handler removes the temporary output. */
#ifndef CSV_MEM_H
#define CSV_MEM_H

#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>

_Noreturn static inline void csv_oom(size_t n)
{
    fprintf(stderr, "tconv: error: out of memory (allocating %zu bytes)\n", n);
    exit(1);
}

/* Grow *p (of *cap elements of size elem) to hold at least need elements. */
void csv_grow(void **p, size_t *cap, size_t need, size_t elem);
#define CSV_GROW(arr, cap, need) csv_grow((void **)&(arr), &(cap), (need), sizeof(*(arr)))
void *csv_xcalloc(size_t n, size_t size);

#endif
