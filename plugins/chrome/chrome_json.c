/* The JSON tokenizer of the Chrome reader. It scans the bytes the read loop hands it, checks
 * the grammar, and passes each token to the JSON walk (chrome_parse.c): strings unescaped,
 * numbers as their text, so that times keep every digit. A token cut by the end of the bytes is
 * left for the next call, which gets it again with more bytes after it.
 *
 * What it accepts and how it unescapes are yajl 2.1's (the library it replaces, with partial
 * values allowed and strings not validated), so that traces read the same and invalid ones
 * fail at the same place with the same message: \v and \f count as blanks; \u escapes of a high
 * surrogate combine with any \u escape that follows, and become '?' when none follows; a
 * string holds any byte from 0x20 up, and its UTF-8 is repaired later, not here. */
#include <stdlib.h>
#include <string.h>

#include "chrome_reader.h"

/* Where the grammar is, between two tokens. */
enum {
    CHROME_J_VALUE,     /* a value: the document's, after ':' or after ',' in an array */
    CHROME_J_ARR_FIRST, /* after '[': a value or ']' */
    CHROME_J_ARR_NEXT,  /* after an array element: ',' or ']' */
    CHROME_J_OBJ_FIRST, /* after '{': a member name or '}' */
    CHROME_J_OBJ_KEY,   /* after ',' in an object: a member name */
    CHROME_J_OBJ_COLON, /* after a member name: ':' */
    CHROME_J_OBJ_NEXT,  /* after a member's value: ',' or '}' */
    CHROME_J_DONE       /* after the document's value: nothing but blanks */
};

/* What yajl said about errors inside a token (its lexer's messages, without the final '.'). */
static const char *const chrome_json_msg[] = {
    "invalid character inside string",
    "inside a string, '\\' occurs before a character which it may not",
    "invalid (non-hex) character occurs after '\\u' inside string",
    "malformed number, a digit is required after the minus sign",
    "malformed number, a digit is required after the decimal point",
    "malformed number, a digit is required after the exponent",
    "probable comment found in input text, comments are not enabled",
};
enum {
    CHROME_JE_STRING_CHAR,
    CHROME_JE_STRING_ESCAPE,
    CHROME_JE_STRING_HEX,
    CHROME_JE_MINUS,
    CHROME_JE_DECIMAL,
    CHROME_JE_EXPONENT,
    CHROME_JE_COMMENT
};

static int chrome_json_blank(unsigned char c)
{
    /* ' ' is the common case; '\t' .. '\r' are the other five (yajl counts \v and \f). */
    return c == ' ' || (unsigned char)(c - '\t') <= '\r' - '\t';
}

static int chrome_json_digit(unsigned char c)
{
    return c >= '0' && c <= '9';
}

static int chrome_json_hex(unsigned char c)
{
    return chrome_json_digit(c) || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F');
}

/* The first byte of p[0 .. end) that ends a plain run of string text: '"', '\\' or a control
 * character; end if none. Eight bytes per step: names and args are most of a trace. */
static const unsigned char *chrome_json_run(const unsigned char *p, const unsigned char *end)
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

static int chrome_json_reserve(chrome_reader *r, size_t n)
{
    if (chrome_reserve((void **)&r->jtext, &r->jtext_cap, n, 1)) {
        tconv_error_set(r->ctx, "chrome: out of memory");
        r->failed = 1;
        return -1;
    }
    return 0;
}

static unsigned chrome_json_hex4(const unsigned char *p)
{
    unsigned v = 0;
    for (int i = 0; i < 4; i++) {
        unsigned char c = p[i];
        v = v << 4 | (unsigned)(c <= '9' ? c - '0' : (c | 0x20) - 'a' + 10);
    }
    return v;
}

static size_t chrome_json_utf8(unsigned cp, unsigned char *out)
{
    if (cp < 0x80) {
        out[0] = (unsigned char)cp;
        return 1;
    }
    if (cp < 0x800) {
        out[0] = (unsigned char)(0xC0 | cp >> 6);
        out[1] = (unsigned char)(0x80 | (cp & 0x3F));
        return 2;
    }
    if (cp < 0x10000) {
        out[0] = (unsigned char)(0xE0 | cp >> 12);
        out[1] = (unsigned char)(0x80 | ((cp >> 6) & 0x3F));
        out[2] = (unsigned char)(0x80 | (cp & 0x3F));
        return 3;
    }
    out[0] = (unsigned char)(0xF0 | cp >> 18);
    out[1] = (unsigned char)(0x80 | ((cp >> 12) & 0x3F));
    out[2] = (unsigned char)(0x80 | ((cp >> 6) & 0x3F));
    out[3] = (unsigned char)(0x80 | (cp & 0x3F));
    return 4;
}

