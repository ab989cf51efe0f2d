/* Text formats of the report: durations with a unit, percentages, names cut to a width. */
#ifndef SUMMARY_FMT_H
#define SUMMARY_FMT_H

#include <stddef.h>
#include <stdint.h>

#include "csv_buf.h"

/* "0 ns", "999 ns", "1.234 us", "12.345 ms", "1.234 s": three decimals above 1 us. */
const char *summary_dur(int64_t ns, char *out, size_t cap);
/* "12.3%"; "-" when whole is 0. */
const char *summary_pct(double part, double whole, char *out, size_t cap);
/* Append s, cut to at most max bytes (on a UTF-8 boundary) with "..." where it was cut: at the
 * end, or at the start when keep_end (stacks keep their leaf). */
void summary_name(csv_buf *b, const char *s, size_t n, size_t max, int keep_end);

#endif
