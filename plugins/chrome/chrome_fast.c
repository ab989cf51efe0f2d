/* The fast path for flat events. A trace of PyTorch's legacy exporter is a long run of small
 * event objects whose members are all scalars:
 *
 *   {"name": "aten::empty", "ph": "X", "ts": 72925, "dur": 3, "tid": 1, "pid": "CPU functions",
 * "args": {}}
 *
 * Through the lexer such an object is 17 tokens, each a callback that files one field of the
 * record, and a mapping that reads the fields back as text. Here it is read straight from the
 * input buffer, member by member (names told apart by their first bytes, strings taken as spans
 * of the buffer, integers parsed in place), and mapped at once (chrome_emit_flat).
 *
 * The invariant: the fast path takes an object only when the general path would read it the
 * same way and say nothing about it: valid JSON of the few forms it knows, ASCII strings
 * without escapes, a phase it maps (B, E, X), times that convert. At anything else (an escape,
 * another member, args with content, a time out of range, the end of the buffer inside the
 * object) it stops before the object's '{', and the lexer reads on from there as it reads
 * everything else: errors, warnings and their offsets are the lexer's and the general path's.
 *
 * The two take turns (chrome_parse_chunk): the fast path starts only where the lexer stands just
 * past an event's '}' in the event array with nothing pending, and stops just past the '}' of
 * the last object it took; the lexer is told the offset of the next byte and goes on in the
 * state it was left in, after an element of the array.
 *
 * TCONV_CHROME_FAST=0 turns the fast path off (chrome_parse_init); the test chrome.fastpath
 * compares the two paths on inputs near the shapes it takes. */
#include <string.h>

#include "chrome_reader.h"
#include "chrome_time.h"
#include "jsonscan.h"

#ifdef __SSE2__
#include <emmintrin.h>
#endif

/* A JSON number at p as the lexer reads one: the byte after it, or NULL when p holds none or it
 * is not followed by a byte before end. *v is its value and *plain 1 when it is 1 to 15 digits
 * without sign, fraction or exponent (so that * 1000 stays below 2^62). */
static inline const unsigned char *
chrome_fast_number(const unsigned char *p, const unsigned char *end, uint64_t *v, int *plain)
{
    /* One digit (dur, tid) */
    if (end - p >= 2 && (unsigned)(p[0] - '0') <= 9 && (unsigned)(p[1] - '0') > 9 && p[1] != '.' &&
        (p[1] | 0x20) != 'e') {
        *v = (unsigned)(p[0] - '0');
        *plain = 1;
        return p + 1;
    }
#if __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
    /* Up to 7 digits in one word (ts in µs of a short trace, dur, tid): find the first byte that
     * is not a digit, move the digits to the top (zeros below them read as leading zeros) and
     * add them up in pairs, fours and eights. */
    if (end - p >= 8) {
        const uint64_t zeros = 0x3030303030303030ull, highs = 0xf0f0f0f0f0f0f0f0ull;
        uint64_t w;
        memcpy(&w, p, 8);
        uint64_t nd = ((w & highs) ^ zeros) | (((w + 0x0606060606060606ull) & highs) ^ zeros);
        unsigned n = nd ? (unsigned)__builtin_ctzll(nd) >> 3 : 0;
        if (n && (p[0] != '0' || n == 1) && p[n] != '.' && (p[n] | 0x20) != 'e') {
            const uint64_t mask = 0x000000ff000000ffull;
            uint64_t x = (w - zeros) << (8 * (8 - n));
            x = x * 10 + (x >> 8);
            x = ((x & mask) * (100 + (1000000ull << 32)) +
                 ((x >> 16) & mask) * (1 + (10000ull << 32))) >>
                32;
            *v = x;
            *plain = 1;
            return p + n;
        }
    }
#endif
    uint64_t acc = 0;
    int pl = 1;
    if (*p == '-') {
        pl = 0;
        if (++p == end) return NULL;
    }
    if (*p == '0') {
        p++;
    } else if ((unsigned)(*p - '1') <= 8) {
        const unsigned char *d = p;
        do
            acc = acc * 10 + (unsigned)(*p++ - '0');
        while (p < end && (unsigned)(*p - '0') <= 9 && p - d < 15);
        for (; p < end && (unsigned)(*p - '0') <= 9; p++)
            pl = 0;
    } else {
        return NULL;
    }
    if (p == end) return NULL;
    if (*p == '.') {
        if (++p == end || (unsigned)(*p - '0') > 9) return NULL;
        while (++p < end && (unsigned)(*p - '0') <= 9) {
        }
        if (p == end) return NULL;
        pl = 0;
    }
    if (*p == 'e' || *p == 'E') {
        if (++p == end) return NULL;
        if ((*p == '+' || *p == '-') && ++p == end) return NULL;
        if ((unsigned)(*p - '0') > 9) return NULL;
        while (++p < end && (unsigned)(*p - '0') <= 9) {
        }
        if (p == end) return NULL;
        pl = 0;
    }
    *plain = pl;
    *v = acc;
    return p;
}

