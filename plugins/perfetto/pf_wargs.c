/* Args as debug annotations, keeping their types: bool, int, uint, double and string values as
 * such, null and JSON texts that cannot nest as JSON text (legacy_json_value), and JSON objects
 * and arrays as nested dicts and arrays, which trace viewers show as a tree.
 *
 * A JSON arg nests only when the reader's way back (pf_json.c) gives exactly its text: numbers
 * must be written the way their value prints (1.0, 1e5 and 007 are not), strings escaped as the
 * core escapes them. Otherwise the arg is its text. The check costs a second pass, so each
 * distinct text is encoded once and kept (jcache): a Kineto trace repeats a few hundred
 * "Input Dims" over thousands of ops.
 *
 * A string value is written inline the first time and interned from its second use on, so a
 * name that is used once costs no table entry and a call stack repeated on every op costs a
 * few bytes. */
#include "pf_writer.h"

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <tconv/json.h>

#include "pf_fields.h"
#include "pf_json.h"

/* JSON nests no deeper than this as annotations; deeper texts stay text. */
#define PF_JSON_MAX_DEPTH 64

void pf_w_annot_int(pf_writer *w, uint32_t name_iid, int64_t value)
{
    size_t m = pf_open(&w->ev, PF_TE_ANNOTATIONS);
    pf_put_uint(&w->ev, PF_DA_NAME_IID, name_iid);
    pf_put_int(&w->ev, PF_DA_INT, value);
    pf_close(&w->ev, m);
}

/* The iid of a string value, interning it now. 0 when out of memory. */
static uint32_t pf_w_sval_iid(pf_writer *w, pf_wstr *e, tconv_str value)
{
    if (e->sval && e->sval != PF_SEEN_ONCE) return e->sval;
    uint32_t iid = w->next_sval + 1;
    if (iid >= w->sval_rev_cap) TCONV_ARRAY_GROW(w->sval_rev, w->sval_rev_cap, (size_t)iid + 1);
    w->sval_rev[iid] = value;
    e->sval = w->next_sval = iid;
    size_t m = pf_open(&w->intern, PF_ID_STRING_VALUES);
    pf_put_uint(&w->intern, PF_IID, iid);
    pf_put_bytes(&w->intern, PF_IID_NAME, tconv_string_get(w->ctx, value),
                 tconv_string_length(w->ctx, value));
    pf_close(&w->intern, m);
    return iid;
}

static void pf_w_string_value(pf_writer *w, tconv_str value)
{
    pf_wstr *e = pf_w_str(w, value);
    if (e && e->sval) {
        pf_put_uint(&w->ev, PF_DA_STRING_IID, pf_w_sval_iid(w, e, value));
        return;
    }
    if (e) e->sval = PF_SEEN_ONCE;
    pf_put_bytes(&w->ev, PF_DA_STRING, tconv_string_get(w->ctx, value),
                 tconv_string_length(w->ctx, value));
}

void pf_w_annot_str(pf_writer *w, uint32_t name_iid, tconv_str value)
{
    size_t m = pf_open(&w->ev, PF_TE_ANNOTATIONS);
    pf_put_uint(&w->ev, PF_DA_NAME_IID, name_iid);
    pf_w_string_value(w, value);
    pf_close(&w->ev, m);
}

/* ---- JSON texts as nested annotations ---------------------------------------------------- */

typedef struct pf_jlevel {
    size_t mark; /* SIZE_MAX: the outermost container, which is the arg itself */
    uint32_t count;
    char kind; /* 'o' or 'a' */
} pf_jlevel;

typedef struct pf_jstate {
    pf_writer *w;
    pf_buf *b;
    pf_jlevel *levels;
    size_t depth, cap;
    char *key;
    size_t keylen, keycap;
    int bad; /* a scalar at the top, too deep, or out of memory */
} pf_jstate;

/* Opens the annotation of the next value inside the current container. */
static size_t pf_j_child(pf_jstate *s)
{
    pf_jlevel *p = &s->levels[s->depth - 1];
    p->count++;
    size_t m = pf_open(s->b, p->kind == 'o' ? PF_DA_DICT : PF_DA_ARRAY);
    if (p->kind == 'o') pf_put_bytes(s->b, PF_DA_NAME, s->key, s->keylen);
    return m;
}

