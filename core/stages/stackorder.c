/* Stacks in the byte order of their joined text, without joining them.
 *
 * The invariant this rests on: names hold no separator, so two stacks that part at some frame
 * first differ within that frame's name and the byte after it, which is the end of the text
 * (the stack ends there) or the separator (it goes deeper). Each child of a node therefore
 * stands for two keys, "name" + end (the one stack ending at the child) and "name" + sep (all
 * the deeper stacks through it), and every stack under one key sorts on the same side of every
 * stack under another. Sorting the keys of each sibling group and walking the tree depth-first
 * in key order visits the stacks in text order: names are compared O(n log n) times, whole
 * stacks never. Sorting sibling names alone would not do: "a" < "a:b" < "a;c", since ':' sorts
 * before ';'. */
#include <string.h>

#include "stages.h"

typedef struct stackorder {
    const tconv_stacktab *t;
    const tconv_ctx *ctx;
    int sep;
} stackorder;

/* A key is node * 2, plus 1 for "name" + sep. */
static int stackorder_cmp(const stackorder *o, uint64_t a, uint64_t b)
{
    tconv_str na = tconv_stacktab_frame(o->t, (uint32_t)(a >> 1))->name;
    tconv_str nb = tconv_stacktab_frame(o->t, (uint32_t)(b >> 1))->name;
    if (na != nb) {
        size_t la = tconv_string_length(o->ctx, na), lb = tconv_string_length(o->ctx, nb);
        const char *sa = tconv_string_get(o->ctx, na), *sb = tconv_string_get(o->ctx, nb);
        size_t m = la < lb ? la : lb;
        int c = memcmp(sa, sb, m);
        if (c) return c;
        if (la != lb) {
            /* The shorter name is followed by its end or sep, the longer by its next byte. */
            int x = la > m ? (unsigned char)sa[m] : (a & 1) ? o->sep : -1;
            int y = lb > m ? (unsigned char)sb[m] : (b & 1) ? o->sep : -1;
            if (x != y) return x < y ? -1 : 1;
        }
    }
    int x = (a & 1) ? o->sep : -1, y = (b & 1) ? o->sep : -1;
    return x < y ? -1 : x > y;
}

/* Stable bottom-up merge sort: equal keys keep the order in which the nodes were created. */
static void stackorder_sort(const stackorder *o, uint64_t *k, uint64_t *tmp, size_t n)
{
    for (size_t width = 1; width < n; width *= 2) {
        for (size_t lo = 0; lo < n; lo += 2 * width) {
            size_t mid = lo + width < n ? lo + width : n;
            size_t hi = lo + 2 * width < n ? lo + 2 * width : n;
            size_t i = lo, j = mid, w = lo;
            while (i < mid && j < hi)
                tmp[w++] = stackorder_cmp(o, k[j], k[i]) < 0 ? k[j++] : k[i++];
            while (i < mid)
                tmp[w++] = k[i++];
            while (j < hi)
                tmp[w++] = k[j++];
        }
        memcpy(k, tmp, n * sizeof(*k));
    }
}

TCONV_API void tconv_stacktab_sort(const tconv_stacktab *t, const tconv_ctx *ctx, char sep,
                                   uint32_t *order)
{
    size_t n = tconv_stacktab_count(t);
    if (!n) return;
    stackorder o = {t, ctx, (unsigned char)sep};
    /* Group g holds the keys of the children of node g; group n those of the roots. */
    size_t *off = tconv_xcalloc(n + 2, sizeof(*off));
    uint8_t *inner = tconv_xcalloc(n, 1); /* has children */
    for (size_t x = 0; x < n; x++) {
        uint32_t p = tconv_stacktab_parent(t, (uint32_t)x);
        if (p != TCONV_STACK_ROOT) inner[p] = 1;
    }
    for (size_t x = 0; x < n; x++) {
        uint32_t p = tconv_stacktab_parent(t, (uint32_t)x);
        off[(p == TCONV_STACK_ROOT ? n : p) + 1] += 1u + inner[x];
    }
    for (size_t g = 0; g <= n; g++)
        off[g + 1] += off[g];
    uint64_t *keys = tconv_xmalloc(off[n + 1] * sizeof(*keys));
    uint64_t *tmp = tconv_xmalloc(off[n + 1] * sizeof(*tmp));
    size_t *fill = tconv_xmalloc((n + 1) * sizeof(*fill));
    memcpy(fill, off, (n + 1) * sizeof(*fill));
    for (size_t x = 0; x < n; x++) {
        uint32_t p = tconv_stacktab_parent(t, (uint32_t)x);
        size_t g = p == TCONV_STACK_ROOT ? n : p;
        keys[fill[g]++] = (uint64_t)x << 1;
        if (inner[x]) keys[fill[g]++] = (uint64_t)x << 1 | 1;
    }
    for (size_t g = 0; g <= n; g++)
        if (off[g + 1] - off[g] > 1) stackorder_sort(&o, keys + off[g], tmp, off[g + 1] - off[g]);
    free(tmp);
    free(inner);

    /* Depth-first in key order; fill is reused as the stack of group cursors (depth <= n). */
    size_t *end = tconv_xmalloc((n + 1) * sizeof(*end));
    size_t sp = 0, k = 0;
    fill[sp] = off[n];
    end[sp++] = off[n + 1];
    while (sp) {
        if (fill[sp - 1] == end[sp - 1]) {
            sp--;
            continue;
        }
        uint64_t key = keys[fill[sp - 1]++];
        uint32_t x = (uint32_t)(key >> 1);
        if (!(key & 1)) {
            order[k++] = x;
            continue;
        }
        fill[sp] = off[x];
        end[sp++] = off[x + 1];
    }
    free(end);
    free(fill);
    free(keys);
    free(off);
}

TCONV_API size_t tconv_stacktab_join(const tconv_stacktab *t, const tconv_ctx *ctx, uint32_t node,
                                     char sep, char *buf, size_t cap)
{
    size_t len = 0;
    for (uint32_t x = node; x != TCONV_STACK_ROOT; x = tconv_stacktab_parent(t, x))
        len += tconv_string_length(ctx, tconv_stacktab_frame(t, x)->name) +
               (tconv_stacktab_parent(t, x) != TCONV_STACK_ROOT);
    if (!cap) return len;
    if (len >= cap) {
        buf[0] = '\0'; /* written from the leaf backwards, so a prefix would cost a second pass */
        return len;
    }
    size_t at = len;
    buf[at] = '\0';
    for (uint32_t x = node; x != TCONV_STACK_ROOT; x = tconv_stacktab_parent(t, x)) {
        tconv_str name = tconv_stacktab_frame(t, x)->name;
        size_t l = tconv_string_length(ctx, name);
        at -= l;
        memcpy(buf + at, tconv_string_get(ctx, name), l);
        if (tconv_stacktab_parent(t, x) != TCONV_STACK_ROOT) buf[--at] = sep;
    }
    return len;
}
