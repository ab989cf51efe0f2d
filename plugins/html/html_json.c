/* Strings as the core writes JSON strings (tconv_json_escape: invalid UTF-8 becomes U+FFFD),
 * with '<', '>' and '&' written as \u escapes as well: the JSON sits inside a <script> element,
 * which a "</script>" in a name would otherwise end, and JSON.parse reads the escapes back. */
#include <string.h>

#include "html_writer.h"

void html_json_bytes(csv_buf *b, const char *s, size_t n)
{
    char tmp[4096];
    csv_buf_putc(b, '"');
    size_t at = 0;
    while (at < n) {
        size_t used = 0;
        size_t len = tconv_json_escape(tmp, sizeof tmp, s + at, n - at, &used);
        for (size_t i = 0; i < len; i++) {
            char c = tmp[i];
            if (c == '<')
                csv_buf_cstr(b, "\\u003c");
            else if (c == '>')
                csv_buf_cstr(b, "\\u003e");
            else if (c == '&')
                csv_buf_cstr(b, "\\u0026");
            else
                csv_buf_putc(b, c);
        }
        at += used;
    }
    csv_buf_putc(b, '"');
}

void html_json_str(csv_buf *b, const tconv_ctx *ctx, tconv_str s)
{
    html_json_bytes(b, tconv_string_get(ctx, s), tconv_string_length(ctx, s));
}