static int pf_j_begin(void *user, const tconv_json_token *t)
{
    pf_jstate *s = user;
    if (s->depth >= PF_JSON_MAX_DEPTH) {
        s->bad = 1;
        return TCONV_JSON_STOP;
    }
    if (s->depth == s->cap) {
        size_t cap = s->cap ? s->cap * 2 : 8;
        pf_jlevel *l = realloc(s->levels, cap * sizeof *l);
        if (!l) {
            s->bad = 1;
            return TCONV_JSON_STOP;
        }
        s->levels = l;
        s->cap = cap;
    }
    size_t mark = s->depth ? pf_j_child(s) : SIZE_MAX;
    s->levels[s->depth++] = (pf_jlevel){mark, 0, t->kind == TCONV_JSON_OBJECT_BEGIN ? 'o' : 'a'};
    return TCONV_JSON_GO;
}

static int pf_j_end(void *user, const tconv_json_token *t)
{
    (void)t;
    pf_jstate *s = user;
    pf_jlevel l = s->levels[--s->depth];
    /* An empty container would read back as null: say it as JSON. */
    if (!l.count) pf_put_bytes(s->b, PF_DA_JSON, l.kind == 'o' ? "{}" : "[]", 2);
    if (l.mark != SIZE_MAX) pf_close(s->b, l.mark);
    return TCONV_JSON_GO;
}

static int pf_j_key(void *user, const tconv_json_token *t)
{
    pf_jstate *s = user;
    if (t->len + 1 > s->keycap) {
        size_t cap = t->len + 64;
        char *k = realloc(s->key, cap);
        if (!k) {
            s->bad = 1;
            return TCONV_JSON_STOP;
        }
        s->key = k;
        s->keycap = cap;
    }
    memcpy(s->key, t->text, t->len);
    s->keylen = t->len;
    return TCONV_JSON_GO;
}

/* A number as the field that prints it back the same, else as its text. */
static void pf_j_number(pf_buf *b, const char *text, size_t len)
{
    char tmp[64];
    if (len < sizeof tmp) {
        memcpy(tmp, text, len);
        tmp[len] = '\0';
        char out[64], *end;
        errno = 0;
        long long i = strtoll(tmp, &end, 10);
        if (!errno && *end == '\0') {
            snprintf(out, sizeof out, "%lld", i);
            if (strcmp(out, tmp) == 0) {
                pf_put_int(b, PF_DA_INT, i);
                return;
            }
        }
        errno = 0;
        unsigned long long u = strtoull(tmp, &end, 10);
        if (!errno && *end == '\0' && tmp[0] != '-') {
            snprintf(out, sizeof out, "%llu", u);
            if (strcmp(out, tmp) == 0) {
                pf_put_uint(b, PF_DA_UINT, u);
                return;
            }
        }
        double d = strtod(tmp, &end);
        if (*end == '\0' && pf_double_text(d, out, sizeof out) && strcmp(out, tmp) == 0) {
            pf_put_double(b, PF_DA_DOUBLE, d);
            return;
        }
    }
    pf_put_bytes(b, PF_DA_JSON, text, len);
}

static int pf_j_scalar(void *user, const tconv_json_token *t)
{
    pf_jstate *s = user;
    if (!s->depth) {
        s->bad = 1;
        return TCONV_JSON_STOP;
    }
    size_t m = pf_j_child(s);
    switch (t->kind) {
    case TCONV_JSON_STRING: {
        /* Interned: the same few type names and values come back in every op's args. */
        tconv_str sid = t->len ? tconv_string_intern(s->w->ctx, t->text, t->len) : 0;
        pf_wstr *e = sid ? pf_w_str(s->w, sid) : NULL;
        if (e)
            pf_put_uint(s->b, PF_DA_STRING_IID, pf_w_sval_iid(s->w, e, sid));
        else
            pf_put_bytes(s->b, PF_DA_STRING, t->text, t->len);
        break;
    }
    case TCONV_JSON_NUMBER:
        pf_j_number(s->b, t->text, t->len);
        break;
    case TCONV_JSON_TRUE:
    case TCONV_JSON_FALSE:
        pf_put_uint(s->b, PF_DA_BOOL, t->kind == TCONV_JSON_TRUE);
        break;
    default:
        pf_put_bytes(s->b, PF_DA_JSON, "null", 4);
        break;
    }
    pf_close(s->b, m);
    return TCONV_JSON_GO;
}

static const char *pf_w_sval_text(void *user, uint32_t table, uint64_t iid, size_t *len)
{
    pf_writer *w = user;
    if (table != PF_ID_STRING_VALUES || iid >= w->sval_rev_cap || iid > w->next_sval) return NULL;
    *len = tconv_string_length(w->ctx, w->sval_rev[iid]);
    return tconv_string_get(w->ctx, w->sval_rev[iid]);
}

