/* Loading the document. A memory profile is one JSON object whose parts refer to each other by
 * index (activeAllocations -> snapshots), so it is read whole; the profiler caps each allocator
 * at about a thousand snapshots, which keeps real files small. The text is kept so that errors
 * about the top-level members can point at their byte offset. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tfmem_reader.h"

/* jansson goes on when an allocation fails inside its lexer or json_dumps, dropping a byte of a
 * string or a key, so a failed allocation would give a wrong profile without a word. Its
 * allocator never fails: it ends the run as the core does when out of memory. It stays set for
 * the rest of the run, for the dumps of tfmem_peak.c (no other part of tconv uses jansson). */
static void *tfmem_load_alloc(size_t n)
{
    void *p = malloc(n);
    if (p) return p;
    fprintf(stderr, "tconv: error: out of memory (allocating %zu bytes)\n", n);
    exit(1);
}

/* The first byte that is not a blank (or a UTF-8 byte-order mark) from *from on; -1 if none. */
static int tfmem_load_first(const char *buf, size_t n, size_t *from)
{
    for (size_t i = *from; i < n; i++) {
        unsigned char c = (unsigned char)buf[i];
        if (c == ' ' || c == '\t' || c == '\n' || c == '\r' ||
            (i < 3 && (c == 0xef || c == 0xbb || c == 0xbf)))
            continue;
        *from = i;
        return c;
    }
    *from = n;
    return -1;
}

json_t *tfmem_load(tconv_ctx *ctx, tconv_input *in, uint64_t max, char **text, size_t *len)
{
    size_t cap = 64 * 1024, n = 0, scan = 0;
    int first = -1;
    char *buf = malloc(cap);
    *text = NULL;
    *len = 0;
    for (;;) {
        if (!buf) {
            tconv_error_set(ctx, "%s: out of memory reading the memory profile",
                            tconv_input_name(in));
            return NULL;
        }
        if (n == cap) {
            char *more = cap > SIZE_MAX / 2 ? NULL : realloc(buf, cap * 2);
            if (!more) {
                free(buf);
                buf = NULL;
                continue;
            }
            buf = more;
            cap *= 2;
        }
        ssize_t got = tconv_input_read(in, buf + n, cap - n);
        if (got < 0) {
            free(buf);
            if (!tconv_error_pending(ctx))
                tconv_error_set(ctx, "%s: read error", tconv_input_name(in));
            return NULL;
        }
        if (got == 0) break;
        n += (size_t)got;
        /* Reading everything before looking would take all memory from /dev/zero. */
        if (first < 0 && (first = tfmem_load_first(buf, n, &scan)) >= 0 && first != '{' &&
            first != '[') {
            tconv_error_at(ctx, tconv_input_name(in), scan,
                           "invalid JSON: byte 0x%02x where the document should start; expected "
                           "a TensorFlow memory profile, one JSON object",
                           (unsigned)first);
            free(buf);
            return NULL;
        }
        if (n > max) {
            tconv_error_set(ctx,
                            "%s: larger than %llu bytes, the most the tfmem reader loads (it "
                            "reads a memory profile whole, about 8 times its size in memory); "
                            "raise it with -R max-bytes=N",
                            tconv_input_name(in), (unsigned long long)max);
            free(buf);
            return NULL;
        }
    }
    json_error_t err;
    json_set_alloc_funcs(tfmem_load_alloc, free);
    json_t *doc = json_loadb(buf, n, 0, &err);
    if (!doc) {
        tconv_error_at(ctx, tconv_input_name(in), (uint64_t)err.position,
                       "invalid JSON: %s (line %d, column %d); expected a TensorFlow memory "
                       "profile, one JSON object",
                       err.text, err.line, err.column);
        free(buf);
        return NULL;
    }
    *text = buf;
    *len = n;
    return doc;
}
