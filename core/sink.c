/* The sink: where readers push events. It normalises each event (struct size, sequence number,
 * input index), keeps the track table and trace bounds current, and routes the event to the
 * writer either directly or through the ordering and stack stages the writer asked for.
 *
 * A push is checked in full before it is routed: whatever is wrong with the event or with its
 * input (an unknown string id, sample types that differ from the other inputs') is found then.
 * That split lets --keep-going hold an input's checked events and route them only once the input
 * has been read to its end: a failed input reaches neither the stages nor the writer. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "inputcheck.h"
#include "internal.h"

enum { SINK_DIRECT, SINK_ORDERED, SINK_STACKS };

/* --keep-going: one input's accepted events, held until it is read to its end. */
typedef struct sink_stage {
    tconv_event *ev;
    size_t n, cap;
    tconv_arena data; /* args, frames and values of the staged events */
    /* the sink as the input found it */
    int have_spans, have_samples;
    tconv_inputcheck_mark check;
    uint32_t ntracks; /* tracks before the input: the input's own come after */
} sink_stage;

struct tconv_sink {
    tconv_ctx *ctx;
    const tconv_writer_class *wc;
    void *ws;
    uint32_t accepts;
    int mode;
    tconv_order *order;
    tconv_gpu *gpu; /* GPU attribution, when the writer asked for it (core/gpu.c) */
    uint64_t seq;
    uint64_t emitted; /* by the stages, after the readers are done */
    uint64_t dropped[TCONV_EV_KIND_MAX];
    /* Spans left out of self time, by input and role: per input, since --rank knows which
     * inputs it keeps only once they are all read. */
    uint64_t (*not_work)[TCONV_ROLE_MAX];
    size_t nnot_work;
    int have_spans, have_samples;
    tconv_inputcheck *check; /* against the inputs before: sample types, spans (inputcheck.h) */
    sink_stage *stage;       /* --keep-going: the input being read, held (see below) */
    /* --rank: what would go to the writer as it is read (metadata), held until the inputs of
     * the rank are known, at the finish. */
    sink_stage held;
    uint64_t accepted; /* events pushed that passed the checks, staged or not */
    int staging;
    void (*progress)(void *user, uint64_t events);
    void *progress_user;
    /* A worker's sink (tconv -j): checked events go to the recording, not to a writer. */
    tconv_rec *rec;
    const atomic_int *abandon;
    /* The stack writers' early flush (tconv_sink_input_done): the stack stage that lives for the
     * whole run, whether early flushes may still come, and the warnings they made, kept apart
     * until the finish, where a flush at the end makes them. */
    tconv_stack *stack;
    int early;
    tconv_warning_set early_warnings;
    /* A worker's sink making a partial result (internal.h): the metadata goes to part_rec, the
     * writer's calls to sink_part_event through part_wc, a copy of the writer's class (so that
     * routing tests nothing more per event); part_bad: something but the stack stage's samples
     * would have reached the writer. */
    tconv_rec *part_rec;
    tconv_writer_class part_wc;
    int part_bad;
    uint64_t part_meta;
    tconv_sums *sums;
    /* The run's sink, between tconv_sink_partial_begin and _end_sums. */
    int part_open;
    tconv_stypes_saved early_types; /* the reader's, while samples go early (sink_samples_begin) */
};

enum { SINK_PROGRESS_EVERY = 1 << 16 };

void tconv_sink_set_progress(tconv_sink *s, void (*fn)(void *user, uint64_t events), void *user)
{
    s->progress = fn;
    s->progress_user = user;
}

/* Test switch: every flush at the end, as before the early flush, to compare the two. */
static int sink_flush_at_end(void)
{
    const char *e = getenv("TCONV_FLUSH_AT_END");
    return e && *e && strcmp(e, "0") != 0;
}

/* May what the stages made of an input reach the writer as soon as the input is read, rather
 * than after all inputs? Only where the bytes, the warnings and the messages come out as from the
 * flush at the end:
 *   - the writer says its output does not depend on when that comes among the events it is given
 *     directly (metadata): TCONV_WRITER_EARLY_SAMPLES for the stack stage's samples (pprof and
 *     folded ignore metadata events; text-stacks prints them in order, so would change), or
 *     TCONV_WRITER_EARLY_EVENTS for an ordered writer's events (otf2 keeps metadata per input
 *     and uses it at its finish; text-ordered prints it first, so would change);
 *   - no GPU attribution: it matches launches to GPU work across tracks and inputs, and flushes
 *     what is left of it after the last track;
 *   - no --window or --steps: the window is relative to the first time of the whole trace and
 *     the steps are found over all inputs; no --rank, whose inputs are known only at the end.
 * Direct samples and failures are dealt with as they come (tconv_sink_input_done). */
static int sink_early_possible(const tconv_sink *s)
{
    const tconv_selection *sel = &s->ctx->selection;
    int flagged = s->mode == SINK_STACKS    ? (s->wc->flags & TCONV_WRITER_EARLY_SAMPLES) != 0
                  : s->mode == SINK_ORDERED ? (s->wc->flags & TCONV_WRITER_EARLY_EVENTS) != 0
                                            : 0;
    return flagged && !s->gpu && !sel->window && !sel->steps && !sel->by_rank &&
           !sink_flush_at_end();
}

