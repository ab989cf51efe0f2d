/* One record's wanted fields (rocprof_jrec.h).
 *
 * The hash of a path folds its keys in level by level, so "a.b" hashes the same whether it is
 * written in the list or met as key "b" inside key "a".
 * A document could only make two paths collide on purpose, and then a value lands under the
 * wrong name: a wrong number, never a memory error. */
#include "rocprof_jrec.h"

#include <stdlib.h>
#include <string.h>

#define RP_HASH_BASIS 0xcbf29ce484222325ull
#define RP_HASH_MUL 0x9e3779b97f4a7c15ull

/* A path's hash folded with one more key, eight bytes at a time: keys are met once per record
 * field, so this is on the per-field path. */
static uint64_t rp_child(uint64_t parent, const char *k, size_t n)
{
    uint64_t h = (parent ^ (uint64_t)n) * RP_HASH_MUL;
    while (n >= 8) {
        uint64_t w;
        memcpy(&w, k, 8);
        h = (h ^ w) * RP_HASH_MUL;
        h ^= h >> 29;
        k += 8;
        n -= 8;
    }
    if (n) {
        uint64_t w = 0;
        memcpy(&w, k, n);
        h = (h ^ w) * RP_HASH_MUL;
        h ^= h >> 29;
    }
    return h;
}

enum { RP_JWANT_EMPTY = 0xFE };

/* The slot of hash h: its own, or the empty one where it would go. */
static size_t rp_jwant_slot(const rp_jwant *w, uint64_t h)
{
    size_t i = (size_t)(h ^ (h >> 29)) & (RP_JWANT_SLOTS - 1);
    while (w->slot_idx[i] != RP_JWANT_EMPTY && w->slot_hash[i] != h)
        i = (i + 1) & (RP_JWANT_SLOTS - 1);
    return i;
}

static void rp_jwant_put(rp_jwant *w, uint64_t h, uint8_t idx)
{
    size_t i = rp_jwant_slot(w, h);
    /* A path that is also a prefix of another keeps its index. */
    if (w->slot_idx[i] == RP_JWANT_EMPTY || w->slot_idx[i] == RP_JWANT_PREFIX) {
        w->slot_hash[i] = h;
        w->slot_idx[i] = idx;
    }
}

void rp_jwant_init(rp_jwant *w, const char *const *paths)
{
    w->paths = paths;
    w->n = 0;
    memset(w->slot_idx, RP_JWANT_EMPTY, sizeof(w->slot_idx));
    /* At most RP_JREC_MAX_WANT paths of up to 4 levels: the table stays under half full. */
    for (; paths[w->n] && w->n < RP_JREC_MAX_WANT; w->n++) {
        const char *p = paths[w->n];
        uint64_t h = RP_HASH_BASIS;
        for (const char *dot; (dot = strchr(p, '.')); p = dot + 1) {
            h = rp_child(h, p, (size_t)(dot - p));
            rp_jwant_put(w, h, RP_JWANT_PREFIX);
        }
        rp_jwant_put(w, rp_child(h, p, strlen(p)), (uint8_t)w->n);
    }
}

void rp_jrec_reset(rp_jrec *r, uint64_t offset, const rp_jwant *want)
{
    r->want = want;
    memset(r->first, 0xFF, sizeof(r->first));
    r->used = 0;
    r->n = 0;
    r->depth = 0;
    r->level[0] = RP_HASH_BASIS;
    r->key_pending = 0;
    r->offset = offset;
    r->ext = NULL;
}

void rp_jrec_free(rp_jrec *r)
{
    free(r->arena);
    free(r->f);
    r->arena = NULL;
    r->f = NULL;
    r->cap = r->fcap = 0;
}

void rp_jrec_key(rp_jrec *r, const char *k, size_t n)
{
    r->key_hash =
        rp_child(r->level[r->depth < RP_JREC_MAX_DEPTH ? r->depth : RP_JREC_MAX_DEPTH], k, n);
    r->key_pending = 1;
}

int rp_jrec_begin(rp_jrec *r)
{
    uint64_t h = r->key_pending
                     ? r->key_hash
                     : r->level[r->depth < RP_JREC_MAX_DEPTH ? r->depth : RP_JREC_MAX_DEPTH];
    r->key_pending = 0;
    r->depth++;
    /* Deeper than kept: everything there shares the last level's path, which no list names. */
    if (r->depth <= RP_JREC_MAX_DEPTH) r->level[r->depth] = r->depth == RP_JREC_MAX_DEPTH ? 0 : h;
    return r->want->slot_idx[rp_jwant_slot(r->want, h)] != RP_JWANT_EMPTY;
}

