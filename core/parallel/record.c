/* The recording of one input read on a worker thread (tconv -j), and its replay on the main
 * thread. The worker's reader has a context of its own, so its string and track ids are its
 * own; the recording keeps, in the order they happened, the events it pushed (checked against
 * the worker's context) and everything else it did to the context that the run's context must
 * see: new strings and tracks (as counts of the worker's tables, taken before each step), track
 * kinds, sample types, launch-stack tolerances, warnings and notices.
 *
 * The replay does each step again on the run's context: the worker's new strings are interned
 * and its new tracks made in the order the worker made them, just before the first step that
 * may use them, so the run's tables grow exactly as they would have had the main thread read the
 * input, interleaved with whatever the sink adds between pushes. Each event's ids then go
 * through two arrays (worker id -> run id): an array lookup per id, no hashing per event. */
#include <string.h>

#include "parallel.h"
#include "record_impl.h"

static rec_op *rec_op_add(tconv_rec *rec, uint32_t type)
{
    TCONV_GROW(rec->ops, rec->capops, rec->nops + 1);
    rec_op *op = &rec->ops[rec->nops++];
    memset(op, 0, sizeof(*op));
    op->type = type;
    op->at = rec->nev;
    return op;
}

/* Before every step: the strings and tracks the reader made since the last one. */
static void rec_sync(tconv_rec *rec)
{
    uint32_t ns = tconv_string_count(rec->w), nt = tconv_track_count(rec->w);
    if (ns == rec->nstr && nt == rec->ntrack) return;
    rec_op *op = rec_op_add(rec, REC_SYNC);
    op->a = rec->nstr = ns;
    op->b = rec->ntrack = nt;
}

static void rec_notice(void *user, tconv_notice_level level, const char *text)
{
    tconv_rec *rec = user;
    rec_sync(rec);
    rec_op *op = rec_op_add(rec, REC_NOTICE);
    op->a = (uint32_t)level;
    op->p = tconv_xstrdup(text);
}

static void rec_warning(void *user, size_t kind_index);
static void rec_track_kind(void *user, uint32_t track, uint32_t kind);
static void rec_sampletypes(void *user);
static void rec_launchstacks(void *user, int64_t tolerance_ns);
static void rec_lane(void *user, uint32_t track, unsigned n);

/* What the recording is told of the worker's context. */
static const tconv_ctx_observer rec_observer = {
    .warning = rec_warning,
    .track_kind = rec_track_kind,
    .sampletypes = rec_sampletypes,
    .launchstacks = rec_launchstacks,
    .lane = rec_lane,
};

tconv_rec *tconv_rec_new(tconv_ctx *wctx, tconv_rec_buf buf)
{
    tconv_rec *rec = tconv_xcalloc(1, sizeof(*rec));
    rec->ev = buf.ev;
    rec->capev = buf.cap;
    rec->touched = buf.touched;
    rec->held = rec->pooled = buf.held;
    rec->next_hold = UINT64_MAX;
    rec->w = wctx;
    rec->nstr = tconv_string_count(wctx);
    rec->ntrack = tconv_track_count(wctx);
    tconv_ctx_observe(wctx, &rec_observer, rec);
    wctx->notice = rec_notice;
    wctx->notice_user = rec;
    return rec;
}

tconv_rec_buf tconv_rec_free(tconv_rec *rec)
{
    tconv_rec_buf buf = {0};
    if (!rec) return buf;
    for (size_t i = 0; i < rec->nops; i++) {
        if (rec->ops[i].type == REC_STYPES) {
            tconv_sampletypes_saved_free(rec->ops[i].p);
            free(rec->ops[i].p);
        } else if (rec->ops[i].type == REC_NOTICE) {
            free(rec->ops[i].p);
        }
    }
    free(rec->ops);
    tconv_partial_free(rec->part);
    buf.ev = rec->ev;
    buf.cap = rec->capev;
    buf.touched = rec->nev > rec->touched ? rec->nev : rec->touched;
    tconv_arena_free(&rec->data);
    free(rec->smap);
    free(rec->tmap);
    free(rec);
    return buf;
}

/* The event array is a big array (core/util/bigarray.c): the realloc that grew it cost three
 * quarters of a -j run's page faults, and the first recordings of a run, with no array to reuse, a
 * quarter of their time. */
