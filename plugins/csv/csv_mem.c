/* Array growth. */
#include <stdlib.h>

#include "csv_mem.h"

void csv_grow(void **p, size_t *cap, size_t need, size_t elem)
{
    if (need <= *cap) return;
    size_t n = *cap ? *cap : 16;
    while (n < need)
        n *= 2;
    void *q = realloc(*p, n * elem);
    if (!q) csv_oom(n * elem);
    *p = q;
    *cap = n;
}

void *csv_xcalloc(size_t n, size_t size)
{
    void *p = calloc(n ? n : 1, size);
    if (!p) csv_oom(n * size);
    return p;
}
