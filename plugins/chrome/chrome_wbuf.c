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

void chrome_wbuf_flush(chrome_wbuf *b)
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

void chrome_wbuf_put_slow(chrome_wbuf *b, const void *s, size_t n)
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

/* Whether s[0 .. n) is printable ASCII without '"' or '\\': its JSON text is itself. Names
 * and categories nearly always are. */
static int chrome_wbuf_plain(const unsigned char *s, size_t n)
{
    size_t i = 0;
#if defined(__GNUC__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
    /* Eight bytes per step; a byte's high bit in zero() is set exactly where the byte is 0. */
    const uint64_t ones = 0x0101010101010101ull, low7 = 0x7f7f7f7f7f7f7f7full;
#define CHROME_ZERO(x) (~((((x)&low7) + low7) | (x) | low7))
    for (; i + 8 <= n; i += 8) {
        uint64_t w;
        memcpy(&w, s + i, 8);
        uint64_t bad = w | CHROME_ZERO(w & (ones * 0xe0)) | CHROME_ZERO(w ^ (ones * 0x7f)) |
                       CHROME_ZERO(w ^ (ones * '"')) | CHROME_ZERO(w ^ (ones * '\\'));
        if (bad & (ones * 0x80)) return 0;
    }
#undef CHROME_ZERO
#endif
    unsigned bad = 0;
    for (; i < n; i++) {
        unsigned c = s[i];
        bad |= (c - 0x20u) >= 0x5fu; /* below 0x20, or 0x7f and up */
        bad |= c == '"';
        bad |= c == '\\';
    }
    return !bad;
}

/* The core's JSON escapes, written straight into this writer's buffer. */
void chrome_wbuf_string(chrome_wbuf *b, const char *str, size_t n)
{
    if (n <= 64 && CHROME_WBUF_SIZE - b->len >= n + 3 &&
        chrome_wbuf_plain((const unsigned char *)str, n)) {
        unsigned char *d = b->buf + b->len;
        d[0] = '"';
        memcpy(d + 1, str, n);
        d[n + 1] = '"';
        b->len += n + 2;
        return;
    }
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
    /* Two digits per division, from a table; straight into the buffer when 20 bytes fit. */
    static const char pairs[] = "000102030405060708091011121314151617181920212223242526272829"
                                "303132333435363738394041424344454647484950515253545556575859"
                                "606162636465666768697071727374757677787980818283848586878889"
                                "90919293949596979899";
    char tmp[24];
    size_t i = sizeof tmp;
    while (v >= 100) {
        unsigned r = (unsigned)(v % 100);
        v /= 100;
        tmp[--i] = pairs[2 * r + 1];
        tmp[--i] = pairs[2 * r];
    }
    if (v >= 10) {
        tmp[--i] = pairs[2 * v + 1];
        tmp[--i] = pairs[2 * v];
    } else {
        tmp[--i] = (char)('0' + v);
    }
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
