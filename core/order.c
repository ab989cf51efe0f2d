/* The ordering stage, for writers that need each track time-ordered and properly nested (OTF2,
 * the stack stage). It buffers the stream, then per track:
 *   - pairs BEGIN/END in time order by a stack (an END closes the innermost open span, whatever
 *     its name, as trace viewers do),
 *   - orders spans by (start, longer first, input order), so a parent that starts at the same
 *     time as its child still encloses it, whatever order the file listed them in,
 *   - repairs what cannot nest: a child that ends after its parent is clipped to the parent's
 *     end, a BEGIN never closed is closed at the track's last time, an END with nothing open is
 *     dropped; each repair is a counted warning and the span carries TCONV_EVF_REPAIRED,
 *   - interleaves point events (instants, counters, flows, samples) by time: at equal times
 *     ends come first, then begins, then points, so a point at a span's start lies inside it.
 *
 * Memory is the point of the layout: a buffered event is one 40-byte record in its track's list
 * of chunks (no per-event pointer, no grouping pass), and only events that carry more than a
 * record holds (args, counter values, frames) keep a full copy beside it. Tracks are flushed one
 * at a time and their chunks freed as they are gathered, so the flush adds working arrays for
 * one track only. */
#include <string.h>

#include "internal.h"

/* The `dur` slot holds a flow's id, so flows without args need no full copy. */
typedef struct __attribute__((packed, aligned(4))) order_rec {
    int64_t ts;
    int64_t dur;
    uint64_t seq;
    tconv_str name, cat;
    uint16_t kind, flags;
    uint32_t full; /* index + 1 into o->full; 0 when the record is the whole event */
} order_rec;

typedef struct order_chunk {
    struct order_chunk *next;
    uint32_t n, cap;
    order_rec rec[];
} order_chunk;

typedef struct order_list {
    order_chunk *head, *tail;
    size_t n;
    int64_t last; /* latest time of any event pushed on the track, buffered or not */
} order_list;

struct tconv_order {
    tconv_ctx *ctx;
    int keep_payload;
    order_list *lists;
    size_t nlists;
    size_t bytes; /* of records and chunks, for -v and the benchmarks */
    tconv_event *full;
    size_t nfull, capfull;
    tconv_arena arena;
};

enum { ORDER_CHUNK_MIN = 4, ORDER_CHUNK_MAX = 8192 };

static order_list *order_list_get(tconv_order *o, uint32_t track)
{
    if (track >= o->nlists) {
        size_t n = o->nlists;
        TCONV_GROW(o->lists, o->nlists, (size_t)track + 1);
        for (size_t i = n; i < o->nlists; i++)
            o->lists[i] = (order_list){NULL, NULL, 0, INT64_MIN};
    }
    return &o->lists[track];
}

void tconv_order_note_time(tconv_order *o, uint32_t track, int64_t t)
{
    order_list *l = order_list_get(o, track);
    if (t > l->last) l->last = t;
}

tconv_order *tconv_order_new(tconv_ctx *ctx, int keep_payload)
{
    tconv_order *o = tconv_xcalloc(1, sizeof(*o));
    o->ctx = ctx;
    o->keep_payload = keep_payload;
    return o;
}

static void order_free_chunks(order_list *l)
{
    for (order_chunk *c = l->head, *next; c; c = next) {
        next = c->next;
        free(c);
    }
    l->head = l->tail = NULL;
    l->n = 0;
}

void tconv_order_free(tconv_order *o)
{
    if (!o) return;
    for (size_t i = 0; i < o->nlists; i++)
        order_free_chunks(&o->lists[i]);
    free(o->lists);
    free(o->full);
    tconv_arena_free(&o->arena);
    free(o);
}

size_t tconv_order_bytes(const tconv_order *o)
{
    return o->bytes + o->capfull * sizeof(*o->full) + o->arena.total;
}