tconv_sink *tconv_sink_new(tconv_ctx *ctx, const tconv_writer_class *wc, void *wstate)
{
    tconv_sink *s = tconv_xcalloc(1, sizeof(*s));
    s->ctx = ctx;
    s->wc = wc;
    s->ws = wstate;
    s->accepts = wc->accepts;
    if ((wc->accepts & TCONV_KIND_BIT(TCONV_EV_SAMPLE)) && !(wc->accepts & TCONV_KINDS_SPANS))
        s->mode = SINK_STACKS;
    else if (wc->flags & TCONV_WRITER_ORDERED)
        s->mode = SINK_ORDERED;
    else
        s->mode = SINK_DIRECT;
    /* In stack mode the spans need only names; an ordered writer's own events keep it all. */
    if (s->mode != SINK_DIRECT)
        s->order = tconv_order_new(ctx, (wc->flags & TCONV_WRITER_ORDERED) != 0);
    /* The writer called tconv_gpu_attribute at open, which comes before the sink. */
    if (s->mode == SINK_STACKS && ctx->gpu_attribute) s->gpu = tconv_gpu_new(ctx);
    s->check = tconv_inputcheck_new(wc->name, s->mode == SINK_STACKS, s->gpu != NULL);
    s->early = sink_early_possible(s);
    return s;
}

void tconv_sink_free(tconv_sink *s)
{
    if (!s) return;
    tconv_order_free(s->order);
    tconv_stack_free(s->stack);
    tconv_warnings_free(&s->early_warnings);
    tconv_sums_free(s->sums);
    tconv_gpu_free(s->gpu);
    free(s->not_work);
    tconv_inputcheck_free(s->check);
    if (s->stage) {
        free(s->stage->ev);
        tconv_arena_free(&s->stage->data);
        free(s->stage);
    }
    free(s->held.ev);
    tconv_arena_free(&s->held.data);
    free(s);
}

uint64_t tconv_sink_events(const tconv_sink *s)
{
    return s->seq;
}

static int sink_is_span(unsigned kind)
{
    return kind == TCONV_EV_BEGIN || kind == TCONV_EV_END || kind == TCONV_EV_COMPLETE;
}

/* The ordering stage's output, through the selection stage when the user asked for part of the
 * trace. */
static tconv_status sink_flush(tconv_sink *s, tconv_emit_fn emit, void *user)
{
    const tconv_selection *sel = &s->ctx->selection;
    if (!sel->window && !sel->steps && !sel->keep) return tconv_order_flush(s->order, emit, user);
    tconv_selection_resolve_steps(&s->ctx->selection);
    tconv_select *cut = tconv_select_new(s->ctx, sel, emit, user);
    tconv_status st = tconv_order_flush(s->order, tconv_select_event, cut);
    if (sel->window || sel->steps)
        tconv_note(s->ctx, "selection: %llu spans cut at the window's edges",
                   (unsigned long long)tconv_select_cut(cut));
    tconv_select_free(cut);
    return st;
}

/* Leaving spans out changes the totals, so it is said every time, with how to undo it. */
static void sink_note_not_work(const tconv_sink *s)
{
    const tconv_selection *sel = &s->ctx->selection;
    uint64_t by_role[TCONV_ROLE_MAX] = {0};
    for (size_t i = 0; i < s->nnot_work; i++) {
        if (sel->keep && (i >= sel->nkeep || !sel->keep[i])) continue;
        for (unsigned r = 0; r < TCONV_ROLE_MAX; r++)
            by_role[r] += s->not_work[i][r];
    }
    char msg[256];
    size_t len = 0;
    uint64_t total = 0;
    for (unsigned r = 0; r < TCONV_ROLE_MAX; r++) {
        if (!by_role[r] || len >= sizeof(msg)) continue;
        total += by_role[r];
        len += (size_t)snprintf(msg + len, sizeof(msg) - len, "%s%llu %s", len ? ", " : "",
                                (unsigned long long)by_role[r], tconv_role_name(r));
    }
    if (total)
        tconv_notice(s->ctx, TCONV_NOTICE_NOTE,
                     "%llu span%s that %s not work of %s thread left out of self time (%s); "
                     "--all-spans counts them",
                     (unsigned long long)total, total == 1 ? "" : "s", total == 1 ? "is" : "are",
                     total == 1 ? "its" : "their", msg);
}

/* One line for everything the writer cannot hold: counted, never silent, not noisy. Nothing is
 * wrong with the input (a profile has no place for counters, a trace viewer none for stack
 * samples), so it is a note. Where every rank of an MPI run writes its part (a collective
 * writer), each rank counted its own events: rank 0 says the sum, as one process would. Every
 * rank comes here (the ranks agreed on the read before the finish), so the gather is matched. */
