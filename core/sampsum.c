/* Stack samples summed per (track, stack): what a worker hands the main thread, or a rank rank 0,
 * in place of an input's spans when the writer sums samples itself (TCONV_WRITER_SUMMED_SAMPLES).
 * Invariant: the sums come out in the order their (track, stack) first came in, each carrying its
 * first sample's fields and the sum of every sample's values; a writer that adds up the samples
 * of a (track, stack) in arrival order builds the same tables from them as from the samples.
 *
 * A 50 MB trace makes some 300 000 samples over a few thousand distinct stacks: the main thread
 * then passes a few thousand samples to the writer instead of ordering and walking the spans. */
#include <string.h>

#include "internal.h"

typedef struct sums_entry {
    tconv_event ev; /* the first sample; frames and values point into the arena */
    uint64_t hash;
} sums_entry;

struct tconv_sums {
    sums_entry *e;
    size_t n, cap;
    uint32_t *slots; /* entry index + 1; 0 is empty */
    size_t nslots;
    tconv_arena arena;
};

tconv_sums *tconv_sums_new(void)
{
    return tconv_xcalloc(1, sizeof(tconv_sums));
}

void tconv_sums_free(tconv_sums *s)
{
    if (!s) return;
    free(s->e);
    free(s->slots);
    tconv_arena_free(&s->arena);
    free(s);
}

static uint64_t sums_mix(uint64_t h, uint64_t v)
{
    h ^= v + 0x9e3779b97f4a7c15u + (h << 6) + (h >> 2);
    return h * 0xff51afd7ed558ccdu;
}

static uint64_t sums_hash(const tconv_event *e)
{
    uint64_t h = sums_mix(e->track, ((uint64_t)e->nframes << 32) | e->nvalues);
    for (uint32_t i = 0; i < e->nframes; i++) {
        const tconv_frame *f = &e->frames[i];
        h = sums_mix(h, ((uint64_t)f->name << 32) | f->module);
        if (f->file | f->line | f->flags | f->addr)
            h = sums_mix(h, sums_mix(((uint64_t)f->file << 32) | f->line,
                                     f->addr ^ ((uint64_t)f->flags << 48)));
    }
    return h;
}

static int sums_same(const tconv_event *a, const tconv_event *b)
{
    if (a->track != b->track || a->nframes != b->nframes || a->nvalues != b->nvalues) return 0;
    for (uint32_t i = 0; i < a->nframes; i++) {
        const tconv_frame *x = &a->frames[i], *y = &b->frames[i];
        if (x->name != y->name || x->module != y->module || x->file != y->file ||
            x->line != y->line || x->flags != y->flags || x->addr != y->addr)
            return 0;
    }
    return 1;
}

static void sums_rehash(tconv_sums *s)
{
    size_t n = s->nslots ? s->nslots * 2 : 1024;
    uint32_t *slots = tconv_xcalloc(n, sizeof(*slots));
    for (size_t i = 0; i < s->n; i++) {
        size_t k = (size_t)s->e[i].hash & (n - 1);
        while (slots[k])
            k = (k + 1) & (n - 1);
        slots[k] = (uint32_t)i + 1;
    }
    free(s->slots);
    s->slots = slots;
    s->nslots = n;
}

int tconv_sums_add(tconv_sums *s, const tconv_event *e)
{
    if ((s->n + 1) * 2 > s->nslots) sums_rehash(s);
    uint64_t h = sums_hash(e);
    size_t k = (size_t)h & (s->nslots - 1);
    for (; s->slots[k]; k = (k + 1) & (s->nslots - 1)) {
        sums_entry *x = &s->e[s->slots[k] - 1];
        if (x->hash != h || !sums_same(&x->ev, e)) continue;
        int64_t *v = (int64_t *)x->ev.values;
        for (uint32_t i = 0; i < e->nvalues; i++)
            if (__builtin_add_overflow(v[i], e->values[i], &v[i])) return -1;
        return 0;
    }
    if (s->n >= UINT32_MAX - 1) return -1;
    TCONV_GROW(s->e, s->cap, s->n + 1);
    sums_entry *x = &s->e[s->n];
    x->hash = h;
    x->ev = *e;
    x->ev.args = NULL;
    x->ev.nargs = 0;
    x->ev.frames =
        e->nframes ? tconv_arena_dup(&s->arena, e->frames, e->nframes * sizeof(*e->frames)) : NULL;
    x->ev.values =
        e->nvalues ? tconv_arena_dup(&s->arena, e->values, e->nvalues * sizeof(*e->values)) : NULL;
    s->slots[k] = (uint32_t)++s->n;
    return 0;
}

size_t tconv_sums_count(const tconv_sums *s)
{
    return s ? s->n : 0;
}

const tconv_event *tconv_sums_get(const tconv_sums *s, size_t i)
{
    return &s->e[i].ev;
}
