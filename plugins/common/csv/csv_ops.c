/* The ops table's aggregation. PyTorch operators are buffered per top-level node of a
 * thread's op tree (typically one ProfilerStep#), so that the merge of same-named single
 * children follows the tree the TensorBoard plugin builds; the tree is then reduced to per-op
 * aggregates and, for each launch, the chain of ops above it (interned, so memory grows with
 * distinct call paths, not with calls). Device time is joined in at the end, when the GPU
 * tracks have been seen too.
 *
 * Invariant: every instant of a thread is charged to the innermost tree node or launch open
 * around it, and a node's host self time is the instants charged to it (a merged node's, those
 * of the nodes it merged). So each child op and each launch is taken out of exactly one
 * node's time, once, and self time is never negative. A stack of the open tree nodes and
 * launches does this as spans end: a closing one adds its duration to the node just below
 * it, unless a launch is below it (a launch inside a launch, an op inside a launch), whose own
 * duration already holds it. Each correlation id's device time goes to one launch: the
 * earliest-starting one that carries the id. */
#include <stdlib.h>
#include <string.h>

#include "csv_sat.h"
#include "csv_ops.h"

enum { CSV_OPS_KIND_NONE = 0, CSV_OPS_KIND_TREE, CSV_OPS_KIND_RUNTIME, CSV_OPS_KIND_DEVICE };

typedef struct csv_ops_node {
    tconv_str name, cat;
    int64_t start, end;
    uint32_t parent; /* buffer index, TCONV_MAP_NONE at the top */
    uint8_t table;   /* a row of the ops table */
    uint8_t optype;  /* an operator (the merge rule applies) */
    uint32_t alias;  /* the node it was merged into, TCONV_MAP_NONE while it stands */
    uint32_t nchild, only_child, agg, chain;
    int64_t covered; /* time of the children and launches charged to it */
    int64_t self;
} csv_ops_node;

/* A launch with a correlation id inside a buffered tree. */
typedef struct csv_ops_rt {
    uint32_t node;
    int64_t corr, ts;
    uint64_t seq;
} csv_ops_rt;

/* A call path of ops, interned: the op (its aggregate) and the path above it. */
typedef struct csv_ops_link {
    uint32_t parent, agg;
} csv_ops_link;

typedef struct csv_ops_launch {
    uint32_t input, chain; /* chain 0: launched outside every op */
    int self;              /* launched by the op at the end of the chain itself */
    int64_t corr, ts;
    uint64_t seq;
} csv_ops_launch;

/* The device work of one (input, correlation id) and the launch it is charged to. */
typedef struct csv_ops_dev {
    int64_t dur;
    uint32_t launch; /* TCONV_MAP_NONE until csv_ops_finish */
} csv_ops_dev;

struct csv_ops {
    tconv_ctx *ctx;
    csv_kineto *k;
    int saw_ops, finished;

    csv_op_row *py, *all, *sorted;
    size_t npy, py_cap, nall, all_cap;
    tconv_map py_index, all_index;

    uint8_t *kinds; /* per walker depth */
    size_t kinds_cap;
    uint32_t *tree; /* open tree nodes */
    size_t ntree, tree_cap;
    uint32_t *cover; /* open tree nodes and launches (TCONV_MAP_NONE), innermost last */
    size_t ncover, cover_cap;
    uint32_t input;
    csv_ops_node *nodes;
    size_t nnodes, nodes_cap;
    csv_ops_rt *rts;
    size_t nrts, rts_cap;

    csv_ops_link *links;
    size_t nlinks, links_cap;
    tconv_map link_index;
    csv_ops_launch *launches;
    size_t nlaunches, launches_cap;
    csv_ops_dev *dev; /* per (input, correlation id) */
    size_t ndev, dev_cap;
    tconv_map dev_index;
};

csv_ops *csv_ops_new(tconv_ctx *ctx, csv_kineto *k)
{
    csv_ops *o = tconv_array_alloc(1, sizeof *o);
    o->ctx = ctx;
    o->k = k;
    TCONV_ARRAY_GROW(o->links, o->links_cap, 1);
    o->links[0] = (csv_ops_link){TCONV_MAP_NONE, TCONV_MAP_NONE}; /* the empty path */
    o->nlinks = 1;
    return o;
}

void csv_ops_free(csv_ops *o)
{
    if (!o) return;
    free(o->py);
    free(o->all);
    free(o->sorted);
    tconv_map_free(&o->py_index);
    tconv_map_free(&o->all_index);
    free(o->kinds);
    free(o->tree);
    free(o->cover);
    free(o->nodes);
    free(o->rts);
    free(o->links);
    tconv_map_free(&o->link_index);
    free(o->launches);
    free(o->dev);
    tconv_map_free(&o->dev_index);
    free(o);
}