static void sink_note_dropped(const tconv_sink *s)
{
    uint64_t dropped[TCONV_EV_KIND_MAX];
    memcpy(dropped, s->dropped, sizeof(dropped));
    tconv_collective *c = s->ctx->coll;
    if (c) {
        int size = tconv_collective_size(c), me = tconv_collective_rank(c);
        uint64_t *all = me == 0 ? tconv_xcalloc((size_t)size, sizeof(dropped)) : NULL;
        size_t *counts = me == 0 ? tconv_xcalloc((size_t)size, sizeof(*counts)) : NULL;
        for (int q = 0; me == 0 && q < size; q++)
            counts[q] = sizeof(dropped);
        int ok = tconv_collective_gatherv(c, s->dropped, sizeof(dropped), all, counts, 0) == 0;
        for (int q = 1; ok && me == 0 && q < size; q++)
            for (unsigned k = 0; k < TCONV_EV_KIND_MAX; k++)
                dropped[k] += all[(size_t)q * TCONV_EV_KIND_MAX + k];
        free(all);
        free(counts);
        if (me != 0) return;
    }
    char msg[512];
    size_t len = 0;
    for (unsigned k = 1; k < TCONV_EV_KIND_MAX; k++) {
        if (!dropped[k] || len >= sizeof(msg)) continue;
        len += (size_t)snprintf(msg + len, sizeof(msg) - len, "%s%llu %s", len ? ", " : "",
                                (unsigned long long)dropped[k], tconv_event_kind_name(k));
    }
    if (len)
        tconv_notice(s->ctx, TCONV_NOTICE_NOTE,
                     "the %s writer has no place for some events (%s); they are left out",
                     s->wc->name, msg);
}

/* The input's counts of spans left out, by role. */
static uint64_t *sink_not_work(tconv_sink *s, uint32_t input)
{
    if (input >= s->nnot_work) {
        size_t old = s->nnot_work;
        TCONV_GROW(s->not_work, s->nnot_work, (size_t)input + 1);
        memset(s->not_work + old, 0, (s->nnot_work - old) * sizeof(*s->not_work));
    }
    return s->not_work[input];
}

static const char *sink_input_name(const tconv_ctx *ctx)
{
    return ctx->input_name ? ctx->input_name : "<input>";
}

static int sink_is_flow(unsigned kind)
{
    return kind == TCONV_EV_FLOW_START || kind == TCONV_EV_FLOW_STEP || kind == TCONV_EV_FLOW_END;
}

/* The first string id of the event that the string table never gave out, or NULL. Writers key
 * tables by id (a folded writer's frame tree, OTF2's region table), so one invalid id from an
 * out-of-tree plugin would make them index past their tables or never find a match. */
static const char *sink_bad_string(const tconv_ctx *ctx, const tconv_event *e, tconv_str *id)
{
    const uint32_t n = tconv_string_count(ctx);
    const tconv_str fields[] = {e->name, e->cat, e->key, e->unit, e->text};
    static const char *const what[] = {"name", "cat", "key", "unit", "text"};
    for (size_t i = 0; i < sizeof(fields) / sizeof(fields[0]); i++)
        if (fields[i] >= n) return *id = fields[i], what[i];
    for (uint32_t i = 0; i < e->nargs; i++) {
        const tconv_arg *a = &e->args[i];
        if (a->key >= n) return *id = a->key, "arg key";
        if ((a->type == TCONV_ARG_STRING || a->type == TCONV_ARG_JSON) && a->v.s >= n)
            return *id = a->v.s, "arg value";
    }
    for (uint32_t i = 0; i < e->nframes; i++) {
        const tconv_frame *f = &e->frames[i];
        if (f->name >= n || f->module >= n || f->file >= n)
            return *id = f->name >= n ? f->name : f->module >= n ? f->module : f->file, "frame";
    }
    return NULL;
}

/* Checks and normalises what a reader pushed into *out, with the checks that need nothing but
 * the event and its input's strings and tracks: a worker's sink makes them as it records.
 * TCONV_RECORD: skip it. */
static tconv_status sink_check(tconv_sink *s, const tconv_event *in, tconv_event *out)
{
    tconv_ctx *ctx = s->ctx;
    if (in->struct_size >= sizeof(*out)) {
        /* The common case, a plugin of this minor: a copy of fixed size. */
        *out = *in;
    } else {
        /* A plugin built for an older minor knows a shorter event: read only that much. */
        size_t size = in->struct_size;
        if (size < offsetof(tconv_event, args)) {
            tconv_error_set(ctx,
                            "a plugin pushed an event with struct_size %u; initialise events "
                            "with TCONV_EVENT_INIT",
                            in->struct_size);
            return TCONV_FATAL;
        }
        *out = (tconv_event)TCONV_EVENT_INIT;
        memcpy(out, in, size);
    }
    out->struct_size = sizeof(*out);
    if (out->kind == 0 || out->kind >= TCONV_EV_KIND_MAX) {
        tconv_warning_add(ctx, "core.bad-kind", "an event of unknown kind %u was pushed; skipped",
                          out->kind);
        return TCONV_RECORD;
    }
    if (out->track >= tconv_track_count(ctx)) {
        tconv_error_set(ctx,
                        "a reader pushed an event on track %u, which does not exist; get "
                        "tracks from tconv_track_get",
                        out->track);
        return TCONV_FATAL;
    }
    /* Times within 2^62 ns (146 years) of 0 keep every sum and difference of two times inside
     * int64 in the stages; the in-tree readers already stay there, out-of-tree ones may not. */
    const int64_t lim = (int64_t)1 << 62;
    if (out->ts <= -lim || out->ts >= lim ||
        (out->kind == TCONV_EV_COMPLETE &&
         (out->dur < 0 ? out->dur <= -lim : out->dur >= lim - out->ts))) {
        tconv_warning_add(ctx, "core.time-range",
                          "an event at %lld ns (dur %lld) lies beyond 2^62 ns; skipped",
                          (long long)out->ts, (long long)out->dur);
        return TCONV_RECORD;
    }
    tconv_str bad_id;
    const char *bad = sink_bad_string(ctx, out, &bad_id);
    if (bad) {
        tconv_error_set(ctx,
                        "a reader pushed a %s event whose %s is string id %u, which does not "
                        "exist (%u strings); get ids from tconv_string_intern",
                        tconv_event_kind_name(out->kind), bad, bad_id, tconv_string_count(ctx));
        return TCONV_FATAL;
    }
    out->input = ctx->input;
    /* Readers look track names up as they go (to push a name only when it changes). */
    if (out->kind == TCONV_EV_METADATA) tconv_track_apply_metadata(ctx, out);
    return TCONV_OK;
}

