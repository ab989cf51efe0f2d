/* RFC 4180 fields: a row is fields separated by commas and ended by the chosen line end. */
#ifndef CSV_FIELD_H
#define CSV_FIELD_H

#include <stddef.h>

#include "csv_buf.h"

/* Append s as one field: quoted when it holds a comma, a double quote, CR or LF (or starts or
 * ends with a space, which some readers would trim), with quotes doubled. Bytes that are not
 * UTF-8 and NUL become U+FFFD, so the table is always UTF-8 and NUL-free. */
void csv_field(csv_buf *b, const char *s, size_t n);
void csv_field_cstr(csv_buf *b, const char *s);
/* A field holding an interned string. */
void csv_field_str(csv_buf *b, const tconv_ctx *ctx, tconv_str id);
/* An arg's value as a field: numbers as written, strings as text, JSON as its text, booleans
 * as true/false; nothing for null or a missing arg. */
void csv_field_arg(csv_buf *b, const tconv_ctx *ctx, const tconv_arg *a);
/* A header row from a NULL-terminated list of names. */
void csv_header(csv_buf *b, const char *const *names, const char *eol);

#endif
