/* Exact conversion of a JSON number's text to a scaled int64 (µs text to ns). */
#ifndef CHROME_TIME_H
#define CHROME_TIME_H

#include <stddef.h>
#include <stdint.h>

typedef enum chrome_num_status {
    CHROME_NUM_OK = 0,
    CHROME_NUM_INVALID = -1, /* not a decimal number */
    CHROME_NUM_RANGE = -2    /* does not fit in int64 after scaling */
} chrome_num_status;

/* Parse the decimal text s[0..n) (JSON number syntax, also with a leading '+' and surrounding
 * blanks, as numeric strings are written) and multiply it by 10^shift, rounding the result to the
 * nearest integer, halves away from zero. The digits are used as written: no binary floating
 * point is involved, so "1712195495519689.047" with shift 3 gives 1712195495519689047. */
chrome_num_status chrome_num_scaled(const char *s, size_t n, int shift, int64_t *out);

/* Times stay within 2^62 ns (146 years) of the trace's origin, so that a span's end and the
 * difference of any two times fit in int64 in the core's stages and in the writers. */
#define CHROME_TIME_LIMIT ((int64_t)1 << 62)

#endif