void tconv_rec_ev_reserve(tconv_rec *rec, size_t need)
{
    if (need > rec->capev)
        tconv_big_grow((void **)&rec->ev, &rec->capev, rec->nev, need, sizeof(*rec->ev));
}

void tconv_rec_buf_free(tconv_rec_buf buf)
{
    tconv_big_free(buf.ev, buf.cap, sizeof(rec_ev));
}

uint64_t tconv_rec_buf_bytes(tconv_rec_buf buf)
{
    return (uint64_t)buf.touched * sizeof(rec_ev);
}

void tconv_rec_budget(tconv_rec *rec, tconv_jobs *jobs, size_t k, uint64_t step)
{
    rec->jobs = jobs;
    rec->job = k;
    rec->step = step;
    rec->next_hold = 0; /* the first event reports the array it was given, past buf.held */
}

uint64_t tconv_rec_held(const tconv_rec *rec)
{
    return rec->held;
}

int tconv_rec_given_up(const tconv_rec *rec)
{
    return rec->given_up;
}

/* What the events' bytes reached (tconv_rec_event checks this much at every event, cheaply). */
static uint64_t rec_grown(const tconv_rec *rec)
{
    return (uint64_t)rec->nev * sizeof(rec_ev) + rec->data.total;
}

/* Every step bytes: everything the recording holds, reported; the report may wait for the main
 * thread to free recordings (core/parallel/jobs.c). The event array counts as far as it was ever
 * written (pages of a reused array are in memory whether this recording wrote them or not). */
static int rec_hold(tconv_rec *rec)
{
    size_t nev = rec->nev > rec->touched ? rec->nev : rec->touched;
    uint64_t bytes = (uint64_t)nev * sizeof(rec_ev) + rec->data.total +
                     rec->capops * sizeof(rec_op) + rec->w->strings.arena.total +
                     rec->w->strings.cap * (sizeof(char *) + 2 * sizeof(uint32_t)) +
                     rec->w->strings.nslots * sizeof(uint32_t);
    rec->next_hold = rec_grown(rec) + rec->step;
    if (bytes <= rec->held && !rec->pooled) return 0;
    uint64_t more = bytes > rec->held ? bytes - rec->held : 0;
    if (more) rec->held = bytes;
    if (tconv_jobs_hold(rec->jobs, rec->job, more, rec->held, rec->pooled) < 0) rec->given_up = 1;
    rec->pooled = 0;
    return rec->given_up ? -1 : 0;
}

int tconv_rec_event(tconv_rec *rec, const tconv_event *e)
{
    rec_sync(rec);
    if (rec->nev == rec->capev) tconv_rec_ev_reserve(rec, rec->nev + 1);
    rec_ev *c = &rec->ev[rec->nev++];
    c->ts = e->ts;
    c->dur = e->dur;
    c->id = e->id;
    c->corr = e->corr;
    c->value = e->value;
    c->track = e->track;
    c->name = e->name;
    c->cat = e->cat;
    c->key = e->key;
    c->unit = e->unit;
    c->text = e->text;
    c->nargs = e->nargs;
    c->nframes = e->nframes;
    c->nvalues = e->nvalues;
    c->kind = e->kind;
    c->flags = e->flags;
    c->role = e->role;
    size_t na = e->nargs * sizeof(*e->args), nf = e->nframes * sizeof(*e->frames),
           nv = e->nvalues * sizeof(*e->values);
    c->payload = NULL;
    if (na + nf + nv) {
        unsigned char *p = c->payload = tconv_arena_alloc(&rec->data, na + nf + nv);
        if (na) memcpy(p, e->args, na);
        if (nf) memcpy(p + na, e->frames, nf);
        if (nv) memcpy(p + na + nf, e->values, nv);
    }
    return rec_grown(rec) >= rec->next_hold ? rec_hold(rec) : 0;
}

static void rec_warning(void *user, size_t kind_index)
{
    tconv_rec *rec = user;
    if (rec->mute) return;
    rec_sync(rec);
    rec_op_add(rec, REC_WARNING)->a = (uint32_t)kind_index;
}

