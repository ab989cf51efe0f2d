/* Frame colours: one hue per role of the span a frame stands for, so that CPU ops, Python frames,
 * runtime calls and device work read apart at a glance, and a shade from a hash of the name, so
 * that neighbours differ and a name keeps its colour from one graph to the next. */
#ifndef FLAMEGRAPH_COLOUR_H
#define FLAMEGRAPH_COLOUR_H

#include <stddef.h>

/* Colour classes. FLAMEGRAPH_HUE_HASH: nothing is known about the frame. */
enum {
    FLAMEGRAPH_HUE_HASH = 0,
    FLAMEGRAPH_HUE_CPU,
    FLAMEGRAPH_HUE_PYTHON,
    FLAMEGRAPH_HUE_ANNOTATION,
    FLAMEGRAPH_HUE_RUNTIME,
    FLAMEGRAPH_HUE_KERNEL,
    FLAMEGRAPH_HUE_MEMCPY,
    FLAMEGRAPH_HUE_MEMSET,
    FLAMEGRAPH_HUE_SYNC,
    FLAMEGRAPH_HUE_OVERHEAD,
    FLAMEGRAPH_HUE_STREAM, /* the root frame of a GPU stream's work */
    FLAMEGRAPH_NHUES
};

/* The colour class of a span of this tconv_role. */
unsigned flamegraph_colour_of_role(unsigned role);

/* "rgb(r,g,b)" for a frame of class hue named name[0..n); out holds 24 bytes. */
void flamegraph_colour(unsigned hue, const char *name, size_t n, char *out);

/* What a colour class stands for, as the legend says it ("kernel", "CPU operator", ...). */
const char *flamegraph_colour_name(unsigned hue);

#endif
