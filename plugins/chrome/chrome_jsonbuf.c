#include "chrome_jsonbuf.h"

#include <stdlib.h>
#include <string.h>

#include <tconv/tconv.h>

static void chrome_jb_put(chrome_jsonbuf *j, const char *s, size_t n)
{
    if (j->oom) return;
    if (j->len + n + 1 > j->cap) {
        size_t c = j->cap ? j->cap : 256;
        while (c < j->len + n + 1)
            c *= 2;
        char *q = realloc(j->buf, c);
        if (!q) {
            j->oom = 1;
            return;
        }
        j->buf = q;
        j->cap = c;
    }
    memcpy(j->buf + j->len, s, n);
    j->len += n;
    j->buf[j->len] = '\0';
}

/* The separator a new value or key needs. */
static void chrome_jb_sep(chrome_jsonbuf *j)
{
    if (j->after_key) {
        j->after_key = 0;
        return;
    }
    if (j->depth) {
        if (j->has[j->depth - 1]) chrome_jb_put(j, ",", 1);
        j->has[j->depth - 1] = 1;
    }
}

void chrome_jsonbuf_reset(chrome_jsonbuf *j)
{
    j->len = 0;
    j->depth = 0;
    j->after_key = 0;
    j->oom = 0;
    if (j->buf) j->buf[0] = '\0';
}

void chrome_jsonbuf_free(chrome_jsonbuf *j)
{
    free(j->buf);
    free(j->kinds);
    free(j->has);
    memset(j, 0, sizeof *j);
}

void chrome_jsonbuf_open(chrome_jsonbuf *j, char kind)
{
    chrome_jb_sep(j);
    if (j->depth == j->depth_cap) {
        size_t c = j->depth_cap ? j->depth_cap * 2 : 16;
        char *k = realloc(j->kinds, c);
        if (k) j->kinds = k;
        unsigned char *h = realloc(j->has, c);
        if (h) j->has = h;
        if (!k || !h) {
            j->oom = 1;
            return;
        }
        j->depth_cap = c;
    }
    j->kinds[j->depth] = kind;
    j->has[j->depth] = 0;
    j->depth++;
    chrome_jb_put(j, kind == 'm' ? "{" : "[", 1);
}

void chrome_jsonbuf_close(chrome_jsonbuf *j)
{
    if (!j->depth) return;
    j->depth--;
    chrome_jb_put(j, j->kinds[j->depth] == 'm' ? "}" : "]", 1);
}

/* A string as the core's JSON writer escapes it (tconv_json_escape), UTF-8 repaired: this text is
 * what writers put out as the arg's JSON. */
static void chrome_jb_quoted(chrome_jsonbuf *j, const char *s, size_t n)
{
    chrome_jb_put(j, "\"", 1);
    while (n && !j->oom) {
        char tmp[512];
        size_t used;
        size_t k = tconv_json_escape(tmp, sizeof(tmp), s, n, &used);
        chrome_jb_put(j, tmp, k);
        s += used;
        n -= used;
    }
    chrome_jb_put(j, "\"", 1);
}

void chrome_jsonbuf_key(chrome_jsonbuf *j, const char *s, size_t n)
{
    chrome_jb_sep(j);
    chrome_jb_quoted(j, s, n);
    chrome_jb_put(j, ":", 1);
    j->after_key = 1;
}

void chrome_jsonbuf_string(chrome_jsonbuf *j, const char *s, size_t n)
{
    chrome_jb_sep(j);
    chrome_jb_quoted(j, s, n);
}

void chrome_jsonbuf_raw(chrome_jsonbuf *j, const char *s, size_t n)
{
    chrome_jb_sep(j);
    chrome_jb_put(j, s, n);
}