/* Encodes the JSON text as annotation value fields into w->scratch: 0 when it nests and reads
 * back as the same text, -1 otherwise (out of memory included; the caller then writes it as
 * text, which is never wrong). */
static int pf_w_json_nest(pf_writer *w, const char *text, size_t len)
{
    static const tconv_json_callbacks cb = {pf_j_begin, pf_j_end, pf_j_key, pf_j_scalar};
    w->scratch.len = 0;
    pf_jstate s = {.w = w, .b = &w->scratch};
    int ok = -1;
    tconv_json_lexer *lx = tconv_json_new(&cb, &s, 0);
    if (lx && tconv_json_feed(lx, text, len) == 0 && tconv_json_end(lx) == 0 && !s.bad &&
        !w->scratch.oom) {
        pf_text back = {0};
        if (pf_json_of_annotation(&back, w->scratch.p, w->scratch.len, pf_w_sval_text, w,
                                  PF_JSON_MAX_DEPTH + 1) == 0 &&
            !back.oom && back.len == len && memcmp(back.p, text, len) == 0)
            ok = 0;
        pf_text_free(&back);
    }
    if (lx) tconv_json_free(lx);
    free(s.levels);
    free(s.key);
    return ok;
}

/* The value fields of a JSON arg, from the cache or encoded now. */
static void pf_w_json_value(pf_writer *w, tconv_str text)
{
    uint32_t idx = tconv_map_get(&w->json_map, text, 0);
    if (idx == TCONV_MAP_NONE) {
        const char *s = tconv_string_get(w->ctx, text);
        size_t n = tconv_string_length(w->ctx, text);
        size_t off = w->jcache.len;
        if (pf_w_json_nest(w, s, n) == 0) {
            if (pf_buf_reserve(&w->jcache, w->scratch.len + 10)) {
                pf_put_varint(&w->jcache, w->scratch.len);
                memcpy(w->jcache.p + w->jcache.len, w->scratch.p, w->scratch.len);
                w->jcache.len += w->scratch.len;
            }
        } else {
            pf_buf one = {0};
            pf_put_bytes(&one, PF_DA_JSON, s, n);
            pf_put_varint(&w->jcache, one.len);
            if (!one.oom && pf_buf_reserve(&w->jcache, one.len)) {
                memcpy(w->jcache.p + w->jcache.len, one.p, one.len);
                w->jcache.len += one.len;
            }
            pf_buf_free(&one);
        }
        if (w->jcache.oom || off > UINT32_MAX) {
            w->ev.oom = 1;
            return;
        }
        idx = (uint32_t)off;
        tconv_map_put(&w->json_map, text, 0, idx);
    }
    pf_cur c = pf_cur_make(w->jcache.p + idx, w->jcache.len - idx);
    uint64_t n = 0;
    pf_get_varint(&c, &n);
    if (pf_buf_reserve(&w->ev, (size_t)n)) {
        memcpy(w->ev.p + w->ev.len, c.p, (size_t)n);
        w->ev.len += (size_t)n;
    }
}

void pf_w_args(pf_writer *w, const tconv_arg *args, uint32_t n)
{
    pf_buf *b = &w->ev;
    for (uint32_t i = 0; i < n; i++) {
        const tconv_arg *a = &args[i];
        uint32_t name = pf_w_annot_name(w, a->key);
        size_t m = pf_open(b, PF_TE_ANNOTATIONS);
        pf_put_uint(b, PF_DA_NAME_IID, name);
        switch (a->type) {
        case TCONV_ARG_BOOL:
            pf_put_uint(b, PF_DA_BOOL, a->v.i != 0);
            break;
        case TCONV_ARG_INT:
            pf_put_int(b, PF_DA_INT, a->v.i);
            break;
        case TCONV_ARG_UINT:
            pf_put_uint(b, PF_DA_UINT, a->v.u);
            break;
        case TCONV_ARG_DOUBLE:
            pf_put_double(b, PF_DA_DOUBLE, a->v.d);
            break;
        case TCONV_ARG_STRING:
            pf_w_string_value(w, a->v.s);
            break;
        case TCONV_ARG_JSON:
            pf_w_json_value(w, a->v.s);
            break;
        default: /* null, and what a later ABI may add */
            pf_put_bytes(b, PF_DA_JSON, "null", 4);
            break;
        }
        pf_close(b, m);
    }
}