/* The checks of a checked event against the inputs before it (sample types, spans: core/
 * inputcheck.c), so that an event staged for --keep-going that passes here fails no later for
 * its input's sake. */
static tconv_status sink_check_inputs(tconv_sink *s, const tconv_event *ev)
{
    tconv_ctx *ctx = s->ctx;
    const tconv_event e = *ev;
    /* Launch stacks under GPU attribution never reach the writer as samples. */
    int launch = s->gpu && e.kind == TCONV_EV_SAMPLE && e.input < ctx->nlaunch_tol &&
                 ctx->launch_tol[e.input] >= 0;
    if (e.kind == TCONV_EV_SAMPLE && !launch && tconv_inputcheck_wants_sample(s->check, e.input)) {
        int own = ctx->nstypes && ctx->stypes_input == e.input;
        if (tconv_inputcheck_sample(s->check, ctx, e.input, sink_input_name(ctx), own) != TCONV_OK)
            return TCONV_FATAL;
    }
    if (sink_is_span(e.kind) && s->mode == SINK_STACKS && tconv_inputcheck_wants_span(s->check) &&
        tconv_inputcheck_span(s->check, ctx, e.input, sink_input_name(ctx)) != TCONV_OK)
        return TCONV_FATAL;
    if (sink_is_span(e.kind)) s->have_spans = 1;
    if (e.kind == TCONV_EV_SAMPLE && !launch) s->have_samples = 1;
    return TCONV_OK;
}

static tconv_status sink_accept(tconv_sink *s, const tconv_event *in, tconv_event *out)
{
    tconv_status st = sink_check(s, in, out);
    return st == TCONV_OK ? sink_check_inputs(s, out) : st;
}

/* A copy of e at the end of st, with its args, frames and values. */
static void sink_stage_copy(sink_stage *st, const tconv_event *e)
{
    TCONV_GROW(st->ev, st->cap, st->n + 1);
    tconv_event *c = &st->ev[st->n++];
    *c = *e;
    c->args = e->nargs ? tconv_arena_dup(&st->data, e->args, e->nargs * sizeof(*e->args)) : NULL;
    c->frames =
        e->nframes ? tconv_arena_dup(&st->data, e->frames, e->nframes * sizeof(*e->frames)) : NULL;
    c->values =
        e->nvalues ? tconv_arena_dup(&st->data, e->values, e->nvalues * sizeof(*e->values)) : NULL;
}

/* Interrupted, or a worker's read no longer wanted: the error says which. */
static int sink_stopped(tconv_sink *s)
{
    if (tconv_ctx_interrupted(s->ctx)) return 1;
    if (!s->abandon || !atomic_load_explicit(s->abandon, memory_order_relaxed)) return 0;
    if (!tconv_error_pending(s->ctx)) tconv_error_set(s->ctx, "abandoned");
    return 1;
}

/* An accepted event into the stages or the writer; replay: it was held by the stage, and its
 * metadata is applied again. */
