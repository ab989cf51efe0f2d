/* The one JSON string writer: RFC 8259 escapes, and bytes that are not UTF-8 written as U+FFFD
 * (one per bad lead byte, as the csv tables have always shown them), so that any interned
 * string, which holds whatever bytes a trace had, becomes valid JSON text. It writes into the
 * caller's buffer as much as fits and says how much input it took, so writers with a fixed
 * buffer (the chrome writer) and growing ones (csv) share it. */
#include <string.h>

#include "util.h"

TCONV_API size_t tconv_json_escape(char *dst, size_t cap, const char *str, size_t n, size_t *used)
{
    static const char hex[] = "0123456789abcdef";
    const unsigned char *s = (const unsigned char *)str;
    size_t i = 0, o = 0;
    while (i < n) {
        unsigned char c = s[i];
        size_t len = 1;
        const char *esc = NULL;
        char u[6];
        size_t elen = 0;
        if (c >= 0x20 && c != '"' && c != '\\' && c < 0x80) {
            /* a run of bytes that need nothing: copied at once */
            size_t j = i + 1;
            while (j < n && s[j] >= 0x20 && s[j] < 0x80 && s[j] != '"' && s[j] != '\\')
                j++;
            size_t k = j - i <= cap - o ? j - i : cap - o;
            if (!k) break;
            memcpy(dst + o, s + i, k);
            o += k;
            i += k;
            continue;
        }
        if (c >= 0x80 && (len = tconv_utf8_seq(s + i, n - i)) != 0) {
            esc = (const char *)s + i;
            elen = len;
        } else {
            len = 1;
            switch (c) {
            case '"':
                esc = "\\\"", elen = 2;
                break;
            case '\\':
                esc = "\\\\", elen = 2;
                break;
            case '\n':
                esc = "\\n", elen = 2;
                break;
            case '\r':
                esc = "\\r", elen = 2;
                break;
            case '\t':
                esc = "\\t", elen = 2;
                break;
            default:
                if (c < 0x20) {
                    u[0] = '\\', u[1] = 'u', u[2] = '0', u[3] = '0';
                    u[4] = hex[c >> 4], u[5] = hex[c & 15];
                    esc = u, elen = 6;
                } else {
                    esc = TCONV_UTF8_REPLACEMENT, elen = 3;
                }
            }
        }
        if (elen > cap - o) break; /* a sequence or escape is never split */
        memcpy(dst + o, esc, elen);
        o += elen;
        i += len;
    }
    if (used) *used = i;
    return o;
}
