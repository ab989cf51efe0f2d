/* The streaming JSON lexer (tconv/json.h). It scans the bytes it is fed, checks the grammar and
 * hands each token to the callback: strings unescaped, numbers as their text. Tokens are lexed
 * in place in the caller's buffer; only a token cut by the end of a buffer is copied (into the
 * carry) and completed from the next one.
 *
 * What it accepts, how it unescapes and what it says about a bad token are yajl 2.1's (with
 * partial values allowed and strings not validated), so that a reader that used yajl reads the
 * same documents and fails at the same place with the same message. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "util.h"
#include <tconv/json.h>
#include <tconv/utf8.h>

/* Where the grammar is, between two tokens. */
enum {
    JSON_VALUE,     /* a value: the document's, after ':' or after ',' in an array */
    JSON_ARR_FIRST, /* after '[': a value or ']' */
    JSON_ARR_NEXT,  /* after an array element: ',' or ']' */
    JSON_OBJ_FIRST, /* after '{': a member name or '}' */
    JSON_OBJ_KEY,   /* after ',' in an object: a member name */
    JSON_OBJ_COLON, /* after a member name: ':' */
    JSON_OBJ_NEXT,  /* after a member's value: ',' or '}' */
    JSON_DONE       /* after the document's value: nothing but blanks */
};

/* What yajl's lexer says about a bad token (without its final '.'). */
static const char *const json_msg[] = {
    "invalid character inside string",
    "inside a string, '\\' occurs before a character which it may not",
    "invalid (non-hex) character occurs after '\\u' inside string",
    "malformed number, a digit is required after the minus sign",
    "malformed number, a digit is required after the decimal point",
    "malformed number, a digit is required after the exponent",
    "probable comment found in input text, comments are not enabled",
};
enum {
    JSON_E_STRING_CHAR,
    JSON_E_STRING_ESCAPE,
    JSON_E_STRING_HEX,
    JSON_E_MINUS,
    JSON_E_DECIMAL,
    JSON_E_EXPONENT,
    JSON_E_COMMENT
};

#define JSON_NONE UINT64_MAX
#define JSON_KEY_KEEP 47 /* bytes of a member name kept for messages, with its NUL */

/* Per open container: its kind and the last member name read in it. While the name is still
 * in the bytes being lexed, kp points to it; it is copied into key before they go. */
struct json_nest {
    char kind; /* 'm' or 'a' */
    char key[JSON_KEY_KEEP];
    const unsigned char *kp;
    size_t klen;
};

/* The blanks and the one separator between the last token and the bytes being lexed, as far
 * as earlier buffers held them: an error message points past them as if it saw them all. */
struct json_gap {
    uint64_t start;      /* last_end when noted; the note is stale when they differ */
    uint64_t vf_before;  /* first '\v' or '\f' before the separator */
    uint64_t vf_after;   /* first one after it */
    uint64_t sep_off;    /* where the separator is */
    unsigned char sep;   /* ',' or ':', 0 for none */
    unsigned char vf[2]; /* the bytes at vf_before and vf_after */
};

struct tconv_json_lexer {
    tconv_json_callbacks cb;
    void *user;
    unsigned flags;
    int scan; /* TCONV_JSON_SCAN_*: the scans of this lexer */
    int st;
    size_t skip; /* > 0: the content of the container opened at this depth is not handed over */

    struct json_nest *nest;
    size_t depth, nest_cap;
    size_t key_dirty; /* lowest level whose name is still at kp (SIZE_MAX: none) */
    char last;        /* 's' container start, 'k' member name, 'v' value, 0 nothing yet */
    uint64_t last_end;
    struct json_gap gap;

    unsigned char *text; /* an unescaped string */
    size_t text_cap;
    char *fixed; /* a repaired string */
    size_t fixed_cap;

    /* The bytes being lexed. */
    const unsigned char *cur;
    size_t cur_len;
    uint64_t cur_base;
    int at_end;

    uint64_t offset; /* of the next byte fed */
    unsigned char *carry;
    size_t carry_len, carry_cap, carry_scanned;
    uint64_t carry_base;

    tconv_json_error err;
    char msg[256];
    char found[32];
};

/* The token scanners are called from the token loop and from json_skip_fast: inlined in both,
 * as they were when the loop was their one caller. */
#if defined(__GNUC__)
#define JSON_INLINE static inline __attribute__((always_inline))
#else
#define JSON_INLINE static inline
#endif

static int json_blank(unsigned char c)
{
    /* ' ' is the common case; '\t' .. '\r' are the other five (yajl counts \v and \f). */
    return c == ' ' || (unsigned char)(c - '\t') <= '\r' - '\t';
}

static int json_digit(unsigned char c)
{
    return c >= '0' && c <= '9';
}

static int json_hex(unsigned char c)
{
    return json_digit(c) || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F');
}

static int json_reserve(void **p, size_t *cap, size_t need, size_t elem)
{
    if (need <= *cap) return 0;
    size_t c = *cap ? *cap : 64;
    while (c < need) {
        if (c > SIZE_MAX / 2 / elem) return -1;
        c *= 2;
    }
    void *q = realloc(*p, c * elem);
    if (!q) return -1;
    *p = q;
    *cap = c;
    return 0;
}

/* The scans below have a portable path, an SSE2 one (baseline on x86-64) and an AVX2 one (for
 * CPUs that have it); all give the same answers, and a test runs the lexer with each
 * (tconv_json_scan_use). The token loop is compiled once per path, so that each path's scans
 * are inlined into it and the choice is made once per buffer, not per token.
 *
 * SSE2 is the default, AVX2 only when asked for: on the Kineto traces it lexed no faster (tokens
 * are short: most end in the first 16 bytes), and in the same process zlib's deflate in the
 * pprof writer then took half as long again (0.15 s against 0.13 s of CPU for a 200 k-span
 * trace to pprof), so that whole conversions were 2-11 % slower. */
#if defined(__GNUC__) && (defined(__x86_64__) || defined(__i386__)) && defined(__SSE2__)
#define JSON_HAVE_AVX2 1
#define JSON_TARGET_AVX2 __attribute__((target("avx2")))
#else
#define JSON_HAVE_AVX2 0
#endif

