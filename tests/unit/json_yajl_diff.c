/* Differential test of the JSON lexer against yajl 2.1 (the library the Chrome reader used
 * before it): for each file, both must accept or both reject, with the same tokens before.
 * usage: json_yajl_diff FILE...  (exit 1 on the first disagreement) */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <tconv/json.h>
#include <yajl/yajl_parse.h>

typedef struct out {
    char *s;
    size_t len, cap;
} out;

static void put(out *o, const char *s, size_t n)
{
    if (o->len + n + 1 > o->cap) {
        o->cap = (o->len + n + 1) * 2;
        o->s = realloc(o->s, o->cap);
        if (!o->s) abort();
    }
    memcpy(o->s + o->len, s, n);
    o->len += n;
    o->s[o->len] = '\0';
}

static void tok(out *o, const char *tag, const char *s, size_t n)
{
    put(o, tag, strlen(tag));
    if (s) put(o, s, n);
    put(o, "\n", 1);
}

/* ---- yajl ---- */
static int y_null(void *u)
{
    return tok(u, "N", NULL, 0), 1;
}
static int y_bool(void *u, int b)
{
    return tok(u, b ? "t" : "f", NULL, 0), 1;
}
static int y_number(void *u, const char *s, size_t n)
{
    return tok(u, "n:", s, n), 1;
}
static int y_string(void *u, const unsigned char *s, size_t n)
{
    return tok(u, "s:", (const char *)s, n), 1;
}
static int y_start_map(void *u)
{
    return tok(u, "{", NULL, 0), 1;
}
static int y_key(void *u, const unsigned char *s, size_t n)
{
    return tok(u, "k:", (const char *)s, n), 1;
}
static int y_end_map(void *u)
{
    return tok(u, "}", NULL, 0), 1;
}
static int y_start_array(void *u)
{
    return tok(u, "[", NULL, 0), 1;
}
static int y_end_array(void *u)
{
    return tok(u, "]", NULL, 0), 1;
}

static const yajl_callbacks y_cb = {y_null,    y_bool,        NULL,        NULL,
                                    y_number,  y_string,      y_start_map, y_key,
                                    y_end_map, y_start_array, y_end_array};

static int run_yajl(const char *buf, size_t n, out *o)
{
    yajl_handle h = yajl_alloc(&y_cb, NULL, o);
    yajl_config(h, yajl_dont_validate_strings, 1);
    yajl_status st = yajl_parse(h, (const unsigned char *)buf, n);
    if (st == yajl_status_ok) st = yajl_complete_parse(h);
    yajl_free(h);
    return st == yajl_status_ok;
}

/* ---- tconv ---- */
static int t_tok(void *u, const tconv_json_token *t)
{
    static const char *const tag[] = {"", "{", "}", "[", "]", "k:", "s:", "n:", "t", "f", "N"};
    int text =
        t->kind == TCONV_JSON_KEY || t->kind == TCONV_JSON_STRING || t->kind == TCONV_JSON_NUMBER;
    tok(u, tag[t->kind], text ? t->text : NULL, t->len);
    return TCONV_JSON_GO;
}

/* The one place where the lexer means to differ: a "\\u" surrogate without its other half is
 * U+FFFD, where yajl writes '?' (high) or the surrogate's own bytes (low). Both sides are
 * compared with each of those as '?'. */
static void unpaired_as_question_marks(out *o)
{
    size_t w = 0;
    unsigned char *p = (unsigned char *)o->s;
    for (size_t r = 0; r < o->len;) {
        if (r + 3 <= o->len && ((p[r] == 0xEF && p[r + 1] == 0xBF && p[r + 2] == 0xBD) ||
                                (p[r] == 0xED && p[r + 1] >= 0xA0 && (p[r + 2] & 0xC0) == 0x80))) {
            p[w++] = '?';
            r += 3;
        } else {
            p[w++] = p[r++];
        }
    }
    o->len = w;
    if (o->s) o->s[w] = '\0';
}

static int run_tconv(const char *buf, size_t n, size_t piece, out *o)
{
    static const tconv_json_callbacks cb = {t_tok, t_tok, t_tok, t_tok};
    tconv_json_lexer *lx = tconv_json_new(&cb, o, 0);
    int ok = 1;
    for (size_t at = 0; at < n && ok; at += piece)
        ok = tconv_json_feed(lx, buf + at, n - at < piece ? n - at : piece) == 0;
    if (ok) ok = tconv_json_end(lx) == 0;
    tconv_json_free(lx);
    return ok;
}

int main(int argc, char **argv)
{
    int bad = 0;
    for (int i = 1; i < argc; i++) {
        FILE *f = fopen(argv[i], "rb");
        if (!f) {
            perror(argv[i]);
            return 2;
        }
        out file = {0};
        char chunk[65536];
        size_t got;
        while ((got = fread(chunk, 1, sizeof chunk, f)) > 0)
            put(&file, chunk, got);
        fclose(f);
        out y = {0};
        put(&y, "", 0);
        int yok = run_yajl(file.s ? file.s : "", file.len, &y);
        unpaired_as_question_marks(&y);
        /* Whole, and in pieces of 1 and 7 bytes. */
        static const size_t pieces[] = {(size_t)-1, 1, 7};
        for (size_t k = 0; k < 3; k++) {
            out t = {0};
            put(&t, "", 0);
            size_t piece = pieces[k] == (size_t)-1 ? (file.len ? file.len : 1) : pieces[k];
            int tok_ok = run_tconv(file.s ? file.s : "", file.len, piece, &t);
            unpaired_as_question_marks(&t);
            if (tok_ok != yok || t.len != y.len || memcmp(t.s, y.s, y.len) != 0) {
                fprintf(stderr, "%s (pieces of %zu): yajl %s, tconv %s%s\n", argv[i], piece,
                        yok ? "accepts" : "rejects", tok_ok ? "accepts" : "rejects",
                        tok_ok == yok ? ", tokens differ" : "");
                bad = 1;
            }
            free(t.s);
        }
        printf("%s: %s, %s\n", argv[i], yok ? "accepted" : "rejected", bad ? "DIFFERS" : "same");
        free(y.s);
        free(file.s);
        if (bad) return 1;
    }
    return 0;
}