static uint32_t csv_ops_agg(csv_op_row **rows, size_t *n, size_t *cap, tconv_map *index,
                            tconv_str name, tconv_str cat)
{
    uint32_t i = tconv_map_put(index, name, cat, (uint32_t)*n);
    if (i == *n) {
        TCONV_ARRAY_GROW(*rows, *cap, *n + 1);
        (*rows)[i] = (csv_op_row){.name = name, .cat = cat, .min = INT64_MAX};
        (*n)++;
    }
    return i;
}

static void csv_ops_count(csv_op_row *r, int64_t dur, int64_t self)
{
    r->calls++;
    r->total = csv_sat_add(r->total, dur);
    r->self = csv_sat_add(r->self, self);
    if (dur < r->min) r->min = dur;
    if (dur > r->max) r->max = dur;
}

void csv_ops_begin(csv_ops *o, const tconv_spanwalk *w)
{
    uint32_t d = tconv_spanwalk_depth(w) - 1;
    const tconv_span *f = tconv_spanwalk_open(w, d);
    TCONV_ARRAY_GROW(o->kinds, o->kinds_cap, (size_t)d + 1);
    csv_role role = csv_kineto_role(o->k, f->role, f->cat);
    int tree = 0, table = 0, optype = 0;
    if (role == CSV_ROLE_OP || role == CSV_ROLE_ANNOTATION || role == CSV_ROLE_PYTHON) {
        unsigned nf = csv_kineto_name(o->k, f->name);
        if (role == CSV_ROLE_OP) {
            o->saw_ops = 1;
            tree = 1;
            table = !(nf &
                      (CSV_NAME_STEP | CSV_NAME_DATALOADER | CSV_NAME_OPTIMIZER | CSV_NAME_NOT_OP));
            optype = !(nf & CSV_NAME_STEP);
        } else if (role == CSV_ROLE_PYTHON) {
            tree = 1;
        } else {
            /* Annotations are in the tree only when they are steps, data loading, optimizer
             * steps or collectives. */
            tree =
                (nf & (CSV_NAME_STEP | CSV_NAME_DATALOADER | CSV_NAME_OPTIMIZER | CSV_NAME_COMM)) !=
                0;
        }
    }
    if (tree) {
        o->kinds[d] = CSV_OPS_KIND_TREE;
        TCONV_ARRAY_GROW(o->nodes, o->nodes_cap, o->nnodes + 1);
        TCONV_ARRAY_GROW(o->tree, o->tree_cap, o->ntree + 1);
        TCONV_ARRAY_GROW(o->cover, o->cover_cap, o->ncover + 1);
        o->nodes[o->nnodes] = (csv_ops_node){
            .name = f->name,
            .cat = f->cat,
            .start = f->ts,
            .end = f->ts,
            .parent = o->ntree ? o->tree[o->ntree - 1] : TCONV_MAP_NONE,
            .table = (uint8_t)table,
            .optype = (uint8_t)optype,
        };
        o->cover[o->ncover++] = (uint32_t)o->nnodes;
        o->tree[o->ntree++] = (uint32_t)o->nnodes++;
    } else if (role == CSV_ROLE_RUNTIME) {
        o->kinds[d] = CSV_OPS_KIND_RUNTIME;
        TCONV_ARRAY_GROW(o->cover, o->cover_cap, o->ncover + 1);
        o->cover[o->ncover++] = TCONV_MAP_NONE;
    } else if (csv_role_is_device(role)) {
        o->kinds[d] = CSV_OPS_KIND_DEVICE;
    } else {
        o->kinds[d] = CSV_OPS_KIND_NONE;
    }
}

static uint32_t csv_ops_resolve(const csv_ops_node *nodes, uint32_t i)
{
    while (nodes[i].alias != TCONV_MAP_NONE)
        i = nodes[i].alias;
    return i;
}

static uint32_t csv_ops_link_get(csv_ops *o, uint32_t parent, uint32_t agg)
{
    uint32_t i = tconv_map_put(&o->link_index, parent, agg, (uint32_t)o->nlinks);
    if (i == o->nlinks) {
        TCONV_ARRAY_GROW(o->links, o->links_cap, o->nlinks + 1);
        o->links[o->nlinks++] = (csv_ops_link){parent, agg};
    }
    return i;
}

