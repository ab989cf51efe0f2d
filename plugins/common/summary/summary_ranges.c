/* Interval lists. Merging sorts once; the set operations are linear merges. */
#include <stdlib.h>

#include "summary_ranges.h"

#include <tconv/tconv.h>

void summary_ranges_free(summary_ranges *l)
{
    free(l->r);
    l->r = NULL;
    l->n = l->cap = 0;
    l->merged = 0;
}

void summary_ranges_add(summary_ranges *l, int64_t start, int64_t end)
{
    if (end <= start) return;
    TCONV_ARRAY_GROW(l->r, l->cap, l->n + 1);
    l->r[l->n++] = (summary_range){start, end};
    l->merged = 0;
}

static int summary_range_cmp(const void *pa, const void *pb)
{
    const summary_range *a = pa, *b = pb;
    if (a->start != b->start) return a->start < b->start ? -1 : 1;
    return (a->end > b->end) - (a->end < b->end);
}

void summary_ranges_merge(summary_ranges *l)
{
    if (l->merged) return;
    l->merged = 1;
    if (!l->n) return;
    qsort(l->r, l->n, sizeof *l->r, summary_range_cmp);
    size_t k = 0;
    for (size_t i = 1; i < l->n; i++) {
        if (l->r[i].start <= l->r[k].end) {
            if (l->r[i].end > l->r[k].end) l->r[k].end = l->r[i].end;
        } else {
            l->r[++k] = l->r[i];
        }
    }
    l->n = k + 1;
}

int64_t summary_ranges_sum(const summary_ranges *l)
{
    int64_t s = 0;
    for (size_t i = 0; i < l->n; i++)
        s += l->r[i].end - l->r[i].start;
    return s;
}

void summary_ranges_intersect(const summary_ranges *a, const summary_ranges *b, summary_ranges *out)
{
    out->n = 0;
    size_t i = 0, j = 0;
    while (i < a->n && j < b->n) {
        int64_t s = a->r[i].start > b->r[j].start ? a->r[i].start : b->r[j].start;
        int64_t e = a->r[i].end < b->r[j].end ? a->r[i].end : b->r[j].end;
        if (s < e) summary_ranges_add(out, s, e);
        if (a->r[i].end < b->r[j].end)
            i++;
        else
            j++;
    }
    out->merged = 1;
}

void summary_ranges_subtract(const summary_ranges *a, const summary_ranges *b, summary_ranges *out)
{
    out->n = 0;
    size_t j = 0;
    for (size_t i = 0; i < a->n; i++) {
        int64_t s = a->r[i].start, e = a->r[i].end;
        while (j < b->n && b->r[j].end <= s)
            j++;
        for (size_t k = j; k < b->n && b->r[k].start < e; k++) {
            if (b->r[k].start > s) summary_ranges_add(out, s, b->r[k].start);
            if (b->r[k].end > s) s = b->r[k].end;
            if (s >= e) break;
        }
        if (s < e) summary_ranges_add(out, s, e);
    }
    out->merged = 1;
}

int64_t summary_ranges_overlap(const summary_ranges *l, int64_t start, int64_t end)
{
    /* Binary search for the first interval ending after start. */
    size_t lo = 0, hi = l->n;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (l->r[mid].end <= start)
            lo = mid + 1;
        else
            hi = mid;
    }
    int64_t sum = 0;
    for (size_t i = lo; i < l->n && l->r[i].start < end; i++) {
        int64_t s = l->r[i].start > start ? l->r[i].start : start;
        int64_t e = l->r[i].end < end ? l->r[i].end : end;
        if (s < e) sum += e - s;
    }
    return sum;
}
