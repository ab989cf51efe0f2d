/* The public map (include/tconv/map.h): open addressing with linear probing; the table doubles
 * at 50 % load, so a probe ends at an empty slot within a few steps. */
#include <string.h>

#include "util.h"

static uint64_t map_hash(uint64_t a, uint32_t b)
{
    /* splitmix64 finaliser: cheap and spreads sequential ids over the table. */
    uint64_t x = a ^ ((uint64_t)b * 0x9E3779B97F4A7C15ull);
    x ^= x >> 30;
    x *= 0xBF58476D1CE4E5B9ull;
    x ^= x >> 27;
    x *= 0x94D049BB133111EBull;
    x ^= x >> 31;
    return x;
}

TCONV_API void tconv_map_free(tconv_map *m)
{
    free(m->slots);
    memset(m, 0, sizeof *m);
}

TCONV_API uint32_t tconv_map_get(const tconv_map *m, uint64_t a, uint32_t b)
{
    if (!m->nslots) return TCONV_MAP_NONE;
    size_t mask = m->nslots - 1;
    for (size_t i = map_hash(a, b) & mask;; i = (i + 1) & mask) {
        const tconv_map_slot *s = &m->slots[i];
        if (s->value == TCONV_MAP_NONE) return TCONV_MAP_NONE;
        if (s->a == a && s->b == b) return s->value;
    }
}

static void map_insert(tconv_map_slot *slots, size_t nslots, uint64_t a, uint32_t b, uint32_t value)
{
    size_t mask = nslots - 1;
    size_t i = map_hash(a, b) & mask;
    while (slots[i].value != TCONV_MAP_NONE)
        i = (i + 1) & mask;
    slots[i] = (tconv_map_slot){a, b, value};
}

static void map_grow(tconv_map *m)
{
    size_t n = m->nslots ? m->nslots * 2 : 64;
    tconv_map_slot *slots = tconv_array_alloc(n, sizeof *slots);
    for (size_t i = 0; i < n; i++)
        slots[i].value = TCONV_MAP_NONE;
    for (size_t i = 0; i < m->nslots; i++)
        if (m->slots[i].value != TCONV_MAP_NONE)
            map_insert(slots, n, m->slots[i].a, m->slots[i].b, m->slots[i].value);
    free(m->slots);
    m->slots = slots;
    m->nslots = n;
}

TCONV_API uint32_t tconv_map_put(tconv_map *m, uint64_t a, uint32_t b, uint32_t value)
{
    uint32_t v = tconv_map_get(m, a, b);
    if (v != TCONV_MAP_NONE) return v;
    if ((m->n + 1) * 2 > m->nslots) map_grow(m);
    map_insert(m->slots, m->nslots, a, b, value);
    m->n++;
    return value;
}

TCONV_API void tconv_map_set(tconv_map *m, uint64_t a, uint32_t b, uint32_t value)
{
    if (m->nslots) {
        size_t mask = m->nslots - 1;
        for (size_t i = map_hash(a, b) & mask; m->slots[i].value != TCONV_MAP_NONE;
             i = (i + 1) & mask)
            if (m->slots[i].a == a && m->slots[i].b == b) {
                m->slots[i].value = value;
                return;
            }
    }
    tconv_map_put(m, a, b, value);
}
