/* The selection stage: the part of a trace a user asked to look at (--window, --steps, --input,
 * --rank), applied to the ordered stream, between the ordering stage and the stack stage or the
 * writer.
 *
 * Invariant: what leaves the stage is still each track time-ordered and properly nested, with
 * every span cut to the window, so self times downstream add up to exactly the busy time inside
 * the window. The ordered stream gives a BEGIN without its end, so a span that starts before the
 * window is held until something inside the window happens under it (a child, a point, its own
 * END after the window's start); it is then given the window's start. A span that ends after the
 * window ends there, and nothing that starts at or after the window's end passes.
 *
 * A window relative to the trace is resolved when the stage starts (the readers are done, so the
 * first time is known); steps are noted as spans are pushed (core/pipeline/sink.c), per input,
 * since each rank's clock and step numbers are its own. The inputs of a rank are known only once
 * every input is read (an input may give its rank after its events): the run resolves them before
 * the stage starts (tconv_selection_keep_rank). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "stages.h"

typedef struct select_open {
    tconv_event begin; /* a held BEGIN, or the emitted one */
    int state;         /* SELECT_HELD, SELECT_EMITTED or SELECT_SKIPPED */
} select_open;

enum { SELECT_HELD, SELECT_EMITTED, SELECT_SKIPPED };

struct tconv_select {
    tconv_ctx *ctx;
    tconv_emit_fn emit;
    void *user;
    const tconv_selection *sel;
    int64_t from, to; /* the window of --window, [from, to); steps narrow it per input */
    uint32_t track;
    select_open *open;
    size_t depth, cap;
    uint64_t cut; /* spans cut at the window's edges */
};

/* Does name make a step of prefix P? P alone (*n = -1), or P, separators and a number: with P
 * "iteration", "iteration#3", "iteration 3", "iteration_3" and "iteration3" are step 3, while
 * "iterations" and "iteration_bwd" are no step. The separators are the ones producers put
 * between a name and a count; "ProfilerStep#" as P still works, its '#' being P's own. */
int tconv_step_number(const char *name, const char *prefix, int64_t *n)
{
    /* Every span of a trace comes here: most names differ from P at their first byte. */
    if (prefix[0] && name[0] != prefix[0]) return 0;
    size_t len = strlen(prefix);
    if (strncmp(name, prefix, len) != 0) return 0;
    const char *p = name + len;
    if (!*p) {
        *n = -1;
        return 1;
    }
    while (*p && strchr("#:_- .=", *p))
        p++;
    if (!*p) return 0;
    int64_t v = 0;
    for (; *p; p++) {
        if (*p < '0' || *p > '9' || v > (INT64_MAX - 9) / 10) return 0;
        v = v * 10 + (*p - '0');
    }
    *n = v;
    return 1;
}

static int select_is_span_start(const tconv_event *ev)
{
    return ev->kind == TCONV_EV_COMPLETE || ev->kind == TCONV_EV_BEGIN;
}

void tconv_selection_mark_step(tconv_ctx *ctx, tconv_selection *sel, tconv_event *ev)
{
    if (!select_is_span_start(ev) && ev->kind != TCONV_EV_END) return;
    int64_t n;
    if (!sel->step_name) {
        if (ev->role == TCONV_ROLE_CPU &&
            tconv_step_number(tconv_string_get(ctx, ev->name), "ProfilerStep#", &n) && n >= 0)
            ev->role = TCONV_ROLE_STEP;
        return;
    }
    /* Host-side spans only: Kineto repeats ProfilerStep#N on the GPU streams, as annotations. */
    unsigned r = ev->role;
    int host = r == TCONV_ROLE_CPU || r == TCONV_ROLE_PYTHON || r == TCONV_ROLE_ANNOTATION ||
               r == TCONV_ROLE_STEP;
    if (host && tconv_step_number(tconv_string_get(ctx, ev->name), sel->step_name, &n)) {
        ev->role = TCONV_ROLE_STEP;
        if (select_is_span_start(ev)) sel->step_marked++;
    } else if (r == TCONV_ROLE_STEP) {
        /* the user named the steps: ProfilerStep#N is an annotation around them */
        ev->role = TCONV_ROLE_ANNOTATION;
    }
}

