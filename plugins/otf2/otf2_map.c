#include "otf2_map.h"
#include "otf2_oom.h"

#include <stdlib.h>

static uint64_t otf2_map_hash(uint64_t a, uint64_t b)
{
    uint64_t h = a * 0x9E3779B97F4A7C15ull ^ (b + 0x632BE59BD9B4E019ull) * 0xC2B2AE3D27D4EB4Full;
    return h ^ (h >> 31);
}

static void otf2_map_insert(otf2_map_slot *slots, size_t cap, uint64_t a, uint64_t b, uint32_t v1)
{
    size_t i = (size_t)otf2_map_hash(a, b) & (cap - 1);
    while (slots[i].v && !(slots[i].a == a && slots[i].b == b))
        i = (i + 1) & (cap - 1);
    slots[i].a = a;
    slots[i].b = b;
    slots[i].v = v1;
}

uint32_t otf2_map_get(const otf2_map *m, uint64_t a, uint64_t b)
{
    if (!m->cap) return UINT32_MAX;
    size_t i = (size_t)otf2_map_hash(a, b) & (m->cap - 1);
    for (; m->slots[i].v; i = (i + 1) & (m->cap - 1))
        if (m->slots[i].a == a && m->slots[i].b == b) return m->slots[i].v - 1;
    return UINT32_MAX;
}

void otf2_map_put(otf2_map *m, uint64_t a, uint64_t b, uint32_t v)
{
    if ((m->n + 1) * 2 > m->cap) {
        size_t cap = m->cap ? m->cap * 2 : 64;
        otf2_map_slot *slots = calloc(cap, sizeof(*slots));
        if (!slots) otf2_oom();
        for (size_t i = 0; i < m->cap; i++)
            if (m->slots[i].v)
                otf2_map_insert(slots, cap, m->slots[i].a, m->slots[i].b, m->slots[i].v);
        free(m->slots);
        m->slots = slots;
        m->cap = cap;
    }
    if (otf2_map_get(m, a, b) == UINT32_MAX) m->n++;
    otf2_map_insert(m->slots, m->cap, a, b, v + 1);
}

void otf2_map_free(otf2_map *m)
{
    free(m->slots);
    m->slots = NULL;
    m->n = m->cap = 0;
}
