/* Sorting an array of record indices in place. The ordering stage sorts a 4-byte index per
 * event instead of the records themselves, and must not need a second array of that size
 * (glibc's qsort allocates one for its merge sort), so this is an introsort: quicksort on a
 * median of three, heapsort when the recursion gets too deep, insertion sort for short runs. */
#include "util.h"

static void idxsort_insertion(uint32_t *a, size_t n, tconv_idx_cmp cmp, const void *ctx)
{
    for (size_t i = 1; i < n; i++) {
        uint32_t v = a[i];
        size_t j = i;
        for (; j > 0 && cmp(ctx, a[j - 1], v) > 0; j--)
            a[j] = a[j - 1];
        a[j] = v;
    }
}

static void idxsort_sift(uint32_t *a, size_t root, size_t n, tconv_idx_cmp cmp, const void *ctx)
{
    uint32_t v = a[root];
    for (size_t child; (child = 2 * root + 1) < n; root = child) {
        if (child + 1 < n && cmp(ctx, a[child], a[child + 1]) < 0) child++;
        if (cmp(ctx, v, a[child]) >= 0) break;
        a[root] = a[child];
    }
    a[root] = v;
}

static void idxsort_heap(uint32_t *a, size_t n, tconv_idx_cmp cmp, const void *ctx)
{
    for (size_t i = n / 2; i-- > 0;)
        idxsort_sift(a, i, n, cmp, ctx);
    for (size_t end = n; end-- > 1;) {
        uint32_t t = a[0];
        a[0] = a[end];
        a[end] = t;
        idxsort_sift(a, 0, end, cmp, ctx);
    }
}

static uint32_t idxsort_median3(uint32_t x, uint32_t y, uint32_t z, tconv_idx_cmp cmp,
                                const void *ctx)
{
    if (cmp(ctx, x, y) < 0) {
        if (cmp(ctx, y, z) < 0) return y;
        return cmp(ctx, x, z) < 0 ? z : x;
    }
    if (cmp(ctx, x, z) < 0) return x;
    return cmp(ctx, y, z) < 0 ? z : y;
}

void tconv_idx_sort(uint32_t *a, size_t n, tconv_idx_cmp cmp, const void *ctx)
{
    int depth = 0;
    for (size_t m = n; m > 1; m >>= 1)
        depth += 2;
    while (n > 16) {
        if (depth-- == 0) {
            idxsort_heap(a, n, cmp, ctx);
            return;
        }
        uint32_t pivot = idxsort_median3(a[0], a[n / 2], a[n - 1], cmp, ctx);
        /* Hoare partition; keys are distinct (callers break ties on the index). */
        size_t i = 0, j = n - 1;
        for (;;) {
            while (cmp(ctx, a[i], pivot) < 0)
                i++;
            while (cmp(ctx, a[j], pivot) > 0)
                j--;
            if (i >= j) break;
            uint32_t t = a[i];
            a[i++] = a[j];
            a[j--] = t;
        }
        /* a[0..j] <= pivot <= a[j+1..n); recurse into the smaller part. */
        size_t left = j + 1;
        if (left < n - left) {
            tconv_idx_sort(a, left, cmp, ctx);
            a += left;
            n -= left;
        } else {
            tconv_idx_sort(a + left, n - left, cmp, ctx);
            n = left;
        }
    }
    idxsort_insertion(a, n, cmp, ctx);
}
