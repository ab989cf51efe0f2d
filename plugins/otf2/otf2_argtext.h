#ifndef TCONV_OTF2_ARGTEXT_H
#define TCONV_OTF2_ARGTEXT_H

#include "tconv/tconv.h"

#include "otf2_bytes.h"

/* Append args as a JSON object ({"key":value,...}, no NUL) to b. */
void otf2_argtext(tconv_ctx *ctx, const tconv_arg *args, uint32_t n, otf2_bytes *b);

#endif
