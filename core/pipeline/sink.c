/* The run's sink: where readers push events on the thread that writes. It normalises each event
 * (struct size, sequence number, input index), keeps the track table and trace bounds current,
 * and routes the event to the writer either directly or through the ordering and stack stages,
 * along the route the run's plan chose (core/pipeline/plan.c): the push chain is built once, at the
 * start, so a push tests only what its route can meet.
 *
 * A push is checked in full before it is routed: whatever is wrong with the event or with its
 * input (an unknown string id, sample types that differ from the other inputs') is found then.
 * That split lets --keep-going hold an input's checked events and route them only once the input
 * has been read to its end: a failed input reaches neither the stages nor the writer.
 *
 * Other sinks (a worker's, core/parallel/worker_sink.c) share the push and the checks
 * (core/pipeline/pushcheck.c) through the sink's operations (tconv_sink_ops), and nothing else: the
 * run's sink knows nothing of recordings. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "inputcheck.h"
#include "pipeline.h"

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

typedef struct sink_chain sink_chain;
/* What a route does with an event once the sink noted it: stages or writer. */
typedef tconv_status (*sink_route_fn)(sink_chain *s, const tconv_event *e);

struct sink_chain {
    tconv_sink sink; /* its operations: the push, plain or staged */
    tconv_ctx *ctx;
    tconv_plan *plan;
    const tconv_writer_class *wc;
    void *ws;
    uint32_t accepts;
    sink_route_fn route; /* the plan's route, after what every route does */
    tconv_order *order;
    tconv_gpu *gpu; /* GPU attribution, when the writer asked for it (core/stages/gpu.c) */
    tconv_sink_counts n;
    uint64_t emitted; /* by the stages, after the readers are done */
    /* Spans left out of self time, by input and role: per input, since --rank knows which
     * inputs it keeps only once they are all read. */
    uint64_t (*not_work)[TCONV_ROLE_MAX];
    size_t nnot_work;
    int have_samples;
    tconv_inputcheck *check; /* against the inputs before: sample types, spans (inputcheck.h) */
    sink_stage *stage;       /* --keep-going: the input being read, held (see below) */
    /* --rank: what would go to the writer as it is read (metadata), held until the inputs of
     * the rank are known, at the finish. */
    sink_stage held;
    int staging;
    void (*progress)(void *user, uint64_t events);
    void *progress_user;
    const atomic_int *abandon; /* a worker's: nonzero when its read is no longer wanted */
    /* The early flush (tconv_sink_input_done): the stack stage that lives for the whole run,
     * whether early flushes may still come, and the warnings they made, kept apart until the
     * finish, where a flush at the end makes them. */
    tconv_stack *stack;
    int early;
    tconv_warning_set early_warnings;
    /* Metadata to somewhere else than the writer (a worker's partial result: the recording),
     * and how many went there. */
    tconv_status (*meta_tap)(void *user, const tconv_event *e);
    void *meta_user;
    uint64_t tapped;
    int part_open;  /* between tconv_sink_partial_begin and _end_sums */
    void *attached; /* freed with the sink (tconv_sink_attach) */
    void (*attached_free)(void *);
    tconv_stypes_saved early_types; /* the reader's, while samples go early (sink_samples_begin) */
};

enum { SINK_PROGRESS_EVERY = 1 << 16 };

static const tconv_sink_ops sink_ops, sink_staging_ops;

/* The run's sink behind a sink that is one. */
static sink_chain *sink_chain_of(tconv_sink *sink)
{
    return (sink_chain *)sink;
}

static const sink_chain *sink_chain_of_const(const tconv_sink *sink)
{
    return (const sink_chain *)sink;
}

void tconv_sink_set_progress(tconv_sink *sink, void (*fn)(void *user, uint64_t events), void *user)
{
    sink_chain *s = sink_chain_of(sink);
    s->progress = fn;
    s->progress_user = user;
}

void tconv_sink_set_abandon(tconv_sink *sink, const atomic_int *abandon)
{
    sink_chain_of(sink)->abandon = abandon;
}

void tconv_sink_set_meta_tap(tconv_sink *sink, tconv_status (*tap)(void *, const tconv_event *),
                             void *user)
{
    sink_chain *s = sink_chain_of(sink);
    s->meta_tap = tap;
    s->meta_user = user;
}

void tconv_sink_attach(tconv_sink *sink, void *p, void (*free_fn)(void *))
{
    sink_chain *s = sink_chain_of(sink);
    s->attached = p;
    s->attached_free = free_fn;
}

