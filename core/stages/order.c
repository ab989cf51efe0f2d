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
 * Memory is the point of the layout. A buffered event is one 22-byte record in its track's list
 * of chunks: no per-event pointer, the time as a 48-bit offset from the track's first, the
 * (name, category, counter series, unit) interned to one id, the duration, flow id or integral
 * counter value in 48 bits, the input sequence as an offset from its chunk's base. Wide flow ids
 * and other counter values take 8 bytes in a pool; events that carry more than that (args,
 * frames, out-of-range numbers) keep a full copy beside their record. Tracks are flushed one at
 * a time, ordered through a 4-byte index per event sorted in place, and each chunk is freed as
 * soon as all its events are out, so the flush adds about 4 bytes per event of one track. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "stages.h"

/* rec.kind: the event kind in the low bits, the record's state above. */
enum {
    ORDER_K_KIND = 0x0f,
    ORDER_K_FULL = 0x10, /* slot is an index into o->full, which holds the whole event */
    /* ORDER_K_AUX means, on a BEGIN: never ended, closed at the track's last time; on a flow:
     * slot indexes o->wide, the id being wider than the slot; on a counter: slot indexes
     * o->values, the value not being an integer of 48 bits. */
    ORDER_K_AUX = 0x20,
    ORDER_K_DEAD = 0x40,   /* an END paired with its BEGIN, or dropped */
    ORDER_K_ENDARGS = 0x80 /* a BEGIN whose END has a full copy (args to merge) */
};

#define ORDER_SLOT_MAX ((UINT64_C(1) << 48) - 1)
#define ORDER_OFF_MAX ((INT64_C(1) << 47) - 1) /* a time's offset from its track's base */
#define ORDER_OFF_FAR (-(INT64_C(1) << 47))    /* the time is in the full copy */

/* ts: the time's offset from the track's first time, in 48 bits (±39 hours);
 * slot: the duration, a flow's id, a counter's integral value, or an index (ORDER_K_FULL,
 * ORDER_K_AUX). */
typedef struct __attribute__((packed, aligned(2))) order_rec {
    uint32_t ts_lo;
    uint16_t ts_hi;
    uint32_t slot_lo;
    uint16_t slot_hi;
    uint8_t kind;
    uint8_t flags;  /* TCONV_EVF_* that fit; a full copy keeps the rest */
    uint32_t names; /* (name, cat, key, unit) */
    uint32_t seq;   /* input sequence - its chunk's base */
} order_rec;

_Static_assert(sizeof(order_rec) == 22, "order_rec is meant to be 22 bytes");
_Static_assert(TCONV_EV_KIND_MAX <= ORDER_K_KIND + 1, "event kinds must fit ORDER_K_KIND");

typedef struct order_chunk {
    struct order_chunk *next;
    uint64_t seq_base;
    uint32_t n, cap;
    order_rec rec[];
} order_chunk;

typedef struct order_list {
    order_chunk *head, *tail;
    size_t n;
    int64_t last;   /* latest time of any event pushed on the track, buffered or not */
    int64_t base;   /* the time records are offsets from: the track's first */
    uint32_t ready; /* 1 + its index in o->ready once split into lanes; 0: not */
    size_t paired;  /* BEGIN and END records and fillers: 0 lets order_prepare skip pairing */
} order_list;

/* The strings of a record, interned together: spans and points repeat few combinations. */
typedef struct order_names {
    tconv_str name, cat, key, unit;
    uint32_t role; /* follows the category almost always, so it costs no record bits */
} order_names;

/* Side values a record points to, in blocks, so growing never copies nor doubles. */
enum { ORDER_POOL_SHIFT = 12, ORDER_POOL_BLOCK = 1 << ORDER_POOL_SHIFT };
typedef struct order_pool {
    unsigned char **blocks;
    size_t nblocks, capblocks;
    size_t n, elem;
} order_pool;

/* The last lookups of order_names_get, by a few bits of the name and category: a trace's
 * events repeat a few dozen combinations, and a hit costs no hash and no probe. */
enum { ORDER_NCACHE = 64 };
typedef struct order_ncache {
    order_names key;
    uint32_t id1; /* id + 1; 0: empty */
} order_ncache;

struct tconv_order {
    tconv_ctx *ctx;
    order_ncache ncache[ORDER_NCACHE];
    int keep_payload;
    order_list *lists;
    size_t nlists;
    size_t bytes;   /* of records, chunks and pools, for -v */
    size_t nevents; /* buffered */
    tconv_event *full;
    size_t nfull, capfull;
    tconv_arena arena;
    order_names *names; /* interned; id = index */
    size_t nnames, capnames;
    uint32_t *slots;   /* open addressing: names id + 1, 0 = empty */
    size_t nslots;     /* a power of two */
    order_pool wide;   /* uint64_t: flow ids wider than a slot */
    order_pool values; /* double: counter values that are not 48-bit integers */
    size_t peak;       /* the most bytes held at an input's end or a flush (for -v) */
    /* Tracks split into lanes at their input's end (tconv_order_input_done), ready to emit. */
    struct order_ready *ready;
    size_t nready, capready;
    uint32_t done_tracks; /* tracks below it belong to inputs already done */
};

enum { ORDER_CHUNK_MIN = 4, ORDER_CHUNK_MAX = 8192 };

static uint64_t order_slot(const order_rec *r)
{
    return (uint64_t)r->slot_lo | (uint64_t)r->slot_hi << 32;
}

static void order_set_slot(order_rec *r, uint64_t v)
{
    r->slot_lo = (uint32_t)v;
    r->slot_hi = (uint16_t)(v >> 32);
}

