#include "chrome_utf8.h"

#include <string.h>

/* Length of the valid sequence starting at s[0] (1..4), or 0 if it is not one. Follows the
 * Unicode "maximal subpart" rules: no overlongs, no surrogates, nothing above U+10FFFF. */
static size_t chrome_utf8_seq(const unsigned char *s, size_t n)
{
    unsigned c = s[0];
    if (c < 0x80) return 1;
    if (c < 0xC2) return 0;
    if (c < 0xE0) return n >= 2 && (s[1] & 0xC0) == 0x80 ? 2 : 0;
    if (c < 0xF0) {
        if (n < 3 || (s[2] & 0xC0) != 0x80) return 0;
        unsigned lo = c == 0xE0 ? 0xA0 : 0x80, hi = c == 0xED ? 0x9F : 0xBF;
        return s[1] >= lo && s[1] <= hi ? 3 : 0;
    }
    if (c < 0xF5) {
        if (n < 4 || (s[2] & 0xC0) != 0x80 || (s[3] & 0xC0) != 0x80) return 0;
        unsigned lo = c == 0xF0 ? 0x90 : 0x80, hi = c == 0xF4 ? 0x8F : 0xBF;
        return s[1] >= lo && s[1] <= hi ? 4 : 0;
    }
    return 0;
}

size_t chrome_utf8_valid_prefix(const unsigned char *s, size_t n)
{
    size_t i = 0;
    while (i < n) {
        /* Names are nearly always ASCII: skip it eight bytes at a time. */
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
        size_t k = chrome_utf8_seq(s + i, n - i);
        if (!k) return i;
        i += k;
    }
    return n;
}

size_t chrome_utf8_repair(char *dst, const unsigned char *s, size_t n)
{
    size_t o = 0, i = 0;
    while (i < n) {
        size_t k = chrome_utf8_seq(s + i, n - i);
        if (k) {
            memcpy(dst + o, s + i, k);
            o += k;
            i += k;
            continue;
        }
        memcpy(dst + o, "\xEF\xBF\xBD", 3);
        o += 3;
        /* One replacement per maximal invalid subpart: skip the lead byte and the
         * continuation bytes that could have belonged to it. */
        i++;
        while (i < n && (s[i] & 0xC0) == 0x80 && !chrome_utf8_seq(s + i, n - i))
            i++;
    }
    return o;
}
