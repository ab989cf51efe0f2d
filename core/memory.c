/* Allocation helpers. A converter that runs out of memory cannot produce a correct output, so
 * allocation failure ends the process with a message instead of threading NULL checks through
 * every hot path. */
#include <stdint.h>
#include <string.h>

#include "internal.h"

static void oom(size_t n)
{
    fprintf(stderr, "tconv: error: out of memory (allocating %zu bytes)\n", n);
    exit(1);
}

void *tconv_xmalloc(size_t n)
{
    void *p = malloc(n ? n : 1);
    if (!p) oom(n);
    return p;
}

void *tconv_xcalloc(size_t n, size_t size)
{
    void *p = calloc(n ? n : 1, size ? size : 1);
    if (!p) oom(n * size);
    return p;
}

void *tconv_xrealloc(void *p, size_t n)
{
    void *q = realloc(p, n ? n : 1);
    if (!q) oom(n);
    return q;
}

char *tconv_xstrdup(const char *s)
{
    size_t n = strlen(s) + 1;
    return memcpy(tconv_xmalloc(n), s, n);
}

void tconv_grow(void **p, size_t *cap, size_t need, size_t size)
{
    if (need <= *cap) return;
    size_t c = *cap ? *cap : 16;
    while (c < need)
        c += c / 2 + 16;
    if (c > SIZE_MAX / size) oom(SIZE_MAX);
    *p = tconv_xrealloc(*p, c * size);
    *cap = c;
}

struct tconv_arena_chunk {
    struct tconv_arena_chunk *next;
    size_t used, size;
    _Alignas(16) unsigned char data[];
};

void *tconv_arena_alloc(tconv_arena *a, size_t n)
{
    n = (n + 15) & ~(size_t)15;
    struct tconv_arena_chunk *c = a->head;
    if (!c || c->size - c->used < n) {
        size_t size = n > 60000 ? n : 65536 - sizeof(*c);
        c = tconv_xmalloc(sizeof(*c) + size);
        c->next = a->head;
        c->used = 0;
        c->size = size;
        a->head = c;
        a->total += sizeof(*c) + size;
    }
    void *p = c->data + c->used;
    c->used += n;
    return p;
}

void *tconv_arena_dup(tconv_arena *a, const void *p, size_t n)
{
    if (!n) return NULL;
    return memcpy(tconv_arena_alloc(a, n), p, n);
}

void tconv_arena_free(tconv_arena *a)
{
    struct tconv_arena_chunk *c = a->head;
    while (c) {
        struct tconv_arena_chunk *next = c->next;
        free(c);
        c = next;
    }
    a->head = NULL;
    a->total = 0;
}
