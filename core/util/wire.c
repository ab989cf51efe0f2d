/* The wire codec: numbers and strings as bytes, for whatever one process of a run sends another
 * (core/util/wire.h). Every encoder of the core writes with it: a recording
 * (core/parallel/record_wire.c), the input checks' log (core/pipeline/inputcheck.c), the MPI plan
 * and the ranks' agreement (core/parallel/mpi.c, core/run/run.c). A reader never trusts what it
 * reads: past the end, or a count the rest of the message could not hold, it reads zeros and marks
 * the message bad, once, for the caller to check at the end. */
#include <string.h>

#include "wire.h"

void tconv_wire_put(tconv_wire *w, const void *p, size_t n)
{
    if (!n) return;
    TCONV_GROW(w->p, w->cap, w->len + n);
    memcpy(w->p + w->len, p, n);
    w->len += n;
}

void tconv_wire_u64(tconv_wire *w, uint64_t v)
{
    tconv_wire_put(w, &v, sizeof(v));
}

void tconv_wire_bytes(tconv_wire *w, const char *s, size_t n)
{
    tconv_wire_u64(w, s ? (uint64_t)n : UINT64_MAX);
    if (s) tconv_wire_put(w, s, n);
}

void tconv_wire_str(tconv_wire *w, const char *s)
{
    tconv_wire_bytes(w, s, s ? strlen(s) : 0);
}

void tconv_wire_get(tconv_wire *w, void *p, size_t n)
{
    if (w->bad || n > w->len - w->pos) {
        w->bad = 1;
        memset(p, 0, n);
        return;
    }
    memcpy(p, w->p + w->pos, n);
    w->pos += n;
}

uint64_t tconv_wire_get_u64(tconv_wire *w)
{
    uint64_t v;
    tconv_wire_get(w, &v, sizeof(v));
    return v;
}

char *tconv_wire_get_str(tconv_wire *w, size_t *n)
{
    uint64_t len = tconv_wire_get_u64(w);
    if (n) *n = 0;
    if (w->bad || len == UINT64_MAX) return NULL;
    if (len > w->len - w->pos) {
        w->bad = 1;
        return NULL;
    }
    char *s = tconv_xmalloc((size_t)len + 1);
    tconv_wire_get(w, s, (size_t)len);
    s[len] = 0;
    if (n) *n = (size_t)len;
    return s;
}

size_t tconv_wire_get_count(tconv_wire *w, size_t each)
{
    uint64_t n = tconv_wire_get_u64(w);
    if (w->bad || n > (w->len - w->pos) / (each ? each : 1)) {
        w->bad = 1;
        return 0;
    }
    return (size_t)n;
}

void *tconv_wire_get_dup(tconv_wire *w, tconv_arena *a, size_t n)
{
    if (!n) return NULL;
    if (n > w->len - w->pos) {
        w->bad = 1;
        return NULL;
    }
    void *p = tconv_arena_dup(a, w->p + w->pos, n);
    w->pos += n;
    return p;
}
