/* Compact JSON for the args column: one object per event, built member by member. */
#ifndef CSV_JSON_H
#define CSV_JSON_H

#include <stddef.h>
#include <stdint.h>

#include "csv_buf.h"

typedef struct csv_json {
    csv_buf *b;
    const tconv_ctx *ctx;
    int members;
} csv_json;

void csv_json_open(csv_json *j, csv_buf *b, const tconv_ctx *ctx);
void csv_json_close(csv_json *j);
/* Start a member: the separator and the quoted key; the caller writes the value. */
void csv_json_key(csv_json *j, const char *key);
/* A JSON string with the escapes RFC 8259 requires; bytes that are not UTF-8 become U+FFFD. */
void csv_json_string(csv_buf *b, const char *s, size_t n);
void csv_json_str(csv_json *j, tconv_str id);
/* One member per arg, in order. */
void csv_json_args(csv_json *j, const tconv_arg *args, uint32_t nargs);

#endif
