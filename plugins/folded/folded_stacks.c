/* Open addressing over stacks whose ids live in one growing pool. */
#include "folded_stacks.h"
#include "folded_oom.h"

#include <stdlib.h>
#include <string.h>

typedef struct folded_stack {
    uint64_t hash;
    size_t off; /* in ids */
    uint32_t n;
    int64_t value;
} folded_stack;

struct folded_stacks {
    folded_stack *stacks;
    size_t n, cap;
    uint32_t *ids;
    size_t ids_len, ids_cap;
    uint32_t *slots; /* stack index + 1; 0 is empty */
    size_t nslots;
};

static void *folded_stacks_grow(void *p, size_t *cap, size_t need, size_t size)
{
    if (need <= *cap) return p;
    size_t c = *cap ? *cap : 256;
    while (c < need)
        c *= 2;
    void *q = realloc(p, c * size);
    if (!q) folded_oom(c * size);
    *cap = c;
    return q;
}

folded_stacks *folded_stacks_new(void)
{
    folded_stacks *t = calloc(1, sizeof(*t));
    if (!t) folded_oom(sizeof(*t));
    t->nslots = 1024;
    t->slots = calloc(t->nslots, sizeof(uint32_t));
    if (!t->slots) folded_oom(t->nslots * sizeof(uint32_t));
    return t;
}

void folded_stacks_free(folded_stacks *t)
{
    if (!t) return;
    free(t->stacks);
    free(t->ids);
    free(t->slots);
    free(t);
}

static uint64_t folded_stacks_hash(const uint32_t *ids, uint32_t n)
{
    uint64_t h = 0x9e3779b97f4a7c15ULL ^ n;
    for (uint32_t i = 0; i < n; i++) {
        h = (h ^ ids[i]) * 0x9fb21c651e98df25ULL;
        h ^= h >> 31;
    }
    h ^= h >> 33;
    h *= 0xff51afd7ed558ccdULL;
    h ^= h >> 33;
    return h;
}

static void folded_stacks_rehash(folded_stacks *t)
{
    size_t nslots = t->nslots * 2;
    uint32_t *slots = calloc(nslots, sizeof(uint32_t));
    if (!slots) folded_oom(nslots * sizeof(uint32_t));
    for (size_t k = 0; k < t->n; k++) {
        size_t i = (size_t)t->stacks[k].hash & (nslots - 1);
        while (slots[i])
            i = (i + 1) & (nslots - 1);
        slots[i] = (uint32_t)k + 1;
    }
    free(t->slots);
    t->slots = slots;
    t->nslots = nslots;
}

static int folded_stacks_sum(int64_t *acc, int64_t v)
{
    int64_t r;
    if (__builtin_add_overflow(*acc, v, &r)) {
        *acc = v > 0 ? INT64_MAX : INT64_MIN;
        return -1;
    }
    *acc = r;
    return 0;
}

int folded_stacks_add(folded_stacks *t, const uint32_t *ids, uint32_t n, int64_t v)
{
    uint64_t h = folded_stacks_hash(ids, n);
    size_t mask = t->nslots - 1;
    size_t i = (size_t)h & mask;
    for (;; i = (i + 1) & mask) {
        uint32_t s = t->slots[i];
        if (!s) break;
        folded_stack *st = &t->stacks[s - 1];
        if (st->hash == h && st->n == n && memcmp(t->ids + st->off, ids, n * sizeof(*ids)) == 0)
            return folded_stacks_sum(&st->value, v);
    }
    if ((t->n + 1) * 2 > t->nslots) {
        folded_stacks_rehash(t);
        mask = t->nslots - 1;
        i = (size_t)h & mask;
        while (t->slots[i])
            i = (i + 1) & mask;
    }
    t->stacks = folded_stacks_grow(t->stacks, &t->cap, t->n + 1, sizeof(*t->stacks));
    t->ids = folded_stacks_grow(t->ids, &t->ids_cap, t->ids_len + n + 1, sizeof(*t->ids));
    folded_stack *st = &t->stacks[t->n];
    st->hash = h;
    st->off = t->ids_len;
    st->n = n;
    st->value = v;
    if (n) memcpy(t->ids + t->ids_len, ids, n * sizeof(*ids));
    t->ids_len += n;
    t->slots[i] = (uint32_t)t->n + 1;
    t->n++;
    return 0;
}

size_t folded_stacks_count(const folded_stacks *t)
{
    return t->n;
}

const uint32_t *folded_stacks_get(const folded_stacks *t, size_t i, uint32_t *n, int64_t *v)
{
    const folded_stack *st = &t->stacks[i];
    *n = st->n;
    *v = st->value;
    return t->ids + st->off;
}

int folded_stacks_scale(folded_stacks *t, int64_t k)
{
    int bad = 0;
    for (size_t i = 0; i < t->n; i++) {
        int64_t r;
        if (__builtin_mul_overflow(t->stacks[i].value, k, &r)) {
            r = t->stacks[i].value > 0 ? INT64_MAX : INT64_MIN;
            bad = -1;
        }
        t->stacks[i].value = r;
    }
    return bad;
}