static int json_scan_forced = -1;

/* Whether this build and CPU have the path. */
static int json_scan_have(int path)
{
    switch (path) {
    case TCONV_JSON_SCAN_PORTABLE:
        return 1;
#ifdef __SSE2__
    case TCONV_JSON_SCAN_SSE2:
        return 1;
#endif
#if JSON_HAVE_AVX2
    case TCONV_JSON_SCAN_AVX2:
        __builtin_cpu_init(); /* idempotent; a constructor may not have run it yet */
        return __builtin_cpu_supports("avx2");
#endif
    default:
        return 0;
    }
}

static int json_scan_default(void)
{
#ifdef __SSE2__
    return TCONV_JSON_SCAN_SSE2;
#else
    return TCONV_JSON_SCAN_PORTABLE;
#endif
}

int tconv_json_scan_current(void)
{
    return json_scan_forced >= 0 ? json_scan_forced : json_scan_default();
}

int tconv_json_scan_use(int path)
{
    if (path < 0) {
        json_scan_forced = -1;
        return 0;
    }
    if (!json_scan_have(path)) return -1;
    json_scan_forced = path;
    return 0;
}

/* The first byte of p[0 .. end) that ends a plain run of string text: '"', '\\' or a control
 * character; end if none. Eight bytes per step: names and args are most of a trace. */
static const unsigned char *json_run_portable(const unsigned char *p, const unsigned char *end)
{
#if defined(__GNUC__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
    const uint64_t ones = 0x0101010101010101ull, highs = 0x8080808080808080ull;
    while (end - p >= 8) {
        uint64_t w;
        memcpy(&w, p, 8);
        uint64_t q = w ^ (ones * '"'), b = w ^ (ones * '\\');
        /* A byte's high bit is set where it is zero (q, b) or below 0x20 (w); a borrow can only
         * mark bytes above the first match, so the lowest mark is exact. */
        uint64_t hit = ((q - ones) & ~q) | ((b - ones) & ~b) | ((w - ones * 0x20) & ~w);
        hit &= highs;
        if (hit) return p + (__builtin_ctzll(hit) >> 3);
        p += 8;
    }
#endif
    while (p < end && *p != '"' && *p != '\\' && *p >= 0x20)
        p++;
    return p;
}

/* The first byte of p[0 .. end) that is not a digit. */
static const unsigned char *json_digits_portable(const unsigned char *p, const unsigned char *end)
{
    while (p < end && (unsigned char)(*p - '0') <= 9)
        p++;
    return p;
}

/* The first byte of p[0 .. end) that is not a blank. */
static const unsigned char *json_blanks_portable(const unsigned char *p, const unsigned char *end)
{
    while (p < end && json_blank(*p))
        p++;
    return p;
}

#ifdef __SSE2__
#include <emmintrin.h>

JSON_INLINE const unsigned char *json_run_sse2(const unsigned char *p, const unsigned char *end)
{
    const __m128i quote = _mm_set1_epi8('"'), bslash = _mm_set1_epi8('\\');
    const __m128i ctl = _mm_set1_epi8(0x1f);
    while (end - p >= 16) {
        __m128i v = _mm_loadu_si128((const __m128i *)(const void *)p);
        /* v <= 0x1f (unsigned) where min(v, 0x1f) == v */
        __m128i hit =
            _mm_or_si128(_mm_or_si128(_mm_cmpeq_epi8(v, quote), _mm_cmpeq_epi8(v, bslash)),
                         _mm_cmpeq_epi8(_mm_min_epu8(v, ctl), v));
        unsigned m = (unsigned)_mm_movemask_epi8(hit);
        if (m) return p + __builtin_ctz(m);
        p += 16;
    }
    return json_run_portable(p, end);
}

JSON_INLINE const unsigned char *json_digits_sse2(const unsigned char *p, const unsigned char *end)
{
    /* '0' .. '9' are the bytes whose value minus '0', plus 0x80 (signed), is below 0x8a */
    const __m128i shift = _mm_set1_epi8((char)(0x80 - '0')), lim = _mm_set1_epi8((char)(0x80 + 9));
    while (end - p >= 16) {
        __m128i v = _mm_add_epi8(_mm_loadu_si128((const __m128i *)(const void *)p), shift);
        unsigned m = (unsigned)_mm_movemask_epi8(_mm_cmpgt_epi8(v, lim));
        if (m) return p + __builtin_ctz(m);
        p += 16;
    }
    return json_digits_portable(p, end);
}

JSON_INLINE const unsigned char *json_blanks_sse2(const unsigned char *p, const unsigned char *end)
{
    /* ' ', or '\t' .. '\r': v - '\t' <= 4 (unsigned) where min(v - '\t', 4) == v - '\t' */
    const __m128i space = _mm_set1_epi8(' '), tab = _mm_set1_epi8('\t'), four = _mm_set1_epi8(4);
    while (end - p >= 16) {
        __m128i v = _mm_loadu_si128((const __m128i *)(const void *)p);
        __m128i c = _mm_sub_epi8(v, tab);
        __m128i blank =
            _mm_or_si128(_mm_cmpeq_epi8(v, space), _mm_cmpeq_epi8(_mm_min_epu8(c, four), c));
        unsigned m = ~(unsigned)_mm_movemask_epi8(blank) & 0xffffu;
        if (m) return p + __builtin_ctz(m);
        p += 16;
    }
    return json_blanks_portable(p, end);
}
#endif

#if JSON_HAVE_AVX2
#include <immintrin.h>

