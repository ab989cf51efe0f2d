/* Compact JSON objects for the args column. */
#include <string.h>

#include "csv_json.h"
#include <tconv/utf8.h>

void csv_json_open(csv_json *j, csv_buf *b, const tconv_ctx *ctx)
{
    j->b = b;
    j->ctx = ctx;
    j->members = 0;
    csv_buf_putc(b, '{');
}

void csv_json_close(csv_json *j)
{
    csv_buf_putc(j->b, '}');
}

void csv_json_string(csv_buf *b, const char *str, size_t n)
{
    csv_buf_reserve(b, 6 * n + 2);
    b->p[b->len++] = '"';
    size_t used;
    b->len += tconv_json_escape(b->p + b->len, 6 * n, str, n, &used);
    b->p[b->len++] = '"';
}

void csv_json_key(csv_json *j, const char *key)
{
    if (j->members++) csv_buf_putc(j->b, ',');
    csv_json_string(j->b, key, strlen(key));
    csv_buf_putc(j->b, ':');
}

void csv_json_str(csv_json *j, tconv_str id)
{
    csv_json_string(j->b, tconv_string_get(j->ctx, id), tconv_string_length(j->ctx, id));
}

void csv_json_args(csv_json *j, const tconv_arg *args, uint32_t nargs)
{
    csv_buf *b = j->b;
    for (uint32_t i = 0; i < nargs; i++) {
        const tconv_arg *a = &args[i];
        if (j->members++) csv_buf_putc(b, ',');
        csv_json_str(j, a->key);
        csv_buf_putc(b, ':');
        switch (a->type) {
        case TCONV_ARG_BOOL:
            csv_buf_cstr(b, a->v.i ? "true" : "false");
            break;
        case TCONV_ARG_INT:
            csv_buf_i64(b, a->v.i);
            break;
        case TCONV_ARG_UINT:
            csv_buf_u64(b, a->v.u);
            break;
        case TCONV_ARG_DOUBLE: {
            size_t before = b->len;
            csv_buf_double(b, a->v.d);
            if (b->len == before) csv_buf_cstr(b, "null");
            break;
        }
        case TCONV_ARG_STRING:
            csv_json_str(j, a->v.s);
            break;
        case TCONV_ARG_JSON:
            /* Already compact JSON text from the reader. */
            if (tconv_string_length(j->ctx, a->v.s))
                csv_buf_put(b, tconv_string_get(j->ctx, a->v.s),
                            tconv_string_length(j->ctx, a->v.s));
            else
                csv_buf_cstr(b, "null");
            break;
        default:
            csv_buf_cstr(b, "null");
        }
    }
}
