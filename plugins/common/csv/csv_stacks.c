/* Stack aggregation in prefix trees: memory grows with distinct stacks, not samples. */
#include <stdlib.h>
#include <string.h>

#include "csv_sat.h"
#include "csv_stacks.h"

static const tconv_sample_type csv_span_types[2] = {{"samples", "count"}, {"wall", "nanoseconds"}};

static void csv_trie_init(csv_trie *t, size_t nvalues)
{
    memset(t, 0, sizeof *t);
    t->nvalues = nvalues;
}

static void csv_trie_free(csv_trie *t)
{
    tconv_stacktab_destroy(t->tab);
    free(t->hits);
    free(t->values);
}

/* Node 0, the empty stack, exists once anything was added. */
static void csv_trie_root(csv_trie *t)
{
    if (t->n) return;
    t->tab = tconv_stacktab_new();
    t->n = 1;
    t->cap = 64;
    t->hits = tconv_array_alloc(t->cap, sizeof *t->hits);
    t->values = tconv_array_alloc(t->cap * (t->nvalues ? t->nvalues : 1), sizeof *t->values);
}

/* Counts and values for every node the table has, new ones at 0. */
static void csv_trie_fit(csv_trie *t)
{
    size_t n = (size_t)tconv_stacktab_count(t->tab) + 1;
    if (n > t->cap) {
        size_t nv = t->nvalues ? t->nvalues : 1, old = t->cap, vcap = old * nv;
        TCONV_ARRAY_GROW(t->hits, t->cap, n);
        TCONV_ARRAY_GROW(t->values, vcap, t->cap * nv);
        memset(t->hits + old, 0, (t->cap - old) * sizeof *t->hits);
        memset(t->values + old * nv, 0, (t->cap - old) * nv * sizeof *t->values);
    }
    t->n = n;
}

static uint32_t csv_trie_child(csv_trie *t, uint32_t parent, tconv_str frame)
{
    csv_trie_root(t);
    tconv_frame f = {.name = frame};
    uint32_t id = tconv_stacktab_child(t->tab, parent - 1, &f) + 1;
    csv_trie_fit(t);
    return id;
}

static void csv_trie_add(csv_trie *t, uint32_t node, const int64_t *values, size_t n)
{
    t->hits[node]++;
    size_t nv = t->nvalues ? t->nvalues : 1;
    for (size_t i = 0; i < n && i < t->nvalues; i++)
        t->values[node * nv + i] = csv_sat_add(t->values[node * nv + i], values[i]);
}

void csv_stacks_init(csv_stacks *s, tconv_ctx *ctx)
{
    memset(s, 0, sizeof *s);
    s->ctx = ctx;
    csv_trie_init(&s->samples, 0);
    csv_trie_init(&s->spans, 2);
}

void csv_stacks_free(csv_stacks *s)
{
    csv_trie_free(&s->samples);
    csv_trie_free(&s->spans);
    free(s->open);
    free(s->rows);
    free(s->rank);
}

void csv_stacks_span_begin(csv_stacks *s, const tconv_spanwalk *w)
{
    uint32_t d = tconv_spanwalk_depth(w) - 1;
    TCONV_ARRAY_GROW(s->open, s->open_cap, (size_t)d + 1);
    uint32_t parent = d ? s->open[d - 1] : 0;
    s->open[d] = csv_trie_child(&s->spans, parent, tconv_spanwalk_open(w, d)->name);
}

void csv_stacks_span_end(csv_stacks *s, const tconv_span *span)
{
    int64_t v[2] = {1, span->self};
    csv_trie_add(&s->spans, s->open[span->depth], v, 2);
}

void csv_stacks_sample(csv_stacks *s, const tconv_event *ev)
{
    csv_trie *t = &s->samples;
    if (!t->n) {
        /* The value columns are the sample types declared before the first sample. */
        size_t ntypes = 0, def = 0;
        tconv_sampletypes_get(s->ctx, &ntypes, &def);
        t->nvalues = ntypes ? ntypes : ev->nvalues;
        if (!t->nvalues) t->nvalues = 1;
    }
    csv_trie_root(t);
    uint32_t node = 0;
    for (uint32_t i = 0; i < ev->nframes; i++)
        node = csv_trie_child(t, node, ev->frames[i].name);
    csv_trie_add(t, node, ev->values, ev->nvalues);
}

size_t csv_trie_depth(const csv_trie *t, uint32_t node)
{
    return node ? tconv_stacktab_depth(t->tab, node - 1) : 0;
}

void csv_stacks_path(const csv_stacks *s, const csv_trie *t, uint32_t node, csv_buf *out)
{
    if (!node) return;
    size_t len = tconv_stacktab_join(t->tab, s->ctx, node - 1, ';', NULL, 0);
    csv_buf_reserve(out, len + 1);
    tconv_stacktab_join(t->tab, s->ctx, node - 1, ';', out->p + out->len, len + 1);
    out->len += len;
}

static const csv_stacks *csv_stacks_sort_s;
static const csv_trie *csv_stacks_sort_t;
static size_t csv_stacks_sort_value;

static int csv_stacks_cmp(const void *pa, const void *pb)
{
    uint32_t a = *(const uint32_t *)pa, b = *(const uint32_t *)pb;
    const csv_trie *t = csv_stacks_sort_t;
    size_t nv = t->nvalues;
    int64_t va = t->values[a * nv + csv_stacks_sort_value];
    int64_t vb = t->values[b * nv + csv_stacks_sort_value];
    if (va != vb) return va > vb ? -1 : 1;
    const uint32_t *rank = csv_stacks_sort_s->rank;
    return rank[a] < rank[b] ? -1 : rank[a] > rank[b];
}

void csv_stacks_rows(csv_stacks *s, csv_stack_set *set)
{
    memset(set, 0, sizeof *set);
    size_t ntypes = 0, def = 0;
    const tconv_sample_type *types = tconv_sampletypes_get(s->ctx, &ntypes, &def);
    const csv_trie *t;
    if (s->samples.n) {
        t = &s->samples;
        set->from_samples = 1;
        set->types = types;
        set->ntypes = ntypes < t->nvalues ? ntypes : t->nvalues;
        set->default_value = def < t->nvalues ? def : 0;
    } else {
        t = &s->spans;
        set->types = csv_span_types;
        set->ntypes = 2;
        set->default_value = 1;
    }
    set->trie = t;
    free(s->rows);
    free(s->rank);
    s->rows = tconv_array_alloc(t->n, sizeof *s->rows);
    s->rank = tconv_array_alloc(t->n, sizeof *s->rank);
    /* Ties in value go in the text order of the stacks; the empty one ("") comes first. */
    if (t->n > 1) {
        uint32_t *order = tconv_array_alloc(t->n - 1, sizeof *order);
        tconv_stacktab_sort(t->tab, s->ctx, ';', order);
        for (size_t i = 0; i + 1 < t->n; i++)
            s->rank[order[i] + 1] = (uint32_t)i + 1;
        free(order);
    }
    size_t n = 0;
    /* The root is a row only for samples without frames. */
    for (size_t i = 0; i < t->n; i++)
        if (t->hits[i]) s->rows[n++] = (uint32_t)i;
    csv_stacks_sort_s = s;
    csv_stacks_sort_t = t;
    csv_stacks_sort_value = set->default_value;
    qsort(s->rows, n, sizeof *s->rows, csv_stacks_cmp);
    set->rows = s->rows;
    set->nrows = n;
}