void *tconv_sink_attached(const tconv_sink *sink)
{
    return sink_chain_of_const(sink)->attached;
}

static tconv_status sink_to_writer(sink_chain *s, const tconv_event *e);
static tconv_status sink_route_stacks(sink_chain *s, const tconv_event *e);

tconv_sink *tconv_sink_new(tconv_ctx *ctx, tconv_plan *plan, const tconv_writer_class *wc,
                           void *wstate)
{
    sink_chain *s = tconv_xcalloc(1, sizeof(*s));
    s->sink.ops = &sink_ops;
    s->ctx = ctx;
    s->plan = plan;
    s->wc = wc;
    s->ws = wstate;
    s->accepts = wc->accepts;
    static const sink_route_fn routes[] = {
        [TCONV_ROUTE_DIRECT] = sink_to_writer,
        [TCONV_ROUTE_ORDERED] = sink_to_writer,
        [TCONV_ROUTE_STACKS] = sink_route_stacks,
    };
    s->route = routes[plan->route];
    /* In stack mode the spans need only names; an ordered writer's own events keep it all. */
    if (plan->route != TCONV_ROUTE_DIRECT) s->order = tconv_order_new(ctx, plan->order_all);
    if (plan->gpu) s->gpu = tconv_gpu_new(ctx);
    s->check = tconv_inputcheck_new(wc->name, plan->route == TCONV_ROUTE_STACKS, plan->gpu);
    s->early = plan->early;
    return &s->sink;
}

static void sink_free(tconv_sink *sink)
{
    sink_chain *s = sink_chain_of(sink);
    tconv_order_free(s->order);
    tconv_stack_free(s->stack);
    tconv_warnings_free(&s->early_warnings);
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
    if (s->attached_free) s->attached_free(s->attached);
    free(s);
}

void tconv_sink_free(tconv_sink *s)
{
    if (s) s->ops->free(s);
}

uint64_t tconv_sink_events(const tconv_sink *s)
{
    return sink_chain_of_const(s)->n.seq;
}

static int sink_is_span(unsigned kind)
{
    return kind == TCONV_EV_BEGIN || kind == TCONV_EV_END || kind == TCONV_EV_COMPLETE;
}

/* The ordering stage's output, through the selection stage when the user asked for part of the
 * trace. */
static tconv_status sink_flush(sink_chain *s, tconv_emit_fn emit, void *user)
{
    tconv_selection *sel = &s->plan->sel;
    if (!sel->window && !sel->steps && !sel->keep) return tconv_order_flush(s->order, emit, user);
    tconv_selection_resolve_steps(sel);
    tconv_select *cut = tconv_select_new(s->ctx, sel, emit, user);
    tconv_status st = tconv_order_flush(s->order, tconv_select_event, cut);
    if (sel->window || sel->steps)
        tconv_note(s->ctx, "selection: %llu spans cut at the window's edges",
                   (unsigned long long)tconv_select_cut(cut));
    tconv_select_free(cut);
    return st;
}

