/* Records read against a template of the last one (rocprof_jfast.h). */
#include "rocprof_jfast.h"

#include <string.h>

#include "jsonscan.h"

/* Past the integer at p, or NULL when p holds none; its value in *num when it has at most 18
 * digits (*is_int). What follows is the caller's to check: a '.' or 'e' there makes the
 * number another one. */
static inline const unsigned char *rp_jfast_int(const unsigned char *p, const unsigned char *end,
                                                int64_t *num, int *is_int)
{
    int neg = p < end && *p == '-';
    p += neg;
    if (p == end) return NULL;
    const unsigned char *digits = p;
    uint64_t x = 0;
    if (*p == '0') {
        p++;
    } else {
        if (*p < '1' || *p > '9') return NULL;
        while (p < end && *p >= '0' && *p <= '9')
            x = x * 10 + (uint64_t)(*p++ - '0');
    }
    /* Past 18 digits x may have wrapped: such a number is parsed from its text when read. */
    *is_int = p - digits <= 18;
    *num = !*is_int ? 0 : neg ? -(int64_t)x : (int64_t)x;
    return p;
}

/* a[0 .. n) == b[0 .. n): the runs of text are a few to a few dozen bytes. */
static inline int rp_jfast_same(const unsigned char *a, const char *b, size_t n)
{
    if (n >= 8) {
        uint64_t x, y;
        for (size_t i = 0; i + 8 <= n; i += 8) {
            memcpy(&x, a + i, 8);
            memcpy(&y, b + i, 8);
            if (x != y) return 0;
        }
        memcpy(&x, a + n - 8, 8);
        memcpy(&y, b + n - 8, 8);
        return x == y;
    }
    for (size_t i = 0; i < n; i++)
        if (a[i] != (unsigned char)b[i]) return 0;
    return 1;
}

/* A value as read: its span, and a number's value. */
typedef struct rp_jfast_got {
    const unsigned char *v;
    size_t len;
    int64_t num;
    int is_int;
} rp_jfast_got;

/* The value at p of the given kind into *g, and past it; or NULL. */
static inline const unsigned char *
rp_jfast_value_at(const unsigned char *p, const unsigned char *end, unsigned kind, rp_jfast_got *g)
{
    if (kind == TCONV_JSON_NUMBER) {
        const unsigned char *q = rp_jfast_int(p, end, &g->num, &g->is_int);
        if (!q) return NULL;
        g->v = p;
        g->len = (size_t)(q - p);
        return q;
    }
    if (p == end || *p != '"') return NULL;
    const unsigned char *q = jsonscan_plain_string(p + 1, end);
    if (!q) return NULL;
    g->v = p + 1;
    g->len = (size_t)(q - p - 1);
    g->num = 0;
    g->is_int = 0;
    return q + 1;
}

static void rp_jfast_file(rp_jrec *r, int want, unsigned kind, const rp_jfast_got *g,
                          const unsigned char *base)
{
    if (want >= 0)
        rp_jrec_put(r, (uint32_t)want, kind, (size_t)(g->v - base), g->len, g->num, g->is_int);
}

static const unsigned char *rp_jfast_match(const rp_jfast *t, rp_jrec *r, const unsigned char *p,
                                           const unsigned char *end, const unsigned char *base)
{
    for (size_t i = 0; i < t->n; i++) {
        const rp_jfast_value *s = &t->v[i];
        if ((size_t)(end - p) < s->len || !rp_jfast_same(p, t->text + s->text, s->len)) return NULL;
        p += s->len;
        rp_jfast_got g;
        p = rp_jfast_value_at(p, end, s->kind, &g);
        if (!p) return NULL;
        rp_jfast_file(r, s->want, s->kind, &g, base);
    }
    if ((size_t)(end - p) < t->tail_len || !rp_jfast_same(p, t->text + t->tail, t->tail_len))
        return NULL;
    return p + t->tail_len;
}

