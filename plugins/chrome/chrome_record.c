#include "chrome_record.h"

#include <stdlib.h>
#include <string.h>

#include <tconv/utf8.h>

chrome_field chrome_field_lookup(const char *k, size_t n)
{
#define CHROME_IS(lit) (n == sizeof(lit) - 1 && memcmp(k, lit, n) == 0)
    switch (n) {
    case 1:
        return k[0] == 's' ? CHROME_F_S : CHROME_F_UNKNOWN;
    case 2:
        if (CHROME_IS("ph")) return CHROME_F_PH;
        if (CHROME_IS("ts")) return CHROME_F_TS;
        if (CHROME_IS("id")) return CHROME_F_ID;
        if (CHROME_IS("bp")) return CHROME_F_BP;
        if (CHROME_IS("sf")) return CHROME_F_SF;
        break;
    case 3:
        if (CHROME_IS("pid")) return CHROME_F_PID;
        if (CHROME_IS("id2")) return CHROME_F_ID2;
        if (CHROME_IS("tid")) return CHROME_F_TID;
        if (CHROME_IS("cat")) return CHROME_F_CAT;
        if (CHROME_IS("dur")) return CHROME_F_DUR;
        break;
    case 4:
        if (CHROME_IS("name")) return CHROME_F_NAME;
        if (CHROME_IS("args")) return CHROME_F_ARGS;
        break;
    case 5:
        if (CHROME_IS("scope")) return CHROME_F_SCOPE;
        if (CHROME_IS("stack")) return CHROME_F_STACK;
        break;
    case 6:
        if (CHROME_IS("weight")) return CHROME_F_WEIGHT;
        break;
    case 7:
        if (CHROME_IS("bind_id")) return CHROME_F_BIND_ID;
        if (CHROME_IS("flow_in")) return CHROME_F_FLOW_IN;
        break;
    case 8:
        if (CHROME_IS("flow_out")) return CHROME_F_FLOW_OUT;
        break;
    default:
        break;
    }
    return CHROME_F_UNKNOWN;
#undef CHROME_IS
}

void chrome_record_reset(chrome_record *r)
{
    r->len = 0;
    /* An event sets a handful of the fields: clear those, not the whole table. */
    for (uint32_t m = r->fset; m; m &= m - 1)
        r->f[__builtin_ctz(m)] = (chrome_val){0};
    r->fset = 0;
    r->args.n = 0;
    r->extras.n = 0;
    r->args.nidx = r->extras.nidx = SIZE_MAX; /* the indexes are stale */
    r->nstack = 0;
    r->has_args = 0;
    r->has_stack = 0;
}

void chrome_record_free(chrome_record *r)
{
    free(r->arena);
    free(r->args.v);
    free(r->extras.v);
    free(r->args.idx);
    free(r->extras.idx);
    free(r->stack);
    memset(r, 0, sizeof *r);
}

static int chrome_grow(void **p, size_t *cap, size_t need, size_t elem)
{
    if (need <= *cap) return 0;
    size_t c = *cap ? *cap : 16;
    while (c < need)
        c *= 2;
    void *q = realloc(*p, c * elem);
    if (!q) return -1;
    *p = q;
    *cap = c;
    return 0;
}

int chrome_record_clone(chrome_record *d, const chrome_record *s)
{
    memset(d, 0, sizeof *d);
    *d = *s;
    d->arena = NULL;
    d->args.v = NULL;
    d->extras.v = NULL;
    d->args.idx = d->extras.idx = NULL;
    d->args.idx_cap = d->extras.idx_cap = 0;
    d->args.nidx = d->extras.nidx = SIZE_MAX;
    d->stack = NULL;
    d->cap = d->args.cap = d->extras.cap = d->capstack = 0;
    if (chrome_grow((void **)&d->arena, &d->cap, s->len + 1, 1) ||
        chrome_grow((void **)&d->args.v, &d->args.cap, s->args.n + 1, sizeof(chrome_kv)) ||
        chrome_grow((void **)&d->extras.v, &d->extras.cap, s->extras.n + 1, sizeof(chrome_kv)) ||
        chrome_grow((void **)&d->stack, &d->capstack, s->nstack + 1, sizeof(chrome_span))) {
        chrome_record_free(d);
        return -1;
    }
    if (s->len) memcpy(d->arena, s->arena, s->len);
    if (s->args.n) memcpy(d->args.v, s->args.v, s->args.n * sizeof(chrome_kv));
    if (s->extras.n) memcpy(d->extras.v, s->extras.v, s->extras.n * sizeof(chrome_kv));
    if (s->nstack) memcpy(d->stack, s->stack, s->nstack * sizeof(chrome_span));
    return 0;
}

/* Nearly every string of a trace is ASCII: checked here, without a call into the core. */
static int chrome_ascii(const char *s, size_t n)
{
    uint64_t acc = 0;
    size_t i = 0;
    for (; i + 8 <= n; i += 8) {
        uint64_t w;
        memcpy(&w, s + i, 8);
        acc |= w;
    }
    for (; i < n; i++)
        acc |= (unsigned char)s[i];
    return (acc & 0x8080808080808080ull) == 0;
}