/* A time member as chrome_time converts it: 0 with *ns set, -1 when the general path would
 * complain (or the text is not a number). */
static int chrome_fast_time(const char *s, size_t n, int plain, uint64_t v, int64_t *ns)
{
    if (plain) {
        *ns = (int64_t)(v * 1000);
        return 0;
    }
    if (chrome_num_scaled(s, n, 3, ns) != CHROME_NUM_OK) return -1;
    return *ns <= -CHROME_TIME_LIMIT || *ns >= CHROME_TIME_LIMIT ? -1 : 0;
}

/* The members the fast path knows, as their name and closing quote read as a little-endian word
 * (the bytes past the quote masked off). */
#define CHROME_W2(a, b) ((uint64_t)(unsigned char)(a) | (uint64_t)(unsigned char)(b) << 8)
#define CHROME_W3(a, b, c) (CHROME_W2(a, b) | (uint64_t)(unsigned char)(c) << 16)
#define CHROME_W4(a, b, c, d) (CHROME_W3(a, b, c) | (uint64_t)(unsigned char)(d) << 24)
#define CHROME_W5(a, b, c, d, e) (CHROME_W4(a, b, c, d) | (uint64_t)(unsigned char)(e) << 32)

enum { CF_NAME, CF_CAT, CF_PH, CF_TS, CF_DUR, CF_PID, CF_TID, CF_ARGS };

/* The member whose name starts at p (past its opening quote; 8 bytes readable), with *len the
 * bytes up to and with its closing quote; -1 for any other name. */
static inline int chrome_fast_key(const unsigned char *p, size_t *len)
{
    uint64_t w;
    memcpy(&w, p, 8);
#if __BYTE_ORDER__ != __ORDER_LITTLE_ENDIAN__
    w = __builtin_bswap64(w);
#endif
    const uint64_t m3 = 0xffffffu, m4 = 0xffffffffu, m5 = 0xffffffffffu;
    switch (p[0]) {
    case 'n':
        *len = 5;
        return (w & m5) == CHROME_W5('n', 'a', 'm', 'e', '"') ? CF_NAME : -1;
    case 'p':
        *len = 3;
        if ((w & m3) == CHROME_W3('p', 'h', '"')) return CF_PH;
        *len = 4;
        return (w & m4) == CHROME_W4('p', 'i', 'd', '"') ? CF_PID : -1;
    case 't':
        *len = 3;
        if ((w & m3) == CHROME_W3('t', 's', '"')) return CF_TS;
        *len = 4;
        return (w & m4) == CHROME_W4('t', 'i', 'd', '"') ? CF_TID : -1;
    case 'd':
        *len = 4;
        return (w & m4) == CHROME_W4('d', 'u', 'r', '"') ? CF_DUR : -1;
    case 'c':
        *len = 4;
        return (w & m4) == CHROME_W4('c', 'a', 't', '"') ? CF_CAT : -1;
    case 'a':
        *len = 5;
        return (w & m5) == CHROME_W5('a', 'r', 'g', 's', '"') ? CF_ARGS : -1;
    default:
        return -1;
    }
}

/* The members of one object as they are read: each value's text and kind ('s' a string without
 * its quotes, 'n' a number, 0 absent), and for a number what chrome_fast_number made of it.
 * chrome_fast_finish then checks them all at once. */