static void *order_pool_at(const order_pool *p, uint64_t i)
{
    return p->blocks[i >> ORDER_POOL_SHIFT] + (i & (ORDER_POOL_BLOCK - 1)) * p->elem;
}

/* Append one element; returns its index. */
static uint64_t order_pool_add(tconv_order *o, order_pool *p, const void *v)
{
    if (p->n == p->nblocks * ORDER_POOL_BLOCK) {
        TCONV_GROW(p->blocks, p->capblocks, p->nblocks + 1);
        p->blocks[p->nblocks++] = tconv_xmalloc(ORDER_POOL_BLOCK * p->elem);
        o->bytes += ORDER_POOL_BLOCK * p->elem;
    }
    memcpy(order_pool_at(p, p->n), v, p->elem);
    return p->n++;
}

static void order_pool_free(order_pool *p)
{
    for (size_t b = 0; b < p->nblocks; b++)
        free(p->blocks[b]);
    free(p->blocks);
}

/* ---- interned names ------------------------------------------------------------------- */

static size_t order_names_hash(const order_names *n)
{
    uint64_t h = ((uint64_t)n->name << 32 | n->cat) * UINT64_C(0x9e3779b97f4a7c15);
    h ^= ((uint64_t)n->key << 32 | n->unit) * UINT64_C(0xc2b2ae3d27d4eb4f);
    h ^= (uint64_t)n->role * UINT64_C(0x165667b19e3779f9);
    return (size_t)(h >> 29);
}

static void order_names_rehash(tconv_order *o)
{
    size_t n = o->nslots ? o->nslots * 2 : 256;
    uint32_t *slots = tconv_xcalloc(n, sizeof(*slots));
    for (size_t p = 0; p < o->nnames; p++) {
        tconv_slots_put(slots, n, order_names_hash(&o->names[p]), (uint32_t)p + 1);
    }
    free(o->slots);
    o->slots = slots;
    o->nslots = n;
}

static uint32_t order_names_find(tconv_order *o, order_names key)
{
    if (o->nnames * 2 >= o->nslots) order_names_rehash(o);
    size_t h = order_names_hash(&key) & (o->nslots - 1);
    for (; o->slots[h]; h = (h + 1) & (o->nslots - 1)) {
        const order_names *p = &o->names[o->slots[h] - 1];
        if (p->name == key.name && p->cat == key.cat && p->key == key.key && p->unit == key.unit &&
            p->role == key.role)
            return o->slots[h] - 1;
    }
    TCONV_GROW(o->names, o->capnames, o->nnames + 1);
    o->names[o->nnames] = key;
    o->slots[h] = (uint32_t)++o->nnames;
    return (uint32_t)o->nnames - 1;
}

static uint32_t order_names_get(tconv_order *o, order_names key)
{
    order_ncache *c = &o->ncache[(key.name ^ key.cat * 7u ^ key.role * 3u) % ORDER_NCACHE];
    if (c->id1 && c->key.name == key.name && c->key.cat == key.cat && c->key.key == key.key &&
        c->key.unit == key.unit && c->key.role == key.role)
        return c->id1 - 1;
    uint32_t id = order_names_find(o, key);
    c->key = key;
    c->id1 = id + 1;
    return id;
}

static int64_t order_off(const order_rec *r)
{
    uint64_t u = (uint64_t)r->ts_lo | (uint64_t)r->ts_hi << 32;
    return (int64_t)(r->ts_hi & 0x8000 ? u | ~UINT64_C(0) << 48 : u);
}

static void order_set_off(order_rec *r, int64_t off)
{
    r->ts_lo = (uint32_t)off;
    r->ts_hi = (uint16_t)((uint64_t)off >> 32);
}

/* ---- buffering --------------------------------------------------------------------------- */

