/* Open addressing with linear probing; the table doubles at 50 % load. */
#include <stdlib.h>
#include <string.h>

#include "csv_map.h"
#include "csv_mem.h"

static uint64_t csv_map_hash(uint64_t a, uint32_t b)
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

void csv_map_free(csv_map *m)
{
    free(m->slots);
    memset(m, 0, sizeof *m);
}

uint32_t csv_map_get(const csv_map *m, uint64_t a, uint32_t b)
{
    if (!m->nslots) return CSV_MAP_NONE;
    size_t mask = m->nslots - 1;
    for (size_t i = csv_map_hash(a, b) & mask;; i = (i + 1) & mask) {
        const csv_map_slot *s = &m->slots[i];
        if (s->value == CSV_MAP_NONE) return CSV_MAP_NONE;
        if (s->a == a && s->b == b) return s->value;
    }
}

static void csv_map_insert(csv_map_slot *slots, size_t nslots, uint64_t a, uint32_t b,
                           uint32_t value)
{
    size_t mask = nslots - 1;
    size_t i = csv_map_hash(a, b) & mask;
    while (slots[i].value != CSV_MAP_NONE)
        i = (i + 1) & mask;
    slots[i] = (csv_map_slot){a, b, value};
}

static void csv_map_grow(csv_map *m)
{
    size_t n = m->nslots ? m->nslots * 2 : 64;
    csv_map_slot *slots = malloc(n * sizeof *slots);
    if (!slots) csv_oom(n * sizeof *slots);
    for (size_t i = 0; i < n; i++)
        slots[i].value = CSV_MAP_NONE;
    for (size_t i = 0; i < m->nslots; i++)
        if (m->slots[i].value != CSV_MAP_NONE)
            csv_map_insert(slots, n, m->slots[i].a, m->slots[i].b, m->slots[i].value);
    free(m->slots);
    m->slots = slots;
    m->nslots = n;
}

uint32_t csv_map_put(csv_map *m, uint64_t a, uint32_t b, uint32_t value)
{
    uint32_t v = csv_map_get(m, a, b);
    if (v != CSV_MAP_NONE) return v;
    if ((m->n + 1) * 2 > m->nslots) csv_map_grow(m);
    csv_map_insert(m->slots, m->nslots, a, b, value);
    m->n++;
    return value;
}
