/* Allocation helpers. A converter that runs out of memory cannot produce a correct output, so
 * allocation failure ends the process with a message instead of threading NULL checks through
 * every hot path. */
#include <stdint.h>
#include <string.h>

#include "util.h"

/* A program that embeds the library may want to free a cache and try again, or leave its own
 * way: its handler runs first (tconv_oom_handler_set). */
static tconv_oom_fn memory_oom_fn;
static void *memory_oom_user;

TCONV_API void tconv_oom_handler_set(tconv_oom_fn fn, void *user)
{
    memory_oom_fn = fn;
    memory_oom_user = user;
}

/* 1 when the handler asks for one more try; otherwise the process ends here. */
static int oom(size_t n, int tried)
{
    if (!tried && memory_oom_fn && memory_oom_fn(memory_oom_user, n)) return 1;
    fprintf(stderr, "tconv: error: out of memory (allocating %zu bytes)\n", n);
    exit(1);
}

_Noreturn void tconv_oom_fatal(size_t n)
{
    (void)oom(n, 1);
    exit(1);
}

void *tconv_xmalloc(size_t n)
{
    void *p = malloc(n ? n : 1);
    if (!p && oom(n, 0)) p = malloc(n ? n : 1);
    if (!p) oom(n, 1);
    return p;
}

void *tconv_xcalloc(size_t n, size_t size)
{
    void *p = calloc(n ? n : 1, size ? size : 1);
    if (!p && oom(n * size, 0)) p = calloc(n ? n : 1, size ? size : 1);
    if (!p) oom(n * size, 1);
    return p;
}

void *tconv_xrealloc(void *p, size_t n)
{
    void *q = realloc(p, n ? n : 1);
    if (!q && oom(n, 0)) q = realloc(p, n ? n : 1);
    if (!q) oom(n, 1);
    return q;
}

char *tconv_xstrdup(const char *s)
{
    size_t n = strlen(s) + 1;
    return memcpy(tconv_xmalloc(n), s, n);
}

TCONV_API void tconv_array_grow(void **p, size_t *cap, size_t need, size_t size)
{
    tconv_grow(p, cap, need, size);
}

TCONV_API void *tconv_array_alloc(size_t n, size_t size)
{
    if (size && n > SIZE_MAX / size) tconv_oom_fatal(SIZE_MAX);
    return tconv_xcalloc(n, size);
}

void tconv_grow(void **p, size_t *cap, size_t need, size_t size)
{
    if (need <= *cap) return;
    size_t c = *cap ? *cap : 16;
    while (c < need) {
        if (c > SIZE_MAX / 2) { /* growing by half would wrap: take exactly what is needed */
            c = need;
            break;
        }
        c += c / 2 + 16;
    }
    if (c > SIZE_MAX / size) oom(SIZE_MAX, 1);
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
