/* flamegraph.pl gives a frame of a differential graph the change of the folded lines that end
 * in it (its own samples), colours it by that change over the largest one in the graph (white
 * to red, white to blue, 210 steps) and sizes frames by the second profile; this does the same
 * on the prefix tree, where a frame's own time is its value minus its children's. Its title
 * also gives the change of its whole width, which the script's details line shows on hover. */
#include "flamegraph_diff.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "flamegraph_oom.h"

static int64_t flamegraph_diff_sub(int64_t a, int64_t b)
{
    int64_t r;
    if (__builtin_sub_overflow(a, b, &r)) return b < 0 ? INT64_MAX : INT64_MIN + 1;
    return r;
}

void flamegraph_diff_init(flamegraph_diff *d, const flamegraph_tree *t, int size_before)
{
    size_t n = flamegraph_tree_count(t);
    const flamegraph_node *nodes = flamegraph_tree_nodes(t);
    const int64_t *other = flamegraph_tree_other(t);
    *d = (flamegraph_diff){0};
    d->after = flamegraph_alloc(n, sizeof(*d->after));
    d->before = flamegraph_alloc(n, sizeof(*d->before));
    d->self = flamegraph_alloc(n, sizeof(*d->self));
    for (size_t i = 0; i < n; i++) {
        int64_t shown = nodes[i].value, hid = other ? other[i] : 0;
        d->after[i] = size_before ? hid : shown;
        d->before[i] = size_before ? shown : hid;
        d->self[i] = d->after[i] - d->before[i]; /* both are sums of values >= 0 */
    }
    /* parents come before their children: take each child's change out of its parent's */
    for (size_t i = 1; i < n; i++) {
        uint32_t p = nodes[i].parent;
        d->self[p] = flamegraph_diff_sub(d->self[p], d->after[i] - d->before[i]);
        if (nodes[i].value == 0 && nodes[p].value > 0 && other && other[i] > 0) {
            d->hidden++;
            d->hidden_value =
                d->hidden_value > INT64_MAX - other[i] ? INT64_MAX : d->hidden_value + other[i];
        }
    }
    d->maxself = 1;
    for (size_t i = 0; i < n; i++) {
        int64_t a = d->self[i] < 0 ? -d->self[i] : d->self[i];
        if (a > d->maxself) d->maxself = a;
    }
}

void flamegraph_diff_free(flamegraph_diff *d)
{
    free(d->after);
    free(d->before);
    free(d->self);
    *d = (flamegraph_diff){0};
}

void flamegraph_diff_colour(const flamegraph_diff *d, uint32_t id, char *out)
{
    int64_t v = d->self[id], a = v < 0 ? -v : v;
    int shade = (int)(210.0 * (double)(d->maxself - a) / (double)d->maxself);
    int r = 255, g = 255, b = 255;
    if (v > 0)
        g = b = shade;
    else if (v < 0)
        r = g = shade;
    snprintf(out, 24, "rgb(%d,%d,%d)", r, g, b);
}

/* "+1.25 ms", "-3 samples", "0 ns" */
static size_t flamegraph_diff_signed(char *out, int64_t v, const flamegraph_unit *u)
{
    size_t o = 0;
    if (v > 0) out[o++] = '+';
    if (v < 0) out[o++] = '-';
    return o + flamegraph_value_format(out + o, v < 0 ? -v : v, u);
}

/* "+12.34%" of base, "new" when there was nothing to compare with */
static void flamegraph_diff_pct(char *out, int64_t v, int64_t base)
{
    if (base <= 0 || v == 0) {
        snprintf(out, 16, v ? "new" : "0.00%%");
        return;
    }
    snprintf(out, 16, "%+.2f%%", 100.0 * (double)v / (double)base);
}

size_t flamegraph_diff_title(const flamegraph_diff *d, uint32_t id, const flamegraph_unit *u,
                             char *out)
{
    char after[64], before[64], change[72], self[72], pa[16], pb[16], pc[16];
    int64_t delta = d->after[id] - d->before[id];
    flamegraph_value_format(after, d->after[id], u);
    flamegraph_value_format(before, d->before[id], u);
    flamegraph_diff_signed(change, delta, u);
    flamegraph_diff_signed(self, d->self[id], u);
    flamegraph_value_percent(pa, d->after[id], d->after[0]);
    flamegraph_value_percent(pb, d->before[id], d->before[0]);
    flamegraph_diff_pct(pc, delta, d->before[id]);
    int n = snprintf(out, 256, "after %s, %s; before %s, %s; change %s, %s; self %s", after, pa,
                     before, pb, change, pc, self);
    return n < 0 ? 0 : (size_t)n < 256 ? (size_t)n : 255;
}

size_t flamegraph_diff_summary(const flamegraph_diff *d, int size_before, const flamegraph_unit *u,
                               char *out)
{
    char after[64], before[64], change[72], pc[16], hidden[64];
    flamegraph_value_format(after, d->after[0], u);
    flamegraph_value_format(before, d->before[0], u);
    flamegraph_diff_signed(change, d->after[0] - d->before[0], u);
    flamegraph_diff_pct(pc, d->after[0] - d->before[0], d->before[0]);
    int n = snprintf(out, 512,
                     "before %s, after %s, change %s (%s). Widths: %s. Colour: own time grew "
                     "(red) or shrank (blue).",
                     before, after, change, pc, size_before ? "before" : "after");
    if (n > 0 && d->hidden && n < 512) {
        flamegraph_value_format(hidden, d->hidden_value, u);
        int m =
            snprintf(out + n, 512 - (size_t)n, " %zu %s only in %s (%s) not drawn.", d->hidden,
                     d->hidden == 1 ? "frame" : "frames", size_before ? "after" : "before", hidden);
        if (m > 0) n += m;
    }
    return n < 0 ? 0 : (size_t)n < 512 ? (size_t)n : 511;
}
