/* Formats whose documents index themselves (speedscope's shared frames, the Firefox Profiler's
 * tables) are read whole with jansson: the loading and the byte probes those readers share. */
#ifndef TCONV_COMMON_JSONDOC_H
#define TCONV_COMMON_JSONDOC_H

#include <jansson.h>
#include <stddef.h>

#include "tconv/tconv.h"

/* The whole input as a JSON document (a UTF-8 byte order mark skipped), or NULL with the error
 * set: `file:offset: invalid JSON: ...` at jansson's position. */
json_t *jsondoc_load(tconv_ctx *ctx, tconv_input *in);

/* Whether needle stands in the first len bytes of buf (a probe's look at an input's head). */
int jsondoc_has(const unsigned char *buf, size_t len, const char *needle);

#endif
