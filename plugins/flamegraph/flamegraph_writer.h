/* The flamegraph writer: stacks (span self times from the core's stack stage, or the input's own
 * samples) summed into a prefix tree and written as an interactive SVG. */
#ifndef FLAMEGRAPH_WRITER_H
#define FLAMEGRAPH_WRITER_H

#include "tconv/tconv.h"

extern const tconv_writer_class flamegraph_writer_class;

#endif
