/* String interning. Ids are dense and assigned in order of first use, so the same input always
 * gives the same ids; id 0 is "". Pointers returned stay valid for the whole run. */
#include <string.h>

#include "context.h"

/* 8 bytes per step: names in real traces are long (C++ templates, Python paths), and hashing
 * them byte by byte showed up in profiles of whole conversions. */
static uint32_t strtab_hash(const char *s, size_t len)
{
    const uint64_t k = 0x9E3779B97F4A7C15ull;
    uint64_t h = len * k;
    size_t i = 0;
    for (; i + 8 <= len; i += 8) {
        uint64_t w;
        memcpy(&w, s + i, 8);
        h = (h ^ w) * k;
        h ^= h >> 29;
    }
    uint64_t tail = 0;
    if (i < len) memcpy(&tail, s + i, len - i);
    h = (h ^ tail) * k;
    h ^= h >> 32;
    return (uint32_t)h;
}

static void strtab_rehash(tconv_strtab *t)
{
    size_t ns = t->nslots ? t->nslots * 2 : 1024;
    uint32_t *slots = tconv_xcalloc(ns, sizeof(*slots));
    for (size_t id = 0; id < t->n; id++) {
        tconv_slots_put(slots, ns, t->hash[id], (uint32_t)id + 1);
    }
    free(t->slots);
    t->slots = slots;
    t->nslots = ns;
}

static tconv_str strtab_add(tconv_strtab *t, const char *s, size_t len, uint32_t h)
{
    if (t->n == t->cap) {
        size_t c = t->cap ? t->cap * 2 : 256;
        t->str = tconv_xrealloc(t->str, c * sizeof(*t->str));
        t->len = tconv_xrealloc(t->len, c * sizeof(*t->len));
        t->hash = tconv_xrealloc(t->hash, c * sizeof(*t->hash));
        t->cap = c;
    }
    char *p = tconv_arena_alloc(&t->arena, len + 1);
    memcpy(p, s, len);
    p[len] = 0;
    t->str[t->n] = p;
    t->len[t->n] = (uint32_t)len;
    t->hash[t->n] = h;
    return (tconv_str)t->n++;
}

void tconv_strtab_init(tconv_strtab *t)
{
    memset(t, 0, sizeof(*t));
    strtab_add(t, "", 0, strtab_hash("", 0));
    strtab_rehash(t);
}

void tconv_strtab_free(tconv_strtab *t)
{
    tconv_arena_free(&t->arena);
    free(t->str);
    free(t->len);
    free(t->hash);
    free(t->slots);
    memset(t, 0, sizeof(*t));
}

TCONV_API tconv_str tconv_string_intern(tconv_ctx *ctx, const char *s, size_t len)
{
    tconv_strtab *t = &ctx->strings;
    if (len == 0) return 0;
    uint32_t h = strtab_hash(s, len);
    size_t mask = t->nslots - 1;
    for (size_t i = h & mask;; i = (i + 1) & mask) {
        uint32_t slot = t->slots[i];
        if (!slot) break;
        uint32_t id = slot - 1;
        if (t->hash[id] == h && t->len[id] == len && memcmp(t->str[id], s, len) == 0) return id;
    }
    tconv_str id = strtab_add(t, s, len, h);
    if ((t->n + 1) * 2 > t->nslots) {
        strtab_rehash(t);
    } else {
        tconv_slots_put(t->slots, t->nslots, h, id + 1);
    }
    return id;
}

TCONV_API tconv_str tconv_string_intern_cstr(tconv_ctx *ctx, const char *s)
{
    return s ? tconv_string_intern(ctx, s, strlen(s)) : 0;
}

TCONV_API const char *tconv_string_get(const tconv_ctx *ctx, tconv_str id)
{
    return id < ctx->strings.n ? ctx->strings.str[id] : "";
}

TCONV_API size_t tconv_string_length(const tconv_ctx *ctx, tconv_str id)
{
    return id < ctx->strings.n ? ctx->strings.len[id] : 0;
}

TCONV_API uint32_t tconv_string_count(const tconv_ctx *ctx)
{
    return (uint32_t)ctx->strings.n;
}
