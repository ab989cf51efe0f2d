/* The thread root frame that -W root adds on top of every stack, named as stackcollapse-perf.pl
 * names it. The folded and flamegraph writers both link it (plugins/common), so that a flame
 * graph and the folded lines of the same input and option carry the same root frames. */
#ifndef FOLDED_ROOT_H
#define FOLDED_ROOT_H

#include "tconv/tconv.h"

enum { FOLDED_ROOT_NONE, FOLDED_ROOT_COMM, FOLDED_ROOT_PID, FOLDED_ROOT_TID };

/* The FOLDED_ROOT_* of a -W root value: "none", "comm", "comm-pid" or "comm-pid/tid". */
int folded_root_mode(const char *option);

/* The interned name of track's root frame in that mode (not FOLDED_ROOT_NONE): "comm",
 * "comm-PID" or "comm-PID/TID". */
tconv_str folded_root_name(tconv_ctx *ctx, uint32_t track, int mode);

#define FOLDED_ROOT_VALUES "none|comm|comm-pid|comm-pid/tid"

#endif