static void csv_ops_add_launch(csv_ops *o, uint32_t input, uint32_t chain, int self, int64_t corr,
                               int64_t ts, uint64_t seq)
{
    TCONV_ARRAY_GROW(o->launches, o->launches_cap, o->nlaunches + 1);
    o->launches[o->nlaunches++] = (csv_ops_launch){input, chain, self, corr, ts, seq};
}

/* A top-level tree node closed: reduce its tree to aggregates and launch records. */
static void csv_ops_reduce(csv_ops *o)
{
    csv_ops_node *nd = o->nodes;
    size_t n = o->nnodes;
    for (size_t i = 0; i < n; i++) {
        nd[i].alias = TCONV_MAP_NONE;
        nd[i].nchild = 0;
        nd[i].only_child = TCONV_MAP_NONE;
        nd[i].self = nd[i].end - nd[i].start - nd[i].covered;
    }
    for (size_t i = 0; i < n; i++) {
        uint32_t p = nd[i].parent;
        if (p == TCONV_MAP_NONE) continue;
        nd[p].nchild++;
        nd[p].only_child = (uint32_t)i;
    }
    /* Children come after their parent in the buffer, so a backward pass sees every child
     * merged before its parent is considered. A node that takes its child's place takes its
     * children, its launches and its self time. */
    for (size_t i = n; i-- > 0;) {
        while (nd[i].nchild == 1) {
            uint32_t c = nd[i].only_child;
            if (!nd[i].optype || !nd[c].optype || nd[i].name != nd[c].name) break;
            nd[c].alias = (uint32_t)i;
            nd[i].nchild = nd[c].nchild;
            nd[i].only_child = nd[c].only_child;
            nd[i].self += nd[c].self;
        }
    }
    for (size_t i = 0; i < n; i++) {
        csv_ops_node *x = &nd[i];
        if (x->alias != TCONV_MAP_NONE) continue;
        uint32_t p = x->parent == TCONV_MAP_NONE ? TCONV_MAP_NONE : csv_ops_resolve(nd, x->parent);
        uint32_t pchain = p == TCONV_MAP_NONE ? 0 : nd[p].chain;
        x->chain = pchain;
        if (!x->table) continue;
        x->agg = csv_ops_agg(&o->py, &o->npy, &o->py_cap, &o->py_index, x->name, x->cat);
        csv_ops_count(&o->py[x->agg], x->end - x->start, x->self);
        x->chain = csv_ops_link_get(o, pchain, x->agg);
    }
    for (size_t r = 0; r < o->nrts; r++) {
        const csv_ops_rt *rt = &o->rts[r];
        const csv_ops_node *owner = &nd[csv_ops_resolve(nd, rt->node)];
        csv_ops_add_launch(o, o->input, owner->chain, owner->table, rt->corr, rt->ts, rt->seq);
    }
    o->nnodes = 0;
    o->nrts = 0;
}

void csv_ops_end(csv_ops *o, const tconv_span *s)
{
    uint32_t a = csv_ops_agg(&o->all, &o->nall, &o->all_cap, &o->all_index, s->name, s->cat);
    csv_ops_count(&o->all[a], s->dur, s->self);

    int64_t corr = 0;
    uint8_t kind = o->kinds[s->depth];
    if ((kind == CSV_OPS_KIND_TREE || kind == CSV_OPS_KIND_RUNTIME) && o->ncover) {
        /* Charge the span to what it sits in: a node, or a launch, which holds it already. */
        o->ncover--;
        if (o->ncover && o->cover[o->ncover - 1] != TCONV_MAP_NONE)
            o->nodes[o->cover[o->ncover - 1]].covered += s->dur;
    }
    switch (kind) {
    case CSV_OPS_KIND_TREE:
        if (!o->ntree) break;
        o->nodes[o->tree[--o->ntree]].end = s->ts + s->dur;
        if (!o->ntree) {
            o->input = s->input;
            csv_ops_reduce(o);
        }
        break;
    case CSV_OPS_KIND_RUNTIME:
        /* Only its device time is left to place; a launch outside every op still takes its
         * correlation id's device time, which then belongs to no op. */
        if (!(corr = (int64_t)s->corr)) break;
        if (!o->ntree) {
            csv_ops_add_launch(o, s->input, 0, 0, corr, s->ts, s->seq);
            break;
        }
        TCONV_ARRAY_GROW(o->rts, o->rts_cap, o->nrts + 1);
        o->rts[o->nrts++] = (csv_ops_rt){o->tree[o->ntree - 1], corr, s->ts, s->seq};
        break;
    case CSV_OPS_KIND_DEVICE:
        if (!(corr = (int64_t)s->corr)) break;
        {
            uint32_t i = tconv_map_put(&o->dev_index, (uint64_t)corr, s->input, (uint32_t)o->ndev);
            if (i == o->ndev) {
                TCONV_ARRAY_GROW(o->dev, o->dev_cap, o->ndev + 1);
                o->dev[o->ndev++] = (csv_ops_dev){0, TCONV_MAP_NONE};
            }
            o->dev[i].dur = csv_sat_add(o->dev[i].dur, s->dur);
        }
        break;
    default:
        break;
    }
}