/* 32 bytes per step: a Kineto timestamp's 16 integer digits and most names end in the first. */
static inline JSON_TARGET_AVX2 const unsigned char *json_run_avx2(const unsigned char *p,
                                                                  const unsigned char *end)
{
    const __m256i quote = _mm256_set1_epi8('"'), bslash = _mm256_set1_epi8('\\');
    const __m256i ctl = _mm256_set1_epi8(0x1f);
    while (end - p >= 32) {
        __m256i v = _mm256_loadu_si256((const __m256i *)(const void *)p);
        __m256i hit = _mm256_or_si256(
            _mm256_or_si256(_mm256_cmpeq_epi8(v, quote), _mm256_cmpeq_epi8(v, bslash)),
            _mm256_cmpeq_epi8(_mm256_min_epu8(v, ctl), v));
        unsigned m = (unsigned)_mm256_movemask_epi8(hit);
        if (m) return p + __builtin_ctz(m);
        p += 32;
    }
    return json_run_sse2(p, end);
}

static inline JSON_TARGET_AVX2 const unsigned char *json_digits_avx2(const unsigned char *p,
                                                                     const unsigned char *end)
{
    const __m256i shift = _mm256_set1_epi8((char)(0x80 - '0'));
    const __m256i lim = _mm256_set1_epi8((char)(0x80 + 9));
    while (end - p >= 32) {
        __m256i v = _mm256_add_epi8(_mm256_loadu_si256((const __m256i *)(const void *)p), shift);
        unsigned m = (unsigned)_mm256_movemask_epi8(_mm256_cmpgt_epi8(v, lim));
        if (m) return p + __builtin_ctz(m);
        p += 32;
    }
    return json_digits_sse2(p, end);
}

static inline JSON_TARGET_AVX2 const unsigned char *json_blanks_avx2(const unsigned char *p,
                                                                     const unsigned char *end)
{
    const __m256i space = _mm256_set1_epi8(' '), tab = _mm256_set1_epi8('\t');
    const __m256i four = _mm256_set1_epi8(4);
    while (end - p >= 32) {
        __m256i v = _mm256_loadu_si256((const __m256i *)(const void *)p);
        __m256i c = _mm256_sub_epi8(v, tab);
        __m256i blank = _mm256_or_si256(_mm256_cmpeq_epi8(v, space),
                                        _mm256_cmpeq_epi8(_mm256_min_epu8(c, four), c));
        unsigned m = ~(unsigned)_mm256_movemask_epi8(blank);
        if (m) return p + __builtin_ctz(m);
        p += 32;
    }
    return json_blanks_sse2(p, end);
}
#endif

/* Past the blanks at p. One blank (after ':' or ',') is the common case and needs no vector;
 * a run (a pretty-printed trace's newline and indent) is scanned like string text. */
JSON_INLINE const unsigned char *json_skip_blanks(const unsigned char *p, const unsigned char *end,
                                                  int path)
{
    if (p == end || !json_blank(*p)) return p;
    if (++p == end || !json_blank(*p)) return p;
#if JSON_HAVE_AVX2
    if (path == TCONV_JSON_SCAN_AVX2) return json_blanks_avx2(p, end);
#endif
#ifdef __SSE2__
    if (path == TCONV_JSON_SCAN_SSE2) return json_blanks_sse2(p, end);
#endif
    (void)path;
    return json_blanks_portable(p, end);
}

/* The scans of a path; path is a constant in each copy of the token loop. */
JSON_INLINE const unsigned char *json_run(const unsigned char *p, const unsigned char *end,
                                          int path)
{
#if JSON_HAVE_AVX2
    if (path == TCONV_JSON_SCAN_AVX2) return json_run_avx2(p, end);
#endif
#ifdef __SSE2__
    if (path == TCONV_JSON_SCAN_SSE2) return json_run_sse2(p, end);
#endif
    (void)path;
    return json_run_portable(p, end);
}

JSON_INLINE const unsigned char *json_digits(const unsigned char *p, const unsigned char *end,
                                             int path)
{
#if JSON_HAVE_AVX2
    if (path == TCONV_JSON_SCAN_AVX2) return json_digits_avx2(p, end);
#endif
#ifdef __SSE2__
    if (path == TCONV_JSON_SCAN_SSE2) return json_digits_sse2(p, end);
#endif
    (void)path;
    return json_digits_portable(p, end);
}

static unsigned json_hex4(const unsigned char *p)
{
    unsigned v = 0;
    for (int i = 0; i < 4; i++) {
        unsigned char c = p[i];
        v = v << 4 | (unsigned)(c <= '9' ? c - '0' : (c | 0x20) - 'a' + 10);
    }
    return v;
}

/* Unescape the text between the quotes of a string whose escapes were all checked into
 * lx->text. */
static int json_unescape(tconv_json_lexer *lx, const unsigned char *s, size_t n, size_t *out)
{
    /* No escape is shorter than what it means. */
    if (json_reserve((void **)&lx->text, &lx->text_cap, n + 1, 1)) return -1;
    unsigned char *d = lx->text;
    size_t i = 0;
    while (i < n) {
        if (s[i] != '\\') {
            *d++ = s[i++];
            continue;
        }
        unsigned char c = s[i + 1];
        i += 2;
        switch (c) {
        case 'b':
            *d++ = '\b';
            break;
        case 'f':
            *d++ = '\f';
            break;
        case 'n':
            *d++ = '\n';
            break;
        case 'r':
            *d++ = '\r';
            break;
        case 't':
            *d++ = '\t';
            break;
        case 'u': {
            unsigned cp = json_hex4(s + i);
            i += 4;
            /* A high surrogate and a low one are one character. A surrogate without its
             * other half becomes U+FFFD, high or low alike (yajl wrote '?' for a high one,
             * combined it with whatever escape followed, and let a low one through). */
            if ((cp & 0xFC00) == 0xD800 && i + 6 <= n && s[i] == '\\' && s[i + 1] == 'u') {
                unsigned lo = json_hex4(s + i + 2);
                if ((lo & 0xFC00) == 0xDC00) {
                    cp = 0x10000 + ((cp - 0xD800) << 10) + (lo - 0xDC00);
                    i += 6;
                }
            }
            d += tconv_utf8_encode(cp, d);
            break;
        }
        default: /* '"', '\\', '/' */
            *d++ = c;
            break;
        }
    }
    *out = (size_t)(d - lx->text);
    return 0;
}

/* A string from its opening quote at p: 1 with *q just past the closing quote and *esc set when
 * it holds escapes, 0 when the bytes end first, -1 with *err at an invalid byte. */