static tconv_status sink_route(tconv_sink *s, tconv_event *ev, int replay)
{
    tconv_ctx *ctx = s->ctx;
    tconv_event e = *ev;
    if (replay && e.kind == TCONV_EV_METADATA) tconv_track_apply_metadata(ctx, &e);
    e.seq = s->seq++;
    if ((e.seq & (SINK_PROGRESS_EVERY - 1)) == 0) {
        if (sink_stopped(s)) return TCONV_FATAL;
        if (s->progress) s->progress(s->progress_user, e.seq);
    }
    if (e.kind != TCONV_EV_METADATA) {
        tconv_ctx_note_time(ctx, e.ts);
        if (e.kind == TCONV_EV_COMPLETE && e.dur > 0) tconv_ctx_note_time(ctx, e.ts + e.dur);
    } else {
        tconv_track_apply_metadata(ctx, &e);
        tconv_inputinfo_apply_metadata(ctx, &e);
        if (s->part_rec) { /* all of it, for the run's track table; the run's sink routes it */
            s->part_meta++;
            return tconv_rec_event(s->part_rec, &e) < 0 ? TCONV_FATAL : TCONV_OK;
        }
    }
    if (s->order && e.kind != TCONV_EV_METADATA) {
        tconv_order_note_time(s->order, e.track, e.ts);
        if (e.kind == TCONV_EV_COMPLETE && e.dur > 0)
            tconv_order_note_time(s->order, e.track, e.ts + e.dur);
    }
    tconv_role_fill(ctx, &e);
    if (ctx->selection.input >= 0 && e.input != (uint64_t)ctx->selection.input) return TCONV_OK;
    tconv_selection_mark_step(ctx, &ctx->selection, &e);
    if (ctx->selection.steps) tconv_selection_note_span(ctx, &ctx->selection, &e);
    /* GPU attribution: stacks sampled at launch calls wait for the launches they belong to. */
    if (s->gpu && e.kind == TCONV_EV_SAMPLE && tconv_gpu_take_stack(s->gpu, &e)) return TCONV_OK;

    /* Not work of the thread they sit on: the profiler's window would be a third of every
     * profile, async spans would count overlapping time many times. Only whole spans and
     * async pairs (both ends carry the flag) can be left out without unpairing a BEGIN/END. */
    if (s->mode == SINK_STACKS &&
        (e.kind == TCONV_EV_COMPLETE || (e.flags & TCONV_EVF_ASYNC && sink_is_span(e.kind))) &&
        !tconv_span_is_work(ctx, &e)) {
        if (e.kind != TCONV_EV_END) {
            sink_not_work(s, (uint32_t)e.input)[e.role]++;
        }
        return TCONV_OK;
    }
    if (s->mode == SINK_STACKS && sink_is_span(e.kind)) {
        if (s->gpu) tconv_gpu_note_span(s->gpu, &e); /* the correlation id, before it is dropped */
        return tconv_order_add(s->order, &e);
    }
    /* GPU attribution follows flows from launches to GPU work: they too go through the stages.
     */
    if (s->gpu && sink_is_flow(e.kind)) return tconv_order_add(s->order, &e);
    if (!(s->accepts & TCONV_KIND_BIT(e.kind))) {
        s->dropped[e.kind]++;
        return TCONV_OK;
    }
    /* An ordered writer gets all its events through the stage, samples included. */
    if ((s->wc->flags & TCONV_WRITER_ORDERED) && e.kind != TCONV_EV_METADATA)
        return tconv_order_add(s->order, &e);
    if (ctx->selection.by_rank) {
        sink_stage_copy(&s->held, &e);
        return TCONV_OK;
    }
    return s->wc->event(s->ws, &e);
}

/* --rank: the held events of the inputs kept, in the order they came. */
static tconv_status sink_release_held(tconv_sink *s)
{
    const tconv_selection *sel = &s->ctx->selection;
    tconv_status st = TCONV_OK;
    for (size_t i = 0; i < s->held.n && st != TCONV_FATAL; i++) {
        const tconv_event *e = &s->held.ev[i];
        if (!sel->keep || (e->input < sel->nkeep && sel->keep[e->input]))
            st = s->wc->event(s->ws, e);
    }
    free(s->held.ev);
    tconv_arena_free(&s->held.data);
    s->held = (sink_stage){0};
    return st == TCONV_FATAL ? st : TCONV_OK;
}

/* ---- staging, for --keep-going: an input's events reach the stages only once it was read to
 * its end; a failed input's are dropped, with what they changed in the sink. */
void tconv_sink_stage_begin(tconv_sink *s)
{
    if (!s->stage) s->stage = tconv_xcalloc(1, sizeof(*s->stage));
    sink_stage *st = s->stage;
    st->have_spans = s->have_spans;
    st->have_samples = s->have_samples;
    tconv_inputcheck_save(s->check, &st->check);
    st->ntracks = tconv_track_count(s->ctx);
    s->staging = 1;
}

static tconv_status sink_stage_add(tconv_sink *s, const tconv_event *e)
{
    sink_stage *st = s->stage;
    if (((st->n + 1) & (SINK_PROGRESS_EVERY - 1)) == 0) {
        if (tconv_ctx_interrupted(s->ctx)) return TCONV_FATAL;
        if (s->progress) s->progress(s->progress_user, s->seq + st->n);
    }
    sink_stage_copy(st, e);
    return TCONV_OK;
}

static void sink_stage_clear(tconv_sink *s)
{
    sink_stage *st = s->stage;
    st->n = 0;
    tconv_arena_free(&st->data);
    s->staging = 0;
}

tconv_status tconv_sink_stage_commit(tconv_sink *s)
{
    sink_stage *st = s->stage;
    tconv_status res = TCONV_OK;
    tconv_track_forget_names(s->ctx, st->ntracks);
    for (size_t i = 0; i < st->n && res != TCONV_FATAL; i++)
        res = sink_route(s, &st->ev[i], 1);
    sink_stage_clear(s);
    return res == TCONV_FATAL ? TCONV_FATAL : TCONV_OK;
}

