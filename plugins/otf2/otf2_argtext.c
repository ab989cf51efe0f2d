/* An event's args as one compact JSON object: the text of an OTF2 marker, which has no typed
 * attributes. */
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "otf2_argtext.h"

static void otf2_text_raw(otf2_bytes *b, const char *s, size_t n)
{
    otf2_bytes_reserve(b, n);
    otf2_put_raw(b, s, n);
}

/* As the core's JSON writer escapes strings (tconv_json_escape), UTF-8 repaired. */
static void otf2_text_quoted(otf2_bytes *b, const char *s)
{
    size_t n = strlen(s);
    otf2_bytes_reserve(b, 6 * n + 2);
    otf2_put_raw(b, "\"", 1);
    size_t used;
    char *at = (char *)b->p + b->len;
    b->len += tconv_json_escape(at, 6 * n, s, n, &used);
    otf2_put_raw(b, "\"", 1);
}

void otf2_argtext(tconv_ctx *ctx, const tconv_arg *args, uint32_t n, otf2_bytes *b)
{
    char num[40];
    int len;
    otf2_text_raw(b, "{", 1);
    for (uint32_t i = 0; i < n; i++) {
        const tconv_arg *a = &args[i];
        if (i) otf2_text_raw(b, ",", 1);
        otf2_text_quoted(b, tconv_string_get(ctx, a->key));
        otf2_text_raw(b, ":", 1);
        switch (a->type) {
        case TCONV_ARG_BOOL:
            otf2_text_raw(b, a->v.i ? "true" : "false", a->v.i ? 4 : 5);
            break;
        case TCONV_ARG_INT:
            len = snprintf(num, sizeof(num), "%" PRId64, a->v.i);
            otf2_text_raw(b, num, (size_t)len);
            break;
        case TCONV_ARG_UINT:
            len = snprintf(num, sizeof(num), "%" PRIu64, a->v.u);
            otf2_text_raw(b, num, (size_t)len);
            break;
        case TCONV_ARG_DOUBLE:
            if (isfinite(a->v.d)) {
                len = snprintf(num, sizeof(num), "%.17g", a->v.d);
                otf2_text_raw(b, num, (size_t)len);
            } else {
                otf2_text_raw(b, "null", 4);
            }
            break;
        case TCONV_ARG_STRING:
            otf2_text_quoted(b, tconv_string_get(ctx, a->v.s));
            break;
        case TCONV_ARG_JSON: {
            const char *s = tconv_string_get(ctx, a->v.s);
            otf2_text_raw(b, s, tconv_string_length(ctx, a->v.s));
            break;
        }
        default:
            otf2_text_raw(b, "null", 4);
        }
    }
    otf2_text_raw(b, "}", 1);
}