typedef struct chrome_fast_val {
    const char *s;
    uint32_t n;
    uint8_t kind, plain;
    uint64_t v;
} chrome_fast_val;

typedef struct chrome_fast_vals {
    chrome_fast_val at[CF_ARGS]; /* by CF_*: args are never a value here */
} chrome_fast_vals;

static inline void chrome_fast_start(chrome_fast_vals *v)
{
    for (int k = 0; k < CF_ARGS; k++)
        v->at[k].kind = 0;
}

static inline void chrome_fast_string_val(chrome_fast_vals *v, int k, const unsigned char *s,
                                          const unsigned char *e)
{
    chrome_fast_val *x = &v->at[k];
    x->s = (const char *)s;
    x->n = (uint32_t)(e - s);
    x->kind = 's';
}

/* The number at p, up to e, of member k; e NULL when there is none. */
static inline const unsigned char *
chrome_fast_number_val(chrome_fast_vals *v, int k, const unsigned char *p, const unsigned char *end)
{
    chrome_fast_val *x = &v->at[k];
    int plain;
    const unsigned char *e = chrome_fast_number(p, end, &x->v, &plain);
    if (!e) return NULL;
    x->s = (const char *)p;
    x->n = (uint32_t)(e - p);
    x->kind = 'n';
    x->plain = (uint8_t)plain;
    return e;
}

/* The event the members make, with the checks of chrome_dispatch and chrome_span_event: what
 * they would warn about (and texts as names, numbers as times) stays theirs. 0: not taken. */
static inline int chrome_fast_finish(const chrome_fast_vals *v, chrome_flat *f)
{
    const chrome_fast_val *ph = &v->at[CF_PH], *ts = &v->at[CF_TS], *dur = &v->at[CF_DUR];
    const chrome_fast_val *name = &v->at[CF_NAME], *cat = &v->at[CF_CAT];
    const chrome_fast_val *pid = &v->at[CF_PID], *tid = &v->at[CF_TID];
    if (ph->kind != 's' || ph->n != 1 || (ph->s[0] != 'X' && ph->s[0] != 'B' && ph->s[0] != 'E'))
        return 0;
    if (ts->kind != 'n' || dur->kind == 's' || name->kind == 'n' || cat->kind == 'n') return 0;
    f->ph = ph->s[0];
    if (chrome_fast_time(ts->s, ts->n, ts->plain, ts->v, &f->ts)) return 0;
    f->dur = 0;
    if (f->ph == 'X' && dur->kind) {
        if (chrome_fast_time(dur->s, dur->n, dur->plain, dur->v, &f->dur) || f->dur < 0 ||
            f->dur >= CHROME_TIME_LIMIT - f->ts)
            return 0;
    }
    f->name = name->kind ? name->s : NULL;
    f->nlen = name->kind ? name->n : 0;
    f->cat = cat->kind ? cat->s : NULL;
    f->clen = cat->kind ? cat->n : 0;
    f->pid = pid->kind ? pid->s : "";
    f->plen = pid->kind ? pid->n : 0;
    f->tid = tid->kind ? tid->s : "";
    f->tlen = tid->kind ? tid->n : 0;
    f->tid_string = tid->kind == 's';
    return 1;
}

/* Past the blanks at p, where most often there are none or one. */
static inline const unsigned char *chrome_fast_gap(const unsigned char *p, const unsigned char *end)
{
    if (p < end && *p == ' ') p++;
    return p < end && *p <= ' ' ? jsonscan_blanks(p, end) : p;
}

/* Bytes a member may need past its opening quote before its value's end is checked against the
 * end of the buffer: the name (8 bytes read at once), ':', a blank, a number's 8 bytes. */
#define CHROME_FAST_ROOM 32

/* Where the values of an object's members were, for learning its shape. */
typedef struct chrome_fast_where {
    unsigned n; /* members, up to CHROME_SHAPE_MAX; more: the shape is not learnt */
    uint8_t field[CHROME_SHAPE_MAX], kind[CHROME_SHAPE_MAX];
    const unsigned char *from[CHROME_SHAPE_MAX], *to[CHROME_SHAPE_MAX];
} chrome_fast_where;