static tconv_step_span *select_step_span(tconv_selection *sel, uint32_t input)
{
    if (input >= sel->nstep_spans) {
        size_t old = sel->nstep_spans;
        TCONV_GROW(sel->step_spans, sel->nstep_spans, (size_t)input + 1);
        for (size_t i = old; i < sel->nstep_spans; i++)
            sel->step_spans[i] = (tconv_step_span){INT64_MAX, INT64_MIN};
    }
    return &sel->step_spans[input];
}

static void select_step_add(tconv_step_span *sp, int64_t start, int64_t end)
{
    if (start < sp->from) sp->from = start;
    if (end > sp->to) sp->to = end;
}

/* Only COMPLETE spans: a step is one whole span (tconv_selection_mark_step has run). */
void tconv_selection_note_span(tconv_ctx *ctx, tconv_selection *sel, const tconv_event *ev)
{
    if (!sel->steps || ev->kind != TCONV_EV_COMPLETE || ev->role != TCONV_ROLE_STEP) return;
    int64_t n;
    if (!tconv_step_number(tconv_string_get(ctx, ev->name),
                           sel->step_name ? sel->step_name : "ProfilerStep#", &n))
        return;
    if (n < 0) {
        TCONV_GROW(sel->bare, sel->bare_cap, sel->nbare + 1);
        sel->bare[sel->nbare++] = (tconv_step_bare){ev->ts, ev->ts + ev->dur, ev->input};
        return;
    }
    if (n < sel->step_first || n > sel->step_last) return;
    select_step_add(select_step_span(sel, ev->input), ev->ts, ev->ts + ev->dur);
}

static int select_bare_cmp(const void *pa, const void *pb)
{
    const tconv_step_bare *a = pa, *b = pb;
    if (a->input != b->input) return a->input < b->input ? -1 : 1;
    if (a->start != b->start) return a->start < b->start ? -1 : 1;
    return (a->end < b->end) - (a->end > b->end);
}

/* Steps named P alone are counted from 1 in the order they start, per input: the input's
 * order of events is no order of time. */
void tconv_selection_resolve_steps(tconv_selection *sel)
{
    if (sel->bare_done) return;
    sel->bare_done = 1;
    if (!sel->nbare) return;
    qsort(sel->bare, sel->nbare, sizeof(*sel->bare), select_bare_cmp);
    int64_t k = 0;
    for (size_t i = 0; i < sel->nbare; i++) {
        k = i && sel->bare[i - 1].input == sel->bare[i].input ? k + 1 : 1;
        if (k >= sel->step_first && k <= sel->step_last)
            select_step_add(select_step_span(sel, sel->bare[i].input), sel->bare[i].start,
                            sel->bare[i].end);
    }
}

tconv_select *tconv_select_new(tconv_ctx *ctx, const tconv_selection *sel,
                               tconv_status (*emit)(void *user, const tconv_event *ev), void *user)
{
    tconv_select *s = tconv_xcalloc(1, sizeof(*s));
    s->ctx = ctx;
    s->sel = sel;
    s->emit = emit;
    s->user = user;
    s->track = UINT32_MAX;
    s->from = INT64_MIN;
    s->to = INT64_MAX;
    if (sel->window) {
        int64_t first = 0, last = 0;
        tconv_ctx_bounds(ctx, &first, &last);
        int64_t base = sel->absolute ? 0 : first;
        s->from = base + sel->start;
        if (sel->has_end) s->to = base + sel->end;
    }
    return s;
}

void tconv_select_free(tconv_select *s)
{
    if (!s) return;
    free(s->open);
    free(s);
}

uint64_t tconv_select_cut(const tconv_select *s)
{
    return s->cut;
}

static void select_window(const tconv_select *s, uint32_t input, int64_t *from, int64_t *to)
{
    *from = s->from;
    *to = s->to;
    if (!s->sel->steps) return;
    /* An input without those steps contributes nothing. */
    tconv_step_span sp = {INT64_MAX, INT64_MIN};
    if (input < s->sel->nstep_spans) sp = s->sel->step_spans[input];
    if (sp.from > *from) *from = sp.from;
    if (sp.to < *to) *to = sp.to;
}

/* Emit every held BEGIN, at the window's start: something inside the window happens under
 * them. */
static tconv_status select_release(tconv_select *s, int64_t from)
{
    for (size_t i = 0; i < s->depth; i++) {
        select_open *o = &s->open[i];
        if (o->state != SELECT_HELD) continue;
        o->begin.ts = from;
        o->begin.dur = 0;
        o->begin.flags |= TCONV_EVF_REPAIRED;
        o->state = SELECT_EMITTED;
        s->cut++;
        tconv_status st = s->emit(s->user, &o->begin);
        if (st == TCONV_FATAL) return st;
    }
    return TCONV_OK;
}

