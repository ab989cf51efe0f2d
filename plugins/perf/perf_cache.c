/* Open-addressing hash table with keys and frames in two growing pools. */
#include "perf_cache.h"
#include "perf_oom.h"

#include <tconv/tconv.h>

#include <stdlib.h>
#include <string.h>

enum { PERF_CACHE_MAX_ENTRIES = 1u << 22 };

typedef struct perf_cache_entry {
    uint64_t hash;
    size_t key;   /* offset in keys */
    size_t frame; /* offset in frames */
    uint32_t keylen;
    uint32_t nframes;
} perf_cache_entry;

struct perf_cache {
    perf_cache_entry *entries;
    size_t n, cap;
    uint32_t *slots; /* entry index + 1; 0 is empty */
    size_t nslots;
    char *keys;
    size_t keys_len, keys_cap;
    tconv_frame *frames;
    size_t frames_len, frames_cap;
};

/* The core's overflow-checked growth (its out-of-memory end is perf_oom's). */
static void *perf_cache_grow(void *p, size_t *cap, size_t need, size_t size)
{
    tconv_array_grow(&p, cap, need, size);
    return p;
}

perf_cache *perf_cache_new(void)
{
    perf_cache *c = calloc(1, sizeof(*c));
    if (!c) perf_oom(sizeof(*c));
    c->nslots = 1024;
    c->slots = calloc(c->nslots, sizeof(uint32_t));
    if (!c->slots) perf_oom(c->nslots * sizeof(uint32_t));
    return c;
}

void perf_cache_free(perf_cache *c)
{
    if (!c) return;
    free(c->entries);
    free(c->slots);
    free(c->keys);
    free(c->frames);
    free(c);
}

static uint64_t perf_cache_mix(uint64_t h)
{
    h ^= h >> 33;
    h *= 0xff51afd7ed558ccdULL;
    h ^= h >> 33;
    h *= 0xc4ceb9fe1a85ec53ULL;
    h ^= h >> 33;
    return h;
}

uint64_t perf_cache_hash(const char *key, size_t n, uint32_t salt)
{
    uint64_t h = 0x9e3779b97f4a7c15ULL ^ (n * 0x100000001b3ULL) ^ salt;
    size_t i = 0;
    for (; i + 8 <= n; i += 8) {
        uint64_t w;
        memcpy(&w, key + i, 8);
        h = (h ^ w) * 0x9fb21c651e98df25ULL;
        h ^= h >> 29;
    }
    uint64_t w = 0;
    memcpy(&w, key + i, n - i);
    h = (h ^ w) * 0x9fb21c651e98df25ULL;
    return perf_cache_mix(h);
}

int perf_cache_find(const perf_cache *c, const char *key, size_t n, uint64_t hash,
                    perf_cache_hit *hit)
{
    size_t mask = c->nslots - 1;
    for (size_t i = (size_t)hash & mask;; i = (i + 1) & mask) {
        uint32_t s = c->slots[i];
        if (!s) return 0;
        const perf_cache_entry *e = &c->entries[s - 1];
        if (e->hash == hash && e->keylen == n && memcmp(c->keys + e->key, key, n) == 0) {
            hit->frames = c->frames + e->frame;
            hit->nframes = e->nframes;
            return 1;
        }
    }
}

static void perf_cache_rehash(perf_cache *c)
{
    size_t nslots = c->nslots * 2;
    uint32_t *slots = calloc(nslots, sizeof(uint32_t));
    if (!slots) perf_oom(nslots * sizeof(uint32_t));
    for (size_t k = 0; k < c->n; k++) {
        size_t i = (size_t)c->entries[k].hash & (nslots - 1);
        while (slots[i])
            i = (i + 1) & (nslots - 1);
        slots[i] = (uint32_t)k + 1;
    }
    free(c->slots);
    c->slots = slots;
    c->nslots = nslots;
}

void perf_cache_put(perf_cache *c, const char *key, size_t n, uint64_t hash,
                    const tconv_frame *frames, uint32_t nframes)
{
    if (c->n >= PERF_CACHE_MAX_ENTRIES || n > UINT32_MAX) return;
    if ((c->n + 1) * 2 > c->nslots) perf_cache_rehash(c);
    c->entries = perf_cache_grow(c->entries, &c->cap, c->n + 1, sizeof(*c->entries));
    c->keys = perf_cache_grow(c->keys, &c->keys_cap, c->keys_len + n + 1, 1);
    c->frames =
        perf_cache_grow(c->frames, &c->frames_cap, c->frames_len + nframes + 1, sizeof(*c->frames));
    perf_cache_entry *e = &c->entries[c->n];
    e->hash = hash;
    e->key = c->keys_len;
    e->keylen = (uint32_t)n;
    e->frame = c->frames_len;
    e->nframes = nframes;
    memcpy(c->keys + c->keys_len, key, n);
    c->keys_len += n;
    if (nframes) memcpy(c->frames + c->frames_len, frames, nframes * sizeof(*frames));
    c->frames_len += nframes;
    size_t mask = c->nslots - 1;
    size_t i = (size_t)hash & mask;
    while (c->slots[i])
        i = (i + 1) & mask;
    c->slots[i] = (uint32_t)c->n + 1;
    c->n++;
}
