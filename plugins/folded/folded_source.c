/* UTF-16 folded files are small (they come from hand-made or Windows tools), so they are decoded
 * whole; everything else streams through the core's line reader. */
#include "folded_source.h"
#include "folded_oom.h"

#include <stdlib.h>
#include <string.h>

int folded_source_is_utf16(const unsigned char *buf, size_t len)
{
    return len >= 2 && ((buf[0] == 0xff && buf[1] == 0xfe) || (buf[0] == 0xfe && buf[1] == 0xff));
}

static void folded_source_put(char **out, size_t *len, size_t *cap, uint32_t cp)
{
    if (*len + 4 > *cap) {
        size_t c = *cap ? *cap * 2 : 4096;
        char *q = realloc(*out, c);
        if (!q) folded_oom(c);
        *out = q;
        *cap = c;
    }
    char *p = *out + *len;
    if (cp < 0x80) {
        p[0] = (char)cp;
        *len += 1;
    } else if (cp < 0x800) {
        p[0] = (char)(0xc0 | cp >> 6);
        p[1] = (char)(0x80 | (cp & 0x3f));
        *len += 2;
    } else if (cp < 0x10000) {
        p[0] = (char)(0xe0 | cp >> 12);
        p[1] = (char)(0x80 | ((cp >> 6) & 0x3f));
        p[2] = (char)(0x80 | (cp & 0x3f));
        *len += 3;
    } else {
        p[0] = (char)(0xf0 | cp >> 18);
        p[1] = (char)(0x80 | ((cp >> 12) & 0x3f));
        p[2] = (char)(0x80 | ((cp >> 6) & 0x3f));
        p[3] = (char)(0x80 | (cp & 0x3f));
        *len += 4;
    }
}

static int folded_source_decode(folded_source *s)
{
    unsigned char *raw = NULL;
    size_t n = 0, cap = 0;
    for (;;) {
        if (n + 65536 > cap) {
            cap = cap ? cap * 2 : 131072;
            unsigned char *q = realloc(raw, cap);
            if (!q) folded_oom(cap);
            raw = q;
        }
        ssize_t r = tconv_input_read(s->in, raw + n, cap - n);
        if (r < 0) {
            free(raw);
            return -1;
        }
        if (r == 0) break;
        n += (size_t)r;
    }
    int le = raw[0] == 0xff;
    size_t ocap = 0;
    for (size_t i = 2; i + 1 < n; i += 2) {
        uint32_t u =
            le ? (uint32_t)(raw[i] | raw[i + 1] << 8) : (uint32_t)(raw[i] << 8 | raw[i + 1]);
        if (u >= 0xd800 && u < 0xdc00 && i + 3 < n) {
            uint32_t lo = le ? (uint32_t)(raw[i + 2] | raw[i + 3] << 8)
                             : (uint32_t)(raw[i + 2] << 8 | raw[i + 3]);
            if (lo >= 0xdc00 && lo < 0xe000) {
                u = 0x10000 + ((u - 0xd800) << 10) + (lo - 0xdc00);
                i += 2;
            } else {
                u = 0xfffd;
            }
        } else if (u >= 0xd800 && u < 0xe000) {
            u = 0xfffd; /* a lone surrogate */
        }
        folded_source_put(&s->mem, &s->memlen, &ocap, u);
    }
    folded_source_put(&s->mem, &s->memlen, &ocap, 0);
    s->memlen--; /* the NUL stays as a terminator */
    free(raw);
    return 0;
}

int folded_source_open(folded_source *s, tconv_input *in)
{
    memset(s, 0, sizeof(*s));
    s->in = in;
    s->first = 1;
    size_t n = 0;
    const unsigned char *p = tconv_input_peek(in, &n);
    if (folded_source_is_utf16(p, n)) return folded_source_decode(s);
    return 0;
}

const char *folded_source_next(folded_source *s, size_t *len)
{
    const char *line;
    if (s->mem) {
        if (s->pos >= s->memlen) return NULL;
        s->start = s->pos;
        char *b = s->mem + s->pos;
        char *nl = memchr(b, '\n', s->memlen - s->pos);
        size_t n = nl ? (size_t)(nl - b) : s->memlen - s->pos;
        s->pos += n + (nl ? 1 : 0);
        if (n && b[n - 1] == '\r') n--;
        b[n] = 0;
        *len = n;
        line = b;
    } else {
        s->start = tconv_input_offset(s->in);
        line = tconv_input_getline(s->in, len);
        if (!line) return NULL;
    }
    s->line++;
    if (s->first) {
        s->first = 0;
        if (*len >= 3 && memcmp(line, "\xef\xbb\xbf", 3) == 0) {
            line += 3;
            *len -= 3;
        }
    }
    return line;
}

void folded_source_close(folded_source *s)
{
    free(s->mem);
    s->mem = NULL;
}