static void rec_track_kind(void *user, uint32_t track, uint32_t kind)
{
    tconv_rec *rec = user;
    rec_sync(rec);
    rec_op *op = rec_op_add(rec, REC_KIND);
    op->a = track;
    op->b = kind;
}

static void rec_sampletypes(void *user)
{
    tconv_rec *rec = user;
    if (rec->mute) return;
    rec_sync(rec);
    tconv_stypes_saved *sv = tconv_xcalloc(1, sizeof(*sv));
    tconv_sampletypes_save(rec->w, sv);
    rec_op_add(rec, REC_STYPES)->p = sv;
}

/* After the lane's strings and track exist: the replay maps them, then makes the lane again,
 * which finds that track and gives it its base's kind and names. */
static void rec_lane(void *user, uint32_t track, unsigned n)
{
    tconv_rec *rec = user;
    rec_sync(rec);
    rec_op *op = rec_op_add(rec, REC_LANE);
    op->a = track;
    op->b = n;
}

uint64_t tconv_rec_count(const tconv_rec *rec)
{
    return rec->nev;
}

void tconv_rec_mute(tconv_rec *rec, int on)
{
    rec->mute = on;
}

const tconv_partial *tconv_rec_partial(const tconv_rec *rec)
{
    return rec->part;
}

void tconv_rec_set_partial(tconv_rec *rec, tconv_partial *p)
{
    tconv_partial_free(rec->part);
    rec->part = p;
}

static void rec_launchstacks(void *user, int64_t tolerance_ns)
{
    tconv_rec *rec = user;
    rec_sync(rec);
    rec_op_add(rec, REC_LAUNCH)->b = tolerance_ns;
}

void tconv_rec_defer(tconv_rec *rec, uint64_t offset, uint64_t len)
{
    rec_sync(rec); /* what the reader made of the element before it deferred it comes first */
    rec_op *op = rec_op_add(rec, REC_DEFER);
    op->b = (int64_t)offset;
    op->p = (void *)(uintptr_t)len;
}

void tconv_rec_on_defer(tconv_rec *rec,
                        tconv_status (*fn)(void *user, uint64_t offset, uint64_t len), void *user)
{
    rec->defer = fn;
    rec->defer_user = user;
}

uint64_t tconv_rec_bytes(const tconv_rec *rec)
{
    return rec_grown(rec) + rec->capops * sizeof(rec_op) + rec->w->strings.arena.total +
           rec->w->strings.cap * (sizeof(char *) + 2 * sizeof(uint32_t)) +
           rec->w->strings.nslots * sizeof(uint32_t);
}

void tconv_rec_finish(tconv_rec *rec, tconv_status st)
{
    rec_sync(rec); /* strings and tracks made after the last event still take their ids */
    rec->status = st;
}

/* The run's ids for the worker's strings and tracks up to the counts of a REC_SYNC. */
static void rec_map(tconv_rec *rec, tconv_ctx *ctx, uint32_t nstr, uint32_t ntrack)
{
    const tconv_ctx *w = rec->w;
    if (nstr > rec->nsmap) {
        rec->smap = tconv_xrealloc(rec->smap, (size_t)nstr * sizeof(*rec->smap));
        for (size_t i = rec->nsmap; i < nstr; i++)
            rec->smap[i] = tconv_string_intern(ctx, w->strings.str[i], w->strings.len[i]);
        rec->nsmap = nstr;
    }
    if (ntrack > rec->ntmap) {
        rec->tmap = tconv_xrealloc(rec->tmap, (size_t)ntrack * sizeof(*rec->tmap));
        for (size_t i = rec->ntmap; i < ntrack; i++) {
            const tconv_track *k = &w->tracks.tracks[i];
            rec->tmap[i] = tconv_track_get(ctx, rec->smap[k->pid], rec->smap[k->tid]);
        }
        rec->ntmap = ntrack;
    }
}

