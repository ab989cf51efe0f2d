/* Text and shared frames for the speedscope writer. Frames are numbered in order of first use,
 * so the document depends on the event stream alone. */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <tconv/json.h>

#include "speedscope_wframes.h"

void speedscope_text_put(speedscope_text *t, const char *s, size_t n)
{
    TCONV_ARRAY_GROW(t->p, t->cap, t->len + n + 1);
    memcpy(t->p + t->len, s, n);
    t->len += n;
}

void speedscope_text_str(speedscope_text *t, const char *s)
{
    speedscope_text_put(t, s, strlen(s));
}

void speedscope_text_int(speedscope_text *t, int64_t v)
{
    char buf[24];
    int n = snprintf(buf, sizeof buf, "%" PRId64, v);
    speedscope_text_put(t, buf, (size_t)n);
}

void speedscope_text_json(speedscope_text *t, const char *s, size_t n)
{
    speedscope_text_put(t, "\"", 1);
    while (n) {
        char buf[1024];
        size_t used;
        size_t k = tconv_json_escape(buf, sizeof buf, s, n, &used);
        speedscope_text_put(t, buf, k);
        s += used;
        n -= used;
    }
    speedscope_text_put(t, "\"", 1);
}

void speedscope_text_free(speedscope_text *t)
{
    free(t->p);
    memset(t, 0, sizeof *t);
}

uint32_t speedscope_wframes_get(speedscope_wframes *f, tconv_str name, tconv_str file,
                                uint32_t line)
{
    uint64_t a = (uint64_t)name << 32 | file;
    uint32_t i = tconv_map_get(&f->ix, a, line);
    if (i != TCONV_MAP_NONE) return i;
    TCONV_ARRAY_GROW(f->items, f->cap, f->n + 1);
    f->items[f->n] = (tconv_frame){.name = name, .file = file, .line = line};
    tconv_map_put(&f->ix, a, line, (uint32_t)f->n);
    return (uint32_t)f->n++;
}

void speedscope_wframes_json(const speedscope_wframes *f, const tconv_ctx *ctx, speedscope_text *t)
{
    speedscope_text_str(t, "[");
    for (size_t i = 0; i < f->n; i++) {
        const tconv_frame *fr = &f->items[i];
        speedscope_text_str(t, i ? ",\n{\"name\":" : "\n{\"name\":");
        speedscope_text_json(t, tconv_string_get(ctx, fr->name),
                             tconv_string_length(ctx, fr->name));
        if (fr->file) {
            speedscope_text_str(t, ",\"file\":");
            speedscope_text_json(t, tconv_string_get(ctx, fr->file),
                                 tconv_string_length(ctx, fr->file));
        }
        if (fr->line) {
            speedscope_text_str(t, ",\"line\":");
            speedscope_text_int(t, fr->line);
        }
        speedscope_text_str(t, "}");
    }
    speedscope_text_str(t, "]");
}

void speedscope_wframes_free(speedscope_wframes *f)
{
    tconv_map_free(&f->ix);
    free(f->items);
    memset(f, 0, sizeof *f);
}
