/* A streaming JSON lexer: fed the input in buffers of any size, it checks the grammar and hands
 * each token to a callback, strings unescaped and numbers as the text written, so that a
 * reader can convert times exactly. A token cut by the end of a buffer is completed with the
 * next one. Memory stays with the nesting depth and the longest token, never with the input.
 *
 * It accepts and rejects what yajl 2.1 does (partial values allowed, strings not validated),
 * with the same messages for bad tokens: '\v' and '\f' count as blanks; a string holds any
 * byte from 0x20 up; a \u escape of a high surrogate combines with any \u escape that follows
 * it and becomes '?' when none follows. Added in ABI 1.1. */
#ifndef TCONV_JSON_H
#define TCONV_JSON_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef struct tconv_json_lexer tconv_json_lexer;

typedef enum tconv_json_kind {
    TCONV_JSON_OBJECT_BEGIN = 1,
    TCONV_JSON_OBJECT_END,
    TCONV_JSON_ARRAY_BEGIN,
    TCONV_JSON_ARRAY_END,
    TCONV_JSON_KEY,    /* a member name, unescaped */
    TCONV_JSON_STRING, /* unescaped */
    TCONV_JSON_NUMBER, /* the text as written */
    TCONV_JSON_TRUE,
    TCONV_JSON_FALSE,
    TCONV_JSON_NULL
} tconv_json_kind;

/* One token, valid during the callback only. */
typedef struct tconv_json_token {
    tconv_json_kind kind;
    /* KEY and STRING: the unescaped bytes (not NUL-terminated; may hold NUL bytes from \u0000;
     * UTF-8 unchecked unless TCONV_JSON_REPAIR_UTF8). Others: the token's text ("{", "12.5",
     * "true", ...). */
    const char *text;
    size_t len;
    uint64_t offset; /* input offset of the token's first byte */
    uint64_t end;    /* input offset just past its last byte */
    int empty;       /* OBJECT_END and ARRAY_END: the container held nothing */
    int repaired;    /* KEY and STRING with TCONV_JSON_REPAIR_UTF8: bytes were replaced */
} tconv_json_token;

/* What a callback returns. */
enum {
    TCONV_JSON_GO = 0,
    /* After OBJECT_BEGIN or ARRAY_BEGIN: the container's content is checked but not handed
     * over; its END token is. */
    TCONV_JSON_SKIP = 1,
    TCONV_JSON_STOP = -1 /* end the lexing with TCONV_JSON_ERR_STOPPED */
};

typedef int (*tconv_json_token_fn)(void *user, const tconv_json_token *tok);

/* One callback per class of token (NULL: not wanted), so that each call site in the lexer always
 * calls the same function: a reader's dispatch costs no mispredicted branch per token. */
typedef struct tconv_json_callbacks {
    tconv_json_token_fn begin;  /* OBJECT_BEGIN, ARRAY_BEGIN */
    tconv_json_token_fn end;    /* OBJECT_END, ARRAY_END */
    tconv_json_token_fn key;    /* KEY */
    tconv_json_token_fn scalar; /* STRING, NUMBER, TRUE, FALSE, NULL */
} tconv_json_callbacks;

/* Flags of tconv_json_new. */
enum {
    /* Keys and strings that are not well-formed UTF-8 are repaired as tconv_utf8_repair does,
     * and the token says so. Without it they are handed over as they are (yajl's default). */
    TCONV_JSON_REPAIR_UTF8 = 1u << 0
};

typedef enum tconv_json_errcode {
    TCONV_JSON_OK = 0,
    TCONV_JSON_ERR_TOKEN,      /* a string, number or word that is not valid (message: yajl's) */
    TCONV_JSON_ERR_UNEXPECTED, /* a token where the grammar allows none such */
    TCONV_JSON_ERR_TRAILING,   /* a token after the document's value */
    TCONV_JSON_ERR_TRUNCATED,  /* tconv_json_end: containers still open */
    TCONV_JSON_ERR_EMPTY,      /* tconv_json_end: no value at all (only blanks) */
    TCONV_JSON_ERR_STOPPED,    /* a callback returned TCONV_JSON_STOP */
    TCONV_JSON_ERR_NOMEM
} tconv_json_errcode;

typedef struct tconv_json_error {
    tconv_json_errcode code;
    /* Input offset of what is wrong: the first byte after the last good token that is not a
     * blank (nor the ',' that follows a value); the input's length for an error found by
     * tconv_json_end. */
    uint64_t offset;
    size_t depth;  /* containers open */
    int after_key; /* a member name was read and its value was not */
    /* What is wrong, without the offset: "expected ',' or '}' after the value of \"name\",
     * found 'q'", "malformed number, a digit is required after the minus sign", ... */
    const char *message;
    const char *found; /* ERR_UNEXPECTED and ERR_TRAILING: "'q'", "byte 0x0b", ... */
} tconv_json_error;

/* NULL when out of memory. The callbacks are copied; flags: TCONV_JSON_* flags, or 0. */
tconv_json_lexer *tconv_json_new(const tconv_json_callbacks *cb, void *user, unsigned flags);
void tconv_json_free(tconv_json_lexer *lx);

/* The input offset of the next byte fed (0 at first): a reader that drops a byte order mark
 * before feeding says so here, and offsets still count it. */
void tconv_json_set_offset(tconv_json_lexer *lx, uint64_t offset);

/* Hand over the next len bytes of the input. 0 when all is well so far (a token cut by the end
 * of buf waits for the next call), -1 on an error (tconv_json_error), after which every call
 * returns -1. */
int tconv_json_feed(tconv_json_lexer *lx, const void *buf, size_t len);

/* End of input: completes a number cut by it, then checks that the document's value is
 * complete. 0 when it is; -1 with TCONV_JSON_ERR_TRUNCATED or TCONV_JSON_ERR_EMPTY when it is
 * not (the tokens before were all handed over: a reader may accept a truncated document), or
 * with another error. */
int tconv_json_end(tconv_json_lexer *lx);

/* The error after a call returned -1; code TCONV_JSON_OK before. Valid until the lexer is
 * freed. */
const tconv_json_error *tconv_json_error_get(const tconv_json_lexer *lx);

/* Containers open now (also inside a callback: the BEGIN token's container counts). */
size_t tconv_json_depth(const tconv_json_lexer *lx);

/* ---- writing -------------------------------------------------------------------------- */

/* The JSON text of s[0 .. n), without the quotes: '"', '\\' and control characters escaped
 * (\n \r \t, else \u00XX), other bytes that are not UTF-8 written as U+FFFD. Writes at most cap
 * bytes to dst, never splitting an escape or a character, sets *used to the input it took, and
 * returns the bytes written: call again with s + *used until *used == n. 6 * n bytes always
 * suffice for the whole string. */
size_t tconv_json_escape(char *dst, size_t cap, const char *s, size_t n, size_t *used);

#ifdef __cplusplus
}
#endif

#endif
