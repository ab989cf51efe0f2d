/* Array growth for the aggregates. Out of memory aborts, as in the core: a converter has no
 * way to go on without the memory it needs. */
#ifndef CSV_MEM_H
#define CSV_MEM_H

#include <stddef.h>

/* Grow *p (of *cap elements of size elem) to hold at least need elements. */
void csv_grow(void **p, size_t *cap, size_t need, size_t elem);
#define CSV_GROW(arr, cap, need) csv_grow((void **)&(arr), &(cap), (need), sizeof(*(arr)))
void *csv_xcalloc(size_t n, size_t size);

#endif
