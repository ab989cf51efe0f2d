/* Growable byte buffer and number formatting. */
#include <inttypes.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "csv_buf.h"

void csv_buf_free(csv_buf *b)
{
    free(b->p);
    b->p = NULL;
    b->len = b->cap = 0;
}

void csv_buf_reserve(csv_buf *b, size_t extra)
{
    if (b->len + extra <= b->cap) return;
    TCONV_ARRAY_GROW(b->p, b->cap, b->len + extra < 4096 ? 4096 : b->len + extra);
}

void csv_buf_put(csv_buf *b, const void *s, size_t n)
{
    if (!n) return;
    csv_buf_reserve(b, n);
    memcpy(b->p + b->len, s, n);
    b->len += n;
}

void csv_buf_putc(csv_buf *b, char c)
{
    csv_buf_reserve(b, 1);
    b->p[b->len++] = c;
}

void csv_buf_cstr(csv_buf *b, const char *s)
{
    csv_buf_put(b, s, strlen(s));
}

void csv_buf_i64(csv_buf *b, int64_t v)
{
    char tmp[24];
    int n = snprintf(tmp, sizeof tmp, "%" PRId64, v);
    csv_buf_put(b, tmp, (size_t)n);
}

void csv_buf_u64(csv_buf *b, uint64_t v)
{
    char tmp[24];
    int n = snprintf(tmp, sizeof tmp, "%" PRIu64, v);
    csv_buf_put(b, tmp, (size_t)n);
}

void csv_buf_double(csv_buf *b, double d)
{
    if (!isfinite(d)) return;
    char tmp[48];
    int n = 0, prec = 1;
    for (; prec <= 17; prec++) {
        n = snprintf(tmp, sizeof tmp, "%.*g", prec, d);
        if (strtod(tmp, NULL) == d) break;
    }
    /* Spreadsheets and most CSV consumers read plain decimals best: keep the digits %g found
     * but drop the exponent in the range where that stays short. */
    const char *e = strchr(tmp, 'e');
    double mag = fabs(d);
    if (e && mag >= 1e-6 && mag < 1e17) {
        int exp10 = atoi(e + 1);
        int decimals = prec - 1 - exp10;
        n = snprintf(tmp, sizeof tmp, "%.*f", decimals > 0 ? decimals : 0, d);
    }
    csv_buf_put(b, tmp, (size_t)n);
}

void csv_buf_printf(csv_buf *b, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(NULL, 0, fmt, ap);
    va_end(ap);
    if (n <= 0) return;
    csv_buf_reserve(b, (size_t)n + 1);
    va_start(ap, fmt);
    vsnprintf(b->p + b->len, (size_t)n + 1, fmt, ap);
    va_end(ap);
    b->len += (size_t)n;
}

tconv_status csv_buf_flush(csv_buf *b, tconv_output *out)
{
    if (!b->len) return TCONV_OK;
    int rc = tconv_output_write(out, b->p, b->len);
    b->len = 0;
    return rc < 0 ? TCONV_FATAL : TCONV_OK;
}