void tconv_sink_stage_discard(tconv_sink *s)
{
    sink_stage *st = s->stage;
    s->have_spans = st->have_spans;
    s->have_samples = st->have_samples;
    tconv_inputcheck_restore(s->check, &st->check);
    sink_stage_clear(s);
}

tconv_inputcheck *tconv_sink_inputcheck(tconv_sink *s)
{
    return s->check;
}

uint64_t tconv_sink_accepted(const tconv_sink *s)
{
    return s->accepted;
}

tconv_sink *tconv_sink_new_recording(tconv_ctx *wctx, tconv_rec *rec, const atomic_int *abandon)
{
    tconv_sink *s = tconv_xcalloc(1, sizeof(*s));
    s->ctx = wctx;
    s->rec = rec;
    s->abandon = abandon;
    return s;
}

static tconv_status sink_record(tconv_sink *s, const tconv_event *in)
{
    tconv_event e;
    tconv_status st = sink_check(s, in, &e);
    if (st != TCONV_OK) return st;
    if ((++s->accepted & (SINK_PROGRESS_EVERY - 1)) == 0 && sink_stopped(s)) return TCONV_FATAL;
    /* A recording under -j's byte budget may be given up to the main thread, which then reads
     * the input in line. */
    if (tconv_rec_event(s->rec, &e) < 0) {
        if (!tconv_error_pending(s->ctx)) tconv_error_set(s->ctx, "abandoned");
        return TCONV_FATAL;
    }
    return TCONV_OK;
}

tconv_rec *tconv_sink_recording(const tconv_sink *s)
{
    return s->rec;
}

tconv_status tconv_sink_replay(tconv_sink *s, tconv_event *e)
{
    e->input = s->ctx->input;
    if (e->kind == TCONV_EV_METADATA) tconv_track_apply_metadata(s->ctx, e);
    tconv_status st = sink_check_inputs(s, e);
    if (st != TCONV_OK) return st;
    s->accepted++;
    return s->staging ? sink_stage_add(s, e) : sink_route(s, e, 0);
}

TCONV_API tconv_status tconv_sink_push(tconv_sink *s, const tconv_event *in)
{
    if (s->rec) return sink_record(s, in);
    tconv_event e;
    tconv_status st = sink_accept(s, in, &e);
    if (st != TCONV_OK) return st;
    s->accepted++;
    return s->staging ? sink_stage_add(s, &e) : sink_route(s, &e, 0);
}

static tconv_status sink_emit(void *user, const tconv_event *ev)
{
    tconv_sink *s = user;
    /* The stages may deliver millions of buffered events after the last push. */
    if ((++s->emitted & (SINK_PROGRESS_EVERY - 1)) == 0 && tconv_ctx_interrupted(s->ctx))
        return TCONV_FATAL;
    /* Flows buffered only for GPU attribution stop here unless the writer takes them. */
    if (ev->kind != TCONV_EV_SAMPLE && !(s->accepts & TCONV_KIND_BIT(ev->kind))) return TCONV_OK;
    return s->wc->event(s->ws, ev);
}

/* While an input's spans go to a stack writer as samples before the finish (the early flush, or
 * a partial result's sums): the sample types the finish sets for spans, and the warnings kept
 * with the other early flushes'. The end puts the reader's types back for later inputs' checks. */
static void sink_samples_begin(tconv_sink *s)
{
    tconv_sampletypes_save(s->ctx, &s->early_types);
    tconv_sampletypes_set(s->ctx, 2, tconv_stack_sample_types, 1);
    tconv_warnings_swap(s->ctx, &s->early_warnings);
}

static void sink_samples_end(tconv_sink *s)
{
    tconv_warnings_swap(s->ctx, &s->early_warnings);
    tconv_sampletypes_restore(s->ctx, &s->early_types);
}

/* Everything buffered, to the writer now, its warnings kept with the other early flushes'. */
static tconv_status sink_flush_early(tconv_sink *s, tconv_emit_fn emit, void *user)
{
    tconv_warnings_swap(s->ctx, &s->early_warnings);
    tconv_status st = tconv_order_flush(s->order, emit, user);
    tconv_warnings_swap(s->ctx, &s->early_warnings);
    return st;
}

/* An input was read to its end (or failed and was left out). Its GPU streams and async tracks are
 * split into lanes now, for every writer with an ordering stage (core/order.c says why). Then the
 * stack writers' early flush: the input's tracks get no more events (tconv_track_get makes them
 * per input), so what the stages buffered can go to the writer now, while the threads read later
 * inputs, instead of all at the finish on one thread; the ordering stage then holds one input's
 * spans, not the whole run's. The writer gets the same calls in the same order as from a flush at
 * the end, where its output does not depend on when its samples come (sink_early_possible); what
 * else depends on the time of the flush is dealt with here:
 *   - stack samples read from an input go to the writer as they are read: once one has, spans'
 *     samples could only be put in their place at the end, so nothing more goes early;
 *   - the writer takes the sample types at its first sample: those the finish sets for spans;
 *     the reader's are put back for the checks of later inputs;
 *   - warnings of the flush (the ordering stage's repairs, the writer's) are kept apart and
 *     counted in at the finish, where a flush at the end makes them: the kinds' order and first
 *     messages stay; a run that fails before the finish shows none of them, as before.
 * An ordered writer's events go the same way, with none of the stack writers' cases.
 * A stage or writer failure here is the finish's failure, only earlier: the run stops. */