/* Does the event carry anything a record cannot hold? */
static int order_needs_full(const tconv_event *ev, int keep_args)
{
    if (keep_args && ev->nargs) return 1;
    switch (ev->kind) {
    case TCONV_EV_BEGIN:
    case TCONV_EV_END:
    case TCONV_EV_COMPLETE:
    case TCONV_EV_INSTANT:
        break;
    case TCONV_EV_FLOW_START:
    case TCONV_EV_FLOW_STEP:
    case TCONV_EV_FLOW_END:
        return ev->key || ev->unit || ev->text; /* id rides in dur */
    default:
        return 1;
    }
    return ev->id || ev->key || ev->unit || ev->text || ev->nframes || ev->nvalues;
}

static int order_is_flow(unsigned kind)
{
    return kind == TCONV_EV_FLOW_START || kind == TCONV_EV_FLOW_STEP || kind == TCONV_EV_FLOW_END;
}

tconv_status tconv_order_add(tconv_order *o, const tconv_event *ev)
{
    order_list *l = order_list_get(o, ev->track);
    int64_t end = ev->kind == TCONV_EV_COMPLETE && ev->dur > 0 ? ev->ts + ev->dur : ev->ts;
    if (end > l->last) l->last = end;
    order_chunk *c = l->tail;
    if (!c || c->n == c->cap) {
        /* Chunks grow with the track, so a few-event track costs little and a big one few
         * allocations. */
        uint32_t cap = c ? (c->cap < ORDER_CHUNK_MAX ? c->cap * 2 : c->cap) : ORDER_CHUNK_MIN;
        order_chunk *nc = tconv_xmalloc(sizeof(*nc) + cap * sizeof(order_rec));
        nc->next = NULL;
        nc->n = 0;
        nc->cap = cap;
        if (c)
            c->next = nc;
        else
            l->head = nc;
        l->tail = c = nc;
        o->bytes += sizeof(*nc) + cap * sizeof(order_rec);
    }
    int keep_args = o->keep_payload && !tconv_ctx_ignores_args(o->ctx);
    int full = o->keep_payload && order_needs_full(ev, keep_args);
    order_rec *r = &c->rec[c->n++];
    l->n++;
    *r = (order_rec){ev->ts,    order_is_flow(ev->kind) && !full ? (int64_t)ev->id : ev->dur,
                     ev->seq,   ev->name,
                     ev->cat,   ev->kind,
                     ev->flags, 0};
    if (!full) return TCONV_OK;
    TCONV_GROW(o->full, o->capfull, o->nfull + 1);
    tconv_event *e = &o->full[o->nfull++];
    *e = *ev;
    if (!keep_args) e->nargs = 0;
    e->args = tconv_arena_dup(&o->arena, ev->args, e->nargs * sizeof(*ev->args));
    e->frames = tconv_arena_dup(&o->arena, ev->frames, ev->nframes * sizeof(*ev->frames));
    e->values = tconv_arena_dup(&o->arena, ev->values, ev->nvalues * sizeof(*ev->values));
    r->full = (uint32_t)o->nfull;
    return TCONV_OK;
}

/* ---- flushing one track ----------------------------------------------------------------- */

typedef struct order_span {
    int64_t end;     /* after clipping */
    uint32_t ev;     /* the BEGIN or COMPLETE record */
    uint32_t end_ev; /* the END record, or UINT32_MAX */
} order_span;

typedef struct order_run {
    tconv_order *o;
    uint32_t track, input;
    order_rec *rec; /* the track's records, time-ordered */
    tconv_emit_fn emit;
    void *user;
    const uint32_t *points;
    size_t npoints, pi;
    tconv_status st;
} order_run;

/* The event a record stands for. */
static tconv_event order_event(const order_run *r, uint32_t i)
{
    const order_rec *x = &r->rec[i];
    tconv_event e = TCONV_EVENT_INIT;
    if (x->full) e = r->o->full[x->full - 1];
    e.kind = x->kind;
    e.flags = x->flags;
    e.track = r->track;
    e.name = x->name;
    e.cat = x->cat;
    e.ts = x->ts;
    if (order_is_flow(x->kind) && !x->full)
        e.id = (uint64_t)x->dur;
    else
        e.dur = x->dur;
    e.seq = x->seq;
    e.input = r->input;
    return e;
}

/* A writer's TCONV_RECORD refuses one event; only TCONV_FATAL stops the flush. */
static void order_emit(order_run *r, const tconv_event *e)
{
    if (r->st != TCONV_OK) return;
    tconv_status st = r->emit(r->user, e);
    r->st = st == TCONV_RECORD ? TCONV_OK : st;
}

