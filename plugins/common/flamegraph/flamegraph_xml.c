/* Escaping works on code points, not bytes, so that a label cut to fit its frame never splits a
 * UTF-8 sequence and XML-illegal characters (controls, U+FFFE/U+FFFF, surrogates, overlong or
 * truncated sequences) never reach the output. */
#include "flamegraph_xml.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "flamegraph_oom.h"

void flamegraph_buf_put(flamegraph_buf *b, const char *s, size_t n)
{
    b->p = flamegraph_grow(b->p, &b->cap, b->len + n + 1, 1);
    memcpy(b->p + b->len, s, n);
    b->len += n;
}

void flamegraph_buf_puts(flamegraph_buf *b, const char *s)
{
    flamegraph_buf_put(b, s, strlen(s));
}

void flamegraph_buf_printf(flamegraph_buf *b, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(NULL, 0, fmt, ap);
    va_end(ap);
    if (n < 0) return;
    b->p = flamegraph_grow(b->p, &b->cap, b->len + (size_t)n + 1, 1);
    va_start(ap, fmt);
    vsnprintf(b->p + b->len, (size_t)n + 1, fmt, ap);
    va_end(ap);
    b->len += (size_t)n;
}

void flamegraph_buf_free(flamegraph_buf *b)
{
    free(b->p);
    *b = (flamegraph_buf){0};
}

/* The code point at s (n > 0 bytes left) and its length in *len; -1 (length 1) when the bytes
 * there are not well-formed UTF-8 (RFC 3629: no overlongs, no surrogates, nothing past
 * U+10FFFF). */
static long flamegraph_xml_decode(const unsigned char *s, size_t n, size_t *len)
{
    *len = 1;
    unsigned c = s[0];
    if (c < 0x80) return (long)c;
    size_t k;
    unsigned long cp, min;
    if (c >= 0xC2 && c <= 0xDF) {
        k = 2, cp = c & 0x1F, min = 0x80;
    } else if (c >= 0xE0 && c <= 0xEF) {
        k = 3, cp = c & 0x0F, min = 0x800;
    } else if (c >= 0xF0 && c <= 0xF4) {
        k = 4, cp = c & 0x07, min = 0x10000;
    } else {
        return -1;
    }
    if (n < k) return -1;
    for (size_t i = 1; i < k; i++) {
        if ((s[i] & 0xC0) != 0x80) return -1;
        cp = cp << 6 | (s[i] & 0x3F);
    }
    if (cp < min || cp > 0x10FFFF || (cp >= 0xD800 && cp <= 0xDFFF)) return -1;
    *len = k;
    return (long)cp;
}

size_t flamegraph_xml_chars(const char *s, size_t n)
{
    size_t chars = 0;
    for (size_t i = 0, len; i < n; i += len, chars++)
        flamegraph_xml_decode((const unsigned char *)s + i, n - i, &len);
    return chars;
}

void flamegraph_xml_escape(flamegraph_buf *b, const char *s, size_t n, size_t max)
{
    static const char replacement[] = "\xEF\xBF\xBD"; /* U+FFFD */
    size_t i = 0, len, chars = 0, run = 0;            /* s[run..i) is copied as it is */
    for (; i < n && chars < max; i += len, chars++) {
        long cp = flamegraph_xml_decode((const unsigned char *)s + i, n - i, &len);
        const char *rep;
        switch (cp) {
        case '&':
            rep = "&amp;";
            break;
        case '<':
            rep = "&lt;";
            break;
        case '>':
            rep = "&gt;";
            break;
        case '"':
            rep = "&quot;";
            break;
        case '\'':
            rep = "&#39;";
            break;
        case '\t':
        case '\n':
        case '\r':
            rep = " ";
            break;
        default:
            rep = cp < 0x20 || cp == 0xFFFE || cp == 0xFFFF ? replacement : NULL;
        }
        if (!rep) continue;
        flamegraph_buf_put(b, s + run, i - run);
        flamegraph_buf_puts(b, rep);
        run = i + len;
    }
    flamegraph_buf_put(b, s + run, i - run);
}
