/* The root frames writers add on top of stacks. The thread root frame that -W root adds on top
 * of every stack, named as stackcollapse-perf.pl names it: the folded and flamegraph writers
 * both link it (plugins/common), so that a flame graph and the folded lines of the same input and
 * option carry the same root frames. And the frame a GPU stream's stacks sit under, which the
 * flamegraph and pprof writers name alike. */
#ifndef FOLDED_ROOT_H
#define FOLDED_ROOT_H

#include "tconv/tconv.h"

enum { FOLDED_ROOT_NONE, FOLDED_ROOT_COMM, FOLDED_ROOT_PID, FOLDED_ROOT_TID };

/* The FOLDED_ROOT_* of a -W root value: "none", "comm", "comm-pid" or "comm-pid/tid". */
int folded_root_mode(const char *option);

/* The interned name of track's root frame in that mode (not FOLDED_ROOT_NONE): "comm",
 * "comm-PID" or "comm-PID/TID". */
tconv_str folded_root_name(tconv_ctx *ctx, uint32_t track, int mode);

/* The interned name of the frame a GPU stream's stacks sit under: its device and stream,
 * "0/stream 7" (the track's process, which Kineto numbers after the device and nsys and rocprof
 * name "GPU 0", then its thread name, else its tid), so that streams of two devices with one
 * number stay apart. 0 for a track that is not a GPU stream. */
tconv_str folded_stream_root(tconv_ctx *ctx, uint32_t track);

#define FOLDED_ROOT_VALUES "none|comm|comm-pid|comm-pid/tid"

#endif
