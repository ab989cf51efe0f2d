/* The chrome writer's output: a buffer that goes to the output as it is, or through gzip when
 * the output's name ends in ".gz", and the JSON pieces it is made of. */
#ifndef CHROME_WBUF_H
#define CHROME_WBUF_H

#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <tconv/tconv.h>

#define CHROME_WBUF_SIZE ((size_t)64 * 1024)

typedef struct chrome_wbuf {
    tconv_ctx *ctx;
    tconv_output *out;
    tconv_gzout *gz; /* NULL: plain */
    int failed;
    size_t len;
    unsigned char buf[CHROME_WBUF_SIZE];
} chrome_wbuf;

int chrome_wbuf_open(chrome_wbuf *b, tconv_ctx *ctx, tconv_output *out, int gzip);
/* Writes what is buffered and ends the gzip stream; -1 on error (on the ctx). */
int chrome_wbuf_close(chrome_wbuf *b);
void chrome_wbuf_free(chrome_wbuf *b);
/* The slow half of chrome_wbuf_put: bytes that do not fit before the buffer is written. */
void chrome_wbuf_put_slow(chrome_wbuf *b, const void *s, size_t n);
void chrome_wbuf_flush(chrome_wbuf *b);

/* The pieces of an event are a few bytes each and nearly always fit: those are a copy here,
 * without a call (a call per piece was a third of the writer's time). */
static inline void chrome_wbuf_put(chrome_wbuf *b, const void *s, size_t n)
{
    if (n <= CHROME_WBUF_SIZE - b->len) {
        memcpy(b->buf + b->len, s, n);
        b->len += n;
        if (b->len == CHROME_WBUF_SIZE) chrome_wbuf_flush(b);
        return;
    }
    chrome_wbuf_put_slow(b, s, n);
}

/* s is a literal at nearly every call: its length is a constant. */
static inline void chrome_wbuf_cstr(chrome_wbuf *b, const char *s)
{
    chrome_wbuf_put(b, s, strlen(s));
}

static inline void chrome_wbuf_putc(chrome_wbuf *b, char c)
{
    if (b->len == CHROME_WBUF_SIZE) chrome_wbuf_flush(b);
    b->buf[b->len++] = (unsigned char)c;
}

/* A JSON string with the escapes RFC 8259 requires; bytes that are not UTF-8 become U+FFFD. */
void chrome_wbuf_string(chrome_wbuf *b, const char *s, size_t n);
void chrome_wbuf_str(chrome_wbuf *b, tconv_str id);
/* ns as µs with the nanoseconds as decimals, trailing zeros dropped: 1712195495519689047 ->
 * 1712195495519689.047, 1500 -> 1.5, 2000 -> 2. From integers only. */
void chrome_wbuf_us(chrome_wbuf *b, int64_t ns);
void chrome_wbuf_i64(chrome_wbuf *b, int64_t v);
void chrome_wbuf_u64(chrome_wbuf *b, uint64_t v);
/* A double as the shortest text that reads back as it; NaN and infinities, which JSON has no
 * words for, as null. */
void chrome_wbuf_double(chrome_wbuf *b, double d);
/* pid or tid text: a number when it is a base-10 integer, else a string. */
void chrome_wbuf_id_text(chrome_wbuf *b, const char *s, size_t n);

#endif