JSON_INLINE int json_string(const unsigned char *p, const unsigned char *end,
                            const unsigned char **q, int *esc, int *err, int path)
{
    p++;
    for (;;) {
        p = json_run(p, end, path);
        if (p == end) return 0;
        if (*p == '"') {
            *q = p + 1;
            return 1;
        }
        if (*p < 0x20) {
            *err = JSON_E_STRING_CHAR;
            return -1;
        }
        *esc = 1;
        if (++p == end) return 0;
        if (*p == 'u') {
            for (int k = 0; k < 4; k++) {
                if (++p == end) return 0;
                if (!json_hex(*p)) {
                    *err = JSON_E_STRING_HEX;
                    return -1;
                }
            }
            p++;
        } else if (*p && strchr("\"\\/bfnrt", *p)) {
            p++;
        } else {
            *err = JSON_E_STRING_ESCAPE;
            return -1;
        }
    }
}

/* A number from p: 1 with *q just past it, 0 when the bytes end before something that is not
 * part of it (it may go on), -1 with *err. */
JSON_INLINE int json_number(const unsigned char *p, const unsigned char *end,
                            const unsigned char **q, int *err, int path)
{
    if (*p == '-' && ++p == end) return 0;
    if (*p == '0') {
        p++;
    } else if (*p >= '1' && *p <= '9') {
        p = json_digits(p + 1, end, path);
    } else {
        *err = JSON_E_MINUS;
        return -1;
    }
    if (p == end) return 0;
    if (*p == '.') {
        if (++p == end) return 0;
        if (!json_digit(*p)) {
            *err = JSON_E_DECIMAL;
            return -1;
        }
        p = json_digits(p + 1, end, path);
        if (p == end) return 0;
    }
    if (*p == 'e' || *p == 'E') {
        if (++p == end) return 0;
        if ((*p == '+' || *p == '-') && ++p == end) return 0;
        if (!json_digit(*p)) {
            *err = JSON_E_EXPONENT;
            return -1;
        }
        while (++p < end && json_digit(*p)) {
        }
        if (p == end) return 0;
    }
    *q = p;
    return 1;
}

/* true, false or null from p: 1, 0 when the bytes end inside it, -1 when it is none of them. */
JSON_INLINE int json_word(const unsigned char *p, const unsigned char *end, const char *word,
                          const unsigned char **q)
{
    size_t n = strlen(word);
    for (size_t i = 1; i < n; i++) {
        if (p + i == end) return 0;
        if (p[i] != (unsigned char)word[i]) return -1;
    }
    *q = p + n;
    return 1;
}

/* ---- nesting and member names, for the grammar and for messages ---------------------------- */

static int json_open(tconv_json_lexer *lx, char kind, uint64_t end)
{
    if (json_reserve((void **)&lx->nest, &lx->nest_cap, lx->depth + 1, sizeof *lx->nest)) return -1;
    struct json_nest *n = &lx->nest[lx->depth++];
    n->kind = kind;
    n->key[0] = '\0';
    n->kp = NULL;
    lx->last = 's';
    lx->last_end = end;
    return 0;
}

static void json_keep_key(struct json_nest *n, const unsigned char *s, size_t len)
{
    size_t k = len < sizeof n->key - 1 ? len : sizeof n->key - 1;
    memcpy(n->key, s, k);
    n->key[k] = '\0';
    n->kp = NULL;
}

/* Member names stay where they are until the bytes may go (or a message needs them): most are
 * replaced by the next one long before. */
static void json_key(tconv_json_lexer *lx, const unsigned char *s, size_t len, int copy)
{
    if (!lx->depth) return;
    size_t d = lx->depth - 1;
    struct json_nest *n = &lx->nest[d];
    if (copy) {
        json_keep_key(n, s, len);
        return;
    }
    n->kp = s;
    n->klen = len;
    if (d < lx->key_dirty) lx->key_dirty = d;
}

/* Copy the names still in the bytes being lexed. */
static void json_settle(tconv_json_lexer *lx)
{
    for (size_t d = lx->key_dirty; d < lx->depth; d++)
        if (lx->nest[d].kp) json_keep_key(&lx->nest[d], lx->nest[d].kp, lx->nest[d].klen);
    lx->key_dirty = SIZE_MAX;
}

/* The state after a value at the current depth. */
static int json_after_value(const tconv_json_lexer *lx)
{
    if (!lx->depth) return JSON_DONE;
    return lx->nest[lx->depth - 1].kind == 'm' ? JSON_OBJ_NEXT : JSON_ARR_NEXT;
}

/* ---- errors ---------------------------------------------------------------------------------- */

/* Note the blanks and separator of s[0 .. n), at input offset off, that follow the last token. */
static void json_gap_note(tconv_json_lexer *lx, const unsigned char *s, size_t n, uint64_t off)
{
    struct json_gap *g = &lx->gap;
    if (g->start != lx->last_end) {
        g->start = lx->last_end;
        g->vf_before = g->vf_after = g->sep_off = JSON_NONE;
        g->sep = 0;
    }
    for (size_t i = 0; i < n; i++) {
        unsigned char c = s[i];
        if (c == ',' || c == ':') {
            g->sep = c;
            g->sep_off = off + i;
        } else if (c == '\v' || c == '\f') {
            if (!g->sep && g->vf_before == JSON_NONE) {
                g->vf_before = off + i;
                g->vf[0] = c;
            } else if (g->sep && g->vf_after == JSON_NONE) {
                g->vf_after = off + i;
                g->vf[1] = c;
            }
        }
    }
}

/* Note what lies between the last token and p in the bytes being lexed. */
static void json_gap_to(tconv_json_lexer *lx, const unsigned char *p)
{
    uint64_t from = lx->last_end > lx->cur_base ? lx->last_end : lx->cur_base;
    const unsigned char *s = lx->cur + (from - lx->cur_base);
    if (s < p)
        json_gap_note(lx, s, (size_t)(p - s), from);
    else if (lx->gap.start != lx->last_end)
        json_gap_note(lx, p, 0, from);
}