tconv_status tconv_sink_input_done(tconv_sink *s)
{
    if (!s->order) return TCONV_OK;
    tconv_ctx *ctx = s->ctx;
    tconv_status st = tconv_order_input_done(s->order);
    if (st != TCONV_OK || !s->early) return st;
    if (s->mode == SINK_ORDERED) return sink_flush_early(s, sink_emit, s);
    if (s->have_samples) {
        s->early = 0;
        return TCONV_OK;
    }
    if (!s->have_spans) return TCONV_OK;
    if (!s->stack) s->stack = tconv_stack_new(ctx, sink_emit, s);
    sink_samples_begin(s);
    st = tconv_order_flush(s->order, tconv_stack_event, s->stack);
    sink_samples_end(s);
    return st;
}

tconv_status tconv_sink_finish(tconv_sink *s)
{
    tconv_ctx *ctx = s->ctx;
    tconv_status st = sink_release_held(s);
    if (st != TCONV_OK) return st;
    const tconv_selection *sel = &ctx->selection;
    if (sel->step_name && !sel->step_marked)
        tconv_warning_add(ctx, "select.no-step",
                          "--step-name '%s' matched no span: a step is a span named %s, or %s "
                          "and a number (%s#3, %s 3)",
                          sel->step_name, sel->step_name, sel->step_name, sel->step_name,
                          sel->step_name);
    if (s->order && tconv_ctx_verbosity(ctx) > 0) {
        /* With the early flush, at most one input's spans are held at once. */
        size_t n = tconv_order_events(s->order), bytes = tconv_order_peak_bytes(s->order);
        tconv_note(ctx, "ordering stage: %zu events buffered, at most %.1f MB held at once", n,
                   (double)bytes / 1e6);
    }
    if (s->mode == SINK_STACKS) {
        if (s->have_spans && s->have_samples) {
            tconv_warning_add(ctx, "core.mixed-samples",
                              "the input has both spans and stack samples; the samples made "
                              "from spans carry two values (count, self ns) whatever sample "
                              "types the input declared");
        } else if (s->gpu && (s->have_spans || tconv_gpu_has_stacks(s->gpu))) {
            tconv_sampletypes_set(ctx, 3, tconv_gpu_sample_types, 1);
        } else if (s->have_spans) {
            tconv_sampletypes_set(ctx, 2, tconv_stack_sample_types, 1);
        }
        if (!s->gpu && s->have_spans) tconv_gpu_hint(ctx, s->wc->name);
        /* The early flushes' warnings, where a flush of everything at the end makes them. */
        tconv_warnings_give(ctx, &s->early_warnings);
        /* The stack stage passes on whatever else an ordered writer buffered. */
        if (!s->stack) s->stack = tconv_stack_new(ctx, sink_emit, s);
        if (s->gpu) tconv_stack_attach_gpu(s->stack, s->gpu);
        st = sink_flush(s, tconv_stack_event, s->stack);
        tconv_stack_free(s->stack);
        s->stack = NULL;
        /* GPU work whose launch came on a later track (streams may sort before threads). */
        if (st == TCONV_OK && s->gpu) st = tconv_gpu_flush(s->gpu);
    } else if (s->mode == SINK_ORDERED) {
        tconv_warnings_give(ctx, &s->early_warnings);
        st = sink_flush(s, sink_emit, s);
    }
    tconv_order_free(s->order);
    s->order = NULL;
    sink_note_not_work(s);
    sink_note_dropped(s);
    if (st == TCONV_OK && s->wc->finish) st = s->wc->finish(s->ws);
    return st;
}

/* ---- partial results (internal.h) -------------------------------------------------------- */

int tconv_partial_possible(const tconv_ctx *ctx, const tconv_writer_class *wc, uint32_t needs)
{
    const tconv_selection *sel = &ctx->selection;
    uint32_t f = wc->flags;
    return (f & TCONV_WRITER_SUMMED_SAMPLES) && (f & TCONV_WRITER_EARLY_SAMPLES) &&
           !(needs & TCONV_NEED_EACH_SAMPLE) && (wc->accepts & TCONV_KIND_BIT(TCONV_EV_SAMPLE)) &&
           !(wc->accepts & TCONV_KINDS_SPANS) && !ctx->gpu_attribute && !sel->window &&
           !sel->steps && !sel->step_name && !sel->by_rank && sel->input < 0 && !sel->keep &&
           !sink_flush_at_end();
}

/* The writer's calls of a worker's sink: the stack stage's samples are summed; anything else
 * (an input's own samples, which also stop the partial result, or other events the writer takes
 * directly) means the input is read in line. */
static tconv_status sink_part_event(void *state, const tconv_event *ev)
{
    tconv_sink *s = state;
    if (ev->kind != TCONV_EV_SAMPLE || tconv_sums_add(s->sums, ev) < 0) s->part_bad = 1;
    return TCONV_OK;
}

