/* Loading a document whole, and the byte probes of the readers that do. */
#include "jsondoc.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* jansson drops bytes when an allocation fails inside its lexer, so a failed allocation would
 * give a wrong document without a word: its allocator ends the run instead, as the core does.
 * It is set again before each load, so that it is always the loading plugin's own copy (this
 * library is linked into each plugin, with hidden symbols), which is loaded. */
static void *jsondoc_alloc(size_t n)
{
    void *p = malloc(n);
    if (p) return p;
    fprintf(stderr, "tconv: error: out of memory (allocating %zu bytes)\n", n);
    exit(1);
}

json_t *jsondoc_load(tconv_ctx *ctx, tconv_input *in)
{
    size_t cap = 64 * 1024, n = 0;
    char *buf = malloc(cap);
    for (;;) {
        if (!buf) {
            tconv_error_set(ctx, "%s: out of memory reading the profile", tconv_input_name(in));
            return NULL;
        }
        if (n == cap) {
            char *more = cap > SIZE_MAX / 2 ? NULL : realloc(buf, cap * 2);
            if (!more) free(buf);
            buf = more;
            cap *= 2;
            continue;
        }
        ssize_t got = tconv_input_read(in, buf + n, cap - n);
        if (got < 0) {
            free(buf);
            return NULL;
        }
        if (got == 0) break;
        n += (size_t)got;
    }
    size_t skip = n >= 3 && memcmp(buf, "\xef\xbb\xbf", 3) == 0 ? 3 : 0;
    json_error_t err;
    json_set_alloc_funcs(jsondoc_alloc, free);
    json_t *doc = json_loadb(buf + skip, n - skip, 0, &err);
    free(buf);
    if (!doc) {
        tconv_error_at(ctx, tconv_input_name(in), (uint64_t)err.position + skip,
                       "invalid JSON: %s (line %d, column %d)", err.text, err.line, err.column);
        return NULL;
    }
    return doc;
}

int jsondoc_has(const unsigned char *buf, size_t len, const char *needle)
{
    size_t n = strlen(needle);
    for (size_t i = 0; i + n <= len; i++)
        if (buf[i] == (unsigned char)needle[0] && memcmp(buf + i, needle, n) == 0) return 1;
    return 0;
}
