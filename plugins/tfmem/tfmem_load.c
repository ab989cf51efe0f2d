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

json_t *tfmem_load(tconv_ctx *ctx, tconv_input *in, char **text, size_t *len)
{
    size_t cap = 64 * 1024, n = 0;
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
