/* UTF-8 checks for text taken from inputs. Names are nearly always ASCII, so the scan skips
 * ASCII eight bytes at a time and decodes only the rest.
 *
 * One rule for what is not a character: a byte sequence that is not UTF-8 (tconv_utf8_repair)
 * and a code point that UTF-8 cannot hold (an unpaired surrogate from a "\ud800" escape, a
 * value past U+10FFFF: tconv_utf8_encode) both become U+FFFD, the replacement character. */
#include <string.h>

#include "util.h"
#include <tconv/utf8.h>

TCONV_API size_t tconv_utf8_seq(const unsigned char *s, size_t n)
{
    unsigned c = s[0];
    if (c < 0x80) return 1;
    if (c < 0xC2) return 0;
    if (c < 0xE0) return n >= 2 && (s[1] & 0xC0) == 0x80 ? 2 : 0;
    if (c < 0xF0) {
        if (n < 3 || (s[2] & 0xC0) != 0x80) return 0;
        unsigned lo = c == 0xE0 ? 0xA0 : 0x80,
                 hi = c == 0xED ? 0x9F : 0xBF; /* overlong, surrogate */
        return s[1] >= lo && s[1] <= hi ? 3 : 0;
    }
    if (c < 0xF5) {
        if (n < 4 || (s[2] & 0xC0) != 0x80 || (s[3] & 0xC0) != 0x80) return 0;
        unsigned lo = c == 0xF0 ? 0x90 : 0x80, hi = c == 0xF4 ? 0x8F : 0xBF; /* above U+10FFFF */
        return s[1] >= lo && s[1] <= hi ? 4 : 0;
    }
    return 0;
}

TCONV_API size_t tconv_utf8_valid_prefix(const unsigned char *s, size_t n)
{
    size_t i = 0;
    while (i < n) {
        while (i + 8 <= n) {
            unsigned long long w;
            memcpy(&w, s + i, 8);
            if (w & 0x8080808080808080ull) break;
            i += 8;
        }
        if (i >= n) break;
        if (s[i] < 0x80) {
            i++;
            continue;
        }
        size_t k = tconv_utf8_seq(s + i, n - i);
        if (!k) return i;
        i += k;
    }
    return n;
}

TCONV_API size_t tconv_utf8_repair(char *dst, const unsigned char *s, size_t n)
{
    size_t o = 0, i = 0;
    while (i < n) {
        size_t k = tconv_utf8_seq(s + i, n - i);
        if (k) {
            memcpy(dst + o, s + i, k);
            o += k;
            i += k;
            continue;
        }
        memcpy(dst + o, "\xEF\xBF\xBD", 3);
        o += 3;
        /* One replacement per bad sequence: the lead byte and the continuation bytes that
         * follow it (a continuation byte never starts a sequence of its own). */
        i++;
        while (i < n && (s[i] & 0xC0) == 0x80)
            i++;
    }
    return o;
}

size_t tconv_utf8_encode(uint32_t cp, unsigned char *out)
{
    if ((cp >= 0xD800 && cp <= 0xDFFF) || cp > 0x10FFFF) cp = 0xFFFD;
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
