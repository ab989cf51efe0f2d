/* One record's fields by path (rocprof_jrec.h). Arrays inside a record keep the path of their
 * key: "operations" for each name of a kind's operation list, which its handler reads in
 * order. */
#include "rocprof_jrec.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

void rp_jrec_reset(rp_jrec *r, uint64_t offset)
{
    r->used = 0;
    r->n = 0;
    r->plen = 0;
    r->depth = 0;
    r->key_pending = 0;
    r->overflow = 0;
    r->offset = offset;
    r->mark[0] = 0;
}

void rp_jrec_free(rp_jrec *r)
{
    free(r->arena);
    r->arena = NULL;
    r->cap = 0;
}

static int rp_jrec_store(rp_jrec *r, const char *s, size_t n, size_t *at)
{
    if (r->used + n + 1 > r->cap) {
        size_t c = r->cap ? r->cap : 4096;
        while (c < r->used + n + 1)
            c *= 2;
        char *a = realloc(r->arena, c);
        if (!a) return -1;
        r->arena = a;
        r->cap = c;
    }
    memcpy(r->arena + r->used, s, n);
    r->arena[r->used + n] = '\0';
    *at = r->used;
    r->used += n + 1;
    return 0;
}

int rp_jrec_key(rp_jrec *r, const char *k, size_t n)
{
    r->key_mark = r->plen;
    r->key_pending = 1;
    size_t need = (r->plen ? 1 : 0) + n;
    if (r->plen + need >= sizeof(r->path)) {
        r->overflow = 1;
        return 0;
    }
    if (r->plen) r->path[r->plen++] = '.';
    memcpy(r->path + r->plen, k, n);
    r->plen += n;
    r->path[r->plen] = '\0';
    return 0;
}

/* The value of the pending key is complete: back to the path of the container. */
static void rp_jrec_value_done(rp_jrec *r)
{
    if (!r->key_pending) return;
    r->key_pending = 0;
    r->plen = r->key_mark;
    r->path[r->plen] = '\0';
}

int rp_jrec_begin(rp_jrec *r)
{
    if (r->depth >= RP_JREC_MAX_DEPTH) {
        r->overflow = 1;
        r->depth++;
        return 0;
    }
    /* The container keeps its key's path until it ends. */
    r->mark[++r->depth] = r->key_pending ? r->key_mark : r->plen;
    r->key_pending = 0;
    return 0;
}

void rp_jrec_end(rp_jrec *r)
{
    if (r->depth > RP_JREC_MAX_DEPTH) {
        r->depth--;
        return;
    }
    r->plen = r->mark[r->depth--];
    r->path[r->plen] = '\0';
}

int rp_jrec_scalar(rp_jrec *r, const tconv_json_token *t)
{
    if (r->n == RP_JREC_MAX_FIELDS || r->depth > RP_JREC_MAX_DEPTH) {
        r->overflow = 1;
        rp_jrec_value_done(r);
        return 0;
    }
    rp_jfield *f = &r->f[r->n];
    if (rp_jrec_store(r, r->path, r->plen, &f->path) != 0 ||
        rp_jrec_store(r, t->text, t->len, &f->text) != 0)
        return -1;
    f->path_len = r->plen;
    f->len = t->len;
    f->kind = t->kind;
    r->n++;
    rp_jrec_value_done(r);
    return 0;
}

const rp_jfield *rp_jrec_get(const rp_jrec *r, const char *path)
{
    size_t n = strlen(path);
    for (size_t i = 0; i < r->n; i++)
        if (r->f[i].path_len == n && memcmp(r->arena + r->f[i].path, path, n) == 0) return &r->f[i];
    return NULL;
}

int rp_jrec_int(const rp_jrec *r, const char *path, int64_t *v)
{
    const rp_jfield *f = rp_jrec_get(r, path);
    if (!f || f->kind != TCONV_JSON_NUMBER) return 0;
    const char *s = r->arena + f->text;
    char *end;
    errno = 0;
    long long x = strtoll(s, &end, 10);
    if (errno || end == s) return 0;
    if (*end) {
        /* 1.5e9 and the like: exact only when integral. */
        double d = strtod(s, &end);
        if (*end || !(d >= -9.2e18 && d <= 9.2e18) || d != (double)(long long)d) return 0;
        x = (long long)d;
    }
    *v = x;
    return 1;
}