/* Unescape the text between the quotes of a string that has escapes (all checked already) into
 * r->jtext. */
static int chrome_json_unescape(chrome_reader *r, const unsigned char *s, size_t n, size_t *out)
{
    if (chrome_json_reserve(r, n + 1)) return -1; /* no escape is shorter than what it means */
    unsigned char *d = r->jtext;
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
            unsigned cp = chrome_json_hex4(s + i);
            i += 4;
            if ((cp & 0xFC00) == 0xD800) {
                if (i + 6 <= n && s[i] == '\\' && s[i + 1] == 'u') {
                    unsigned lo = chrome_json_hex4(s + i + 2);
                    cp = ((cp & 0x3F) << 10) | ((((cp >> 6) & 0xF) + 1) << 16) | (lo & 0x3FF);
                    i += 6;
                } else {
                    *d++ = '?';
                    break;
                }
            }
            d += chrome_json_utf8(cp, d);
            break;
        }
        default: /* '"', '\\', '/' */
            *d++ = c;
            break;
        }
    }
    *out = (size_t)(d - r->jtext);
    return 0;
}

/* A string from its opening quote at p: 1 with *q just past the closing quote and *esc set when
 * it holds escapes, 0 when the bytes end first, -1 with *err at an invalid byte. */
static int chrome_json_string(const unsigned char *p, const unsigned char *end,
                              const unsigned char **q, int *esc, int *err)
{
    p++;
    for (;;) {
        p = chrome_json_run(p, end);
        if (p == end) return 0;
        if (*p == '"') {
            *q = p + 1;
            return 1;
        }
        if (*p < 0x20) {
            *err = CHROME_JE_STRING_CHAR;
            return -1;
        }
        *esc = 1;
        if (++p == end) return 0;
        if (*p == 'u') {
            for (int k = 0; k < 4; k++) {
                if (++p == end) return 0;
                if (!chrome_json_hex(*p)) {
                    *err = CHROME_JE_STRING_HEX;
                    return -1;
                }
            }
            p++;
        } else if (*p && strchr("\"\\/bfnrt", *p)) {
            p++;
        } else {
            *err = CHROME_JE_STRING_ESCAPE;
            return -1;
        }
    }
}

/* A number from p: 1 with *q just past it, 0 when the bytes end before something that is not
 * part of it (it may go on), -1 with *err. */
static int chrome_json_number(const unsigned char *p, const unsigned char *end,
                              const unsigned char **q, int *err)
{
    if (*p == '-' && ++p == end) return 0;
    if (*p == '0') {
        p++;
    } else if (*p >= '1' && *p <= '9') {
        while (++p < end && chrome_json_digit(*p)) {
        }
    } else {
        *err = CHROME_JE_MINUS;
        return -1;
    }
    if (p == end) return 0;
    if (*p == '.') {
        if (++p == end) return 0;
        if (!chrome_json_digit(*p)) {
            *err = CHROME_JE_DECIMAL;
            return -1;
        }
        while (++p < end && chrome_json_digit(*p)) {
        }
        if (p == end) return 0;
    }
    if (*p == 'e' || *p == 'E') {
        if (++p == end) return 0;
        if ((*p == '+' || *p == '-') && ++p == end) return 0;
        if (!chrome_json_digit(*p)) {
            *err = CHROME_JE_EXPONENT;
            return -1;
        }
        while (++p < end && chrome_json_digit(*p)) {
        }
        if (p == end) return 0;
    }
    *q = p;
    return 1;
}

