/* What a sample says about where it ran: its labels and, for GPU streams, the root frame. Tracks
 * that say the same thing share a group, so their samples merge; with -W labels=none all tracks
 * without a root frame do. */
#ifndef PPROF_GROUPS_H
#define PPROF_GROUPS_H

#include <stdint.h>

#include "pprof_index.h"
#include "pprof_writer.h"

enum { PPROF_ID_NONE = 0, PPROF_ID_NUM = 1, PPROF_ID_STR = 2 };

typedef struct pprof_group {
    uint32_t root_frame;         /* a frame id of the writer's stacks, or PPROF_INDEX_NONE */
    uint32_t pid_kind, tid_kind; /* PPROF_ID_* */
    int64_t pid_num, tid_num;
    tconv_str pid_str, tid_str;
    tconv_str thread, process; /* 0 when absent */
    uint32_t device_kind;      /* PPROF_ID_*: the device of a GPU stream, its pid */
    int64_t device_num;
    tconv_str device_str;
    int has_rank, has_input;
    int64_t rank;
    uint32_t input;
} pprof_group;

/* Marks a track that the track filter removes. */
#define PPROF_GROUP_SKIP UINT32_MAX

/* How the samples of an input say where they came from. */
typedef struct pprof_input {
    int has_rank, has_input;
    int64_t rank;
} pprof_input;

typedef struct pprof_groups {
    pprof_group *items;
    uint32_t count, cap;
    pprof_index ix;
    uint32_t *of_track; /* per track id: group id or PPROF_GROUP_SKIP */
    uint32_t ntracks;
    pprof_input *inputs; /* per input */
} pprof_groups;

void pprof_groups_init(pprof_groups *g);
void pprof_groups_free(pprof_groups *g);
/* Assign a group to every track of the run; may add root frames to w->stacks. -1 with the
 * error on the context when out of memory. */
int pprof_groups_build(pprof_groups *g, pprof_writer *w);

#endif