static void rec_apply(tconv_rec *rec, tconv_ctx *ctx, const rec_op *op)
{
    switch (op->type) {
    case REC_SYNC:
        rec_map(rec, ctx, op->a, (uint32_t)op->b);
        break;
    case REC_KIND:
        tconv_track_set_kind(ctx, rec->tmap[op->a], (tconv_track_kind)op->b);
        break;
    case REC_STYPES: {
        const tconv_stypes_saved *sv = op->p;
        tconv_sampletypes_set(ctx, sv->n, sv->types, sv->def);
        break;
    }
    case REC_LAUNCH:
        tconv_launchstacks_declare(ctx, op->b);
        break;
    case REC_WARNING: {
        const tconv_warning *wn = &rec->w->warnings[op->a];
        tconv_warning_add(ctx, wn->kind, "%s", wn->first);
        break;
    }
    case REC_NOTICE:
        tconv_notice(ctx, (tconv_notice_level)op->a, "%s", (const char *)op->p);
        break;
    case REC_LANE:
        tconv_track_lane(ctx, rec->tmap[op->a], (unsigned)op->b);
        break;
    }
}

/* The recorded event as a push would carry it, with the run's ids. Its args and frames are
 * the recording's own copies, mapped in place. */
static void rec_map_event(const tconv_rec *rec, const rec_ev *c, tconv_event *e)
{
    const tconv_str *s = rec->smap;
    *e = (tconv_event)TCONV_EVENT_INIT;
    e->kind = c->kind;
    e->flags = c->flags;
    e->track = rec->tmap[c->track];
    e->name = s[c->name];
    e->cat = s[c->cat];
    e->ts = c->ts;
    e->dur = c->dur;
    e->id = c->id;
    e->key = s[c->key];
    e->unit = s[c->unit];
    e->text = s[c->text];
    e->value = c->value;
    e->corr = c->corr;
    e->role = c->role;
    unsigned char *p = c->payload;
    tconv_arg *a = c->nargs ? (tconv_arg *)p : NULL;
    for (uint32_t i = 0; i < c->nargs; i++) {
        a[i].key = s[a[i].key];
        if (a[i].type == TCONV_ARG_STRING || a[i].type == TCONV_ARG_JSON) a[i].v.s = s[a[i].v.s];
    }
    tconv_frame *f = c->nframes ? (tconv_frame *)(p + c->nargs * sizeof(*a)) : NULL;
    for (uint32_t i = 0; i < c->nframes; i++) {
        f[i].name = s[f[i].name];
        f[i].module = s[f[i].module];
        f[i].file = s[f[i].file];
    }
    e->args = a;
    e->nargs = c->nargs;
    e->frames = f;
    e->nframes = c->nframes;
    e->values =
        c->nvalues ? (const int64_t *)(p + c->nargs * sizeof(*a) + c->nframes * sizeof(*f)) : NULL;
    e->nvalues = c->nvalues;
}

tconv_status tconv_rec_replay(tconv_rec *rec, tconv_ctx *ctx, tconv_sink *sink)
{
    size_t op = 0;
    /* A partial result: its counts, once the metadata before the sums is in; then the sums. */
    uint64_t sums_at = rec->part ? rec->part->sums_at : UINT64_MAX;
    for (size_t k = 0;; k++) {
        for (; op < rec->nops && rec->ops[op].at == k; op++) {
            const rec_op *o = &rec->ops[op];
            if (o->type != REC_DEFER) {
                rec_apply(rec, ctx, o);
            } else if (!rec->defer || rec->defer(rec->defer_user, (uint64_t)o->b,
                                                 (uint64_t)(uintptr_t)o->p) == TCONV_FATAL) {
                return TCONV_FATAL;
            }
        }
        if (k == sums_at &&
            tconv_sink_partial_begin(sink, rec->part, rec->tmap, rec->ntmap) == TCONV_FATAL)
            return TCONV_FATAL;
        if (k == rec->nev) break;
        tconv_event e;
        rec_map_event(rec, &rec->ev[k], &e);
        if (k < sums_at) {
            if (tconv_sink_replay(sink, &e) == TCONV_FATAL) return TCONV_FATAL;
        } else if (tconv_sink_partial_sum(sink, &e) == TCONV_FATAL) {
            tconv_sink_partial_end_sums(sink);
            return TCONV_FATAL;
        }
    }
    if (rec->part) tconv_sink_partial_end_sums(sink);
    /* Whatever error the reader left, as it would be on the run's context after a read. */
    if (tconv_error_pending(rec->w)) tconv_error_move(ctx, rec->w);
    return rec->status;
}