/* The object whose '{' is at p, member by member: 1 with *f filled and *q just past its '}', 0
 * when the fast path leaves it to the lexer. The values' places go to *w. */
static int chrome_fast_object(const unsigned char *p, const unsigned char *end, chrome_flat *f,
                              const unsigned char **q, chrome_fast_where *w)
{
    chrome_fast_vals v;
    chrome_fast_start(&v);
    w->n = 0;
    p = chrome_fast_gap(p + 1, end);
    if (p == end || *p != '"') return 0; /* "{}" too: the general path's */
    for (;;) {
        /* Near the end of the buffer the lexer takes the object (it may be cut). */
        if (end - p < CHROME_FAST_ROOM) return 0;
        p++; /* the name's opening quote */
        size_t klen;
        int k = chrome_fast_key(p, &klen);
        if (k < 0) return 0;
        p += klen;
        if (p[0] == ':' && p[1] == ' ' && p[2] > ' ') {
            p += 2; /* ": ", the legacy exporter's and Kineto's */
        } else {
            p = jsonscan_blanks(p, end);
            if (p == end || *p != ':') return 0;
            p = chrome_fast_gap(p + 1, end);
            if (p == end) return 0;
        }
        const unsigned char *from, *to;
        char kind;
        if (k == CF_ARGS) {
            /* Only an empty args: its content is the general path's. */
            if (*p != '{') return 0;
            p = chrome_fast_gap(p + 1, end);
            if (p == end || *p != '}') return 0;
            p++;
            kind = 0;
            from = to = NULL;
        } else if (*p == '"') {
            from = p + 1;
            to = jsonscan_plain_string(from, end);
            if (!to) return 0;
            chrome_fast_string_val(&v, k, from, to);
            p = to + 1;
            kind = 's';
        } else {
            from = p;
            to = chrome_fast_number_val(&v, k, p, end);
            if (!to) return 0;
            p = to;
            kind = 'n';
        }
        if (kind && w->n <= CHROME_SHAPE_MAX) {
            if (w->n < CHROME_SHAPE_MAX) {
                w->field[w->n] = (uint8_t)k;
                w->kind[w->n] = (uint8_t)kind;
                w->from[w->n] = from;
                w->to[w->n] = to;
            }
            w->n++;
        }
        if (end - p >= 3 && p[0] == ',' && p[1] == ' ' && p[2] == '"') {
            p += 2; /* ", " */
            continue;
        }
        if (p == end) return 0;
        if (*p <= ' ') {
            p = jsonscan_blanks(p, end);
            if (p == end) return 0;
        }
        if (*p == '}') break;
        if (*p != ',') return 0;
        p = chrome_fast_gap(p + 1, end);
        if (p == end || *p != '"') return 0;
    }
    if (!chrome_fast_finish(&v, f)) return 0;
    *q = p + 1;
    return 1;
}

/* ---- shapes ------------------------------------------------------------------------------ */

/* The shape of an object the member-by-member reading took: the bytes between its values,
 * from the end of the element before it (its ',' and the blanks around it are the first
 * fragment's). An object with the same bytes there has the same members in the same order and
 * is valid JSON where its values are (they are read by the same scanners), so it is read by
 * comparing those bytes and scanning the values alone. */
static void chrome_shape_learn(chrome_shape *sh, const unsigned char *obj,
                               const unsigned char *obj_end, const chrome_fast_where *w)
{
    sh->n = 0;
    if (w->n > CHROME_SHAPE_MAX) return;
    const unsigned char *prev = obj;
    for (unsigned i = 0; i <= w->n; i++) {
        const unsigned char *next = i < w->n ? w->from[i] : obj_end;
        size_t len = (size_t)(next - prev);
        if (len > CHROME_SHAPE_FRAG) return;
        memset(sh->frag[i], 0, CHROME_SHAPE_FRAG);
        memcpy(sh->frag[i], prev, len);
        sh->flen[i] = (uint8_t)len;
        sh->fmask[i] = len >= 32 ? 0xffffffffu : (1u << len) - 1;
        if (i < w->n) {
            sh->field[i] = w->field[i];
            sh->kind[i] = w->kind[i];
            prev = w->to[i];
        }
    }
    sh->n = (uint8_t)(w->n + 1);
}

