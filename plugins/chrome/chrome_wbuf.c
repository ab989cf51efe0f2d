/* The chrome writer's output buffer, its gzip stream and its JSON pieces. */
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "chrome_wbuf.h"

int chrome_wbuf_open(chrome_wbuf *b, tconv_ctx *ctx, tconv_output *out, int gzip)
{
    b->ctx = ctx;
    b->out = out;
    b->failed = 0;
    b->len = 0;
    b->gz = NULL;
    if (gzip && !(b->gz = tconv_gzout_new(ctx, out, 6))) return -1;
    return 0;
}

static void chrome_wbuf_flush(chrome_wbuf *b)
{
    if (!b->failed && b->len &&
        (b->gz ? tconv_gzout_write(b->gz, b->buf, b->len)
               : tconv_output_write(b->out, b->buf, b->len)) != 0)
        b->failed = 1;
    b->len = 0;
}

int chrome_wbuf_close(chrome_wbuf *b)
{
    chrome_wbuf_flush(b);
    if (!b->failed && b->gz && tconv_gzout_finish(b->gz) != 0) b->failed = 1;
    return b->failed ? -1 : 0;
}

void chrome_wbuf_free(chrome_wbuf *b)
{
    tconv_gzout_free(b->gz);
    b->gz = NULL;
}

void chrome_wbuf_put(chrome_wbuf *b, const void *s, size_t n)
{
    const unsigned char *p = s;
    while (n) {
        size_t room = CHROME_WBUF_SIZE - b->len;
        size_t k = n < room ? n : room;
        memcpy(b->buf + b->len, p, k);
        b->len += k;
        p += k;
        n -= k;
        if (b->len == CHROME_WBUF_SIZE) chrome_wbuf_flush(b);
    }
}

void chrome_wbuf_cstr(chrome_wbuf *b, const char *s)
{
    chrome_wbuf_put(b, s, strlen(s));
}

void chrome_wbuf_putc(chrome_wbuf *b, char c)
{
    if (b->len == CHROME_WBUF_SIZE) chrome_wbuf_flush(b);
    b->buf[b->len++] = (unsigned char)c;
}

/* The core's JSON escapes, written straight into this writer's buffer. */
void chrome_wbuf_string(chrome_wbuf *b, const char *str, size_t n)
{
    chrome_wbuf_putc(b, '"');
    while (n) {
        if (CHROME_WBUF_SIZE - b->len < 6) chrome_wbuf_flush(b); /* room for any escape */
        size_t used;
        b->len +=
            tconv_json_escape((char *)b->buf + b->len, CHROME_WBUF_SIZE - b->len, str, n, &used);
        str += used;
        n -= used;
    }
    chrome_wbuf_putc(b, '"');
}

void chrome_wbuf_str(chrome_wbuf *b, tconv_str id)
{
    chrome_wbuf_string(b, tconv_string_get(b->ctx, id), tconv_string_length(b->ctx, id));
}

void chrome_wbuf_u64(chrome_wbuf *b, uint64_t v)
{
    char tmp[24];
    size_t i = sizeof tmp;
    do {
        tmp[--i] = (char)('0' + v % 10);
        v /= 10;
    } while (v);
    chrome_wbuf_put(b, tmp + i, sizeof tmp - i);
}

void chrome_wbuf_i64(chrome_wbuf *b, int64_t v)
{
    if (v < 0) {
        chrome_wbuf_putc(b, '-');
        chrome_wbuf_u64(b, (uint64_t)0 - (uint64_t)v);
    } else {
        chrome_wbuf_u64(b, (uint64_t)v);
    }
}

void chrome_wbuf_us(chrome_wbuf *b, int64_t ns)
{
    uint64_t m = ns < 0 ? (uint64_t)0 - (uint64_t)ns : (uint64_t)ns;
    if (ns < 0) chrome_wbuf_putc(b, '-');
    chrome_wbuf_u64(b, m / 1000);
    unsigned frac = (unsigned)(m % 1000);
    if (!frac) return;
    char d[4] = {'.', (char)('0' + frac / 100), (char)('0' + frac / 10 % 10),
                 (char)('0' + frac % 10)};
    size_t n = 4;
    while (d[n - 1] == '0')
        n--;
    chrome_wbuf_put(b, d, n);
}

void chrome_wbuf_double(chrome_wbuf *b, double d)
{
    if (!isfinite(d)) {
        chrome_wbuf_cstr(b, "null");
        return;
    }
    /* The shortest of 15, 16 and 17 significant digits that reads back as the same double; an
     * integral value keeps a ".0" so that it reads back as a double, not an integer. */
    char tmp[48];
    int n = 0;
    for (int prec = 15; prec <= 17; prec++) {
        n = snprintf(tmp, sizeof tmp, "%.*g", prec, d);
        if (strtod(tmp, NULL) == d) break;
    }
    int plain = 1;
    for (int i = 0; i < n; i++) {
        /* A locale with a decimal comma would make it no JSON number. */
        if (tmp[i] == ',') tmp[i] = '.';
        if (tmp[i] == '.' || tmp[i] == 'e' || tmp[i] == 'n' || tmp[i] == 'i') plain = 0;
    }
    chrome_wbuf_put(b, tmp, (size_t)n);
    if (plain) chrome_wbuf_cstr(b, ".0");
}

void chrome_wbuf_id_text(chrome_wbuf *b, const char *s, size_t n)
{
    size_t i = s[0] == '-' ? 1 : 0;
    /* 15 digits stay exact in the double a JavaScript viewer reads them into. */
    int num = n > i && n - i <= 15 && (s[i] != '0' || n - i == 1);
    for (size_t k = i; num && k < n; k++)
        num = s[k] >= '0' && s[k] <= '9';
    if (num && !(i == 1 && s[1] == '0'))
        chrome_wbuf_put(b, s, n);
    else
        chrome_wbuf_string(b, s, n);
}
