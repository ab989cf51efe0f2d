/* Sample counts as folded files write them: integers, or decimals such as "12.5" that tconv
 * carries as fixed-point integers with the scale in the sample type's unit ("count*1e-1"). */
#ifndef FOLDED_VALUE_H
#define FOLDED_VALUE_H

#include <stddef.h>
#include <stdint.h>

enum { FOLDED_VALUE_MAX_DECIMALS = 9 };
enum { FOLDED_VALUE_TOO_BIG = -1, FOLDED_VALUE_TOO_FINE = -2 };

/* Parse "123", "12.5", "6." or ".5" into mantissa and number of decimals: 1. 0 if not a count;
 * a count that cannot be kept exactly is FOLDED_VALUE_TOO_BIG (beyond int64) or
 * FOLDED_VALUE_TOO_FINE (a nonzero digit past FOLDED_VALUE_MAX_DECIMALS decimals). */
int folded_value_parse(const char *s, size_t n, int64_t *mant, int *decimals);
/* The decimals encoded in a unit "count*1e-N", else 0. */
int folded_value_unit_decimals(const char *unit);
/* "count*1e-N" for N > 0, "count" for 0; buf must hold 16 bytes. */
const char *folded_value_unit(int decimals, char *buf);
/* 10^k, k <= 18 */
int64_t folded_value_pow10(int k);
/* Write v (scaled by 10^decimals) in decimal, trailing fraction zeros dropped; returns the
 * length (at most 22 bytes). */
size_t folded_value_format(char *out, int64_t v, int decimals);
/* v / div rounded to nearest, halves away from zero. */
int64_t folded_value_round_ns(int64_t v, int64_t div);

#endif
