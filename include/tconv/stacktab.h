/* A table of distinct stacks for writers that aggregate by stack (folded, csv stacks, flame
 * graphs): stacks are kept as a tree of shared prefixes and a stack is the id of its leaf node.
 * Memory grows with the number of distinct prefixes, never with the number of samples nor with
 * depth squared: 30 000 stacks nested 30 000 deep are 30 000 nodes. Node ids are dense
 * (0 .. count-1, in order of creation), so a writer keeps its values in a plain array beside
 * the table. Added in ABI 1.1. */
#ifndef TCONV_STACKTAB_H
#define TCONV_STACKTAB_H

#include <stddef.h>
#include <stdint.h>

#include "context.h"
#include "event.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct tconv_stacktab tconv_stacktab;

/* The empty stack, and the parent of an outermost frame. */
#define TCONV_STACK_ROOT UINT32_MAX

/* Out of memory ends in the handler of tconv_oom_handler_set, like every core allocation. */
tconv_stacktab *tconv_stacktab_new(void);
void tconv_stacktab_destroy(tconv_stacktab *t);

/* The node of the stack of n frames, root first, added if new; TCONV_STACK_ROOT for n == 0.
 * Frames are equal when every field is. Consecutive stacks that share a prefix (the usual case)
 * cost a comparison per shared frame, not a hash lookup. */
uint32_t tconv_stacktab_intern(tconv_stacktab *t, const tconv_frame *frames, size_t n);
/* The node of stack parent + f, added if new. */
uint32_t tconv_stacktab_child(tconv_stacktab *t, uint32_t parent, const tconv_frame *f);

uint32_t tconv_stacktab_count(const tconv_stacktab *t);
uint32_t tconv_stacktab_parent(const tconv_stacktab *t, uint32_t node);
const tconv_frame *tconv_stacktab_frame(const tconv_stacktab *t, uint32_t node);
size_t tconv_stacktab_depth(const tconv_stacktab *t, uint32_t node);
/* Writes depth(node) frames to out, root first. */
void tconv_stacktab_frames(const tconv_stacktab *t, uint32_t node, tconv_frame *out);

/* The stack's frame names joined by sep, root first, NUL-terminated, if it fits in cap bytes
 * (else buf gets an empty string); returns the length of the whole text, as snprintf does, so
 * a caller grows buf to that + 1 and calls again. */
size_t tconv_stacktab_join(const tconv_stacktab *t, const tconv_ctx *ctx, uint32_t node, char sep,
                           char *buf, size_t cap);

/* Every node, written to order[0 .. count-1] in the byte order of its joined text (what `sort`
 * in the C locale and inferno's ordered map give, so folded output compares byte for byte),
 * in O(count log count) comparisons of single names rather than of whole stacks. Names must
 * not contain sep. Two siblings with the same name (frames that differ in another field) keep
 * their creation order, and their subtrees follow one another rather than interleave. */
void tconv_stacktab_sort(const tconv_stacktab *t, const tconv_ctx *ctx, char sep, uint32_t *order);

#ifdef __cplusplus
}
#endif

#endif
