/* Lines of a folded file as UTF-8, whatever its encoding: UTF-8 (a byte-order mark is skipped)
 * is read straight from the input, UTF-16 with a byte-order mark (as Windows tools write it) is
 * decoded first. */
#ifndef FOLDED_SOURCE_H
#define FOLDED_SOURCE_H

#include <stddef.h>
#include <stdint.h>

#include "tconv/tconv.h"

typedef struct folded_source {
    tconv_input *in;
    char *mem; /* decoded text, when the input is UTF-16 */
    size_t memlen, pos;
    uint64_t line;
    uint64_t start; /* offset of the current line's first byte */
    int first;
} folded_source;

/* -1 on a read error (on the ctx). */
int folded_source_open(folded_source *s, tconv_input *in);
/* The next line without its end of line, or NULL at the end (or on error). */
const char *folded_source_next(folded_source *s, size_t *len);
void folded_source_close(folded_source *s);

/* 1 if buf starts with a UTF-16 byte-order mark. */
int folded_source_is_utf16(const unsigned char *buf, size_t len);

#endif
