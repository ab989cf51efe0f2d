/* The stacks table: one row per distinct stack (root first) with its summed values. Stack
 * samples (perf, folded, Chrome samples) give their own values and sample types; without them,
 * spans give one stack per nesting path with samples/count (spans) and wall/nanoseconds (self
 * time), the values the core's stack stage would hand a profile writer. */
#ifndef CSV_STACKS_H
#define CSV_STACKS_H

#include <stddef.h>
#include <stdint.h>

#include "csv_buf.h"
#include <tconv/tconv.h>

/* Stacks in the core's stack table, with counts and values beside it. Node x is the table's
 * node x - 1, so node 0 is the empty stack (TCONV_STACK_ROOT + 1 wraps to 0). */
typedef struct csv_trie {
    tconv_stacktab *tab;
    uint64_t *hits;  /* samples or spans that ended exactly here */
    int64_t *values; /* nvalues per node */
    size_t n, cap, nvalues;
} csv_trie;

static inline uint32_t csv_trie_parent(const csv_trie *t, uint32_t node)
{
    return tconv_stacktab_parent(t->tab, node - 1) + 1;
}

static inline tconv_str csv_trie_frame(const csv_trie *t, uint32_t node)
{
    return tconv_stacktab_frame(t->tab, node - 1)->name;
}

typedef struct csv_stacks {
    tconv_ctx *ctx;
    csv_trie samples, spans;
    uint32_t *open; /* trie node of each open span, by depth */
    size_t open_cap;
    uint32_t *rows;
    uint32_t *rank; /* node -> position in the text order of stacks */
} csv_stacks;

void csv_stacks_init(csv_stacks *s, tconv_ctx *ctx);
void csv_stacks_free(csv_stacks *s);
void csv_stacks_span_begin(csv_stacks *s, const tconv_spanwalk *w);
void csv_stacks_span_end(csv_stacks *s, const tconv_span *span);
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
/* The number of frames of a row's stack. */
size_t csv_trie_depth(const csv_trie *t, uint32_t node);

#endif
