/* A growable byte buffer that rows are assembled in before one write to the output, and the
 * number formats every table shares. */
#ifndef CSV_BUF_H
#define CSV_BUF_H

#include <stddef.h>
#include <stdint.h>

#include <tconv/tconv.h>

typedef struct csv_buf {
    char *p;
    size_t len, cap;
} csv_buf;

void csv_buf_free(csv_buf *b);
/* Room for extra more bytes after len. */
void csv_buf_reserve(csv_buf *b, size_t extra);
void csv_buf_put(csv_buf *b, const void *s, size_t n);
void csv_buf_putc(csv_buf *b, char c);
void csv_buf_cstr(csv_buf *b, const char *s);
void csv_buf_i64(csv_buf *b, int64_t v);
void csv_buf_u64(csv_buf *b, uint64_t v);
/* The shortest decimal that reads back as the same double; "" for NaN and infinities, which
 * have no CSV or JSON spelling. */
void csv_buf_double(csv_buf *b, double d);
void csv_buf_printf(csv_buf *b, const char *fmt, ...) TCONV_PRINTF(2, 3);
/* Write the buffer to out and empty it. */
tconv_status csv_buf_flush(csv_buf *b, tconv_output *out);

#endif
