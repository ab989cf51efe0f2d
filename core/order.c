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
 *     ends come first, then begins, then points, so a point at a span's start lies inside it. */
#include <string.h>

#include "internal.h"

typedef struct order_span {
    int64_t ts, end;
    uint64_t seq;
    size_t ev;     /* index of the BEGIN or COMPLETE record */
    size_t end_ev; /* index of the END record, or SIZE_MAX */
} order_span;

/* A buffered event in 48 bytes. Spans without args (and every span, when the consumer is the
 * stack stage, which needs only names) live here alone; anything else keeps a full copy in
 * o->full, with its payload in the arena. */
typedef struct order_rec {
    int64_t ts;
    int64_t dur;
    uint64_t seq;
    uint32_t track;
    tconv_str name, cat;
    uint16_t kind, flags;
    uint32_t full; /* index + 1 into o->full; 0 when the record is the whole event */
} order_rec;

struct tconv_order {
    tconv_ctx *ctx;
    int keep_payload;
    order_rec *rec;
    size_t n, cap;
    tconv_event *full;
    size_t nfull, capfull;
    tconv_arena arena;
    int64_t *last; /* per track: latest time of any event pushed, buffered or not */
    size_t nlast;
};

void tconv_order_note_time(tconv_order *o, uint32_t track, int64_t t)
{
    if (track >= o->nlast) {
        size_t n = o->nlast;
        TCONV_GROW(o->last, o->nlast, (size_t)track + 1);
        for (size_t i = n; i < o->nlast; i++)
            o->last[i] = INT64_MIN;
    }
    if (t > o->last[track]) o->last[track] = t;
}

tconv_order *tconv_order_new(tconv_ctx *ctx, int keep_payload)
{
    tconv_order *o = tconv_xcalloc(1, sizeof(*o));
    o->ctx = ctx;
    o->keep_payload = keep_payload;
    return o;
}

void tconv_order_free(tconv_order *o)
{
    if (!o) return;
    free(o->rec);
    free(o->full);
    free(o->last);
    tconv_arena_free(&o->arena);
    free(o);
}

size_t tconv_order_bytes(const tconv_order *o)
{
    return o->cap * sizeof(*o->rec) + o->capfull * sizeof(*o->full) + o->arena.total;
}

static int order_needs_full(const tconv_event *ev)
{
    if (ev->kind != TCONV_EV_BEGIN && ev->kind != TCONV_EV_END && ev->kind != TCONV_EV_COMPLETE &&
        ev->kind != TCONV_EV_INSTANT)
        return 1;
    return ev->nargs || ev->id || ev->key || ev->unit || ev->text || ev->nframes || ev->nvalues;
}

tconv_status tconv_order_add(tconv_order *o, const tconv_event *ev)
{
    TCONV_GROW(o->rec, o->cap, o->n + 1);
    order_rec *r = &o->rec[o->n++];
    *r =
        (order_rec){ev->ts, ev->dur, ev->seq, ev->track, ev->name, ev->cat, ev->kind, ev->flags, 0};
    if (!o->keep_payload || !order_needs_full(ev)) return TCONV_OK;
    TCONV_GROW(o->full, o->capfull, o->nfull + 1);
    tconv_event *e = &o->full[o->nfull++];
    *e = *ev;
    e->args = tconv_arena_dup(&o->arena, ev->args, ev->nargs * sizeof(*ev->args));
    e->frames = tconv_arena_dup(&o->arena, ev->frames, ev->nframes * sizeof(*ev->frames));
    e->values = tconv_arena_dup(&o->arena, ev->values, ev->nvalues * sizeof(*ev->values));
    r->full = (uint32_t)o->nfull;
    return TCONV_OK;
}

/* The event a record stands for. */
static tconv_event order_event(const tconv_order *o, size_t i)
{
    const order_rec *r = &o->rec[i];
    tconv_event e = TCONV_EVENT_INIT;
    if (r->full) e = o->full[r->full - 1];
    e.kind = r->kind;
    e.flags = r->flags;
    e.track = r->track;
    e.name = r->name;
    e.cat = r->cat;
    e.ts = r->ts;
    e.dur = r->dur;
    e.seq = r->seq;
    e.input = tconv_track_describe(o->ctx, r->track)->input;
    return e;
}