/* qsort is not stable, so every comparison ends on the unique input sequence. */
static int order_cmp_time(const void *a, const void *b)
{
    const order_rec *x = a, *y = b;
    if (x->ts != y->ts) return x->ts < y->ts ? -1 : 1;
    return x->seq < y->seq ? -1 : x->seq > y->seq;
}

static const order_rec *order_sort_rec;

static int order_cmp_span(const void *a, const void *b)
{
    const order_span *x = a, *y = b;
    const order_rec *rx = &order_sort_rec[x->ev], *ry = &order_sort_rec[y->ev];
    if (rx->ts != ry->ts) return rx->ts < ry->ts ? -1 : 1;
    if (x->end != y->end) return x->end > y->end ? -1 : 1; /* longer first */
    return rx->seq < ry->seq ? -1 : rx->seq > ry->seq;
}

/* Emit the point events before time t (strictly, or up to t when inclusive), in order. */
static void order_points_before(order_run *r, int64_t t, int inclusive)
{
    while (r->st == TCONV_OK && r->pi < r->npoints) {
        const order_rec *p = &r->rec[r->points[r->pi]];
        if (p->ts > t || (p->ts == t && !inclusive)) break;
        tconv_event e = order_event(r, r->points[r->pi]);
        order_emit(r, &e);
        r->pi++;
    }
}

static void order_emit_begin(order_run *r, const order_span *s)
{
    tconv_event e = order_event(r, s->ev);
    e.kind = TCONV_EV_BEGIN;
    /* A repaired span keeps its measured length in dur (the END carries the clipped end), so
     * tables can report a kernel at its real duration; other BEGINs have dur 0. */
    if (e.flags & TCONV_EVF_REPAIRED)
        e.dur = (s->end_ev != UINT32_MAX                   ? r->rec[s->end_ev].ts
                 : r->rec[s->ev].kind == TCONV_EV_COMPLETE ? r->rec[s->ev].ts + r->rec[s->ev].dur
                                                           : s->end) -
                r->rec[s->ev].ts;
    else
        e.dur = 0;
    if (s->end_ev != UINT32_MAX) {
        /* Chrome merges the END's args into the slice: keep both. */
        tconv_event end = order_event(r, s->end_ev);
        if (end.nargs) {
            tconv_arg *args =
                tconv_arena_alloc(&r->o->arena, (e.nargs + end.nargs) * sizeof(*args));
            if (e.nargs) memcpy(args, e.args, e.nargs * sizeof(*args));
            memcpy(args + e.nargs, end.args, end.nargs * sizeof(*args));
            e.args = args;
            e.nargs += end.nargs;
        }
    }
    order_emit(r, &e);
}

static void order_emit_end(order_run *r, const order_span *s)
{
    const order_rec *src = &r->rec[s->ev];
    tconv_event e = TCONV_EVENT_INIT;
    e.kind = TCONV_EV_END;
    e.flags = src->flags;
    e.track = r->track;
    e.name = src->name;
    e.cat = src->cat;
    e.id = src->full ? r->o->full[src->full - 1].id : 0; /* async spans pair by id */
    e.ts = s->end;
    e.input = r->input;
    e.seq = src->seq;
    order_emit(r, &e);
}

/* Move a track's records into one array, freeing its chunks as they are copied. */
static order_rec *order_gather(tconv_order *o, order_list *l)
{
    order_rec *rec = tconv_xmalloc((l->n ? l->n : 1) * sizeof(*rec));
    size_t n = 0;
    for (order_chunk *c = l->head, *next; c; c = next) {
        next = c->next;
        memcpy(rec + n, c->rec, c->n * sizeof(*rec));
        n += c->n;
        o->bytes -= sizeof(*c) + c->cap * sizeof(order_rec);
        free(c);
    }
    l->head = l->tail = NULL;
    return rec;
}