void csv_ops_finish(csv_ops *o)
{
    if (o->finished) return;
    o->finished = 1;
    if (o->nnodes) {
        /* Cannot happen after the ordering stage, which closes every span. */
        o->ntree = 0;
        csv_ops_reduce(o);
    }
    /* A correlation id that several launches carry (MTIA traces repeat them across threads)
     * names the earliest-starting of them, then the first in the input. */
    for (size_t i = 0; i < o->nlaunches; i++) {
        const csv_ops_launch *l = &o->launches[i];
        uint32_t d = tconv_map_get(&o->dev_index, (uint64_t)l->corr, l->input);
        if (d == TCONV_MAP_NONE) continue;
        const csv_ops_launch *b =
            o->dev[d].launch == TCONV_MAP_NONE ? NULL : &o->launches[o->dev[d].launch];
        if (!b || l->ts < b->ts || (l->ts == b->ts && l->seq < b->seq))
            o->dev[d].launch = (uint32_t)i;
    }
    for (size_t d = 0; d < o->ndev; d++) {
        if (o->dev[d].launch == TCONV_MAP_NONE) continue;
        const csv_ops_launch *l = &o->launches[o->dev[d].launch];
        int64_t t = o->dev[d].dur;
        if (l->self) {
            csv_op_row *r = &o->py[o->links[l->chain].agg];
            r->dev_self = csv_sat_add(r->dev_self, t);
        }
        for (uint32_t c = l->chain; c; c = o->links[c].parent)
            o->py[o->links[c].agg].dev_total = csv_sat_add(o->py[o->links[c].agg].dev_total, t);
    }
}

int csv_ops_launch_chain(csv_ops *o, uint32_t input, int64_t corr, uint32_t *chain)
{
    csv_ops_finish(o);
    uint32_t d = tconv_map_get(&o->dev_index, (uint64_t)corr, input);
    if (d == TCONV_MAP_NONE || o->dev[d].launch == TCONV_MAP_NONE) return 0;
    *chain = o->launches[o->dev[d].launch].chain;
    return 1;
}

uint32_t csv_ops_chain_step(const csv_ops *o, uint32_t chain, tconv_str *name, tconv_str *cat)
{
    const csv_op_row *r = &o->py[o->links[chain].agg];
    *name = r->name;
    *cat = r->cat;
    return o->links[chain].parent;
}

int csv_ops_launcher(csv_ops *o, uint32_t input, int64_t corr, tconv_str *name, tconv_str *cat)
{
    uint32_t chain = 0;
    if (!csv_ops_launch_chain(o, input, corr, &chain) || !chain) return 0;
    csv_ops_chain_step(o, chain, name, cat);
    return 1;
}

static const tconv_ctx *csv_ops_sort_ctx;

static int csv_ops_cmp(const void *pa, const void *pb)
{
    const csv_op_row *a = pa, *b = pb;
    if (a->self != b->self) return a->self > b->self ? -1 : 1;
    int c = strcmp(tconv_string_get(csv_ops_sort_ctx, a->name),
                   tconv_string_get(csv_ops_sort_ctx, b->name));
    if (c) return c;
    return strcmp(tconv_string_get(csv_ops_sort_ctx, a->cat),
                  tconv_string_get(csv_ops_sort_ctx, b->cat));
}

const csv_op_row *csv_ops_rows(csv_ops *o, csv_ops_mode mode, size_t *n, csv_ops_mode *used)
{
    csv_ops_finish(o);
    if (mode == CSV_OPS_AUTO) mode = o->saw_ops ? CSV_OPS_PYTORCH : CSV_OPS_ALL;
    if (used) *used = mode;
    const csv_op_row *src = mode == CSV_OPS_PYTORCH ? o->py : o->all;
    *n = mode == CSV_OPS_PYTORCH ? o->npy : o->nall;
    free(o->sorted);
    o->sorted = tconv_array_alloc(*n, sizeof *o->sorted);
    if (*n) memcpy(o->sorted, src, *n * sizeof *src);
    csv_ops_sort_ctx = o->ctx;
    qsort(o->sorted, *n, sizeof *o->sorted, csv_ops_cmp);
    return o->sorted;
}
