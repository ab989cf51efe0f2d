/* RFC 4180 field quoting. */
#include <string.h>

#include "csv_field.h"
#include <tconv/utf8.h>

static int csv_needs_quotes(const unsigned char *s, size_t n)
{
    if (n && (s[0] == ' ' || s[n - 1] == ' ')) return 1;
    for (size_t i = 0; i < n; i++)
        if (s[i] == ',' || s[i] == '"' || s[i] == '\n' || s[i] == '\r') return 1;
    return 0;
}

void csv_field(csv_buf *b, const char *str, size_t n)
{
    if (!n) return;
    const unsigned char *s = (const unsigned char *)str;
    int quote = csv_needs_quotes(s, n);
    if (quote) csv_buf_putc(b, '"');
    size_t run = 0; /* start of the pending run of bytes copied as they are */
    for (size_t i = 0; i < n;) {
        unsigned char c = s[i];
        if (c >= 0x20 && c < 0x7f && c != '"') {
            i++;
            continue;
        }
        if (c == '"') {
            csv_buf_put(b, s + run, i + 1 - run);
            csv_buf_putc(b, '"');
            run = ++i;
            continue;
        }
        size_t len = c ? tconv_utf8_seq(s + i, n - i) : 0;
        if (len) {
            i += len;
            continue;
        }
        csv_buf_put(b, s + run, i - run);
        csv_buf_cstr(b, TCONV_UTF8_REPLACEMENT);
        run = ++i;
    }
    csv_buf_put(b, s + run, n - run);
    if (quote) csv_buf_putc(b, '"');
}

void csv_field_cstr(csv_buf *b, const char *s)
{
    csv_field(b, s, strlen(s));
}

void csv_field_str(csv_buf *b, const tconv_ctx *ctx, tconv_str id)
{
    if (!id) return;
    csv_field(b, tconv_string_get(ctx, id), tconv_string_length(ctx, id));
}

void csv_header(csv_buf *b, const char *const *names, const char *eol)
{
    for (size_t i = 0; names[i]; i++) {
        if (i) csv_buf_putc(b, ',');
        csv_field_cstr(b, names[i]);
    }
    csv_buf_cstr(b, eol);
}

void csv_field_arg(csv_buf *b, const tconv_ctx *ctx, const tconv_arg *a)
{
    if (!a) return;
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
    case TCONV_ARG_DOUBLE:
        csv_buf_double(b, a->v.d);
        break;
    case TCONV_ARG_STRING:
    case TCONV_ARG_JSON:
        csv_field_str(b, ctx, a->v.s);
        break;
    default:
        break;
    }
}