static tconv_status order_track(tconv_order *o, uint32_t track, tconv_emit_fn emit, void *user)
{
    tconv_ctx *ctx = o->ctx;
    order_list *l = &o->lists[track];
    size_t n = l->n;
    if (n > UINT32_MAX) {
        tconv_error_set(ctx, "track %u has more than 2^32 events; split the input", track);
        return TCONV_FATAL;
    }
    order_rec *rec = order_gather(o, l);
    l->n = 0;
    qsort(rec, n, sizeof(*rec), order_cmp_time);

    order_span *spans = tconv_xmalloc((n ? n : 1) * sizeof(*spans));
    uint32_t *open = tconv_xmalloc((n ? n : 1) * sizeof(*open));
    uint32_t *points = tconv_xmalloc((n ? n : 1) * sizeof(*points));
    size_t nspans = 0, nopen = 0, npoints = 0;
    int64_t last = l->last;

    for (uint32_t k = 0; k < n; k++) {
        order_rec *e = &rec[k];
        if (e->kind == TCONV_EV_COMPLETE) {
            spans[nspans++] = (order_span){e->ts + (e->dur > 0 ? e->dur : 0), k, UINT32_MAX};
        } else if (e->kind == TCONV_EV_BEGIN) {
            open[nopen++] = k;
        } else if (e->kind == TCONV_EV_END) {
            if (!nopen) {
                tconv_warning_add(ctx, "order.end-without-begin",
                                  "an end event at %lld ns on track %u has no open span; dropped",
                                  (long long)e->ts, track);
                continue;
            }
            order_rec *b = &rec[open[--nopen]];
            if (!b->name) b->name = e->name; /* "B" unnamed, "E" named: the name holds */
            if (!b->cat) b->cat = e->cat;
            spans[nspans++] = (order_span){e->ts, open[nopen], k};
        } else {
            points[npoints++] = k;
        }
    }
    while (nopen) {
        order_rec *b = &rec[open[--nopen]];
        tconv_warning_add(ctx, "order.unclosed-span",
                          "span '%s' begun at %lld ns on track %u is never ended; closed at the "
                          "track's last time",
                          tconv_string_get(ctx, b->name), (long long)b->ts, track);
        b->flags |= TCONV_EVF_REPAIRED;
        spans[nspans++] = (order_span){last > b->ts ? last : b->ts, open[nopen], UINT32_MAX};
    }
    free(open);
    order_sort_rec = rec;
    qsort(spans, nspans, sizeof(*spans), order_cmp_span);

    order_run r = {
        o, track,   tconv_track_describe(ctx, track)->input, rec, emit, user, points, npoints,
        0, TCONV_OK};
    order_span **stack = tconv_xmalloc((nspans ? nspans : 1) * sizeof(*stack));
    size_t depth = 0;
    for (size_t k = 0; k < nspans && r.st == TCONV_OK; k++) {
        order_span *s = &spans[k];
        int64_t start = rec[s->ev].ts;
        while (depth && stack[depth - 1]->end <= start) {
            order_points_before(&r, stack[depth - 1]->end, 0);
            order_emit_end(&r, stack[--depth]);
        }
        if (depth && s->end > stack[depth - 1]->end) {
            const order_span *p = stack[depth - 1];
            tconv_warning_add(ctx, "order.child-outlives-parent",
                              "span '%s' [%lld, %lld] ns ends after its parent '%s' (ends %lld); "
                              "clipped to the parent's end",
                              tconv_string_get(ctx, rec[s->ev].name), (long long)start,
                              (long long)s->end, tconv_string_get(ctx, rec[p->ev].name),
                              (long long)p->end);
            s->end = p->end;
            rec[s->ev].flags |= TCONV_EVF_REPAIRED;
        }
        order_points_before(&r, start, 0);
        order_emit_begin(&r, s);
        stack[depth++] = s;
    }
    while (depth && r.st == TCONV_OK) {
        order_points_before(&r, stack[depth - 1]->end, 0);
        order_emit_end(&r, stack[--depth]);
    }
    order_points_before(&r, INT64_MAX, 1);

    free(stack);
    free(spans);
    free(points);
    free(rec);
    return r.st;
}

tconv_status tconv_order_flush(tconv_order *o, tconv_emit_fn emit, void *user)
{
    tconv_status st = TCONV_OK;
    for (uint32_t t = 0; t < o->nlists && st == TCONV_OK; t++)
        if (o->lists[t].n) st = order_track(o, t, emit, user);
    return st;
}