/* Leaving spans out changes the totals, so it is said every time, with how to undo it. */
static void sink_note_not_work(const sink_chain *s)
{
    const tconv_selection *sel = &s->plan->sel;
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
static void sink_note_dropped(const sink_chain *s)
{
    uint64_t dropped[TCONV_EV_KIND_MAX];
    memcpy(dropped, s->n.dropped, sizeof(dropped));
    tconv_collective *c = s->ctx->coll;
    if (c) {
        int size = tconv_collective_size(c), me = tconv_collective_rank(c);
        uint64_t *all = me == 0 ? tconv_xcalloc((size_t)size, sizeof(dropped)) : NULL;
        size_t *counts = me == 0 ? tconv_xcalloc((size_t)size, sizeof(*counts)) : NULL;
        for (int q = 0; me == 0 && q < size; q++)
            counts[q] = sizeof(dropped);
        int ok = tconv_collective_gatherv(c, s->n.dropped, sizeof(dropped), all, counts, 0) == 0;
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
static uint64_t *sink_not_work(sink_chain *s, uint32_t input)
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

/* The checks of a checked event against the inputs before it (sample types, spans: core/
 * inputcheck.c), so that an event staged for --keep-going that passes here fails no later for
 * its input's sake. */
static tconv_status sink_check_inputs(sink_chain *s, const tconv_event *ev)
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
    if (sink_is_span(e.kind) && s->plan->route == TCONV_ROUTE_STACKS &&
        tconv_inputcheck_wants_span(s->check) &&
        tconv_inputcheck_span(s->check, ctx, e.input, sink_input_name(ctx)) != TCONV_OK)
        return TCONV_FATAL;
    if (sink_is_span(e.kind)) s->n.have_spans = 1;
    if (e.kind == TCONV_EV_SAMPLE && !launch) s->have_samples = 1;
    return TCONV_OK;
}

static tconv_status sink_accept(sink_chain *s, const tconv_event *in, tconv_event *out)
{
    tconv_status st = tconv_push_check(s->ctx, in, out);
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

/* An accepted event into the stages or the writer; replay: it was held by the stage, and its
 * metadata is applied again. What every route does first: the sequence number, the progress,
 * the trace's bounds, the tracks' names and the inputs' facts, the role, the selection by input
 * and the steps. */
static tconv_status sink_route(sink_chain *s, tconv_event *ev, int replay)
{
    tconv_ctx *ctx = s->ctx;
    tconv_event e = *ev;
    if (replay && e.kind == TCONV_EV_METADATA) tconv_track_apply_metadata(ctx, &e);
    e.seq = s->n.seq++;
    if ((e.seq & (SINK_PROGRESS_EVERY - 1)) == 0) {
        if (tconv_push_stopped(ctx, s->abandon)) return TCONV_FATAL;
        if (s->progress) s->progress(s->progress_user, e.seq);
    }
    if (e.kind != TCONV_EV_METADATA) {
        tconv_ctx_note_time(ctx, e.ts);
        if (e.kind == TCONV_EV_COMPLETE && e.dur > 0) tconv_ctx_note_time(ctx, e.ts + e.dur);
        if (s->order)
            tconv_order_note_time(s->order, e.track,
                                  e.kind == TCONV_EV_COMPLETE && e.dur > 0 ? e.ts + e.dur : e.ts);
    } else {
        tconv_track_apply_metadata(ctx, &e);
        tconv_inputinfo_apply_metadata(ctx, &e);
        if (s->meta_tap) { /* all of it, for the run's track table; the run's sink routes it */
            s->tapped++;
            return s->meta_tap(s->meta_user, &e);
        }
    }
    tconv_role_fill(ctx, &e);
    tconv_selection *sel = &s->plan->sel;
    if (sel->input >= 0 && e.input != (uint64_t)sel->input) return TCONV_OK;
    tconv_selection_mark_step(ctx, sel, &e);
    if (sel->steps) tconv_selection_note_span(ctx, sel, &e);
    return s->route(s, &e);
}

/* The route of a direct or an ordered writer, and the end of a stack writer's: what the writer
 * takes, to it (an ordered writer's through the ordering stage); --rank holds it until the
 * inputs of the rank are known. */
static tconv_status sink_to_writer(sink_chain *s, const tconv_event *e)
{
    if (!(s->accepts & TCONV_KIND_BIT(e->kind))) {
        s->n.dropped[e->kind]++;
        return TCONV_OK;
    }
    /* An ordered writer gets all its events through the stage, samples included. */
    if (s->plan->order_all && e->kind != TCONV_EV_METADATA) return tconv_order_add(s->order, e);
    if (s->plan->sel.by_rank) {
        sink_stage_copy(&s->held, e);
        return TCONV_OK;
    }
    return s->wc->event(s->ws, e);
}

/* A stack writer's route: spans to the ordering stage, for the stack stage at the flush. */
static tconv_status sink_route_stacks(sink_chain *s, const tconv_event *e)
{
    /* GPU attribution: stacks sampled at launch calls wait for the launches they belong to. */
    if (s->gpu && e->kind == TCONV_EV_SAMPLE && tconv_gpu_take_stack(s->gpu, e)) return TCONV_OK;
    /* Not work of the thread they sit on: the profiler's window would be a third of every
     * profile, async spans would count overlapping time many times. Only whole spans and
     * async pairs (both ends carry the flag) can be left out without unpairing a BEGIN/END. */
    if ((e->kind == TCONV_EV_COMPLETE || (e->flags & TCONV_EVF_ASYNC && sink_is_span(e->kind))) &&
        !tconv_span_is_work(s->ctx, e)) {
        if (e->kind != TCONV_EV_END) sink_not_work(s, (uint32_t)e->input)[e->role]++;
        return TCONV_OK;
    }
    if (sink_is_span(e->kind)) {
        if (s->gpu) tconv_gpu_note_span(s->gpu, e); /* the correlation id, before it is dropped */
        return tconv_order_add(s->order, e);
    }
    /* GPU attribution follows flows from launches to GPU work: they too go through the stages. */
    if (s->gpu && sink_is_flow(e->kind)) return tconv_order_add(s->order, e);
    return sink_to_writer(s, e);
}

/* --rank: the held events of the inputs kept, in the order they came. */
static tconv_status sink_release_held(sink_chain *s)
{
    const tconv_selection *sel = &s->plan->sel;
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
void tconv_sink_stage_begin(tconv_sink *sink)
{
    sink_chain *s = sink_chain_of(sink);
    if (!s->stage) s->stage = tconv_xcalloc(1, sizeof(*s->stage));
    sink_stage *st = s->stage;
    st->have_spans = s->n.have_spans;
    st->have_samples = s->have_samples;
    tconv_inputcheck_save(s->check, &st->check);
    st->ntracks = tconv_track_count(s->ctx);
    s->staging = 1;
    s->sink.ops = &sink_staging_ops;
}

static tconv_status sink_stage_add(sink_chain *s, const tconv_event *e)
{
    sink_stage *st = s->stage;
    if (((st->n + 1) & (SINK_PROGRESS_EVERY - 1)) == 0) {
        if (tconv_ctx_interrupted(s->ctx)) return TCONV_FATAL;
        if (s->progress) s->progress(s->progress_user, s->n.seq + st->n);
    }
    sink_stage_copy(st, e);
    return TCONV_OK;
}

static void sink_stage_clear(sink_chain *s)
{
    sink_stage *st = s->stage;
    st->n = 0;
    tconv_arena_free(&st->data);
    s->staging = 0;
    s->sink.ops = &sink_ops;
}

tconv_status tconv_sink_stage_commit(tconv_sink *sink)
{
    sink_chain *s = sink_chain_of(sink);
    sink_stage *st = s->stage;
    tconv_status res = TCONV_OK;
    tconv_track_forget_names(s->ctx, st->ntracks);
    for (size_t i = 0; i < st->n && res != TCONV_FATAL; i++)
        res = sink_route(s, &st->ev[i], 1);
    sink_stage_clear(s);
    return res == TCONV_FATAL ? TCONV_FATAL : TCONV_OK;
}

void tconv_sink_stage_discard(tconv_sink *sink)
{
    sink_chain *s = sink_chain_of(sink);
    sink_stage *st = s->stage;
    s->n.have_spans = st->have_spans;
    s->have_samples = st->have_samples;
    tconv_inputcheck_restore(s->check, &st->check);
    sink_stage_clear(s);
}

tconv_inputcheck *tconv_sink_inputcheck(tconv_sink *sink)
{
    return sink_chain_of(sink)->check;
}

uint64_t tconv_sink_accepted(const tconv_sink *sink)
{
    return sink_chain_of_const(sink)->n.accepted;
}

tconv_status tconv_sink_replay(tconv_sink *sink, tconv_event *e)
{
    sink_chain *s = sink_chain_of(sink);
    e->input = s->ctx->input;
    if (e->kind == TCONV_EV_METADATA) tconv_track_apply_metadata(s->ctx, e);
    tconv_status st = sink_check_inputs(s, e);
    if (st != TCONV_OK) return st;
    s->n.accepted++;
    return s->staging ? sink_stage_add(s, e) : sink_route(s, e, 0);
}

static tconv_status sink_push(tconv_sink *sink, const tconv_event *in)
{
    sink_chain *s = sink_chain_of(sink);
    tconv_event e;
    tconv_status st = sink_accept(s, in, &e);
    if (st != TCONV_OK) return st;
    s->n.accepted++;
    return sink_route(s, &e, 0);
}

static tconv_status sink_push_staged(tconv_sink *sink, const tconv_event *in)
{
    sink_chain *s = sink_chain_of(sink);
    tconv_event e;
    tconv_status st = sink_accept(s, in, &e);
    if (st != TCONV_OK) return st;
    s->n.accepted++;
    return sink_stage_add(s, &e);
}

static const tconv_sink_ops sink_ops = {sink_push, sink_free};
static const tconv_sink_ops sink_staging_ops = {sink_push_staged, sink_free};

TCONV_API tconv_status tconv_sink_push(tconv_sink *s, const tconv_event *in)
{
    return s->ops->push(s, in);
}

static tconv_status sink_emit(void *user, const tconv_event *ev)
{
    sink_chain *s = user;
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
static void sink_samples_begin(sink_chain *s)
{
    tconv_sampletypes_save(s->ctx, &s->early_types);
    tconv_sampletypes_set(s->ctx, 2, tconv_stack_sample_types, 1);
    tconv_warnings_swap(s->ctx, &s->early_warnings);
}

static void sink_samples_end(sink_chain *s)
{
    tconv_warnings_swap(s->ctx, &s->early_warnings);
    tconv_sampletypes_restore(s->ctx, &s->early_types);
}

/* Everything buffered, to the writer now, its warnings kept with the other early flushes'. */
static tconv_status sink_flush_early(sink_chain *s, tconv_emit_fn emit, void *user)
{
    tconv_warnings_swap(s->ctx, &s->early_warnings);
    tconv_status st = tconv_order_flush(s->order, emit, user);
    tconv_warnings_swap(s->ctx, &s->early_warnings);
    return st;
}

/* An input was read to its end (or failed and was left out). Its GPU streams and async tracks are
 * split into lanes now, for every writer with an ordering stage (core/stages/order.c says why).
 * Then the stack writers' early flush: the input's tracks get no more events (tconv_track_get makes
 * them per input), so what the stages buffered can go to the writer now, while the threads read
 * later inputs, instead of all at the finish on one thread; the ordering stage then holds one
 * input's spans, not the whole run's. The writer gets the same calls in the same order as from a
 * flush at the end, where its output does not depend on when its samples come (the plan's early
 * flush, core/pipeline/plan.c); what else depends on the time of the flush is dealt with here:
 *   - stack samples read from an input go to the writer as they are read: once one has, spans'
 *     samples could only be put in their place at the end, so nothing more goes early;
 *   - the writer takes the sample types at its first sample: those the finish sets for spans;
 *     the reader's are put back for the checks of later inputs;
 *   - warnings of the flush (the ordering stage's repairs, the writer's) are kept apart and
 *     counted in at the finish, where a flush at the end makes them: the kinds' order and first
 *     messages stay; a run that fails before the finish shows none of them, as before.
 * An ordered writer's events go the same way, with none of the stack writers' cases.
 * A stage or writer failure here is the finish's failure, only earlier: the run stops. */
tconv_status tconv_sink_input_done(tconv_sink *sink)
{
    sink_chain *s = sink_chain_of(sink);
    if (!s->order) return TCONV_OK;
    tconv_ctx *ctx = s->ctx;
    tconv_status st = tconv_order_input_done(s->order);
    if (st != TCONV_OK || !s->early) return st;
    if (s->plan->route == TCONV_ROUTE_ORDERED) return sink_flush_early(s, sink_emit, s);
    if (s->have_samples) {
        s->early = 0;
        return TCONV_OK;
    }
    if (!s->n.have_spans) return TCONV_OK;
    if (!s->stack) s->stack = tconv_stack_new(ctx, sink_emit, s);
    sink_samples_begin(s);
    st = tconv_order_flush(s->order, tconv_stack_event, s->stack);
    sink_samples_end(s);
    return st;
}

tconv_status tconv_sink_finish(tconv_sink *sink)
{
    sink_chain *s = sink_chain_of(sink);
    tconv_ctx *ctx = s->ctx;
    tconv_status st = sink_release_held(s);
    if (st != TCONV_OK) return st;
    const tconv_selection *sel = &s->plan->sel;
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
    if (s->plan->route == TCONV_ROUTE_STACKS) {
        if (s->n.have_spans && s->have_samples) {
            tconv_warning_add(ctx, "core.mixed-samples",
                              "the input has both spans and stack samples; the samples made "
                              "from spans carry two values (count, self ns) whatever sample "
                              "types the input declared");
        } else if (s->gpu && (s->n.have_spans || tconv_gpu_has_stacks(s->gpu))) {
            tconv_sampletypes_set(ctx, 3, tconv_gpu_sample_types, 1);
        } else if (s->n.have_spans) {
            tconv_sampletypes_set(ctx, 2, tconv_stack_sample_types, 1);
        }
        if (!s->gpu && s->n.have_spans) tconv_gpu_hint(ctx, s->wc->name);
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
    } else if (s->plan->route == TCONV_ROUTE_ORDERED) {
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

/* ---- partial results (pipeline.h) -------------------------------------------------------- */

void tconv_partial_free(tconv_partial *p)
{
    if (!p) return;
    tconv_warnings_free(&p->warnings);
    free(p);
}

static uint64_t sink_warning_total(const tconv_ctx *ctx)
{
    uint64_t n = 0;
    for (size_t i = 0; i < ctx->nwarnings; i++)
        n += ctx->warnings[i].count;
    return n;
}

/* Where the early flush takes the input's spans as they come, and the input brought no samples
 * of its own (samples of its own are never in a partial result). */
static int sink_partial_ready(const sink_chain *s)
{
    return s->early && s->plan->route == TCONV_ROUTE_STACKS && !s->have_samples;
}

tconv_partial *tconv_sink_partial_flush(tconv_sink *sink)
{
    sink_chain *s = sink_chain_of(sink);
    tconv_ctx *ctx = s->ctx;
    if (!sink_partial_ready(s)) return NULL;
    uint64_t nwarn = sink_warning_total(ctx);
    /* The flush's warnings stay in early_warnings, as the run's early flush keeps them. */
    tconv_status st = tconv_sink_input_done(sink);
    if (st != TCONV_OK || !sink_partial_ready(s) || sink_warning_total(ctx) != nwarn) return NULL;
    tconv_partial *p = tconv_xcalloc(1, sizeof(*p));
    p->n = s->n;
    p->n.seq -= s->tapped;
    p->n.accepted -= s->tapped;
    if (ctx->input < s->nnot_work)
        memcpy(p->not_work, s->not_work[ctx->input], sizeof(p->not_work));
    p->have_bounds = ctx->have_bounds;
    p->first_ns = ctx->first_ns;
    p->last_ns = ctx->last_ns;
    p->order_events = tconv_order_events(s->order);
    p->order_peak = tconv_order_peak_bytes(s->order);
    p->warnings = s->early_warnings;
    memset(&s->early_warnings, 0, sizeof(s->early_warnings));
    return p;
}

int tconv_sink_partial_ok(const tconv_sink *sink)
{
    const sink_chain *s = sink_chain_of_const(sink);
    return sink_partial_ready(s) && !s->staging && !s->meta_tap;
}

tconv_status tconv_sink_partial_begin(tconv_sink *sink, tconv_partial *p, const uint32_t *tmap,
                                      size_t ntmap)
{
    sink_chain *s = sink_chain_of(sink);
    tconv_ctx *ctx = s->ctx;
    uint32_t input = ctx->input;
    /* what the input's first span would have checked */
    if (p->n.have_spans && tconv_inputcheck_wants_span(s->check) &&
        tconv_inputcheck_span(s->check, ctx, input, sink_input_name(ctx)) != TCONV_OK)
        return TCONV_FATAL;
    if (p->n.have_spans) s->n.have_spans = 1;
    s->n.seq += p->n.seq;
    s->n.accepted += p->n.accepted;
    for (unsigned r = 0; r < TCONV_ROLE_MAX; r++)
        if (p->not_work[r]) sink_not_work(s, input)[r] += p->not_work[r];
    for (unsigned k = 0; k < TCONV_EV_KIND_MAX; k++)
        s->n.dropped[k] += p->n.dropped[k];
    if (p->have_bounds) {
        tconv_ctx_note_time(ctx, p->first_ns);
        tconv_ctx_note_time(ctx, p->last_ns);
    }
    tconv_order_count_elsewhere(s->order, p->order_events, p->order_peak);
    if (s->progress) s->progress(s->progress_user, s->n.seq);
    /* The stages' warnings, then the sums as the early flush gives them (sink_input_done). */
    tconv_warnings_give_mapped(&s->early_warnings, &p->warnings, tmap, ntmap);
    if (!s->n.have_spans) return TCONV_OK; /* no sums either */
    sink_samples_begin(s);
    s->part_open = 1;
    return TCONV_OK;
}

tconv_status tconv_sink_partial_sum(tconv_sink *sink, tconv_event *e)
{
    sink_chain *s = sink_chain_of(sink);
    e->input = s->ctx->input;
    return sink_emit(s, e);
}

void tconv_sink_partial_end_sums(tconv_sink *sink)
{
    sink_chain *s = sink_chain_of(sink);
    if (!s->part_open) return;
    sink_samples_end(s);
    s->part_open = 0;
}
