/* The speedscope writer's pieces: growable text, and the table of shared frames that every
 * profile of the document indexes. */
#ifndef SPEEDSCOPE_WFRAMES_H
#define SPEEDSCOPE_WFRAMES_H

#include <stddef.h>
#include <stdint.h>

#include <tconv/tconv.h>
#include <tconv/map.h>

typedef struct speedscope_text {
    char *p;
    size_t len, cap;
} speedscope_text;

void speedscope_text_put(speedscope_text *t, const char *s, size_t n);
void speedscope_text_str(speedscope_text *t, const char *s);
void speedscope_text_int(speedscope_text *t, int64_t v);
/* A JSON string, quotes included. */
void speedscope_text_json(speedscope_text *t, const char *s, size_t n);
void speedscope_text_free(speedscope_text *t);

/* Frames are equal when name, file and line are. */
typedef struct speedscope_wframes {
    tconv_map ix;
    tconv_frame *items; /* name, file, line */
    size_t n, cap;
} speedscope_wframes;

/* The index of the frame, added if new. */
uint32_t speedscope_wframes_get(speedscope_wframes *f, tconv_str name, tconv_str file,
                                uint32_t line);
/* [{"name": ...}, ...] */
void speedscope_wframes_json(const speedscope_wframes *f, const tconv_ctx *ctx, speedscope_text *t);
void speedscope_wframes_free(speedscope_wframes *f);

#endif