/* Keep text[from .. to) as the template's next run of text; 0 when it has no room. */
static int rp_jfast_keep(rp_jfast *t, const unsigned char *from, const unsigned char *to,
                         uint16_t *at, uint16_t *len)
{
    size_t n = (size_t)(to - from);
    if (n > sizeof(t->text) - t->used) return 0;
    memcpy(t->text + t->used, from, n);
    *at = (uint16_t)t->used;
    *len = (uint16_t)n;
    t->used += n;
    return 1;
}

const unsigned char *rp_jfast_next(const unsigned char *p, const unsigned char *end)
{
    p = jsonscan_blanks(p, end);
    if (p == end || *p != ',') return NULL;
    p = jsonscan_blanks(p + 1, end);
    return p < end && *p == '{' ? p : NULL;
}

/* Read the record at p into r and into a new template, as the lexer and rp_jrec would: keys
 * fold into paths, a container no path goes through is skipped (its values are checked, and
 * filed nowhere). */
static const unsigned char *rp_jfast_learn(rp_jfast *t, rp_jrec *r, const unsigned char *p,
                                           const unsigned char *end, const unsigned char *base)
{
    t->n = 0;
    t->used = 0;
    const unsigned char *run = p; /* where the text since the last value began */
    size_t depth = 1, skip = 0;   /* skip: the depth of the container skipped, or 0 */
    int first = 1;                /* just past a '{': a key or '}' comes */
    p++;
    for (;;) {
        p = jsonscan_blanks(p, end);
        if (p == end) return NULL;
        if (*p == '}') {
            if (!first) return NULL; /* "{... ,}" */
            goto close;
        }
        if (*p != '"') return NULL;
        const unsigned char *k = p + 1, *q = jsonscan_plain_string(k, end);
        if (!q) return NULL;
        if (!skip) rp_jrec_key(r, (const char *)k, (size_t)(q - k));
        p = jsonscan_blanks(q + 1, end);
        if (p == end || *p != ':') return NULL;
        p = jsonscan_blanks(p + 1, end);
        if (p == end) return NULL;
        if (*p == '{') {
            if (depth == RP_JFAST_DEPTH) return NULL;
            depth++;
            if (!skip && !rp_jrec_begin(r)) skip = depth;
            p++;
            first = 1;
            continue;
        }
        unsigned kind = *p == '"' ? TCONV_JSON_STRING : TCONV_JSON_NUMBER;
        rp_jfast_got g;
        const unsigned char *after = rp_jfast_value_at(p, end, kind, &g);
        if (!after || t->n == RP_JFAST_VALUES) return NULL;
        rp_jfast_value *s = &t->v[t->n++];
        if (!rp_jfast_keep(t, run, p, &s->text, &s->len)) return NULL;
        s->kind = (uint8_t)kind;
        s->want = (int16_t)(skip ? -1 : rp_jrec_want(r));
        rp_jfast_file(r, s->want, kind, &g, base);
        run = p = after;
        /* After a value: more members, or the end of its object. */
        for (;;) {
            p = jsonscan_blanks(p, end);
            if (p == end) return NULL;
            if (*p == ',') {
                p++;
                first = 0;
                break;
            }
            if (*p != '}') return NULL;
        close:
            p++;
            if (--depth == 0) {
                if (!rp_jfast_keep(t, run, p, &t->tail, &t->tail_len)) return NULL;
                return p;
            }
            /* The skipped container's own end reaches the record, as the lexer's does. */
            if (!skip || depth + 1 == skip) {
                rp_jrec_end(r);
                skip = 0;
            }
        }
    }
}

const unsigned char *rp_jfast_record(rp_jfast *t, rp_jrec *r, const unsigned char *p,
                                     const unsigned char *end, const unsigned char *base)
{
    r->ext = (const char *)base;
    if (t->n) {
        const unsigned char *e = rp_jfast_match(t, r, p, end, base);
        if (e) return e;
        const rp_jwant *want = r->want;
        uint64_t offset = r->offset;
        rp_jrec_reset(r, offset, want);
        r->ext = (const char *)base;
    }
    const unsigned char *e = rp_jfast_learn(t, r, p, end, base);
    if (!e) t->n = 0;
    return e;
}
