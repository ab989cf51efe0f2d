/* Totals over many spans or samples. A trace keeps each time within 2^62 ns of its origin, so
 * one span's duration, or the busy time of one track, fits in int64; a total over several
 * tracks, stacks or inputs need not. Such totals stop at INT64_MAX (292 years) rather than
 * overflow: only a hostile trace gets there, and a clamped figure is still readable. */
#ifndef CSV_SAT_H
#define CSV_SAT_H

#include <stdint.h>

static inline int64_t csv_sat_add(int64_t a, int64_t b)
{
    if (b > 0 && a > INT64_MAX - b) return INT64_MAX;
    if (b < 0 && a < INT64_MIN - b) return INT64_MIN;
    return a + b;
}

#endif
