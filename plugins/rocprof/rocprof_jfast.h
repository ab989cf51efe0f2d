/* The fast path for rocprofv3's buffer records and kernel symbols (rocprof_jfast.c).
 *
 * rocprofv3 writes every record of a kind with the same members in the same order, so two
 * kernel dispatches differ only in their values:
 *
 *   {"size":184,"kind":11,"operation":2,"thread_id":908,"correlation_id":{"internal":1,...
 *
 * Through the lexer such a record is some 60 tokens, each a callback, and each key a path hash
 * (rocprof_jrec.c). Here the first record of a run is read byte by byte into a template: the
 * text between its values (keys, punctuation, blanks) and, for each value, its kind and the
 * path it is wanted at. The records after it are matched against the template: a compare of
 * each run of text, a scan of each value, its span filed under its path. A record that does
 * not match is read into a new template.
 *
 * The invariant: a record is taken only when the lexer would read it the same way and say
 * nothing about it: objects of keys and values that are integers (-?(0|[1-9][0-9]*)) or ASCII
 * strings without escapes, nested at most RP_JFAST_DEPTH deep, whole in the bytes given. At
 * anything else (an array, a fraction, an escape, true, the end of the bytes) it takes nothing,
 * and the lexer reads the record, errors and offsets being its own. */
#ifndef ROCPROF_JFAST_H
#define ROCPROF_JFAST_H

#include <stddef.h>
#include <stdint.h>

#include "rocprof_jrec.h"

enum { RP_JFAST_DEPTH = 8, RP_JFAST_VALUES = 64, RP_JFAST_TEXT = 2048 };

typedef struct rp_jfast_value {
    uint16_t text, len; /* the text before the value, in rp_jfast.text */
    int16_t want;       /* the path's index, or -1: only checked */
    uint8_t kind;       /* TCONV_JSON_NUMBER or TCONV_JSON_STRING */
} rp_jfast_value;

/* The template of one kind of record; zeroed: none yet. */
typedef struct rp_jfast {
    size_t n; /* values; 0: no template */
    rp_jfast_value v[RP_JFAST_VALUES];
    uint16_t tail, tail_len; /* the text after the last value, to the record's '}' */
    size_t used;
    char text[RP_JFAST_TEXT];
} rp_jfast;

/* Where the list's next record starts, past blanks, its ',' and blanks again: the '{' at
 * which rp_jfast_record reads on; NULL when anything else follows (the list's end, damage, the
 * end of the bytes at hand), which is the lexer's to read. */
const unsigned char *rp_jfast_next(const unsigned char *p, const unsigned char *end);

/* The record whose '{' is at p, read into r (reset by the caller for its kind) with its texts
 * as spans of base (r->ext): past its '}', or NULL when the fast path does not take it (r then
 * holds a part of it, and is reset before the lexer reads it). */
const unsigned char *rp_jfast_record(rp_jfast *t, rp_jrec *r, const unsigned char *p,
                                     const unsigned char *end, const unsigned char *base);

#endif
