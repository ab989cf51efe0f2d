/* The ops table's aggregation. PyTorch operators are buffered per top-level node of a
 * thread's op tree (typically one ProfilerStep#), so that the merge of same-named single
 * children and the self times follow the tree the TensorBoard plugin builds; the tree is then
 * reduced to per-op aggregates and, for each launch, the chain of ops above it (interned, so
 * memory grows with distinct call paths, not with calls). Device time is joined in at the end,
 * when the GPU tracks have been seen too. */
#include <stdlib.h>
#include <string.h>

#include "csv_mem.h"
#include "csv_sat.h"
#include "csv_ops.h"

enum { CSV_OPS_KIND_NONE = 0, CSV_OPS_KIND_TREE, CSV_OPS_KIND_RUNTIME, CSV_OPS_KIND_DEVICE };

typedef struct csv_ops_node {
    tconv_str name, cat;
    int64_t start, end;
    uint32_t parent; /* buffer index, CSV_MAP_NONE at the top */
    uint8_t table;   /* a row of the ops table */
    uint8_t optype;  /* an operator (the merge rule applies) */
    uint8_t rt_dropped;
    uint32_t alias; /* the node it was merged into, CSV_MAP_NONE while it stands */
    uint32_t nchild, only_child, agg, chain;
    int64_t child_dur, rt_dur;
    int64_t ext; /* External id, 0 when none */
} csv_ops_node;

typedef struct csv_ops_rt {
    uint32_t node;
    int has_corr;
    int64_t corr, dur;
} csv_ops_rt;

/* A call path of ops, interned: the op (its aggregate) and the path above it. */
typedef struct csv_ops_link {
    uint32_t parent, agg;
} csv_ops_link;

typedef struct csv_ops_launch {
    uint32_t input, chain;
    int self; /* launched by the op at the end of the chain itself */
    int64_t corr;
} csv_ops_launch;

struct csv_ops {
    tconv_ctx *ctx;
    csv_kineto *k;
    int saw_ops, finished;

    csv_op_row *py, *all, *sorted;
    size_t npy, py_cap, nall, all_cap;
    csv_map py_index, all_index;

    uint8_t *kinds; /* per walker depth */
    size_t kinds_cap;
    uint32_t *tree; /* open tree nodes */
    size_t ntree, tree_cap;
    uint32_t input;
    csv_ops_node *nodes;
    size_t nnodes, nodes_cap;
    csv_ops_rt *rts;
    size_t nrts, rts_cap;

    csv_ops_link *links;
    size_t nlinks, links_cap;
    csv_map link_index;
    csv_ops_launch *launches;
    size_t nlaunches, launches_cap;
    int64_t *dev; /* device time per (input, correlation id) */
    size_t ndev, dev_cap;
    csv_map dev_index;
};

csv_ops *csv_ops_new(tconv_ctx *ctx, csv_kineto *k)
{
    csv_ops *o = csv_xcalloc(1, sizeof *o);
    o->ctx = ctx;
    o->k = k;
    CSV_GROW(o->links, o->links_cap, 1);
    o->links[0] = (csv_ops_link){CSV_MAP_NONE, CSV_MAP_NONE}; /* the empty path */
    o->nlinks = 1;
    return o;
}

void csv_ops_free(csv_ops *o)
{
    if (!o) return;
    free(o->py);
    free(o->all);
    free(o->sorted);
    csv_map_free(&o->py_index);
    csv_map_free(&o->all_index);
    free(o->kinds);
    free(o->tree);
    free(o->nodes);
    free(o->rts);
    free(o->links);
    csv_map_free(&o->link_index);
    free(o->launches);
    free(o->dev);
    csv_map_free(&o->dev_index);
    free(o);
}