void rp_jrec_end(rp_jrec *r)
{
    if (r->depth) r->depth--;
    r->key_pending = 0;
}

int rp_jrec_want(rp_jrec *r)
{
    uint64_t h = r->key_pending
                     ? r->key_hash
                     : r->level[r->depth < RP_JREC_MAX_DEPTH ? r->depth : RP_JREC_MAX_DEPTH];
    r->key_pending = 0;
    uint32_t i = r->want->slot_idx[rp_jwant_slot(r->want, h)];
    return i < r->want->n ? (int)i : -1;
}

/* An integer of at most 18 digits (any int64 of that many digits): 1 and *v, or 0. */
static int rp_jrec_parse(const char *s, size_t n, int64_t *v)
{
    size_t i = 0;
    int neg = n && s[0] == '-';
    i += (size_t)neg;
    uint64_t x = 0;
    size_t digits = 0;
    for (; i < n && s[i] >= '0' && s[i] <= '9'; i++, digits++)
        x = x * 10 + (uint64_t)(s[i] - '0');
    if (i != n || !digits || digits > 18) return 0;
    *v = neg ? -(int64_t)x : (int64_t)x;
    return 1;
}

/* Room for one more field; -1 when out of memory. */
static int rp_jrec_room(rp_jrec *r)
{
    if (r->n < r->fcap) return 0;
    size_t c = r->fcap ? r->fcap * 2 : 32;
    rp_jfield *f = realloc(r->f, c * sizeof(*f));
    if (!f) return -1;
    r->f = f;
    r->fcap = c;
    return 0;
}

void rp_jrec_put(rp_jrec *r, uint32_t want, uint32_t kind, size_t text, size_t len, int64_t num,
                 int is_int)
{
    /* The fast path takes records of a few dozen fields: the table has room for them from
     * the first record the lexer collected, or grows here. */
    if (r->n == RP_JREC_MAX_FIELDS || rp_jrec_room(r)) return;
    if (r->first[want] < 0) r->first[want] = (int32_t)r->n;
    rp_jfield *f = &r->f[r->n++];
    *f = (rp_jfield){.want = want,
                     .kind = (uint16_t)kind,
                     .is_int = (uint16_t)is_int,
                     .text = text,
                     .len = len,
                     .num = num};
}

int rp_jrec_scalar(rp_jrec *r, const tconv_json_token *t)
{
    int want = rp_jrec_want(r);
    if (want < 0 || r->n == RP_JREC_MAX_FIELDS) return 0;
    uint32_t i = (uint32_t)want;
    if (r->used + t->len + 1 > r->cap) {
        size_t c = r->cap ? r->cap : 4096;
        while (c < r->used + t->len + 1)
            c *= 2;
        char *a = realloc(r->arena, c);
        if (!a) return -1;
        r->arena = a;
        r->cap = c;
    }
    if (rp_jrec_room(r)) return -1;
    memcpy(r->arena + r->used, t->text, t->len);
    r->arena[r->used + t->len] = '\0';
    if (r->first[i] < 0) r->first[i] = (int32_t)r->n;
    rp_jfield *f = &r->f[r->n++];
    *f = (rp_jfield){.want = i, .kind = (uint16_t)t->kind, .text = r->used, .len = t->len};
    if (t->kind == TCONV_JSON_NUMBER) f->is_int = (uint16_t)rp_jrec_parse(t->text, t->len, &f->num);
    r->used += t->len + 1;
    return 0;
}

int rp_jrec_int_slow(const rp_jrec *r, const rp_jfield *f, int64_t *v)
{
    const char *s = rp_jrec_text(r, f);
    size_t n = f->len;
    /* Long, fractional or exponent forms (1.5e9): exact only when integral and in range. The
     * text is not terminated (a span of the input, from the fast path). */
    char small[64], *num = n < sizeof(small) ? small : malloc(n + 1);
    if (!num) return 0;
    memcpy(num, s, n);
    num[n] = '\0';
    char *end;
    double d = strtod(num, &end);
    int ok = !*end && d >= -9.2e18 && d <= 9.2e18 && d == (double)(long long)d;
    if (num != small) free(num);
    if (!ok) return 0;
    *v = (int64_t)d;
    return 1;
}