/* Are the len bytes at p those of frag (want: a bit per byte)? 32 bytes at p are readable. */
static inline int chrome_shape_eq(const unsigned char *p, const unsigned char *frag, size_t len,
                                  uint32_t want)
{
#ifdef __SSE2__
    unsigned m = (unsigned)_mm_movemask_epi8(
        _mm_cmpeq_epi8(_mm_loadu_si128((const __m128i *)(const void *)p),
                       _mm_loadu_si128((const __m128i *)(const void *)frag)));
    if (len > 16) {
        m |= (unsigned)_mm_movemask_epi8(
                 _mm_cmpeq_epi8(_mm_loadu_si128((const __m128i *)(const void *)(p + 16)),
                                _mm_loadu_si128((const __m128i *)(const void *)(frag + 16))))
             << 16;
    }
    return (m & want) == want;
#else
    (void)want;
    return memcmp(p, frag, len) == 0;
#endif
}

/* The object after the element that ends at p, read by the shape: 1 with *f filled and *q just
 * past its '}', 0 when it does not have the shape (or the fast path does not take it). */
static int chrome_shape_object(const chrome_shape *sh, const unsigned char *p,
                               const unsigned char *end, chrome_flat *f, const unsigned char **q)
{
    chrome_fast_vals v;
    chrome_fast_start(&v);
    unsigned last = sh->n - 1u;
    for (unsigned i = 0;; i++) {
        if (end - p < CHROME_SHAPE_FRAG ||
            !chrome_shape_eq(p, sh->frag[i], sh->flen[i], sh->fmask[i]))
            return 0;
        p += sh->flen[i];
        if (i == last) break;
        const unsigned char *e;
        if (sh->kind[i] == 's') {
            e = jsonscan_plain_string(p, end);
            if (!e) return 0;
            chrome_fast_string_val(&v, sh->field[i], p, e);
        } else {
            e = chrome_fast_number_val(&v, sh->field[i], p, end);
            if (!e) return 0;
        }
        p = e;
    }
    if (!chrome_fast_finish(&v, f)) return 0;
    *q = p;
    return 1;
}

size_t chrome_fast_run(chrome_reader *r, const unsigned char *buf, size_t pos, size_t len)
{
    const unsigned char *p = buf + pos, *end = buf + len, *done = p;
    for (;;) {
        chrome_flat f;
        const unsigned char *q;
        if (!r->shape.n || !chrome_shape_object(&r->shape, p, end, &f, &q)) {
            if (p < end && *p <= ' ') p = jsonscan_blanks(p, end);
            if (p == end || *p != ',') break;
            p = chrome_fast_gap(p + 1, end);
            if (p == end || *p != '{') break;
            chrome_fast_where w;
            if (!chrome_fast_object(p, end, &f, &q, &w)) break;
            chrome_shape_learn(&r->shape, done, q, &w);
        }
        r->nrecords++;
        if (r->part) { /* from the ',' that ends the element before it (done is before it) */
            const unsigned char *c = memchr(done, ',', (size_t)(q - done));
            f.off = r->fast_base + (uint64_t)(c + 1 - buf);
            f.len = (uint64_t)(q - (c + 1));
        }
        if (chrome_emit_flat(r, &f) == TCONV_FATAL) {
            r->failed = 1;
            break;
        }
        p = done = q;
    }
    return (size_t)(done - buf);
}

size_t chrome_fast_count(const unsigned char *buf, size_t len, size_t most)
{
    const unsigned char *p = chrome_fast_gap(buf, buf + len), *end = buf + len;
    size_t n = 0;
    while (n < most && p < end && *p == '{') {
        chrome_flat f;
        chrome_fast_where w;
        const unsigned char *q;
        if (!chrome_fast_object(p, end, &f, &q, &w)) break;
        n++;
        p = chrome_fast_gap(q, end);
        if (p == end || *p != ',') break;
        p = chrome_fast_gap(p + 1, end);
    }
    return n;
}