/* Sort helpers: qsort is not stable, so every comparison ends on the unique input sequence. */
static const order_rec *order_sort_rec;

static int order_cmp_time(const void *a, const void *b)
{
    const order_rec *x = &order_sort_rec[*(const size_t *)a];
    const order_rec *y = &order_sort_rec[*(const size_t *)b];
    if (x->ts != y->ts) return x->ts < y->ts ? -1 : 1;
    return x->seq < y->seq ? -1 : x->seq > y->seq;
}

static int order_cmp_span(const void *a, const void *b)
{
    const order_span *x = a, *y = b;
    if (x->ts != y->ts) return x->ts < y->ts ? -1 : 1;
    if (x->end != y->end) return x->end > y->end ? -1 : 1; /* longer first */
    return x->seq < y->seq ? -1 : x->seq > y->seq;
}

/* A writer's TCONV_RECORD refuses one event; only TCONV_FATAL stops the flush. */
static tconv_status order_emit(tconv_emit_fn emit, void *user, const tconv_event *e)
{
    tconv_status st = emit(user, e);
    return st == TCONV_RECORD ? TCONV_OK : st;
}

typedef struct order_run {
    tconv_order *o;
    tconv_emit_fn emit;
    void *user;
    const size_t *points;
    size_t npoints, pi;
    tconv_status st;
} order_run;

/* Emit the point events before time t (strictly), keeping their order. */
static void order_points_before(order_run *r, int64_t t, int inclusive)
{
    while (r->st == TCONV_OK && r->pi < r->npoints) {
        const order_rec *p = &r->o->rec[r->points[r->pi]];
        if (p->ts > t || (p->ts == t && !inclusive)) break;
        tconv_event e = order_event(r->o, r->points[r->pi]);
        r->st = order_emit(r->emit, r->user, &e);
        r->pi++;
    }
}

static void order_emit_begin(order_run *r, const order_span *s)
{
    tconv_event e = order_event(r->o, s->ev);
    e.kind = TCONV_EV_BEGIN;
    e.dur = 0;
    if (s->end_ev != SIZE_MAX) {
        /* Chrome merges the END's args into the slice: keep both. */
        tconv_event endev = order_event(r->o, s->end_ev);
        const tconv_event *end = &endev;
        if (!e.name) e.name = end->name;
        if (!e.cat) e.cat = end->cat;
        if (end->nargs) {
            tconv_arg *args =
                tconv_arena_alloc(&r->o->arena, (e.nargs + end->nargs) * sizeof(*args));
            if (e.nargs) memcpy(args, e.args, e.nargs * sizeof(*args));
            memcpy(args + e.nargs, end->args, end->nargs * sizeof(*args));
            e.args = args;
            e.nargs += end->nargs;
        }
    }
    if (r->st == TCONV_OK) r->st = order_emit(r->emit, r->user, &e);
}

static void order_emit_end(order_run *r, const order_span *s)
{
    const order_rec *src = &r->o->rec[s->ev];
    tconv_event e = TCONV_EVENT_INIT;
    e.kind = TCONV_EV_END;
    e.flags = src->flags;
    e.track = src->track;
    e.name = src->name;
    e.cat = src->cat;
    e.id = src->full ? r->o->full[src->full - 1].id : 0; /* async spans pair by id */
    e.ts = s->end;
    e.input = tconv_track_describe(r->o->ctx, src->track)->input;
    e.seq = src->seq;
    if (r->st == TCONV_OK) r->st = order_emit(r->emit, r->user, &e);
}

