/* Stack samples summed per (track, stack): what a worker hands the main thread, or a rank rank 0,
 * in place of an input's spans when the writer sums samples itself (TCONV_WRITER_SUMMED_SAMPLES).
 * Invariant: the sums come out in the order their (track, stack) first came in, each carrying its
 * first sample's fields and the sum of every sample's values; a writer that adds up the samples
 * of a (track, stack) in arrival order builds the same tables from them as from the samples.
 *
 * A 50 MB trace makes some 250 000 samples over a few dozen to a few thousand distinct stacks:
 * the main thread then passes those few to the writer instead of ordering and walking the spans.
 * A stack is its node in a stack table (consecutive samples of a track share most of their
 * frames, which the table compares without hashing), and the core's map finds the sum of
 * (node, values, track). */
#include <string.h>

#include "stages.h"

struct tconv_sums {
    tconv_stacktab stacks;
    tconv_map index; /* (node | nvalues << 32, track) -> position in ev */
    tconv_event *ev; /* the first samples; frames and values point into the arena */
    size_t n, cap;
    tconv_arena arena;
};

tconv_sums *tconv_sums_new(void)
{
    tconv_sums *s = tconv_xcalloc(1, sizeof(tconv_sums));
    tconv_stacktab_init(&s->stacks);
    return s;
}

void tconv_sums_free(tconv_sums *s)
{
    if (!s) return;
    tconv_stacktab_free(&s->stacks);
    tconv_map_free(&s->index);
    free(s->ev);
    tconv_arena_free(&s->arena);
    free(s);
}

int tconv_sums_add(tconv_sums *s, const tconv_event *e)
{
    uint32_t node = tconv_stacktab_intern(&s->stacks, e->frames, e->frames ? e->nframes : 0);
    uint64_t key = (uint64_t)node | (uint64_t)e->nvalues << 32;
    if (s->n >= TCONV_MAP_NONE) return -1;
    uint32_t at = tconv_map_put(&s->index, key, e->track, (uint32_t)s->n);
    if (at < s->n) {
        int64_t *v = (int64_t *)s->ev[at].values;
        for (uint32_t i = 0; i < e->nvalues; i++)
            if (__builtin_add_overflow(v[i], e->values[i], &v[i])) return -1;
        return 0;
    }
    TCONV_GROW(s->ev, s->cap, s->n + 1);
    tconv_event *x = &s->ev[s->n++];
    *x = *e;
    x->args = NULL;
    x->nargs = 0;
    x->frames =
        e->nframes ? tconv_arena_dup(&s->arena, e->frames, e->nframes * sizeof(*e->frames)) : NULL;
    x->values =
        e->nvalues ? tconv_arena_dup(&s->arena, e->values, e->nvalues * sizeof(*e->values)) : NULL;
    return 0;
}

size_t tconv_sums_count(const tconv_sums *s)
{
    return s ? s->n : 0;
}

const tconv_event *tconv_sums_get(const tconv_sums *s, size_t i)
{
    return &s->ev[i];
}
