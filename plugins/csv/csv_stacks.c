/* Stack aggregation in prefix trees: memory grows with distinct stacks, not samples. */
#include <stdlib.h>
#include <string.h>

#include "csv_mem.h"
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
    free(t->parent);
    free(t->frame);
    free(t->hits);
    free(t->values);
    csv_map_free(&t->index);
}

/* Node 0, the empty stack, exists once anything was added. */
static void csv_trie_root(csv_trie *t)
{
    if (t->n) return;
    CSV_GROW(t->parent, t->cap, 1);
    t->n = 1;
    t->parent[0] = 0;
    t->frame = csv_xcalloc(t->cap, sizeof *t->frame);
    t->hits = csv_xcalloc(t->cap, sizeof *t->hits);
    t->values = csv_xcalloc(t->cap * (t->nvalues ? t->nvalues : 1), sizeof *t->values);
}

static uint32_t csv_trie_child(csv_trie *t, uint32_t parent, tconv_str frame)
{
    csv_trie_root(t);
    uint32_t id = csv_map_put(&t->index, frame, parent, (uint32_t)t->n);
    if (id != t->n) return id;
    if (t->n + 1 > t->cap) {
        size_t cap = t->cap;
        CSV_GROW(t->parent, cap, t->n + 1);
        size_t nv = t->nvalues ? t->nvalues : 1;
        tconv_str *f = realloc(t->frame, cap * sizeof *f);
        uint64_t *h = realloc(t->hits, cap * sizeof *h);
        int64_t *v = realloc(t->values, cap * nv * sizeof *v);
        if (!f || !h || !v) csv_oom(cap * nv * sizeof *v);
        t->frame = f;
        t->hits = h;
        t->values = v;
        t->cap = cap;
    }
    size_t nv = t->nvalues ? t->nvalues : 1;
    t->parent[t->n] = parent;
    t->frame[t->n] = frame;
    t->hits[t->n] = 0;
    memset(&t->values[t->n * nv], 0, nv * sizeof *t->values);
    return (uint32_t)t->n++;
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
    free(s->path_at);
    csv_buf_free(&s->paths);
}

void csv_stacks_span_begin(csv_stacks *s, const csv_walk *w)
{
    uint32_t d = w->depth - 1;
    CSV_GROW(s->open, s->open_cap, (size_t)d + 1);
    uint32_t parent = d ? s->open[d - 1] : 0;
    s->open[d] = csv_trie_child(&s->spans, parent, csv_walk_frame_at(w, d)->name);
}

void csv_stacks_span_end(csv_stacks *s, const csv_span *span)
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

size_t csv_trie_frames(const csv_trie *t, uint32_t node, tconv_str *out, size_t cap)
{
    size_t n = 0;
    for (uint32_t x = node; x; x = t->parent[x]) {
        if (n < cap) out[n] = t->frame[x];
        n++;
    }
    return n;
}

void csv_stacks_path(const csv_stacks *s, const csv_trie *t, uint32_t node, csv_buf *out)
{
    size_t depth = 0;
    for (uint32_t x = node; x; x = t->parent[x])
        depth++;
    /* Walk up into a small array, then write root first. */
    uint32_t stackbuf[64];
    uint32_t *path = depth <= 64 ? stackbuf : csv_xcalloc(depth, sizeof *path);
    size_t i = depth;
    for (uint32_t x = node; x; x = t->parent[x])
        path[--i] = x;
    for (i = 0; i < depth; i++) {
        if (i) csv_buf_putc(out, ';');
        tconv_str f = t->frame[path[i]];
        csv_buf_put(out, tconv_string_get(s->ctx, f), tconv_string_length(s->ctx, f));
    }
    if (path != stackbuf) free(path);
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
    const csv_stacks *s = csv_stacks_sort_s;
    /* Paths were written into one buffer, each NUL-terminated, at path_at[node]. */
    int c = strcmp(s->paths.p + s->path_at[a], s->paths.p + s->path_at[b]);
    if (c) return c;
    return a < b ? -1 : a > b;
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
    free(s->path_at);
    s->rows = csv_xcalloc(t->n, sizeof *s->rows);
    s->path_at = csv_xcalloc(t->n, sizeof *s->path_at);
    s->paths.len = 0;
    size_t n = 0;
    /* The root is a row only for samples without frames. */
    for (size_t i = 0; i < t->n; i++) {
        if (!t->hits[i]) continue;
        s->rows[n++] = (uint32_t)i;
        s->path_at[i] = s->paths.len;
        csv_stacks_path(s, t, (uint32_t)i, &s->paths);
        csv_buf_putc(&s->paths, '\0');
    }
    csv_stacks_sort_s = s;
    csv_stacks_sort_t = t;
    csv_stacks_sort_value = set->default_value;
    qsort(s->rows, n, sizeof *s->rows, csv_stacks_cmp);
    set->rows = s->rows;
    set->nrows = n;
}