static void json_describe(unsigned char c, char *buf, size_t cap)
{
    if (c == '\'')
        snprintf(buf, cap, "\"'\"");
    else if (c >= 0x20 && c < 0x7f)
        snprintf(buf, cap, "'%c'", c);
    else
        snprintf(buf, cap, "byte 0x%02x", c);
}

/* What the grammar allows next, given the last token and whether a ',' followed it. */
static void json_expectation(const tconv_json_lexer *lx, int comma, char *buf, size_t cap)
{
    if (!lx->depth) {
        if (lx->st == JSON_DONE)
            snprintf(buf, cap, "expected the end of input after the JSON value");
        else
            snprintf(buf, cap, "expected a JSON value");
        return;
    }
    const struct json_nest *n = &lx->nest[lx->depth - 1];
    if (n->kind == 'm') {
        if (lx->last == 'k')
            snprintf(buf, cap, "expected a value for \"%s\"", n->key);
        else if (lx->last == 's')
            snprintf(buf, cap, "expected a member name in double quotes or '}'");
        else if (comma)
            snprintf(buf, cap, "expected a member name in double quotes after ','");
        else if (n->key[0])
            snprintf(buf, cap, "expected ',' or '}' after the value of \"%s\"", n->key);
        else
            snprintf(buf, cap, "expected ',' or '}'");
    } else {
        if (lx->last == 's')
            snprintf(buf, cap, "expected a value or ']'");
        else if (comma)
            snprintf(buf, cap, "expected a value after ','");
        else
            snprintf(buf, cap, "expected ',' or ']' after an array element");
    }
}

static void json_fail_code(tconv_json_lexer *lx, tconv_json_errcode code, uint64_t off,
                           const char *message)
{
    json_settle(lx);
    lx->err.code = code;
    lx->err.offset = off;
    lx->err.depth = lx->depth;
    lx->err.after_key = lx->depth && lx->nest[lx->depth - 1].kind == 'm' && lx->last == 'k';
    if (message != lx->msg) snprintf(lx->msg, sizeof lx->msg, "%s", message);
    lx->err.message = lx->msg;
    lx->err.found = lx->found;
}

/* A syntax error at the token that starts at p; err is what is wrong inside it, or -1 when the
 * token is out of place. The message points past the blanks (and the ',' after a value) that
 * follow the last good token, whichever buffers held them. */
static int json_fail(tconv_json_lexer *lx, const unsigned char *p, int err)
{
    uint64_t off;
    int comma = 0;
    if (lx->at_end) {
        off = lx->offset;
        snprintf(lx->found, sizeof lx->found, "the end of the data read");
    } else {
        json_gap_to(lx, p);
        const struct json_gap *g = &lx->gap;
        uint64_t p_off = lx->cur_base + (uint64_t)(p - lx->cur);
        unsigned char c = *p;
        off = p_off;
        if (g->vf_before != JSON_NONE) {
            off = g->vf_before;
            c = g->vf[0];
        } else if (g->sep == ',' && lx->last == 'v') {
            comma = 1;
            if (g->vf_after != JSON_NONE) {
                off = g->vf_after;
                c = g->vf[1];
            }
        } else if (g->sep) {
            off = g->sep_off;
            c = g->sep;
        }
        json_describe(c, lx->found, sizeof lx->found);
    }
    tconv_json_errcode code = TCONV_JSON_ERR_TOKEN;
    if (err >= 0) {
        snprintf(lx->msg, sizeof lx->msg, "%s", json_msg[err]);
    } else {
        json_settle(lx);
        char what[200];
        json_expectation(lx, comma, what, sizeof what);
        snprintf(lx->msg, sizeof lx->msg, "%s, found %s", what, lx->found);
        code =
            !lx->depth && lx->st == JSON_DONE ? TCONV_JSON_ERR_TRAILING : TCONV_JSON_ERR_UNEXPECTED;
    }
    json_fail_code(lx, code, off, lx->msg);
    return -1;
}

static int json_nomem(tconv_json_lexer *lx)
{
    lx->found[0] = '\0';
    json_fail_code(lx, TCONV_JSON_ERR_NOMEM, lx->offset, "out of memory");
    return -1;
}

static int json_stopped(tconv_json_lexer *lx, uint64_t off)
{
    lx->found[0] = '\0';
    json_fail_code(lx, TCONV_JSON_ERR_STOPPED, off, "stopped by the token handler");
    return -1;
}

/* ---- the lexing loop ------------------------------------------------------------------------ */

/* What a token is, once lexed. */
enum {
    JSON_T_OPEN,
    JSON_T_CLOSE,
    JSON_T_COMMA,
    JSON_T_COLON,
    JSON_T_STRING,
    JSON_T_NUMBER,
    JSON_T_WORD
};

/* Hand a token over; fn NULL: not wanted. */
static inline int json_call(tconv_json_lexer *lx, tconv_json_token_fn fn, tconv_json_token *t)
{
    if (!fn) return TCONV_JSON_GO;
    int rc = fn(lx->user, t);
    if (rc < 0) json_stopped(lx, t->end);
    return rc;
}

/* Hand a key or string over, repaired (when asked). */
static int json_call_text(tconv_json_lexer *lx, tconv_json_token_fn fn, tconv_json_token *t)
{
    if (lx->flags & TCONV_JSON_REPAIR_UTF8) {
        const unsigned char *s = (const unsigned char *)t->text;
        size_t n = t->len, ok = tconv_utf8_valid_prefix(s, n);
        if (ok != n) {
            if (n > (SIZE_MAX - 1) / 3 ||
                json_reserve((void **)&lx->fixed, &lx->fixed_cap, 3 * n + 1, 1))
                return json_nomem(lx);
            memcpy(lx->fixed, s, ok);
            t->len = ok + tconv_utf8_repair(lx->fixed + ok, s + ok, n - ok);
            t->text = lx->fixed;
            t->repaired = 1;
        }
    }
    return json_call(lx, fn, t);
}