static order_list *order_list_get(tconv_order *o, uint32_t track)
{
    if (track >= o->nlists) {
        size_t n = o->nlists;
        TCONV_GROW(o->lists, o->nlists, (size_t)track + 1);
        for (size_t i = n; i < o->nlists; i++)
            o->lists[i] = (order_list){NULL, NULL, 0, INT64_MIN, 0, 0, 0};
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
    o->wide.elem = sizeof(uint64_t);
    o->values.elem = sizeof(double);
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
    l->paired = 0;
}

static void order_ready_free_all(tconv_order *o);

void tconv_order_free(tconv_order *o)
{
    if (!o) return;
    order_ready_free_all(o);
    for (size_t i = 0; i < o->nlists; i++)
        order_free_chunks(&o->lists[i]);
    free(o->lists);
    free(o->full);
    free(o->names);
    free(o->slots);
    order_pool_free(&o->wide);
    order_pool_free(&o->values);
    tconv_arena_free(&o->arena);
    free(o);
}

size_t tconv_order_events(const tconv_order *o)
{
    return o->nevents;
}

size_t tconv_order_bytes(const tconv_order *o)
{
    return o->bytes + o->capfull * sizeof(*o->full) + o->arena.total +
           o->capnames * sizeof(*o->names) + o->nslots * sizeof(*o->slots);
}

static int order_is_flow(unsigned kind)
{
    return kind == TCONV_EV_FLOW_START || kind == TCONV_EV_FLOW_STEP || kind == TCONV_EV_FLOW_END;
}

/* Correlation ids are kept for writers that read them, and with the args they come from. */
static int order_keeps_corr(const tconv_order *o, int keep_args)
{
    return keep_args || o->ctx->need_corr;
}

/* Does the event carry anything a record cannot hold? */
static int order_needs_full(const tconv_event *ev, int keep_args, int keep_corr)
{
    if (keep_args && ev->nargs) return 1;
    if (keep_corr && ev->corr) return 1;
    if (ev->flags > UINT8_MAX) return 1;
    switch (ev->kind) {
    case TCONV_EV_BEGIN:
    case TCONV_EV_END:
    case TCONV_EV_COMPLETE:
    case TCONV_EV_INSTANT:
        break;
    case TCONV_EV_FLOW_START:
    case TCONV_EV_FLOW_STEP:
    case TCONV_EV_FLOW_END:
        return ev->key || ev->unit || ev->text; /* the id goes in the slot or o->wide */
    case TCONV_EV_COUNTER:
        return ev->id || ev->text || ev->nframes || ev->nvalues || ev->dur;
    default:
        return 1;
    }
    return ev->id || ev->key || ev->unit || ev->text || ev->nframes || ev->nvalues || ev->dur < 0 ||
           (uint64_t)ev->dur > ORDER_SLOT_MAX;
}

/* Give record r a full copy of ev (the fields a record holds are taken from the record). */
static void order_make_full(tconv_order *o, order_rec *r, const tconv_event *ev, int keep_args)
{
    TCONV_GROW(o->full, o->capfull, o->nfull + 1);
    tconv_event *e = &o->full[o->nfull];
    *e = *ev;
    if (!keep_args) e->nargs = 0;
    if (!order_keeps_corr(o, keep_args)) e->corr = 0; /* the same for every event of a run */
    if (!o->keep_payload) e->nframes = e->nvalues = 0;
    e->args = tconv_arena_dup(&o->arena, ev->args, e->nargs * sizeof(*ev->args));
    e->frames = tconv_arena_dup(&o->arena, ev->frames, e->nframes * sizeof(*ev->frames));
    e->values = tconv_arena_dup(&o->arena, ev->values, e->nvalues * sizeof(*ev->values));
    r->kind |= ORDER_K_FULL;
    order_set_slot(r, o->nfull++);
}

static size_t order_chunk_size(uint32_t cap)
{
    return sizeof(order_chunk) + cap * sizeof(order_rec);
}

static order_chunk *order_chunk_new(tconv_order *o, order_list *l, uint64_t seq)
{
    /* Chunks grow with the track, so a few-event track costs little and a big one few
     * allocations. Every chunk but the last is full, so that a record's position maps to its
     * chunk by arithmetic (order_at): one closed early, because the input sequence got too far
     * from its base, is padded with dead records. */
    order_chunk *c = l->tail;
    if (c) {
        for (; c->n < c->cap; c->n++, l->n++, l->paired++)
            c->rec[c->n] = (order_rec){.kind = ORDER_K_DEAD};
    }
    uint32_t cap = c ? (c->cap < ORDER_CHUNK_MAX ? c->cap * 2 : c->cap) : ORDER_CHUNK_MIN;
    order_chunk *nc = tconv_xmalloc(order_chunk_size(cap));
    nc->next = NULL;
    nc->seq_base = seq;
    nc->n = 0;
    nc->cap = cap;
    if (c)
        c->next = nc;
    else
        l->head = nc;
    l->tail = nc;
    o->bytes += order_chunk_size(cap);
    return nc;
}

/* A counter value the slot can hold: an integer of 48 bits (not -0). */
static int order_int48(double v, int64_t *out)
{
    if (!(v >= -(double)ORDER_OFF_MAX && v <= (double)ORDER_OFF_MAX)) return 0;
    int64_t i = (int64_t)v;
    if ((double)i != v || (i == 0 && signbit(v))) return 0;
    *out = i;
    return 1;
}

static int64_t order_sext48(uint64_t u)
{
    return (int64_t)(u & (UINT64_C(1) << 47) ? u | ~UINT64_C(0) << 48 : u);
}

tconv_status tconv_order_add(tconv_order *o, const tconv_event *ev)
{
    order_list *l = order_list_get(o, ev->track);
    int64_t end = ev->kind == TCONV_EV_COMPLETE && ev->dur > 0 ? ev->ts + ev->dur : ev->ts;
    if (end > l->last) l->last = end;
    order_chunk *c = l->tail;
    /* Events reach a track in input order, so a chunk's offsets only grow. */
    if (!c || c->n == c->cap || ev->seq - c->seq_base > UINT32_MAX)
        c = order_chunk_new(o, l, ev->seq);
    int keep_args = o->keep_payload && !tconv_ctx_ignores_args(o->ctx);
    if (l->n == 0) l->base = ev->ts;
    order_rec *r = &c->rec[c->n++];
    l->n++;
    l->paired += ev->kind == TCONV_EV_BEGIN || ev->kind == TCONV_EV_END;
    o->nevents++;
    r->kind = (uint8_t)ev->kind;
    r->flags = (uint8_t)ev->flags;
    int counter = ev->kind == TCONV_EV_COUNTER;
    r->names = order_names_get(o, (order_names){ev->name, ev->cat, counter ? ev->key : 0,
                                                counter ? ev->unit : 0, ev->role});
    r->seq = (uint32_t)(ev->seq - c->seq_base);
    int64_t off, ival;
    int far = __builtin_sub_overflow(ev->ts, l->base, &off) || off < -ORDER_OFF_MAX ||
              off > ORDER_OFF_MAX;
    order_set_off(r, far ? ORDER_OFF_FAR : off);
    if (far || order_needs_full(ev, keep_args, order_keeps_corr(o, keep_args))) {
        order_make_full(o, r, ev, keep_args);
    } else if (counter && order_int48(ev->value, &ival)) {
        order_set_slot(r, (uint64_t)ival & ORDER_SLOT_MAX);
    } else if (counter) {
        r->kind |= ORDER_K_AUX;
        order_set_slot(r, order_pool_add(o, &o->values, &ev->value));
    } else if (order_is_flow(ev->kind) && ev->id > ORDER_SLOT_MAX) {
        r->kind |= ORDER_K_AUX;
        order_set_slot(r, order_pool_add(o, &o->wide, &ev->id));
    } else {
        order_set_slot(r, order_is_flow(ev->kind) ? ev->id : (uint64_t)ev->dur);
    }
    return TCONV_OK;
}

/* ---- flushing one track ----------------------------------------------------------------- */

/* A BEGIN whose END had a full copy: the END's args join the span's. */
typedef struct order_endargs {
    uint32_t begin, end_full;
} order_endargs;

/* An open span while emitting: its end after clipping. */
typedef struct order_open {
    int64_t end;
    uint32_t rec;
} order_open;

typedef struct order_run {
    tconv_order *o;
    uint32_t track, input;
    int64_t base;         /* the track's time base */
    order_chunk **chunks; /* the track's chunks: record i is at order_at(r, i) */
    uint32_t *pending;    /* per chunk: records not yet done with; 0 frees the chunk */
    size_t nchunks;
    order_endargs *endargs;
    size_t nendargs;
    tconv_emit_fn emit;
    void *user;
    tconv_status st;
} order_run;

/* Chunk k holds ORDER_CHUNK_MIN << k records up to ORDER_CHUNK_MAX (all full but the last), so
 * a record's position in its track maps to its chunk by arithmetic. */
enum { ORDER_CHUNK_STEPS = 11, ORDER_GROWN = ORDER_CHUNK_MIN * ((1 << ORDER_CHUNK_STEPS) - 1) };
_Static_assert(ORDER_CHUNK_MIN << ORDER_CHUNK_STEPS == ORDER_CHUNK_MAX, "chunk sizes");

static size_t order_chunk_of(uint32_t i)
{
    if (i < ORDER_GROWN) return 31 - (size_t)__builtin_clz(i / ORDER_CHUNK_MIN + 1);
    return ORDER_CHUNK_STEPS + (i - ORDER_GROWN) / ORDER_CHUNK_MAX;
}

static order_rec *order_at_chunk(const order_run *r, uint32_t i, const order_chunk **chunk)
{
    size_t k = order_chunk_of(i);
    size_t off = i < ORDER_GROWN ? i - ORDER_CHUNK_MIN * ((1u << k) - 1)
                                 : (i - ORDER_GROWN) % ORDER_CHUNK_MAX;
    *chunk = r->chunks[k];
    return &r->chunks[k]->rec[off];
}

static order_rec *order_at(const order_run *r, uint32_t i)
{
    const order_chunk *c;
    return order_at_chunk(r, i, &c);
}

static unsigned order_kind(const order_rec *x)
{
    return x->kind & ORDER_K_KIND;
}

/* Record i is emitted for good (a span: its END): its chunk goes once all of its records are,
 * so that the writer's own buffers grow into the memory the track gives back. */
static void order_done(order_run *r, uint32_t i)
{
    size_t k = order_chunk_of(i);
    if (--r->pending[k] == 0) {
        r->o->bytes -= order_chunk_size(r->chunks[k]->cap);
        free(r->chunks[k]);
        r->chunks[k] = NULL;
    }
}

static tconv_event *order_full(const order_run *r, const order_rec *x)
{
    return &r->o->full[order_slot(x)];
}

static int64_t order_ts(const order_run *r, const order_rec *x)
{
    int64_t off = order_off(x);
    return off == ORDER_OFF_FAR ? order_full(r, x)->ts : r->base + off;
}

static const order_names *order_names_of(const order_run *r, const order_rec *x)
{
    return &r->o->names[x->names];
}

static int64_t order_dur(const order_run *r, const order_rec *x)
{
    return x->kind & ORDER_K_FULL ? order_full(r, x)->dur : (int64_t)order_slot(x);
}

static void order_set_dur(order_run *r, order_rec *x, int64_t dur)
{
    if (x->kind & ORDER_K_FULL) {
        order_full(r, x)->dur = dur;
    } else if (dur >= 0 && (uint64_t)dur <= ORDER_SLOT_MAX) {
        order_set_slot(x, (uint64_t)dur);
    } else {
        tconv_event e = TCONV_EVENT_INIT;
        e.dur = dur;
        order_make_full(r->o, x, &e, 0);
    }
}

/* Where a span ends, before any clipping. */
static int64_t order_span_end(const order_run *r, const order_rec *x)
{
    int64_t d = order_dur(r, x);
    int64_t ts = order_ts(r, x);
    return d > 0 ? ts + d : ts;
}

static uint64_t order_seq(const order_run *r, uint32_t i)
{
    const order_chunk *c;
    const order_rec *x = order_at_chunk(r, i, &c);
    return c->seq_base + x->seq;
}

/* The event record i stands for. */
static tconv_event order_event(const order_run *r, uint32_t i)
{
    const order_rec *x = order_at(r, i);
    tconv_event e = TCONV_EVENT_INIT;
    if (x->kind & ORDER_K_FULL) {
        e = *order_full(r, x);
        e.flags = (uint16_t)((e.flags & ~0xffu) | x->flags);
    } else {
        e.flags = x->flags;
        if (order_kind(x) == TCONV_EV_COUNTER)
            e.value = x->kind & ORDER_K_AUX
                          ? *(const double *)order_pool_at(&r->o->values, order_slot(x))
                          : (double)order_sext48(order_slot(x));
        else if (order_is_flow(order_kind(x))) {
            e.id = x->kind & ORDER_K_AUX
                       ? *(const uint64_t *)order_pool_at(&r->o->wide, order_slot(x))
                       : order_slot(x);
        } else {
            e.dur = (int64_t)order_slot(x);
        }
    }
    e.kind = (uint16_t)order_kind(x);
    e.track = r->track;
    const order_names *nm = order_names_of(r, x);
    e.name = nm->name;
    e.cat = nm->cat;
    e.role = (uint16_t)nm->role;
    if (order_kind(x) == TCONV_EV_COUNTER) {
        e.key = nm->key;
        e.unit = nm->unit;
    }
    e.ts = order_ts(r, x);
    e.seq = order_seq(r, i);
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

static void order_emit_begin(order_run *r, uint32_t i, int64_t end)
{
    const order_rec *x = order_at(r, i);
    tconv_event e = order_event(r, i);
    e.kind = TCONV_EV_BEGIN;
    /* A repaired span keeps its measured length in dur (the END carries the clipped end), so
     * tables can report a kernel at its real duration; other BEGINs have dur 0. An unclosed
     * span's length is where it was closed. */
    if (!(e.flags & TCONV_EVF_REPAIRED))
        e.dur = 0;
    else if (x->kind & ORDER_K_AUX)
        e.dur = end - order_ts(r, x);
    if (x->kind & ORDER_K_ENDARGS) {
        /* Chrome merges the END's args into the slice: keep both. */
        size_t lo = 0, hi = r->nendargs;
        while (lo < hi) {
            size_t mid = lo + (hi - lo) / 2;
            if (r->endargs[mid].begin < i)
                lo = mid + 1;
            else
                hi = mid;
        }
        const tconv_event *end_ev = &r->o->full[r->endargs[lo].end_full];
        if (end_ev->nargs) {
            tconv_arg *args =
                tconv_arena_alloc(&r->o->arena, (e.nargs + end_ev->nargs) * sizeof(*args));
            if (e.nargs) memcpy(args, e.args, e.nargs * sizeof(*args));
            memcpy(args + e.nargs, end_ev->args, end_ev->nargs * sizeof(*args));
            e.args = args;
            e.nargs += end_ev->nargs;
        }
    }
    order_emit(r, &e);
}

static void order_emit_end(order_run *r, const order_open *s)
{
    const order_rec *x = order_at(r, s->rec);
    tconv_event e = TCONV_EVENT_INIT;
    e.kind = TCONV_EV_END;
    e.flags = x->flags;
    e.track = r->track;
    e.name = order_names_of(r, x)->name;
    e.cat = order_names_of(r, x)->cat;
    e.role = (uint16_t)order_names_of(r, x)->role;
    e.id = x->kind & ORDER_K_FULL ? order_full(r, x)->id : 0; /* async spans pair by id */
    e.ts = s->end;
    e.input = r->input;
    e.seq = order_seq(r, s->rec);
    order_emit(r, &e);
    order_done(r, s->rec);
}

/* Every comparison ends on the record index (input order), so no two records compare equal. */
static int order_cmp_time(const void *ctx, uint32_t i, uint32_t j)
{
    const order_run *r = ctx;
    int64_t tx = order_ts(r, order_at(r, i)), ty = order_ts(r, order_at(r, j));
    if (tx != ty) return tx < ty ? -1 : 1;
    return i < j ? -1 : i > j;
}

static int order_is_span(const order_rec *x)
{
    unsigned k = order_kind(x);
    return k == TCONV_EV_BEGIN || k == TCONV_EV_COMPLETE;
}

/* Emission order: by start; at one time spans before points, longer spans first. */
static int order_cmp_emit(const void *ctx, uint32_t i, uint32_t j)
{
    const order_run *r = ctx;
    const order_rec *x = order_at(r, i), *y = order_at(r, j);
    int64_t tx = order_ts(r, x), ty = order_ts(r, y);
    if (tx != ty) return tx < ty ? -1 : 1;
    int sx = order_is_span(x), sy = order_is_span(y);
    if (sx != sy) return sx ? -1 : 1;
    if (sx) {
        int64_t ex = order_span_end(r, x), ey = order_span_end(r, y);
        if (ex != ey) return ex > ey ? -1 : 1;
    }
    return i < j ? -1 : i > j;
}

/* Sort unless already sorted: tracks usually arrive in time order, or nearly (a GPU stream's
 * kernels as a profiler's buffers handed them over, a few out of place by a few). From the
 * first one out of order on, insertion sort moves each back to its place while the moves add up
 * to less than n; past that the track is sorted whole. Either way the order is the comparison's,
 * which ties on nothing. */
static void order_sort(const order_run *r, uint32_t *idx, size_t n, tconv_idx_cmp cmp)
{
    size_t k = 1;
    while (k < n && cmp(r, idx[k - 1], idx[k]) <= 0)
        k++;
    size_t budget = n;
    for (; k < n; k++) {
        uint32_t v = idx[k];
        size_t j = k;
        for (; j > 0 && cmp(r, idx[j - 1], v) > 0; j--) {
            if (!budget--) {
                idx[j] = v; /* the hole the moves left: idx is whole again */
                tconv_idx_sort(idx, n, cmp, r);
                return;
            }
            idx[j] = idx[j - 1];
        }
        idx[j] = v;
    }
}

/* Emission order from time order: idx is sorted by time already (order_cmp_time), and
 * order_cmp_emit breaks ties of time only, so each run of one time is sorted on its own. A dense
 * trace at microsecond resolution has many such runs (a 0 us op and its sibling at the same
 * microsecond), nearly all of two or three: sorting them where they are is linear, where sorting
 * the whole track again was n log n with two record look-ups per comparison. */
static void order_sort_emit(const order_run *r, uint32_t *idx, size_t n)
{
    size_t k = 0;
    while (k < n) {
        int64_t t = order_ts(r, order_at(r, idx[k]));
        size_t j = k + 1;
        while (j < n && order_ts(r, order_at(r, idx[j])) == t)
            j++;
        if (j - k > 1) order_sort(r, idx + k, j - k, order_cmp_emit);
        k = j;
    }
}

/* order_sort by time, then order_sort_emit, for the records in input order (idx[k] == k) in one
 * pass over the chunks: each run of one time is sorted for emission as it ends. 0 when the
 * records turn out not to be in time order (the runs sorted so far stay sorted among
 * themselves, which a sort by time undoes: cmp_time breaks ties by the index). */
static int order_sort_in_place(const order_run *r, uint32_t *idx, size_t n)
{
    size_t k = 0, run = 0;
    int64_t prev = INT64_MIN;
    for (size_t c = 0; c < r->nchunks && k < n; c++) {
        const order_chunk *ch = r->chunks[c];
        for (uint32_t j = 0; j < ch->n; j++, k++) {
            const order_rec *x = &ch->rec[j];
            int64_t t = order_ts(r, x);
            if (t == prev) continue;
            if (t < prev) return 0;
            if (k - run > 1) order_sort(r, idx + run, k - run, order_cmp_emit);
            run = k;
            prev = t;
        }
    }
    if (k - run > 1) order_sort(r, idx + run, k - run, order_cmp_emit);
    return 1;
}

static int order_cmp_endargs(const void *a, const void *b)
{
    const order_endargs *x = a, *y = b;
    return x->begin < y->begin ? -1 : x->begin > y->begin;
}

/* Pair BEGIN and END in time order: the BEGIN gets the span's length, the END is retired. */
static void order_pair_spans(order_run *r, const uint32_t *idx, size_t n, int64_t last)
{
    tconv_ctx *ctx = r->o->ctx;
    uint32_t *open = NULL;
    size_t nopen = 0, capopen = 0, capendargs = 0;
    for (size_t k = 0; k < n; k++) {
        order_rec *e = order_at(r, idx[k]);
        unsigned kind = order_kind(e);
        if (kind == TCONV_EV_BEGIN) {
            TCONV_GROW(open, capopen, nopen + 1);
            open[nopen++] = idx[k];
        } else if (kind == TCONV_EV_END) {
            e->kind |= ORDER_K_DEAD;
            if (!nopen) {
                tconv_warning_add_track(
                    ctx, "order.end-without-begin", r->track, " has no open span; dropped",
                    "an end event at %lld ns on track ", (long long)order_ts(r, e));
                continue;
            }
            uint32_t bi = open[--nopen];
            order_rec *b = order_at(r, bi);
            /* "B" unnamed, "E" named: the name holds */
            order_names bn = *order_names_of(r, b), en = *order_names_of(r, e);
            if ((!bn.name && en.name) || (!bn.cat && en.cat)) {
                if (!bn.name) bn.name = en.name;
                if (!bn.cat) bn.cat = en.cat;
                b->names = order_names_get(r->o, bn);
            }
            order_set_dur(r, b, order_ts(r, e) - order_ts(r, b));
            if (e->kind & ORDER_K_FULL) {
                TCONV_GROW(r->endargs, capendargs, r->nendargs + 1);
                r->endargs[r->nendargs++] = (order_endargs){bi, (uint32_t)order_slot(e)};
                b->kind |= ORDER_K_ENDARGS;
            }
        }
    }
    while (nopen) {
        order_rec *b = order_at(r, open[--nopen]);
        tconv_warning_add_track(ctx, "order.unclosed-span", r->track,
                                " is never ended; closed at the track's last time",
                                "span '%s' begun at %lld ns on track ",
                                tconv_string_get(ctx, order_names_of(r, b)->name),
                                (long long)order_ts(r, b));
        b->flags |= TCONV_EVF_REPAIRED;
        b->kind |= ORDER_K_AUX;
        int64_t bts = order_ts(r, b);
        order_set_dur(r, b, last > bts ? last - bts : 0);
    }
    free(open);
    if (r->nendargs > 1) qsort(r->endargs, r->nendargs, sizeof(*r->endargs), order_cmp_endargs);
}

/* Emit the track in order: ENDs when the next event starts at or after them. */
static void order_emit_all(order_run *r, const uint32_t *idx, size_t n)
{
    tconv_ctx *ctx = r->o->ctx;
    order_open *stack = NULL;
    size_t depth = 0, capstack = 0;
    for (size_t k = 0; k < n && r->st == TCONV_OK; k++) {
        uint32_t i = idx[k];
        order_rec *x = order_at(r, i);
        int64_t start = order_ts(r, x);
        while (depth && stack[depth - 1].end <= start && r->st == TCONV_OK)
            order_emit_end(r, &stack[--depth]);
        if (!order_is_span(x)) {
            tconv_event e = order_event(r, i);
            order_emit(r, &e);
            order_done(r, i);
            continue;
        }
        int64_t end = order_span_end(r, x);
        if (depth && end > stack[depth - 1].end) {
            const order_open *p = &stack[depth - 1];
            tconv_warning_add(ctx, "order.child-outlives-parent",
                              "span '%s' [%lld, %lld] ns ends after its parent '%s' (ends %lld); "
                              "clipped to the parent's end",
                              tconv_string_get(ctx, order_names_of(r, x)->name), (long long)start,
                              (long long)end,
                              tconv_string_get(ctx, order_names_of(r, order_at(r, p->rec))->name),
                              (long long)p->end);
            end = p->end;
            x->flags |= TCONV_EVF_REPAIRED;
        }
        order_emit_begin(r, i, end);
        TCONV_GROW(stack, capstack, depth + 1);
        stack[depth++] = (order_open){end, i};
    }
    while (depth && r->st == TCONV_OK)
        order_emit_end(r, &stack[--depth]);
    free(stack);
}

/* GPU streams and async tracks are not call stacks: work that overlaps there ran at the same
 * time, and clipping it to nest would cut real kernels short. Such a track is split into lanes
 * instead: each span goes to the first lane where it nests (it starts after the lane's open spans
 * end, or inside the innermost one and ends within it), so annotations still enclose their
 * kernels; lane 0 is the track itself. A point goes with the span just before it when they start
 * together (a flow that binds to the slice starting there), else to lane 0. Returns the number
 * of lanes; lane[k] is idx[k]'s. */
static size_t order_lanes(order_run *r, const uint32_t *idx, size_t n, uint32_t *lane)
{
    typedef struct {
        int64_t *ends; /* the lane's open spans, outermost first */
        size_t depth, cap;
    } order_lane;
    order_lane *lanes = NULL;
    size_t nlanes = 0, caplanes = 0;
    int64_t prev_start = INT64_MIN;
    uint32_t prev_lane = 0;
    for (size_t k = 0; k < n; k++) {
        const order_rec *x = order_at(r, idx[k]);
        int64_t start = order_ts(r, x);
        if (!order_is_span(x)) {
            lane[k] = start == prev_start ? prev_lane : 0;
            continue;
        }
        int64_t end = order_span_end(r, x);
        size_t l = 0;
        for (;; l++) {
            if (l == nlanes) {
                TCONV_GROW(lanes, caplanes, nlanes + 1);
                lanes[nlanes++] = (order_lane){NULL, 0, 0};
            }
            order_lane *ln = &lanes[l];
            while (ln->depth && ln->ends[ln->depth - 1] <= start)
                ln->depth--;
            if (ln->depth && ln->ends[ln->depth - 1] < end) continue;
            TCONV_GROW(ln->ends, ln->cap, ln->depth + 1);
            ln->ends[ln->depth++] = end;
            break;
        }
        lane[k] = (uint32_t)l;
        prev_start = start;
        prev_lane = (uint32_t)l;
    }
    for (size_t l = 0; l < nlanes; l++)
        free(lanes[l].ends);
    free(lanes);
    return nlanes ? nlanes : 1;
}

/* A track taken out of its list, ordered and paired, ready to emit: idx[0..live) in emission
 * order; split into lanes, lane[k] is idx[k]'s and lane_track[l] lane l's track. */
typedef struct order_ready {
    order_run r;
    uint32_t *idx, *lane, *lane_track;
    size_t live, nlanes;
    tconv_warning_set warnings; /* made while preparing it at its input's end */
} order_ready;

/* Emit lane by lane, each as a track of its own, lane 0 under the track's id. */
static void order_emit_lanes(order_ready *rd)
{
    order_run *r = &rd->r;
    uint32_t *sub = tconv_xmalloc((rd->live ? rd->live : 1) * sizeof(*sub));
    uint32_t track = r->track;
    for (size_t l = 0; l < rd->nlanes && r->st == TCONV_OK; l++) {
        size_t m = 0;
        for (size_t k = 0; k < rd->live; k++)
            if (rd->lane[k] == l) sub[m++] = rd->idx[k];
        /* Split at the flush, lanes are made as they come, as before lanes could be made at
         * the input's end. */
        r->track = l == 0           ? track
                   : rd->lane_track ? rd->lane_track[l]
                                    : tconv_track_lane(r->o->ctx, track, (unsigned)l);
        order_emit_all(r, sub, m);
    }
    r->track = track;
    free(sub);
}

/* Lane tracks, lane 0 being the track itself. */
static void order_make_lanes(order_ready *rd)
{
    rd->lane_track = tconv_xmalloc(rd->nlanes * sizeof(*rd->lane_track));
    rd->lane_track[0] = rd->r.track;
    for (size_t l = 1; l < rd->nlanes; l++)
        rd->lane_track[l] = tconv_track_lane(rd->r.o->ctx, rd->r.track, (unsigned)l);
}

/* Takes the track's records out of its list, pairs and orders them, and on a GPU stream or an
 * async track finds its lanes (the lane tracks are the caller's to make). */
static tconv_status order_prepare(tconv_order *o, uint32_t track, order_ready *rd)
{
    tconv_ctx *ctx = o->ctx;
    order_list *l = &o->lists[track];
    size_t n = l->n;
    memset(rd, 0, sizeof(*rd));
    if (n > UINT32_MAX) {
        tconv_error_set(ctx, "track %u has more than 2^32 events; split the input", track);
        return TCONV_FATAL;
    }
    order_run *r = &rd->r;
    *r = (order_run){.o = o,
                     .track = track,
                     .input = tconv_track_describe(ctx, track)->input,
                     .base = l->base,
                     .st = TCONV_OK};
    size_t capchunks = 0;
    for (order_chunk *c = l->head; c; c = c->next) {
        TCONV_GROW(r->chunks, capchunks, r->nchunks + 1);
        r->chunks[r->nchunks++] = c;
    }
    r->pending = tconv_xmalloc((r->nchunks ? r->nchunks : 1) * sizeof(*r->pending));
    for (size_t k = 0; k < r->nchunks; k++)
        r->pending[k] = r->chunks[k]->n;
    l->head = l->tail = NULL; /* the run owns the chunks now */
    l->n = 0;
    size_t paired = l->paired;
    l->paired = 0;

    /* The records by time (fillers left out), then paired, then by emission order. */
    uint32_t *idx = tconv_xmalloc((n ? n : 1) * sizeof(*idx));
    size_t live = 0;
    if (!paired) {
        /* Nothing to pair and no fillers (complete spans and points): the records as they
         * came, which is time order already on most tracks. */
        for (size_t k = 0; k < n; k++)
            idx[k] = (uint32_t)k;
        live = n;
        if (!order_sort_in_place(r, idx, n)) {
            order_sort(r, idx, n, order_cmp_time);
            order_sort_emit(r, idx, n);
        }
    } else {
        size_t m = 0;
        for (size_t k = 0; k < n; k++)
            if (!(order_at(r, (uint32_t)k)->kind & ORDER_K_DEAD)) idx[m++] = (uint32_t)k;
        order_sort(r, idx, m, order_cmp_time);
        order_pair_spans(r, idx, m, l->last);
        for (size_t k = 0; k < m; k++)
            if (!(order_at(r, idx[k])->kind & ORDER_K_DEAD)) idx[live++] = idx[k];
        for (size_t k = 0; k < n; k++)
            if (order_at(r, (uint32_t)k)->kind & ORDER_K_DEAD) order_done(r, (uint32_t)k);
        order_sort_emit(r, idx, live);
    }
    rd->idx = idx;
    rd->live = live;
    rd->nlanes = 1;
    unsigned kind = tconv_track_describe(ctx, track)->kind;
    if (kind == TCONV_TRACK_GPU || kind == TCONV_TRACK_ASYNC) {
        rd->lane = tconv_xmalloc((live ? live : 1) * sizeof(*rd->lane));
        rd->nlanes = order_lanes(r, idx, live, rd->lane);
    }
    return TCONV_OK;
}

static tconv_status order_emit_ready(order_ready *rd, tconv_emit_fn emit, void *user)
{
    order_run *r = &rd->r;
    r->emit = emit;
    r->user = user;
    if (rd->nlanes > 1)
        order_emit_lanes(rd);
    else
        order_emit_all(r, rd->idx, rd->live);
    return r->st;
}

static void order_ready_free(order_ready *rd)
{
    order_run *r = &rd->r;
    free(rd->idx);
    free(rd->lane);
    free(rd->lane_track);
    tconv_warnings_free(&rd->warnings);
    free(r->endargs);
    for (size_t k = 0; k < r->nchunks; k++)
        if (r->chunks[k]) {
            r->o->bytes -= order_chunk_size(r->chunks[k]->cap);
            free(r->chunks[k]);
        }
    free(r->chunks);
    free(r->pending);
    memset(rd, 0, sizeof(*rd));
}

static void order_ready_free_all(tconv_order *o)
{
    for (size_t i = 0; i < o->nready; i++)
        order_ready_free(&o->ready[i]);
    free(o->ready);
}

static void order_note_peak(tconv_order *o)
{
    size_t b = tconv_order_bytes(o);
    if (b > o->peak) o->peak = b;
}

void tconv_order_count_elsewhere(tconv_order *o, size_t events, size_t peak)
{
    o->nevents += events;
    if (peak > o->peak) o->peak = peak;
}

size_t tconv_order_peak_bytes(tconv_order *o)
{
    order_note_peak(o);
    return o->peak;
}

/* Lanes are tracks, made when their track is split. Made at the flush after the last input, they
 * took ids after every input's tracks, so a flush could not come before the end without changing
 * the ids of later inputs' tracks (which messages and the writers' tables in track order show).
 * So the split comes at the input's end, for every run alike: the lanes' ids follow their own
 * input's tracks, and the track waits, prepared, for the flush. Its warnings (the pairing's
 * repairs) wait with it. Tracks are an input's (tconv_track_get makes them per input), so none
 * of these gets events afterwards. */
tconv_status tconv_order_input_done(tconv_order *o)
{
    tconv_ctx *ctx = o->ctx;
    order_note_peak(o);
    tconv_status st = TCONV_OK;
    for (uint32_t t = o->done_tracks; t < o->nlists && st == TCONV_OK; t++) {
        order_list *l = &o->lists[t];
        if (!l->n || l->ready) continue;
        unsigned kind = tconv_track_describe(ctx, t)->kind;
        if (kind != TCONV_TRACK_GPU && kind != TCONV_TRACK_ASYNC) continue;
        TCONV_GROW(o->ready, o->capready, o->nready + 1);
        order_ready *rd = &o->ready[o->nready];
        tconv_warning_set mine = {0};
        tconv_warnings_swap(ctx, &mine); /* the run's aside while the track's are made */
        st = order_prepare(o, t, rd);
        tconv_warnings_swap(ctx, &mine);
        rd->warnings = mine;
        if (st != TCONV_OK) {
            order_ready_free(rd);
            break;
        }
        if (rd->nlanes > 1) order_make_lanes(rd);
        l->ready = (uint32_t)++o->nready;
    }
    o->done_tracks = tconv_track_count(ctx);
    return st;
}

static tconv_status order_track(tconv_order *o, uint32_t track, tconv_emit_fn emit, void *user)
{
    order_list *l = &o->lists[track];
    order_ready local, *rd = &local;
    tconv_status st = TCONV_OK;
    if (l->ready) {
        rd = &o->ready[l->ready - 1];
        l->ready = 0;
        tconv_warnings_give(o->ctx, &rd->warnings);
    } else {
        st = order_prepare(o, track, rd);
    }
    if (st == TCONV_OK) st = order_emit_ready(rd, emit, user);
    order_ready_free(rd);
    return st;
}

tconv_status tconv_order_flush(tconv_order *o, tconv_emit_fn emit, void *user)
{
    order_note_peak(o);
    tconv_status st = TCONV_OK;
    for (uint32_t t = 0; t < o->nlists && st == TCONV_OK; t++)
        if (o->lists[t].n || o->lists[t].ready) st = order_track(o, t, emit, user);
    return st;
}
