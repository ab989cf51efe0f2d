/* Loading a document whole, and the units of the format. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "speedscope.h"

/* jansson drops bytes when an allocation fails inside its lexer, so a failed allocation would
 * give a wrong profile without a word: its allocator ends the run instead, as the core does.
 * It is set again before each load, so that it is always this plugin's, which is loaded. */
static void *speedscope_alloc(size_t n)
{
    void *p = malloc(n);
    if (p) return p;
    fprintf(stderr, "tconv: error: out of memory (allocating %zu bytes)\n", n);
    exit(1);
}

json_t *speedscope_load(tconv_ctx *ctx, tconv_input *in)
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
    json_set_alloc_funcs(speedscope_alloc, free);
    json_t *doc = json_loadb(buf + skip, n - skip, 0, &err);
    free(buf);
    if (!doc) {
        tconv_error_at(ctx, tconv_input_name(in), (uint64_t)err.position + skip,
                       "invalid JSON: %s (line %d, column %d)", err.text, err.line, err.column);
        return NULL;
    }
    return doc;
}

int speedscope_unit(const char *unit, speedscope_class *cls, double *scale)
{
    static const struct {
        const char *name;
        speedscope_class cls;
        double scale;
    } units[] = {
        {"nanoseconds", SPEEDSCOPE_TIME, 1},    {"microseconds", SPEEDSCOPE_TIME, 1e3},
        {"milliseconds", SPEEDSCOPE_TIME, 1e6}, {"seconds", SPEEDSCOPE_TIME, 1e9},
        {"bytes", SPEEDSCOPE_BYTES, 1},         {"none", SPEEDSCOPE_NONE, 1},
    };
    for (size_t i = 0; unit && i < sizeof units / sizeof units[0]; i++)
        if (strcmp(unit, units[i].name) == 0) {
            *cls = units[i].cls;
            *scale = units[i].scale;
            return 0;
        }
    return -1;
}
