/* The flame graph as one self-contained SVG: frames laid out from the prefix tree, titles and
 * labels escaped, the interaction script (flamegraph.js) inline. Nothing is fetched. */
#ifndef FLAMEGRAPH_SVG_H
#define FLAMEGRAPH_SVG_H

#include "tconv/tconv.h"

#include "flamegraph_tree.h"
#include "flamegraph_value.h"

typedef struct flamegraph_svg_options {
    const char *title;
    int icicle;      /* root at the top */
    int width;       /* of the image, pixels */
    double minwidth; /* frames narrower than this many pixels are left out */
    flamegraph_unit unit;
    int diff;        /* differential: the tree's two columns are two profiles (flamegraph_diff.h) */
    int size_before; /* diff: the first column, which sizes the frames, is the before profile */
} flamegraph_svg_options;

/* The interaction script, generated from flamegraph.js at build time (NUL-terminated). */
extern const char flamegraph_script[];

/* The bytes of the SVG go to sink in pieces; a negative return ends the writing (TCONV_FATAL). */
typedef int (*flamegraph_svg_sink)(void *user, const void *p, size_t n);
tconv_status flamegraph_svg_render(tconv_ctx *ctx, flamegraph_svg_sink sink, void *user,
                                   const flamegraph_tree *t, const flamegraph_svg_options *o);
/* The same to an output. */
tconv_status flamegraph_svg_write(tconv_ctx *ctx, tconv_output *out, const flamegraph_tree *t,
                                  const flamegraph_svg_options *o);

#endif