int chrome_record_text(chrome_record *r, const char *s, size_t n, int utf8, int *bad,
                       chrome_span *out)
{
    size_t ok =
        utf8 && !chrome_ascii(s, n) ? tconv_utf8_valid_prefix((const unsigned char *)s, n) : n;
    size_t worst = ok == n ? n : ok + 3 * (n - ok);
    if (worst > UINT32_MAX - 1 - r->len) return -1;
    if (chrome_grow((void **)&r->arena, &r->cap, r->len + worst + 1, 1)) return -1;
    char *d = r->arena + r->len;
    memcpy(d, s, ok);
    size_t w = ok;
    if (ok != n) {
        w += tconv_utf8_repair(d + ok, (const unsigned char *)s + ok, n - ok);
        *bad = 1;
    }
    d[w] = '\0';
    /* One 8-byte store: the caller loads the span back whole at once, and two 4-byte stores
     * cannot be forwarded to that load (it waited for them to reach the cache, a few percent of
     * a conversion). */
    const chrome_span sp = {(uint32_t)r->len, (uint32_t)w};
    uint64_t whole;
    memcpy(&whole, &sp, sizeof whole);
    r->len += w + 1;
    memcpy(out, &whole, sizeof whole);
    return 0;
}

int chrome_record_set_field(chrome_record *r, chrome_field f, chrome_vtype t, chrome_span s)
{
    r->f[f].type = t;
    r->f[f].s = s;
    r->fset |= 1u << f;
    return 0;
}

/* A repeated key is found by comparing it with each key before it while there are few; past
 * CHROME_KV_INDEXED, through a hash index of the keys (an event with 100 000 args was 5 * 10^9
 * comparisons). */
enum { CHROME_KV_INDEXED = 32 };

static size_t chrome_kv_hash(const char *k, size_t n)
{
    uint64_t h = 0xcbf29ce484222325u;
    for (size_t i = 0; i < n; i++)
        h = (h ^ (unsigned char)k[i]) * 0x100000001b3u;
    return (size_t)(h ^ (h >> 29));
}

/* The slot of key in the index: where it is, or the empty slot where it would go. */
static uint32_t *chrome_kv_slot(const chrome_record *r, const chrome_kvs *kvs, const char *k,
                                size_t len)
{
    size_t mask = kvs->idx_cap - 1, i = chrome_kv_hash(k, len) & mask;
    for (;; i = (i + 1) & mask) {
        uint32_t at = kvs->idx[i];
        if (!at) return &kvs->idx[i];
        const chrome_kv *kv = &kvs->v[at - 1];
        if (kv->key.len == len && memcmp(r->arena + kv->key.off, k, len) == 0) return &kvs->idx[i];
    }
}

/* The index, valid and with room for one more key (at most a quarter full). */
static int chrome_kv_reindex(const chrome_record *r, chrome_kvs *kvs)
{
    if (kvs->nidx == kvs->n && 4 * (kvs->n + 1) <= kvs->idx_cap) return 0;
    if (kvs->n >= UINT32_MAX) return -1;
    size_t cap = 64;
    while (cap < 4 * (kvs->n + 1))
        cap *= 2;
    uint32_t *idx = calloc(cap, sizeof(*idx));
    if (!idx) return -1;
    free(kvs->idx);
    kvs->idx = idx;
    kvs->idx_cap = cap;
    for (size_t i = 0; i < kvs->n; i++) {
        const chrome_kv *kv = &kvs->v[i];
        uint32_t *slot = chrome_kv_slot(r, kvs, r->arena + kv->key.off, kv->key.len);
        if (!*slot) *slot = (uint32_t)i + 1;
    }
    kvs->nidx = kvs->n;
    return 0;
}

int chrome_record_set_kv(chrome_record *r, chrome_kvs *kvs, chrome_span key, chrome_vtype t,
                         chrome_span s)
{
    const char *k = r->arena + key.off;
    if (kvs->n >= CHROME_KV_INDEXED) {
        if (chrome_kv_reindex(r, kvs) < 0) return -1;
        uint32_t *slot = chrome_kv_slot(r, kvs, k, key.len);
        if (*slot) {
            kvs->v[*slot - 1].val.type = t;
            kvs->v[*slot - 1].val.s = s;
            return 0;
        }
        if (chrome_grow((void **)&kvs->v, &kvs->cap, kvs->n + 1, sizeof(chrome_kv))) return -1;
        kvs->v[kvs->n] = (chrome_kv){key, {.type = t, .s = s}};
        *slot = (uint32_t)++kvs->n;
        kvs->nidx = kvs->n;
        return 0;
    }
    for (size_t i = 0; i < kvs->n; i++) {
        chrome_kv *kv = &kvs->v[i];
        if (kv->key.len == key.len && memcmp(r->arena + kv->key.off, k, key.len) == 0) {
            kv->val.type = t;
            kv->val.s = s;
            return 0;
        }
    }
    if (chrome_grow((void **)&kvs->v, &kvs->cap, kvs->n + 1, sizeof(chrome_kv))) return -1;
    kvs->v[kvs->n].key = key;
    kvs->v[kvs->n].val.type = t;
    kvs->v[kvs->n].val.s = s;
    kvs->n++;
    return 0;
}

int chrome_record_push_stack(chrome_record *r, chrome_span s)
{
    if (chrome_grow((void **)&r->stack, &r->capstack, r->nstack + 1, sizeof(chrome_span)))
        return -1;
    r->stack[r->nstack++] = s;
    return 0;
}

const char *chrome_record_scalar(const chrome_record *r, chrome_field f, size_t *len)
{
    const chrome_val *v = &r->f[f];
    if (v->type != CHROME_V_STRING && v->type != CHROME_V_NUMBER) return NULL;
    *len = v->s.len;
    return r->arena + v->s.off;
}