tconv_status tconv_select_event(void *user, const tconv_event *ev)
{
    tconv_select *s = user;
    if (ev->track != s->track) {
        s->track = ev->track;
        s->depth = 0; /* the ordering stage closes every span of a track before the next */
    }
    if (s->sel->input >= 0 && ev->input != (uint32_t)s->sel->input) return TCONV_OK;
    if (s->sel->keep && (ev->input >= s->sel->nkeep || !s->sel->keep[ev->input])) return TCONV_OK;
    if (ev->kind == TCONV_EV_METADATA) return s->emit(s->user, ev);
    int64_t from, to;
    select_window(s, ev->input, &from, &to);
    if (ev->kind == TCONV_EV_BEGIN) {
        TCONV_GROW(s->open, s->cap, s->depth + 1);
        select_open *o = &s->open[s->depth++];
        /* A held copy's args and frames live in the ordering stage's arena, which is freed only
         * after the flush. */
        o->begin = *ev;
        if (ev->ts >= to) {
            o->state = SELECT_SKIPPED;
            return TCONV_OK;
        }
        if (ev->ts < from) {
            o->state = SELECT_HELD;
            return TCONV_OK;
        }
        o->state = SELECT_EMITTED;
        tconv_status st = select_release(s, from);
        return st == TCONV_FATAL ? st : s->emit(s->user, ev);
    }
    if (ev->kind == TCONV_EV_END) {
        if (!s->depth) return s->emit(s->user, ev); /* not from the ordering stage */
        select_open *o = &s->open[--s->depth];
        if (o->state == SELECT_SKIPPED) return TCONV_OK;
        if (o->state == SELECT_HELD) {
            if (ev->ts <= from) return TCONV_OK; /* ended before the window */
            s->depth++;                          /* release it with the ones around it */
            tconv_status st = select_release(s, from);
            s->depth--;
            if (st == TCONV_FATAL) return st;
        }
        if (ev->ts <= to) return s->emit(s->user, ev);
        tconv_event e = *ev;
        e.ts = to;
        e.flags |= TCONV_EVF_REPAIRED;
        s->cut++;
        return s->emit(s->user, &e);
    }
    /* Points, and COMPLETE from a stage that passes them through. */
    if (ev->ts < from || ev->ts >= to) return TCONV_OK;
    tconv_status st = select_release(s, from);
    return st == TCONV_FATAL ? st : s->emit(s->user, ev);
}

/* "1.5ms" -> 1500000. An exact decimal with a unit: times are integer ns end to end. */
static int select_time(const char *s, const char *end, int64_t *out)
{
    static const struct {
        const char *unit;
        int64_t ns;
    } units[] = {{"ns", 1}, {"us", 1000}, {"ms", 1000000}, {"s", 1000000000}};
    int64_t whole = 0, frac = 0, scale = 1;
    const char *p = s;
    if (p == end || *p < '0' || *p > '9') return -1;
    for (; p < end && *p >= '0' && *p <= '9'; p++) {
        if (whole > (INT64_MAX - 9) / 10) return -1;
        whole = whole * 10 + (*p - '0');
    }
    if (p < end && *p == '.') {
        for (p++; p < end && *p >= '0' && *p <= '9'; p++) {
            if (scale > INT64_MAX / 10) return -1;
            frac = frac * 10 + (*p - '0');
            scale *= 10;
        }
    }
    for (size_t i = 0; i < sizeof(units) / sizeof(units[0]); i++) {
        size_t n = strlen(units[i].unit);
        if ((size_t)(end - p) != n || strncmp(p, units[i].unit, n) != 0) continue;
        int64_t u = units[i].ns;
        if (whole > INT64_MAX / u / 4) return -1;
        /* The fraction must land on whole ns. */
        if ((frac * u) % scale) return -1;
        *out = whole * u + frac * u / scale;
        return 0;
    }
    return -1;
}

