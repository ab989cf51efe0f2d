/* The CPU flame graph: the stacks the csv writer's stacks table holds (span self times, or the
 * input's own samples) of CPU threads only, summed into the flamegraph writer's tree and drawn by
 * its SVG code, so that the graph is the one `-w flamegraph` draws without its GPU streams'
 * frames (which the GPU graph shows on the operators that launched them). Spans are coloured by
 * the role of their name's first span; steps are one frame, as the flamegraph writer draws them
 * (-W steps, the core's steps stage). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "flamegraph_colour.h"
#include "flamegraph_svg.h"
#include "flamegraph_tree.h"
#include "html_writer.h"

static int html_flame_sink(void *user, const void *p, size_t n)
{
    csv_buf_put(user, p, n);
    return 0;
}

/* The SVG of a tree into b, and its height in pixels, from its first element. */
static tconv_status html_flame_svg(html_writer *w, const flamegraph_tree *tree,
                                   const flamegraph_svg_options *o, csv_buf *b, int *height)
{
    size_t at = b->len;
    tconv_status st = flamegraph_svg_render(w->ctx, html_flame_sink, b, tree, o);
    *height = 0;
    csv_buf_putc(b, '\0');
    const char *h = strstr(b->p + at, " height=\"");
    if (h) *height = atoi(h + 9);
    b->len--;
    return st;
}

tconv_status html_flame_gpu(html_writer *w, csv_buf *b, int *height)
{
    flamegraph_svg_options o = {
        .title = "GPU time by launching operator",
        .width = w->flame_width,
        .minwidth = 0.1,
        .unit = flamegraph_value_unit("gpu", "nanoseconds"),
    };
    return html_flame_svg(w, w->gpu_tree, &o, b, height);
}

void html_flame_build(html_writer *w)
{
    csv_stack_set set;
    csv_stacks_rows(&w->stacks, &set);
    const csv_trie *t = set.trie;
    size_t nv = t->nvalues, v = set.default_value;
    flamegraph_tree *tree = flamegraph_tree_new(tconv_string_intern_cstr(w->ctx, "all"), 0);
    tconv_str *names = NULL;
    uint8_t *hues = NULL;
    size_t cap = 0, hcap = 0;
    for (size_t r = 0; r < set.nrows; r++) {
        uint32_t node = set.rows[r];
        int64_t value = nv ? t->values[node * nv + v] : 0;
        size_t depth = csv_trie_depth(t, node);
        if (value <= 0 || !depth) continue;
        TCONV_ARRAY_GROW(names, cap, depth);
        TCONV_ARRAY_GROW(hues, hcap, depth);
        size_t k = depth;
        for (uint32_t x = node; x; x = csv_trie_parent(t, x)) {
            names[--k] = csv_trie_frame(t, x);
            uint32_t hue = set.from_samples ? TCONV_MAP_NONE : tconv_map_get(&w->hue, names[k], 0);
            hues[k] = hue == TCONV_MAP_NONE ? FLAMEGRAPH_HUE_HASH : (uint8_t)(hue - 1);
            if (w->step_frames) tconv_steps_name(w->step_frames, names[k], &names[k], NULL);
        }
        flamegraph_tree_add(tree, names, hues, depth, value, 0);
    }
    free(names);
    free(hues);
    w->cpu_tree = tree;
    const char *type = v < set.ntypes ? set.types[v].type : NULL;
    const char *unit = v < set.ntypes ? set.types[v].unit : NULL;
    w->cpu_unit = flamegraph_value_unit(type, unit);
}

tconv_status html_flame(html_writer *w, csv_buf *b, int *height)
{
    flamegraph_svg_options o = {
        .title = "CPU self time",
        .width = w->flame_width,
        .minwidth = 0.1,
        .unit = w->cpu_unit,
    };
    return html_flame_svg(w, w->cpu_tree, &o, b, height);
}