/* A skipped container's content, from just after its '{' or '[' at p (kind 'm' or 'a'): checked
 * by the same token scanners and grammar as json_lex, without its bookkeeping for messages and
 * callbacks. Returns the container's closing byte when the content is well-formed, non-empty,
 * nested less than 64 deep and ends in these bytes; NULL otherwise, and json_lex then lexes it
 * token by token as usual (so errors are found and told by the one code that tells them). */
JSON_INLINE const unsigned char *json_skip_fast(const unsigned char *p, const unsigned char *end,
                                                char kind, int path)
{
    uint64_t is_obj = kind == 'm'; /* bit i: level i is an object */
    unsigned d = 0;                /* levels opened inside */
    int st = kind == 'm' ? JSON_OBJ_FIRST : JSON_ARR_FIRST;
    const unsigned char *q = NULL;
    for (;;) {
        p = json_skip_blanks(p, end, path);
        if (p == end) return NULL;
        unsigned char c = *p;
        int esc = 0, err = 0;
        switch (st) {
        case JSON_OBJ_FIRST:
        case JSON_OBJ_KEY:
            if (c == '"') {
                if (json_string(p, end, &q, &esc, &err, path) != 1) return NULL;
                p = q;
                st = JSON_OBJ_COLON;
                continue;
            }
            if (c == '}' && st == JSON_OBJ_FIRST) goto close;
            return NULL;
        case JSON_OBJ_COLON:
            if (c != ':') return NULL;
            p++;
            st = JSON_VALUE;
            continue;
        case JSON_OBJ_NEXT:
        case JSON_ARR_NEXT:
            if (c == ',') {
                p++;
                st = st == JSON_OBJ_NEXT ? JSON_OBJ_KEY : JSON_VALUE;
                continue;
            }
            if (c == (st == JSON_OBJ_NEXT ? '}' : ']')) goto close;
            return NULL;
        default: /* JSON_VALUE, JSON_ARR_FIRST */
            switch (c) {
            case '"':
                if (json_string(p, end, &q, &esc, &err, path) != 1) return NULL;
                break;
            case '{':
            case '[':
                if (d == 63) return NULL;
                d++;
                is_obj = is_obj << 1 | (c == '{');
                st = c == '{' ? JSON_OBJ_FIRST : JSON_ARR_FIRST;
                p++;
                continue;
            case ']':
                if (st == JSON_ARR_FIRST) goto close;
                return NULL;
            case 't':
                if (json_word(p, end, "true", &q) != 1) return NULL;
                break;
            case 'f':
                if (json_word(p, end, "false", &q) != 1) return NULL;
                break;
            case 'n':
                if (json_word(p, end, "null", &q) != 1) return NULL;
                break;
            default:
                if (!(c == '-' || json_digit(c)) || json_number(p, end, &q, &err, path) != 1)
                    return NULL;
                break;
            }
            p = q;
            st = is_obj & 1 ? JSON_OBJ_NEXT : JSON_ARR_NEXT;
            continue;
        }
    close:
        if (!d) {
            /* An empty container is json_lex's (its END says so). */
            if (st == JSON_OBJ_FIRST || st == JSON_ARR_FIRST) return NULL;
            return p;
        }
        d--;
        is_obj >>= 1;
        p++;
        st = is_obj & 1 ? JSON_OBJ_NEXT : JSON_ARR_NEXT;
    }
}

/* Lex buf[0 .. len), at input offset base; *used is where the first token cut by the end of
 * the bytes starts (len when none is). */