int tconv_selection_parse(tconv_selection *sel, const char *window, const char *steps,
                          const char *step_name, char *err, size_t cap)
{
    if (window) {
        const char *w = window;
        sel->window = 1;
        if (*w == '@') {
            sel->absolute = 1;
            w++;
        }
        const char *colon = strchr(w, ':');
        if (!colon) {
            snprintf(err, cap,
                     "--window '%s': give START:END, e.g. 2s:3.5s or 200ms: (to the end), times "
                     "with a unit (ns us ms s) from the trace's first event, or @START:END for "
                     "absolute times",
                     window);
            return -1;
        }
        const char *e = colon + 1, *eend = e + strlen(e);
        if ((colon > w && select_time(w, colon, &sel->start) < 0) ||
            (*e && select_time(e, eend, &sel->end) < 0)) {
            snprintf(err, cap,
                     "--window '%s': a time is a decimal number of ns, us, ms or s that lands on "
                     "whole nanoseconds (1.5ms, 200us)",
                     window);
            return -1;
        }
        sel->has_end = *e != 0;
        if (sel->has_end && sel->end <= sel->start) {
            snprintf(err, cap, "--window '%s': the end must be after the start", window);
            return -1;
        }
    }
    if (steps) {
        char *dash;
        long long a = strtoll(steps, &dash, 10), b = a;
        if (dash == steps || a < 0 || (*dash && (*dash != '-' || !dash[1]))) {
            snprintf(err, cap, "--steps '%s': give a step number N or a range A-B (ProfilerStep#N)",
                     steps);
            return -1;
        }
        if (*dash) {
            char *end;
            b = strtoll(dash + 1, &end, 10);
            if (*end || b < a) {
                snprintf(err, cap, "--steps '%s': give a range A-B with A <= B", steps);
                return -1;
            }
        }
        sel->steps = 1;
        sel->step_first = a;
        sel->step_last = b;
    }
    sel->step_name = step_name && *step_name ? step_name : NULL;
    return 0;
}

void tconv_selection_free(tconv_selection *sel)
{
    free(sel->step_spans);
    sel->step_spans = NULL;
    sel->nstep_spans = 0;
    free(sel->bare);
    sel->bare = NULL;
    sel->nbare = sel->bare_cap = 0;
    free(sel->keep);
    sel->keep = NULL;
    sel->nkeep = 0;
}

int tconv_selection_keep_rank(tconv_ctx *ctx, tconv_selection *sel, int64_t rank,
                              const unsigned char *read, size_t nread)
{
    uint32_t n = tconv_ctx_input_count(ctx);
    uint32_t with = 0, kept = 0, without = UINT32_MAX;
    char ranks[256];
    size_t len = 0;
    ranks[0] = 0;
    free(sel->keep);
    sel->keep = tconv_xcalloc(n ? n : 1, 1);
    sel->nkeep = n;
    for (uint32_t i = 0; i < n; i++) {
        int64_t r;
        if (i >= nread || !read[i]) continue; /* failed under --keep-going: left out already */
        if (!tconv_ctx_rank(ctx, i, &r)) {
            if (without == UINT32_MAX) without = i;
            continue;
        }
        with++;
        if (r == rank) {
            sel->keep[i] = 1;
            kept++;
        }
        if (len < sizeof(ranks) - 32)
            len += (size_t)snprintf(ranks + len, sizeof(ranks) - len, "%s%lld", len ? ", " : "",
                                    (long long)r);
    }
    const char *how = "an input's rank is in its metadata, shown by: tconv -w text INPUT | grep -E "
                      "'name=\"(distributedInfo|rank)\"'; --input N selects by position instead";
    if (!with) {
        tconv_error_usage(ctx,
                          "--rank %lld: no input says which rank it is (Kineto's distributedInfo, "
                          "or a \"rank\" member)",
                          (long long)rank);
        tconv_error_hint(ctx, "%s", how);
        return -1;
    }
    if (without != UINT32_MAX) {
        /* Whether such an input is rank N cannot be told: keeping or dropping it would both
         * be a guess. */
        const char *name = tconv_ctx_input_name(ctx, without);
        tconv_error_set(ctx, "--rank %lld: input '%s' says no rank, and other inputs do",
                        (long long)rank, name ? name : "?");
        tconv_error_hint(ctx, "leave it out of the run, or select by position with --input N");
        return -1;
    }
    if (!kept) {
        tconv_error_usage(ctx, "--rank %lld: no input is rank %lld; the inputs are rank%s %s",
                          (long long)rank, (long long)rank, with == 1 ? "" : "s", ranks);
        return -1;
    }
    return 0;
}
