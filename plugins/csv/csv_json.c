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
    static const char hex[] = "0123456789abcdef";
    const unsigned char *s = (const unsigned char *)str;
    csv_buf_putc(b, '"');
    size_t run = 0;
    for (size_t i = 0; i < n;) {
        unsigned char c = s[i];
        if (c >= 0x20 && c != '"' && c != '\\' && c < 0x80) {
            i++;
            continue;
        }
        if (c >= 0x80) {
            size_t len = tconv_utf8_seq(s + i, n - i);
            if (len) {
                i += len;
                continue;
            }
        }
        csv_buf_put(b, s + run, i - run);
        switch (c) {
        case '"':
            csv_buf_cstr(b, "\\\"");
            break;
        case '\\':
            csv_buf_cstr(b, "\\\\");
            break;
        case '\n':
            csv_buf_cstr(b, "\\n");
            break;
        case '\r':
            csv_buf_cstr(b, "\\r");
            break;
        case '\t':
            csv_buf_cstr(b, "\\t");
            break;
        default:
            if (c < 0x20) {
                char e[6] = {'\\', 'u', '0', '0', hex[c >> 4], hex[c & 15]};
                csv_buf_put(b, e, 6);
            } else {
                csv_buf_cstr(b, TCONV_UTF8_REPLACEMENT);
            }
        }
        run = ++i;
    }
    csv_buf_put(b, s + run, n - run);
    csv_buf_putc(b, '"');
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
