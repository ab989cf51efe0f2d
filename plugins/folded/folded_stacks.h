/* A table of distinct stacks (sequences of interned frame names, root first) with a summed
 * value each: what folded output is made of. Memory grows with the number of distinct stacks,
 * not with the number of samples. */
#ifndef FOLDED_STACKS_H
#define FOLDED_STACKS_H

#include <stddef.h>
#include <stdint.h>

typedef struct folded_stacks folded_stacks;

folded_stacks *folded_stacks_new(void);
void folded_stacks_free(folded_stacks *t);
/* Add v to the stack's value (creating it at 0). Returns -1 if the sum overflowed (it then
 * saturates), else 0. */
int folded_stacks_add(folded_stacks *t, const uint32_t *ids, uint32_t n, int64_t v);
size_t folded_stacks_count(const folded_stacks *t);
/* Stacks are numbered 0.. in order of first appearance. */
const uint32_t *folded_stacks_get(const folded_stacks *t, size_t i, uint32_t *n, int64_t *v);
/* Multiply every value by k (for a change of fixed-point scale); -1 on overflow. */
int folded_stacks_scale(folded_stacks *t, int64_t k);

#endif