static uint32_t csv_ops_agg(csv_op_row **rows, size_t *n, size_t *cap, csv_map *index,
                            tconv_str name, tconv_str cat)
{
    uint32_t i = csv_map_put(index, name, cat, (uint32_t)*n);
    if (i == *n) {
        CSV_GROW(*rows, *cap, *n + 1);
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

/* Kineto writes "External id"; older traces spell it "external id" on launches. */
static int csv_ops_external_id(const csv_ops *o, const tconv_arg *args, uint32_t n, int64_t *ext)
{
    return csv_arg_int(o->ctx, args, n, "External id", ext) ||
           csv_arg_int(o->ctx, args, n, "external id", ext);
}

/* The node a launch belongs to: the open node with the launch's External id, as the plugin
 * matches them, else (the id is 0, absent, or names no enclosing node, as in traces whose ids
 * were rewritten) the innermost open node. */
static uint32_t csv_ops_launch_owner(const csv_ops *o, const csv_span *s)
{
    int64_t ext = 0;
    if (csv_ops_external_id(o, s->args, s->nargs, &ext) && ext)
        for (size_t i = o->ntree; i-- > 0;)
            if (o->nodes[o->tree[i]].ext == ext) return o->tree[i];
    return o->tree[o->ntree - 1];
}

void csv_ops_begin(csv_ops *o, const csv_walk *w)
{
    uint32_t d = w->depth - 1;
    const csv_walk_frame *f = csv_walk_frame_at(w, d);
    CSV_GROW(o->kinds, o->kinds_cap, (size_t)d + 1);
    csv_role role = csv_kineto_role(o->k, f->cat);
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
        int64_t ext = 0;
        csv_ops_external_id(o, w->args + f->args_at, f->nargs, &ext);
        o->kinds[d] = CSV_OPS_KIND_TREE;
        CSV_GROW(o->nodes, o->nodes_cap, o->nnodes + 1);
        CSV_GROW(o->tree, o->tree_cap, o->ntree + 1);
        o->nodes[o->nnodes] = (csv_ops_node){
            .name = f->name,
            .cat = f->cat,
            .start = f->ts,
            .end = f->ts,
            .parent = o->ntree ? o->tree[o->ntree - 1] : CSV_MAP_NONE,
            .table = (uint8_t)table,
            .optype = (uint8_t)optype,
            .ext = ext,
        };
        o->tree[o->ntree++] = (uint32_t)o->nnodes++;
    } else if (role == CSV_ROLE_RUNTIME) {
        o->kinds[d] = CSV_OPS_KIND_RUNTIME;
    } else if (csv_role_is_device(role)) {
        o->kinds[d] = CSV_OPS_KIND_DEVICE;
    } else {
        o->kinds[d] = CSV_OPS_KIND_NONE;
    }
}

static uint32_t csv_ops_resolve(const csv_ops_node *nodes, uint32_t i)
{
    while (nodes[i].alias != CSV_MAP_NONE)
        i = nodes[i].alias;
    return i;
}

static uint32_t csv_ops_link_get(csv_ops *o, uint32_t parent, uint32_t agg)
{
    uint32_t i = csv_map_put(&o->link_index, parent, agg, (uint32_t)o->nlinks);
    if (i == o->nlinks) {
        CSV_GROW(o->links, o->links_cap, o->nlinks + 1);
        o->links[o->nlinks++] = (csv_ops_link){parent, agg};
    }
    return i;
}

/* A top-level tree node closed: reduce its tree to aggregates and launch records. */
static void csv_ops_reduce(csv_ops *o)
{
    csv_ops_node *nd = o->nodes;
    size_t n = o->nnodes;
    for (size_t i = 0; i < n; i++) {
        nd[i].alias = CSV_MAP_NONE;
        nd[i].nchild = 0;
        nd[i].only_child = CSV_MAP_NONE;
        nd[i].child_dur = nd[i].rt_dur = 0;
        nd[i].rt_dropped = 0;
    }
    for (size_t i = 0; i < n; i++) {
        uint32_t p = nd[i].parent;
        if (p == CSV_MAP_NONE) continue;
        nd[p].nchild++;
        nd[p].child_dur += nd[i].end - nd[i].start;
        nd[p].only_child = (uint32_t)i;
    }
    /* Children come after their parent in the buffer, so a backward pass sees every child
     * merged before its parent is considered. A node that takes its child's place takes its
     * children and its launches; its own launches are dropped, as the plugin does. */
    for (size_t i = n; i-- > 0;) {
        while (nd[i].nchild == 1) {
            uint32_t c = nd[i].only_child;
            if (!nd[i].optype || !nd[c].optype || nd[i].name != nd[c].name) break;
            nd[c].alias = (uint32_t)i;
            nd[i].rt_dropped = 1;
            nd[i].nchild = nd[c].nchild;
            nd[i].child_dur = nd[c].child_dur;
            nd[i].only_child = nd[c].only_child;
        }
    }
    for (size_t r = 0; r < o->nrts; r++) {
        const csv_ops_rt *rt = &o->rts[r];
        if (nd[rt->node].rt_dropped) continue;
        nd[csv_ops_resolve(nd, rt->node)].rt_dur += rt->dur;
    }
    for (size_t i = 0; i < n; i++) {
        csv_ops_node *x = &nd[i];
        if (x->alias != CSV_MAP_NONE) continue;
        uint32_t p = x->parent == CSV_MAP_NONE ? CSV_MAP_NONE : csv_ops_resolve(nd, x->parent);
        uint32_t pchain = p == CSV_MAP_NONE ? 0 : nd[p].chain;
        x->chain = pchain;
        if (!x->table) continue;
        int64_t dur = x->end - x->start;
        x->agg = csv_ops_agg(&o->py, &o->npy, &o->py_cap, &o->py_index, x->name, x->cat);
        csv_ops_count(&o->py[x->agg], dur, dur - x->child_dur - x->rt_dur);
        x->chain = csv_ops_link_get(o, pchain, x->agg);
    }
    for (size_t r = 0; r < o->nrts; r++) {
        const csv_ops_rt *rt = &o->rts[r];
        if (!rt->has_corr || nd[rt->node].rt_dropped) continue;
        const csv_ops_node *owner = &nd[csv_ops_resolve(nd, rt->node)];
        if (!owner->chain) continue;
        CSV_GROW(o->launches, o->launches_cap, o->nlaunches + 1);
        o->launches[o->nlaunches++] =
            (csv_ops_launch){o->input, owner->chain, owner->table, rt->corr};
    }
    o->nnodes = 0;
    o->nrts = 0;
}

void csv_ops_end(csv_ops *o, const csv_span *s)
{
    uint32_t a = csv_ops_agg(&o->all, &o->nall, &o->all_cap, &o->all_index, s->name, s->cat);
    csv_ops_count(&o->all[a], s->dur, s->self);

    int64_t corr = 0;
    switch (o->kinds[s->depth]) {
    case CSV_OPS_KIND_TREE:
        if (!o->ntree) break;
        o->nodes[o->tree[--o->ntree]].end = s->ts + s->dur;
        if (!o->ntree) {
            o->input = s->input;
            csv_ops_reduce(o);
        }
        break;
    case CSV_OPS_KIND_RUNTIME:
        /* A launch outside every op belongs to no op. */
        if (!o->ntree) break;
        CSV_GROW(o->rts, o->rts_cap, o->nrts + 1);
        o->rts[o->nrts].node = csv_ops_launch_owner(o, s);
        o->rts[o->nrts].has_corr = csv_arg_int(o->ctx, s->args, s->nargs, "correlation", &corr);
        o->rts[o->nrts].corr = corr;
        o->rts[o->nrts].dur = s->dur;
        o->nrts++;
        break;
    case CSV_OPS_KIND_DEVICE:
        if (!csv_arg_int(o->ctx, s->args, s->nargs, "correlation", &corr)) break;
        {
            uint32_t i = csv_map_put(&o->dev_index, (uint64_t)corr, s->input, (uint32_t)o->ndev);
            if (i == o->ndev) {
                CSV_GROW(o->dev, o->dev_cap, o->ndev + 1);
                o->dev[o->ndev++] = 0;
            }
            o->dev[i] = csv_sat_add(o->dev[i], s->dur);
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
    for (size_t i = 0; i < o->nlaunches; i++) {
        const csv_ops_launch *l = &o->launches[i];
        uint32_t d = csv_map_get(&o->dev_index, (uint64_t)l->corr, l->input);
        if (d == CSV_MAP_NONE || !o->dev[d]) continue;
        int64_t t = o->dev[d];
        /* A correlation id names one launch: its device time counts once. */
        o->dev[d] = 0;
        if (l->self) {
            csv_op_row *r = &o->py[o->links[l->chain].agg];
            r->dev_self = csv_sat_add(r->dev_self, t);
        }
        for (uint32_t c = l->chain; c; c = o->links[c].parent)
            o->py[o->links[c].agg].dev_total = csv_sat_add(o->py[o->links[c].agg].dev_total, t);
    }
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
    o->sorted = csv_xcalloc(*n, sizeof *o->sorted);
    if (*n) memcpy(o->sorted, src, *n * sizeof *src);
    csv_ops_sort_ctx = o->ctx;
    qsort(o->sorted, *n, sizeof *o->sorted, csv_ops_cmp);
    return o->sorted;
}
