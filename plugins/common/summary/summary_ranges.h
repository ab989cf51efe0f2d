/* Lists of time intervals [start, end) and the set operations the step breakdown needs. */
#ifndef SUMMARY_RANGES_H
#define SUMMARY_RANGES_H

#include <stddef.h>
#include <stdint.h>

typedef struct summary_range {
    int64_t start, end;
} summary_range;

typedef struct summary_ranges {
    summary_range *r;
    size_t n, cap;
    int merged; /* sorted, disjoint, not touching */
} summary_ranges;

void summary_ranges_free(summary_ranges *l);
void summary_ranges_add(summary_ranges *l, int64_t start, int64_t end);
/* Sort and merge overlapping or touching intervals, in place. */
void summary_ranges_merge(summary_ranges *l);
int64_t summary_ranges_sum(const summary_ranges *l);
/* out = the intersection of a and b, and out = a minus b, for merged a and b; out is
 * replaced. */
void summary_ranges_intersect(const summary_ranges *a, const summary_ranges *b,
                              summary_ranges *out);
void summary_ranges_subtract(const summary_ranges *a, const summary_ranges *b, summary_ranges *out);
/* The length of a merged list's overlap with [start, end). */
int64_t summary_ranges_overlap(const summary_ranges *l, int64_t start, int64_t end);

#endif
