/* The out-of-line parts of pf_wire.h: growing the buffer, and a nested message whose length
 * needs more than the one byte its placeholder holds. */
#include "pf_wire.h"

#include <stdlib.h>

int pf_buf_reserve(pf_buf *b, size_t n)
{
    if (b->oom) return 0;
    if (b->cap - b->len >= n) return 1;
    size_t cap = b->cap ? b->cap : 4096;
    while (cap - b->len < n) {
        if (cap > SIZE_MAX / 2) {
            b->oom = 1;
            return 0;
        }
        cap *= 2;
    }
    uint8_t *p = realloc(b->p, cap);
    if (!p) {
        b->oom = 1;
        return 0;
    }
    b->p = p;
    b->cap = cap;
    return 1;
}

void pf_buf_free(pf_buf *b)
{
    free(b->p);
    memset(b, 0, sizeof *b);
}

void pf_close_long(pf_buf *b, size_t mark, size_t n)
{
    uint8_t tmp[10];
    size_t k = 0;
    uint64_t v = n;
    while (v >= 0x80) {
        tmp[k++] = (uint8_t)(v | 0x80);
        v >>= 7;
    }
    tmp[k++] = (uint8_t)v;
    if (!pf_buf_reserve(b, k - 1)) return;
    memmove(b->p + mark + k - 1, b->p + mark, n);
    memcpy(b->p + mark - 1, tmp, k);
    b->len += k - 1;
}