static tconv_status order_track(tconv_order *o, size_t *idx, size_t n, tconv_emit_fn emit,
                                void *user)
{
    tconv_ctx *ctx = o->ctx;
    order_sort_rec = o->rec;
    qsort(idx, n, sizeof(*idx), order_cmp_time);

    order_span *spans = tconv_xmalloc((n ? n : 1) * sizeof(*spans));
    size_t *open = tconv_xmalloc((n ? n : 1) * sizeof(*open));
    size_t *points = tconv_xmalloc((n ? n : 1) * sizeof(*points));
    size_t nspans = 0, nopen = 0, npoints = 0;
    int64_t last = n && o->rec[idx[0]].track < o->nlast ? o->last[o->rec[idx[0]].track] : INT64_MIN;

    for (size_t k = 0; k < n; k++) {
        order_rec *e = &o->rec[idx[k]];
        int64_t end = e->kind == TCONV_EV_COMPLETE ? e->ts + (e->dur > 0 ? e->dur : 0) : e->ts;
        if (end > last) last = end;
        switch (e->kind) {
        case TCONV_EV_COMPLETE:
            spans[nspans++] = (order_span){e->ts, end, e->seq, idx[k], SIZE_MAX};
            break;
        case TCONV_EV_BEGIN:
            open[nopen++] = idx[k];
            break;
        case TCONV_EV_END:
            if (!nopen) {
                tconv_warning_add(ctx, "order.end-without-begin",
                                  "an end event at %lld ns on track %u has no open span; dropped",
                                  (long long)e->ts, e->track);
                break;
            }
            {
                order_rec *b = &o->rec[open[--nopen]];
                if (!b->name) b->name = e->name; /* "B" unnamed, "E" named: the name holds */
                if (!b->cat) b->cat = e->cat;
                spans[nspans++] = (order_span){b->ts, e->ts, b->seq, open[nopen], idx[k]};
            }
            break;
        default:
            points[npoints++] = idx[k];
        }
    }
    while (nopen) {
        const order_rec *b = &o->rec[open[--nopen]];
        tconv_warning_add(ctx, "order.unclosed-span",
                          "span '%s' begun at %lld ns on track %u is never ended; closed at the "
                          "track's last time",
                          tconv_string_get(ctx, b->name), (long long)b->ts, b->track);
        o->rec[open[nopen]].flags |= TCONV_EVF_REPAIRED;
        spans[nspans++] = (order_span){b->ts, last, b->seq, open[nopen], SIZE_MAX};
    }
    qsort(spans, nspans, sizeof(*spans), order_cmp_span);

    order_run r = {o, emit, user, points, npoints, 0, TCONV_OK};
    order_span **stack = tconv_xmalloc((nspans ? nspans : 1) * sizeof(*stack));
    size_t depth = 0;
    for (size_t k = 0; k < nspans && r.st == TCONV_OK; k++) {
        order_span *s = &spans[k];
        while (depth && stack[depth - 1]->end <= s->ts) {
            order_points_before(&r, stack[depth - 1]->end, 0);
            order_emit_end(&r, stack[--depth]);
        }
        if (depth && s->end > stack[depth - 1]->end) {
            const order_span *p = stack[depth - 1];
            tconv_warning_add(ctx, "order.child-outlives-parent",
                              "span '%s' [%lld, %lld] ns ends after its parent '%s' (ends %lld); "
                              "clipped to the parent's end",
                              tconv_string_get(ctx, o->rec[s->ev].name), (long long)s->ts,
                              (long long)s->end, tconv_string_get(ctx, o->rec[p->ev].name),
                              (long long)p->end);
            s->end = p->end;
            o->rec[s->ev].flags |= TCONV_EVF_REPAIRED;
        }
        order_points_before(&r, s->ts, 0);
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
    free(open);
    free(points);
    return r.st;
}

tconv_status tconv_order_flush(tconv_order *o, tconv_emit_fn emit, void *user)
{
    /* Group by track, keeping input order within a track (counting sort). */
    uint32_t ntracks = tconv_track_count(o->ctx);
    size_t *start = tconv_xcalloc((size_t)ntracks + 2, sizeof(*start));
    for (size_t i = 0; i < o->n; i++)
        start[o->rec[i].track + 1]++;
    for (uint32_t t = 0; t <= ntracks; t++)
        start[t + 1] += start[t];
    size_t *idx = tconv_xmalloc((o->n ? o->n : 1) * sizeof(*idx));
    size_t *fill = tconv_xmalloc(((size_t)ntracks + 1) * sizeof(*fill));
    memcpy(fill, start, ((size_t)ntracks + 1) * sizeof(*fill));
    for (size_t i = 0; i < o->n; i++)
        idx[fill[o->rec[i].track]++] = i;
    free(fill);

    tconv_status st = TCONV_OK;
    for (uint32_t t = 0; t < ntracks && st == TCONV_OK; t++)
        st = order_track(o, idx + start[t], start[t + 1] - start[t], emit, user);
    free(idx);
    free(start);
    return st;
}
