/* A differential flame graph, as difffolded.pl and flamegraph.pl draw one: two profiles of the
 * same stacks, before and after; widths show one of them, and each frame's colour says how its
 * own time (not its children's) changed from before to after. */
#ifndef FLAMEGRAPH_DIFF_H
#define FLAMEGRAPH_DIFF_H

#include <stddef.h>
#include <stdint.h>

#include "flamegraph_tree.h"
#include "flamegraph_value.h"

typedef struct flamegraph_diff {
    int64_t *after, *before; /* per node: the value of each profile through it */
    int64_t *self;           /* per node: own time after minus own time before */
    int64_t maxself;         /* the largest |self|, at least 1: the deepest colour */
    size_t hidden;           /* outermost frames with no width (only in the profile not drawn) */
    int64_t hidden_value;    /* ... and their time in that profile */
} flamegraph_diff;

/* From a two-column tree whose first column is before when size_before, else after. */
void flamegraph_diff_init(flamegraph_diff *d, const flamegraph_tree *t, int size_before);
void flamegraph_diff_free(flamegraph_diff *d);

/* "rgb(r,g,b)" of node id: white when its own time is the same, red the more it grew, blue the
 * more it shrank, scaled by maxself as flamegraph.pl scales them; out holds 24 bytes. */
void flamegraph_diff_colour(const flamegraph_diff *d, uint32_t id, char *out);

/* What a frame's title says after its name, plain text:
 * "after V, P%; before V, P%; change +V, +P%; self +V" (the change's share is of the frame's
 * time before, "new" when it had none). out holds 256 bytes; returns the length. */
size_t flamegraph_diff_title(const flamegraph_diff *d, uint32_t id, const flamegraph_unit *u,
                             char *out);

/* The line under the title: both totals, their change and what is drawn. out holds 512 bytes. */
size_t flamegraph_diff_summary(const flamegraph_diff *d, int size_before, const flamegraph_unit *u,
                               char *out);

#endif
