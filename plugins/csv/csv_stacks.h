/* The stacks table: one row per distinct stack (root first) with its summed values. Stack
 * samples (perf, folded, Chrome samples) give their own values and sample types; without them,
 * spans give one stack per nesting path with samples/count (spans) and wall/nanoseconds (self
 * time), the values the core's stack stage would hand a profile writer. */
#ifndef CSV_STACKS_H
#define CSV_STACKS_H

#include <stddef.h>
#include <stdint.h>

#include "csv_buf.h"
#include "csv_map.h"
#include "csv_walk.h"

/* A prefix tree of frames: node 0 is the empty stack. */
typedef struct csv_trie {
    uint32_t *parent;
    tconv_str *frame;
    uint64_t *hits;  /* samples or spans that ended exactly here */
    int64_t *values; /* nvalues per node */
    size_t n, cap, nvalues;
    csv_map index;
} csv_trie;

typedef struct csv_stacks {
    tconv_ctx *ctx;
    csv_trie samples, spans;
    uint32_t *open; /* trie node of each open span, by depth */
    size_t open_cap;
    uint32_t *rows;
    csv_buf paths;
    size_t *path_at;
} csv_stacks;

void csv_stacks_init(csv_stacks *s, tconv_ctx *ctx);
void csv_stacks_free(csv_stacks *s);
void csv_stacks_span_begin(csv_stacks *s, const csv_walk *w);
void csv_stacks_span_end(csv_stacks *s, const csv_span *span);
void csv_stacks_sample(csv_stacks *s, const tconv_event *ev);

typedef struct csv_stack_set {
    const csv_trie *trie;
    const uint32_t *rows; /* trie nodes with hits, by default value (descending), then stack */
    size_t nrows;
    size_t default_value;
    int from_samples;
    /* Sample type of each value column. */
    const tconv_sample_type *types;
    size_t ntypes;
} csv_stack_set;

/* The rows: from samples when the input had any, else from spans. */
void csv_stacks_rows(csv_stacks *s, csv_stack_set *set);
/* The stack of a row as "root;...;leaf". */
void csv_stacks_path(const csv_stacks *s, const csv_trie *t, uint32_t node, csv_buf *out);
/* Frames from the leaf up: at most cap of them; returns the depth. */
size_t csv_trie_frames(const csv_trie *t, uint32_t node, tconv_str *out, size_t cap);

#endif