JSON_INLINE int json_lex_path(tconv_json_lexer *lx, const unsigned char *buf, size_t len,
                              uint64_t base, size_t *used, int path)
{
    const unsigned char *p = buf, *end = buf + len;
    int st = lx->st;
    int res = 0;
    lx->cur = buf;
    lx->cur_len = len;
    lx->cur_base = base;
    for (;;) {
        p = json_skip_blanks(p, end, path);
        if (p == end) break;
        unsigned char c = *p;
        /* Separators in their place are half of all tokens: no lexing, no callback. */
        if (c == ',' && (st == JSON_OBJ_NEXT || st == JSON_ARR_NEXT)) {
            st = st == JSON_OBJ_NEXT ? JSON_OBJ_KEY : JSON_VALUE;
            p++;
            continue;
        }
        if (c == ':' && st == JSON_OBJ_COLON) {
            st = JSON_VALUE;
            p++;
            continue;
        }
        const unsigned char *start = p, *q = NULL;
        int err = -1, got, esc = 0, tok;
        /* Lex the whole token before the grammar looks at it, as yajl does: an invalid token
         * is reported as such wherever it stands, and a token cut by the end of the bytes
         * waits for the rest. */
        switch (c) {
        case '"':
            tok = JSON_T_STRING;
            got = json_string(p, end, &q, &esc, &err, path);
            break;
        case ',':
            tok = JSON_T_COMMA;
            got = 1;
            q = p + 1;
            break;
        case ':':
            tok = JSON_T_COLON;
            got = 1;
            q = p + 1;
            break;
        case '{':
        case '[':
            tok = JSON_T_OPEN;
            got = 1;
            q = p + 1;
            break;
        case '}':
        case ']':
            tok = JSON_T_CLOSE;
            got = 1;
            q = p + 1;
            break;
        case 't':
            tok = JSON_T_WORD;
            got = json_word(p, end, "true", &q);
            break;
        case 'f':
            tok = JSON_T_WORD;
            got = json_word(p, end, "false", &q);
            break;
        case 'n':
            tok = JSON_T_WORD;
            got = json_word(p, end, "null", &q);
            break;
        case '/':
            tok = JSON_T_WORD;
            err = JSON_E_COMMENT;
            got = -1;
            break;
        default:
            tok = JSON_T_NUMBER;
            if (c == '-' || json_digit(c))
                got = json_number(p, end, &q, &err, path);
            else
                got = -1; /* not a JSON token: the grammar's message says what was expected */
            break;
        }
        if (got == 0) break;
        if (got < 0) {
            lx->st = st;
            res = json_fail(lx, start, err);
            break;
        }
        tconv_json_token t;
        t.offset = base + (uint64_t)(start - buf);
        t.end = base + (uint64_t)(q - buf);
        t.empty = 0;
        t.repaired = 0;
        switch (st) {
        case JSON_OBJ_COLON:
            if (tok != JSON_T_COLON) goto bad;
            st = JSON_VALUE;
            break;
        case JSON_OBJ_NEXT:
        case JSON_ARR_NEXT:
            if (tok == JSON_T_COMMA) {
                st = st == JSON_OBJ_NEXT ? JSON_OBJ_KEY : JSON_VALUE;
                break;
            }
            if (tok != JSON_T_CLOSE || c != (st == JSON_OBJ_NEXT ? '}' : ']')) goto bad;
            goto close;
        case JSON_OBJ_FIRST:
        case JSON_OBJ_KEY:
            if (tok == JSON_T_CLOSE && c == '}' && st == JSON_OBJ_FIRST) goto close;
            if (tok != JSON_T_STRING) goto bad;
            {
                const unsigned char *s = start + 1;
                size_t n = (size_t)(q - start) - 2;
                if (esc) {
                    if (json_unescape(lx, s, n, &n)) goto nomem;
                    s = lx->text;
                }
                lx->last = 'k';
                lx->last_end = t.end;
                json_key(lx, s, n, esc);
                if (!lx->skip) {
                    t.kind = TCONV_JSON_KEY;
                    t.text = (const char *)s;
                    t.len = n;
                    if (lx->flags ? json_call_text(lx, lx->cb.key, &t) < 0
                                  : json_call(lx, lx->cb.key, &t) < 0)
                        goto fatal;
                }
            }
            st = JSON_OBJ_COLON;
            break;
        case JSON_VALUE:
        case JSON_ARR_FIRST:
            if (tok == JSON_T_CLOSE && c == ']' && st == JSON_ARR_FIRST) goto close;
            if (tok == JSON_T_OPEN) {
                char kind = c == '{' ? 'm' : 'a';
                if (json_open(lx, kind, t.end)) goto nomem;
                st = kind == 'm' ? JSON_OBJ_FIRST : JSON_ARR_FIRST;
                if (!lx->skip) {
                    t.kind = kind == 'm' ? TCONV_JSON_OBJECT_BEGIN : TCONV_JSON_ARRAY_BEGIN;
                    t.text = (const char *)start;
                    t.len = 1;
                    int rc = json_call(lx, lx->cb.begin, &t);
                    if (rc < 0) goto fatal;
                    if (rc == TCONV_JSON_SKIP) {
                        lx->skip = lx->depth;
                        /* Most skipped containers are checked here in one pass; the main loop
                         * then takes their closing byte as if it had lexed all before it. */
                        const unsigned char *close = json_skip_fast(q, end, kind, path);
                        if (close) {
                            lx->last = 'v'; /* not empty; its END sets last_end */
                            st = kind == 'm' ? JSON_OBJ_NEXT : JSON_ARR_NEXT;
                            p = close;
                            continue;
                        }
                    }
                }
                break;
            }
            if (tok == JSON_T_COMMA || tok == JSON_T_COLON || tok == JSON_T_CLOSE) goto bad;
            lx->last = 'v';
            lx->last_end = t.end;
            st = json_after_value(lx);
            if (!lx->skip) {
                if (tok == JSON_T_STRING) {
                    const unsigned char *s = start + 1;
                    size_t n = (size_t)(q - start) - 2;
                    if (esc) {
                        if (json_unescape(lx, s, n, &n)) goto nomem;
                        s = lx->text;
                    }
                    t.kind = TCONV_JSON_STRING;
                    t.text = (const char *)s;
                    t.len = n;
                    if (lx->flags ? json_call_text(lx, lx->cb.scalar, &t) < 0
                                  : json_call(lx, lx->cb.scalar, &t) < 0)
                        goto fatal;
                } else {
                    t.kind = tok == JSON_T_NUMBER ? TCONV_JSON_NUMBER
                             : c == 'n'           ? TCONV_JSON_NULL
                             : c == 't'           ? TCONV_JSON_TRUE
                                                  : TCONV_JSON_FALSE;
                    t.text = (const char *)start;
                    t.len = (size_t)(q - start);
                    if (json_call(lx, lx->cb.scalar, &t) < 0) goto fatal;
                }
            }
            break;
        default: /* JSON_DONE */
            goto bad;
        }
        p = q;
        continue;
    close : {
        t.empty = lx->last == 's'; /* nothing since the container's own start */
        t.kind = lx->nest[lx->depth - 1].kind == 'm' ? TCONV_JSON_OBJECT_END : TCONV_JSON_ARRAY_END;
        lx->depth--;
        lx->last = 'v';
        lx->last_end = t.end;
        st = json_after_value(lx);
        if (lx->skip && lx->depth < lx->skip) lx->skip = 0; /* the container's own END follows */
        if (!lx->skip) {
            t.text = (const char *)start;
            t.len = 1;
            if (json_call(lx, lx->cb.end, &t) < 0) goto fatal;
        }
        p = q;
        continue;
    }
    bad:
        lx->st = st;
        res = json_fail(lx, start, -1);
        break;
    nomem:
        res = json_nomem(lx);
        break;
    fatal:
        res = -1;
        break;
    }
    lx->st = st;
    json_settle(lx);
    if (!res && !lx->at_end) json_gap_to(lx, p);
    *used = (size_t)(p - buf);
    lx->cur = NULL;
    return res;
}

static int json_lex_portable(tconv_json_lexer *lx, const unsigned char *buf, size_t len,
                             uint64_t base, size_t *used)
{
    return json_lex_path(lx, buf, len, base, used, TCONV_JSON_SCAN_PORTABLE);
}

#ifdef __SSE2__
static int json_lex_sse2(tconv_json_lexer *lx, const unsigned char *buf, size_t len, uint64_t base,
                         size_t *used)
{
    return json_lex_path(lx, buf, len, base, used, TCONV_JSON_SCAN_SSE2);
}
#endif

