/* A map from byte strings to uint32 values; keys are copied. No removal: the reader only
 * needs it for tables that live as long as the read (stack frames). */
#ifndef CHROME_STRMAP_H
#define CHROME_STRMAP_H

#include <stddef.h>
#include <stdint.h>

typedef struct chrome_strmap {
    uint32_t *slots; /* entry index + 1, 0 = empty */
    size_t nslots;
    struct chrome_strmap_entry {
        uint64_t hash;
        size_t off, len; /* key in keys */
        uint32_t value;
    } * entries;
    size_t n, cap;
    char *keys;
    size_t keys_len, keys_cap;
} chrome_strmap;

uint64_t chrome_hash(const void *p, size_t n, uint64_t seed);
#define CHROME_HASH_SEED 0xcbf29ce484222325ull

void chrome_strmap_free(chrome_strmap *m);
/* Pointer to the value of key, or NULL. */
uint32_t *chrome_strmap_find(const chrome_strmap *m, const char *key, size_t len);
/* Insert or overwrite; -1 when out of memory. */
int chrome_strmap_put(chrome_strmap *m, const char *key, size_t len, uint32_t value);

#endif