/* true, false or null from p: 1, 0 when the bytes end inside it, -1 when it is none of them. */
static int chrome_json_word(const unsigned char *p, const unsigned char *end, const char *word,
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

/* ---- where the tokens are, for the grammar and for messages --------------------------------- */

static int chrome_json_open(chrome_reader *r, char kind)
{
    if (chrome_reserve((void **)&r->nest, &r->nest_cap, r->depth + 1, sizeof *r->nest)) {
        tconv_error_set(r->ctx, "chrome: out of memory");
        r->failed = 1;
        return -1;
    }
    struct chrome_nest *n = &r->nest[r->depth++];
    n->kind = kind;
    n->key[0] = '\0';
    n->kp = NULL;
    r->last = 's';
    r->last_tok_end = r->tok_end;
    return 0;
}

static void chrome_json_keep_key(struct chrome_nest *n, const unsigned char *s, size_t len)
{
    size_t k = len < sizeof n->key - 1 ? len : sizeof n->key - 1;
    memcpy(n->key, s, k);
    n->key[k] = '\0';
    n->kp = NULL;
}

/* Member names stay where they are until the bytes may go (or a message needs them): most are
 * replaced by the next one long before. */
static void chrome_json_key(chrome_reader *r, const unsigned char *s, size_t len, int copy)
{
    r->last = 'k';
    r->last_tok_end = r->tok_end;
    if (!r->depth) return;
    size_t d = r->depth - 1;
    struct chrome_nest *n = &r->nest[d];
    if (copy) {
        chrome_json_keep_key(n, s, len);
        return;
    }
    n->kp = s;
    n->klen = len;
    if (d < r->key_dirty) r->key_dirty = d;
}

/* Copy the names still in the tokenizer's bytes. */
static void chrome_json_settle(chrome_reader *r)
{
    for (size_t d = r->key_dirty; d < r->depth; d++)
        if (r->nest[d].kp) chrome_json_keep_key(&r->nest[d], r->nest[d].kp, r->nest[d].klen);
    r->key_dirty = SIZE_MAX;
}

/* The state after a value at the current depth. */
static int chrome_json_after_value(const chrome_reader *r)
{
    if (!r->depth) return CHROME_J_DONE;
    return r->nest[r->depth - 1].kind == 'm' ? CHROME_J_OBJ_NEXT : CHROME_J_ARR_NEXT;
}

static tconv_status chrome_json_fail(chrome_reader *r, int err)
{
    chrome_json_settle(r);
    chrome_error_syntax(r, err < 0 ? NULL : chrome_json_msg[err]);
    return TCONV_FATAL;
}

/* What a token is, once lexed. */
enum {
    CHROME_T_OPEN,
    CHROME_T_CLOSE,
    CHROME_T_COMMA,
    CHROME_T_COLON,
    CHROME_T_STRING,
    CHROME_T_NUMBER,
    CHROME_T_WORD
};

tconv_status chrome_json_parse(chrome_reader *r, const unsigned char *buf, size_t len, size_t *used)
{
    const unsigned char *p = buf, *end = buf + len;
    int st = r->jstate;
    tconv_status res = TCONV_OK;
    for (;;) {
        while (p < end && chrome_json_blank(*p))
            p++;
        if (p == end) break;
        unsigned char c = *p;
        /* Separators in their place are half of all tokens: no lexing, no handler. */
        if (c == ',' && (st == CHROME_J_OBJ_NEXT || st == CHROME_J_ARR_NEXT)) {
            st = st == CHROME_J_OBJ_NEXT ? CHROME_J_OBJ_KEY : CHROME_J_VALUE;
            p++;
            continue;
        }
        if (c == ':' && st == CHROME_J_OBJ_COLON) {
            st = CHROME_J_VALUE;
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
            tok = CHROME_T_STRING;
            got = chrome_json_string(p, end, &q, &esc, &err);
            break;
        case ',':
            tok = CHROME_T_COMMA;
            got = 1;
            q = p + 1;
            break;
        case ':':
            tok = CHROME_T_COLON;
            got = 1;
            q = p + 1;
            break;
        case '{':
        case '[':
            tok = CHROME_T_OPEN;
            got = 1;
            q = p + 1;
            break;
        case '}':
        case ']':
            tok = CHROME_T_CLOSE;
            got = 1;
            q = p + 1;
            break;
        case 't':
            tok = CHROME_T_WORD;
            got = chrome_json_word(p, end, "true", &q);
            break;
        case 'f':
            tok = CHROME_T_WORD;
            got = chrome_json_word(p, end, "false", &q);
            break;
        case 'n':
            tok = CHROME_T_WORD;
            got = chrome_json_word(p, end, "null", &q);
            break;
        case '/':
            tok = CHROME_T_WORD;
            err = CHROME_JE_COMMENT;
            got = -1;
            break;
        default:
            tok = CHROME_T_NUMBER;
            if (c == '-' || chrome_json_digit(c))
                got = chrome_json_number(p, end, &q, &err);
            else
                got = -1; /* not a JSON token: the grammar's message says what was expected */
            break;
        }
        if (got == 0) break;
        if (got < 0) {
            res = chrome_json_fail(r, err);
            break;
        }
        r->tok_end = r->buf_base + (uint64_t)(q - buf);
        int ok = 1;
        switch (st) {
        case CHROME_J_OBJ_COLON:
            if (tok != CHROME_T_COLON) goto bad;
            st = CHROME_J_VALUE;
            break;
        case CHROME_J_OBJ_NEXT:
        case CHROME_J_ARR_NEXT:
            if (tok == CHROME_T_COMMA) {
                st = st == CHROME_J_OBJ_NEXT ? CHROME_J_OBJ_KEY : CHROME_J_VALUE;
                break;
            }
            if (tok != CHROME_T_CLOSE || c != (st == CHROME_J_OBJ_NEXT ? '}' : ']')) goto bad;
            goto close;
        case CHROME_J_OBJ_FIRST:
        case CHROME_J_OBJ_KEY:
            if (tok == CHROME_T_CLOSE && c == '}' && st == CHROME_J_OBJ_FIRST) goto close;
            if (tok != CHROME_T_STRING) goto bad;
            {
                const unsigned char *s = start + 1;
                size_t n = (size_t)(q - start) - 2;
                if (esc) {
                    if (chrome_json_unescape(r, s, n, &n)) goto fatal;
                    s = r->jtext;
                }
                chrome_json_key(r, s, n, esc);
                if (!r->jskip) ok = chrome_on_key(r, s, n);
            }
            st = CHROME_J_OBJ_COLON;
            break;
        case CHROME_J_VALUE:
        case CHROME_J_ARR_FIRST:
            if (tok == CHROME_T_CLOSE && c == ']' && st == CHROME_J_ARR_FIRST) goto close;
            if (tok == CHROME_T_OPEN) {
                char kind = c == '{' ? 'm' : 'a';
                if (chrome_json_open(r, kind)) goto fatal;
                if (!r->jskip) {
                    ok = chrome_on_open(r, kind);
                    /* A value the walk skips whole: its tokens are checked, not handed over. */
                    if (r->cap_depth == 1 && r->cap_target == CHROME_CAP_SKIP) r->jskip = r->depth;
                }
                st = kind == 'm' ? CHROME_J_OBJ_FIRST : CHROME_J_ARR_FIRST;
                break;
            }
            if (tok == CHROME_T_COMMA || tok == CHROME_T_COLON || tok == CHROME_T_CLOSE) goto bad;
            r->last = 'v';
            r->last_tok_end = r->tok_end;
            if (!r->jskip) {
                if (tok == CHROME_T_STRING) {
                    const unsigned char *s = start + 1;
                    size_t n = (size_t)(q - start) - 2;
                    if (esc) {
                        if (chrome_json_unescape(r, s, n, &n)) goto fatal;
                        s = r->jtext;
                    }
                    ok = chrome_on_scalar(r, CHROME_V_STRING, s, n);
                } else {
                    ok = chrome_on_scalar(r,
                                          tok == CHROME_T_NUMBER ? CHROME_V_NUMBER
                                          : c == 'n'             ? CHROME_V_NULL
                                                                 : CHROME_V_BOOL,
                                          start, (size_t)(q - start));
                }
            }
            st = chrome_json_after_value(r);
            break;
        default: /* CHROME_J_DONE */
            goto bad;
        }
        if (!ok) goto fatal;
        p = q;
        continue;
    close : {
        int empty = r->last == 's'; /* nothing since the container's own start */
        r->depth--;
        r->last = 'v';
        r->last_tok_end = r->tok_end;
        if (r->jskip && r->depth < r->jskip) r->jskip = 0; /* the walk's own close follows */
        if (!r->jskip && !chrome_on_close(r, empty)) goto fatal;
        st = chrome_json_after_value(r);
        p = q;
        continue;
    }
    bad:
        res = chrome_json_fail(r, -1);
        break;
    fatal:
        res = TCONV_FATAL;
        break;
    }
    r->jstate = st;
    chrome_json_settle(r);
    *used = (size_t)(p - buf);
    return res;
}

void chrome_json_free(chrome_reader *r)
{
    free(r->nest);
    free(r->jtext);
}