#if JSON_HAVE_AVX2
static JSON_TARGET_AVX2 int json_lex_avx2(tconv_json_lexer *lx, const unsigned char *buf,
                                          size_t len, uint64_t base, size_t *used)
{
    return json_lex_path(lx, buf, len, base, used, TCONV_JSON_SCAN_AVX2);
}
#endif

static int json_lex(tconv_json_lexer *lx, const unsigned char *buf, size_t len, uint64_t base,
                    size_t *used)
{
#if JSON_HAVE_AVX2
    if (lx->scan == TCONV_JSON_SCAN_AVX2) return json_lex_avx2(lx, buf, len, base, used);
#endif
#ifdef __SSE2__
    if (lx->scan == TCONV_JSON_SCAN_SSE2) return json_lex_sse2(lx, buf, len, base, used);
#endif
    return json_lex_portable(lx, buf, len, base, used);
}

/* ---- buffers --------------------------------------------------------------------------------- */

static int json_carry_add(tconv_json_lexer *lx, const unsigned char *s, size_t n)
{
    if (json_reserve((void **)&lx->carry, &lx->carry_cap, lx->carry_len + n + 1, 1)) return -1;
    memcpy(lx->carry + lx->carry_len, s, n);
    lx->carry_len += n;
    return 0;
}

/* Lex the carry; what is left of it stays. */
static int json_lex_carry(tconv_json_lexer *lx, size_t *rem)
{
    size_t used;
    if (json_lex(lx, lx->carry, lx->carry_len, lx->carry_base, &used)) return -1;
    *rem = lx->carry_len - used;
    return 0;
}

static void json_carry_keep(tconv_json_lexer *lx, size_t rem)
{
    memmove(lx->carry, lx->carry + (lx->carry_len - rem), rem);
    lx->carry_base += lx->carry_len - rem;
    lx->carry_len = rem;
    lx->carry_scanned = rem;
}

TCONV_API int tconv_json_feed(tconv_json_lexer *lx, const void *data, size_t len)
{
    if (lx->err.code) return -1;
    const unsigned char *buf = data;
    uint64_t base = lx->offset;
    size_t start = 0;
    lx->offset += len;
    /* A token cut by the last buffer: complete it in the carry with as many bytes as the carry
     * holds, so that a long token is scanned again only each time it doubled (linear time
     * whatever the buffer sizes). */
    while (lx->carry_len) {
        size_t want = lx->carry_len < 64 ? 64 : lx->carry_len;
        size_t take = len - start < want ? len - start : want;
        if (json_carry_add(lx, buf + start, take)) return json_nomem(lx);
        start += take;
        if (lx->carry_len < 2 * lx->carry_scanned) {
            if (start == len) return 0;
            continue;
        }
        size_t rem;
        if (json_lex_carry(lx, &rem)) return -1;
        if (rem <= start) { /* what is left came from buf: go on there */
            lx->carry_len = 0;
            start -= rem;
            break;
        }
        json_carry_keep(lx, rem);
        if (start == len) return 0;
    }
    if (start == len) return 0;
    size_t used;
    if (json_lex(lx, buf + start, len - start, base + start, &used)) return -1;
    if (used < len - start) {
        lx->carry_base = base + start + used;
        lx->carry_len = 0;
        if (json_carry_add(lx, buf + start + used, len - start - used)) return json_nomem(lx);
        lx->carry_scanned = lx->carry_len;
    }
    return 0;
}

TCONV_API int tconv_json_end(tconv_json_lexer *lx)
{
    if (lx->err.code) return -1;
    size_t rem = 0;
    if (lx->carry_len) {
        /* First as any bytes (a token not rescanned yet may be followed by others), then with a
         * blank after the last, which ends a number and shows a word or an escape cut short. */
        if (json_lex_carry(lx, &rem)) return -1;
        json_carry_keep(lx, rem);
        if (json_carry_add(lx, (const unsigned char *)" ", 1)) return json_nomem(lx);
        lx->at_end = 1;
        int r = json_lex_carry(lx, &rem);
        lx->at_end = 0;
        if (r) return -1;
    }
    lx->carry_len = 0;
    if (lx->st == JSON_DONE) return 0;
    lx->found[0] = '\0';
    if (!lx->depth) {
        json_fail_code(lx, TCONV_JSON_ERR_EMPTY, lx->offset,
                       "unexpected end of input: no JSON value");
        return -1;
    }
    const struct json_nest *n = &lx->nest[lx->depth - 1];
    if (n->kind == 'm' && lx->last == 'k')
        snprintf(lx->msg, sizeof lx->msg, "unexpected end of input: expected a value for \"%s\"",
                 n->key);
    else
        snprintf(lx->msg, sizeof lx->msg, "unexpected end of input: %zu JSON value(s) not closed",
                 lx->depth);
    json_fail_code(lx, TCONV_JSON_ERR_TRUNCATED, lx->offset, lx->msg);
    return -1;
}

TCONV_API tconv_json_lexer *tconv_json_new(const tconv_json_callbacks *cb, void *user,
                                           unsigned flags)
{
    tconv_json_lexer *lx = calloc(1, sizeof *lx);
    if (!lx) return NULL;
    if (cb) lx->cb = *cb;
    lx->user = user;
    lx->flags = flags;
    lx->scan = json_scan_forced >= 0 ? json_scan_forced : json_scan_default();
    lx->st = JSON_VALUE;
    lx->key_dirty = SIZE_MAX;
    lx->gap.start = JSON_NONE;
    lx->err.message = lx->msg;
    lx->err.found = lx->found;
    return lx;
}

TCONV_API void tconv_json_free(tconv_json_lexer *lx)
{
    if (!lx) return;
    free(lx->nest);
    free(lx->text);
    free(lx->fixed);
    free(lx->carry);
    free(lx);
}

TCONV_API void tconv_json_set_offset(tconv_json_lexer *lx, uint64_t offset)
{
    lx->offset = offset;
}

TCONV_API const tconv_json_error *tconv_json_error_get(const tconv_json_lexer *lx)
{
    return &lx->err;
}

TCONV_API size_t tconv_json_depth(const tconv_json_lexer *lx)
{
    return lx->depth;
}