tconv_sink *tconv_sink_new_partial(tconv_ctx *wctx, const tconv_writer_class *wc, tconv_rec *rec,
                                   const atomic_int *abandon)
{
    tconv_sink *s = tconv_sink_new(wctx, wc, NULL);
    /* A plugin of an older minor has a shorter class: what it lacks reads as zero. */
    size_t n = wc->struct_size < sizeof(s->part_wc) ? wc->struct_size : sizeof(s->part_wc);
    memcpy(&s->part_wc, wc, n);
    s->part_wc.event = sink_part_event;
    s->wc = &s->part_wc;
    s->ws = s;
    s->part_rec = rec;
    s->abandon = abandon;
    s->sums = tconv_sums_new();
    return s;
}

static uint64_t sink_warning_total(const tconv_ctx *ctx)
{
    uint64_t n = 0;
    for (size_t i = 0; i < ctx->nwarnings; i++)
        n += ctx->warnings[i].count;
    return n;
}

tconv_partial *tconv_sink_partial_end(tconv_sink *s)
{
    tconv_ctx *ctx = s->ctx;
    if (s->part_bad || s->have_samples || !s->early || s->mode != SINK_STACKS) return NULL;
    uint64_t nwarn = sink_warning_total(ctx);
    /* The flush's warnings stay in early_warnings, as the run's early flush keeps them. */
    tconv_rec_mute(s->part_rec, 1);
    tconv_status st = tconv_sink_input_done(s);
    tconv_rec_mute(s->part_rec, 0);
    if (st != TCONV_OK || s->part_bad || !s->early || sink_warning_total(ctx) != nwarn) return NULL;
    tconv_partial *p = tconv_xcalloc(1, sizeof(*p));
    p->nseq = s->seq - s->part_meta;
    p->accepted = s->accepted - s->part_meta;
    if (ctx->input < s->nnot_work)
        memcpy(p->not_work, s->not_work[ctx->input], sizeof(p->not_work));
    memcpy(p->dropped, s->dropped, sizeof(p->dropped));
    p->have_spans = s->have_spans;
    p->have_bounds = ctx->have_bounds;
    p->first_ns = ctx->first_ns;
    p->last_ns = ctx->last_ns;
    p->order_events = tconv_order_events(s->order);
    p->order_peak = tconv_order_peak_bytes(s->order);
    p->sums_at = tconv_rec_count(s->part_rec);
    for (size_t i = 0; i < tconv_sums_count(s->sums); i++)
        if (tconv_rec_event(s->part_rec, tconv_sums_get(s->sums, i)) < 0) {
            tconv_partial_free(p);
            return NULL;
        }
    p->warnings = s->early_warnings;
    memset(&s->early_warnings, 0, sizeof(s->early_warnings));
    return p;
}

/* Where the early flush would take the input's spans as they come, and nothing the input could
 * bring makes it stop (samples of its own are never in a partial result). */
int tconv_sink_partial_ok(const tconv_sink *s)
{
    return s->early && s->mode == SINK_STACKS && !s->have_samples && !s->staging && !s->part_rec;
}

tconv_status tconv_sink_partial_begin(tconv_sink *s, tconv_partial *p, const uint32_t *tmap,
                                      size_t ntmap)
{
    tconv_ctx *ctx = s->ctx;
    uint32_t input = ctx->input;
    /* what the input's first span would have checked */
    if (p->have_spans && tconv_inputcheck_wants_span(s->check) &&
        tconv_inputcheck_span(s->check, ctx, input, sink_input_name(ctx)) != TCONV_OK)
        return TCONV_FATAL;
    if (p->have_spans) s->have_spans = 1;
    s->seq += p->nseq;
    s->accepted += p->accepted;
    for (unsigned r = 0; r < TCONV_ROLE_MAX; r++)
        if (p->not_work[r]) sink_not_work(s, input)[r] += p->not_work[r];
    for (unsigned k = 0; k < TCONV_EV_KIND_MAX; k++)
        s->dropped[k] += p->dropped[k];
    if (p->have_bounds) {
        tconv_ctx_note_time(ctx, p->first_ns);
        tconv_ctx_note_time(ctx, p->last_ns);
    }
    tconv_order_count_elsewhere(s->order, p->order_events, p->order_peak);
    if (s->progress) s->progress(s->progress_user, s->seq);
    /* The stages' warnings, then the sums as the early flush gives them (sink_input_done). */
    tconv_warnings_give_mapped(&s->early_warnings, &p->warnings, tmap, ntmap);
    if (!s->have_spans) return TCONV_OK; /* no sums either */
    sink_samples_begin(s);
    s->part_open = 1;
    return TCONV_OK;
}

tconv_status tconv_sink_partial_sum(tconv_sink *s, tconv_event *e)
{
    e->input = s->ctx->input;
    return sink_emit(s, e);
}

void tconv_sink_partial_end_sums(tconv_sink *s)
{
    if (!s->part_open) return;
    sink_samples_end(s);
    s->part_open = 0;
}
