#include "chrome_strmap.h"

#include <stdlib.h>
#include <string.h>

uint64_t chrome_hash(const void *p, size_t n, uint64_t h)
{
    const unsigned char *s = p;
    for (size_t i = 0; i < n; i++) {
        h ^= s[i];
        h *= 0x100000001b3ull;
    }
    return h;
}

void chrome_strmap_free(chrome_strmap *m)
{
    free(m->slots);
    free(m->entries);
    free(m->keys);
    memset(m, 0, sizeof *m);
}

static size_t chrome_strmap_slot(const chrome_strmap *m, uint64_t h, const char *key, size_t len)
{
    size_t mask = m->nslots - 1;
    size_t i = (size_t)(h ^ (h >> 29)) & mask;
    for (;;) {
        uint32_t e = m->slots[i];
        if (!e) return i;
        const struct chrome_strmap_entry *en = &m->entries[e - 1];
        if (en->hash == h && en->len == len && memcmp(m->keys + en->off, key, len) == 0) return i;
        i = (i + 1) & mask;
    }
}

uint32_t *chrome_strmap_find(const chrome_strmap *m, const char *key, size_t len)
{
    if (!m->nslots) return NULL;
    uint64_t h = chrome_hash(key, len, CHROME_HASH_SEED);
    uint32_t e = m->slots[chrome_strmap_slot(m, h, key, len)];
    return e ? &m->entries[e - 1].value : NULL;
}

static int chrome_strmap_rehash(chrome_strmap *m, size_t nslots)
{
    uint32_t *slots = calloc(nslots, sizeof *slots);
    if (!slots) return -1;
    free(m->slots);
    m->slots = slots;
    m->nslots = nslots;
    for (size_t k = 0; k < m->n; k++) {
        const struct chrome_strmap_entry *en = &m->entries[k];
        size_t i = chrome_strmap_slot(m, en->hash, m->keys + en->off, en->len);
        m->slots[i] = (uint32_t)(k + 1);
    }
    return 0;
}

int chrome_strmap_put(chrome_strmap *m, const char *key, size_t len, uint32_t value)
{
    if ((m->n + 1) * 2 > m->nslots && chrome_strmap_rehash(m, m->nslots ? m->nslots * 2 : 64))
        return -1;
    uint64_t h = chrome_hash(key, len, CHROME_HASH_SEED);
    size_t i = chrome_strmap_slot(m, h, key, len);
    if (m->slots[i]) {
        m->entries[m->slots[i] - 1].value = value;
        return 0;
    }
    if (m->n == UINT32_MAX - 1) return -1;
    if (m->n == m->cap) {
        size_t c = m->cap ? m->cap * 2 : 64;
        void *q = realloc(m->entries, c * sizeof *m->entries);
        if (!q) return -1;
        m->entries = q;
        m->cap = c;
    }
    if (m->keys_len + len + 1 > m->keys_cap) {
        size_t c = m->keys_cap ? m->keys_cap : 1024;
        while (c < m->keys_len + len + 1)
            c *= 2;
        char *q = realloc(m->keys, c);
        if (!q) return -1;
        m->keys = q;
        m->keys_cap = c;
    }
    memcpy(m->keys + m->keys_len, key, len);
    m->keys[m->keys_len + len] = '\0';
    m->entries[m->n] = (struct chrome_strmap_entry){h, m->keys_len, len, value};
    m->keys_len += len + 1;
    m->slots[i] = (uint32_t)(m->n + 1);
    m->n++;
    return 0;
}
