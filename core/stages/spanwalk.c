/* The span walk. Invariant: the ordering stage closes every span of a track before the next
 * track starts and nests spans properly, so one stack of open spans, reset at each new track,
 * pairs every END with its BEGIN; a span's self time is its duration minus the durations of the
 * spans that closed directly inside it, and the self times of a track add up to its busy time
 * (the union of its outermost spans), with no time counted twice. */
#include <string.h>

#include "stages.h"

typedef struct spanwalk_frame {
    tconv_span s;
    int64_t children; /* summed durations of direct children */
    size_t args_at;   /* in args */
} spanwalk_frame;

struct tconv_spanwalk {
    const tconv_ctx *ctx;
    unsigned flags;
    uint32_t track;
    spanwalk_frame *frames;
    size_t depth, cap;
    tconv_arg *args; /* the open spans' args, stacked */
    size_t nargs, args_cap;
    /* TCONV_SPANWALK_WORK_ONLY: per open BEGIN, walked (0) or left out (its role + 1) */
    uint16_t *hidden;
    size_t nhidden, hidden_cap;
    unsigned hidden_role;
    tconv_span span;
};

TCONV_API tconv_spanwalk *tconv_spanwalk_new(const tconv_ctx *ctx, unsigned flags)
{
    tconv_spanwalk *w = tconv_xcalloc(1, sizeof(*w));
    w->ctx = ctx;
    w->flags = flags;
    w->track = UINT32_MAX;
    return w;
}

TCONV_API void tconv_spanwalk_destroy(tconv_spanwalk *w)
{
    if (!w) return;
    free(w->frames);
    free(w->args);
    free(w->hidden);
    free(w);
}

/* 1 if this BEGIN or END is left out; an END is left out exactly when its BEGIN was. */
static int spanwalk_hide(tconv_spanwalk *w, const tconv_event *ev)
{
    if (ev->kind == TCONV_EV_BEGIN) {
        TCONV_GROW(w->hidden, w->hidden_cap, w->nhidden + 1);
        int work = tconv_span_is_work(w->ctx, ev);
        w->hidden[w->nhidden++] = (uint16_t)(work ? 0 : ev->role + 1u);
        w->hidden_role = ev->role;
        return !work;
    }
    if (!w->nhidden) return 0;
    uint16_t h = w->hidden[--w->nhidden];
    w->hidden_role = h ? h - 1u : 0;
    return h != 0;
}

static void spanwalk_begin(tconv_spanwalk *w, const tconv_event *ev)
{
    TCONV_GROW(w->frames, w->cap, w->depth + 1);
    spanwalk_frame *f = &w->frames[w->depth];
    memset(f, 0, sizeof(*f));
    f->s = (tconv_span){.track = ev->track,
                        .input = ev->input,
                        .flags = ev->flags,
                        .role = ev->role,
                        .depth = (uint32_t)w->depth,
                        .name = ev->name,
                        .cat = ev->cat,
                        .ts = ev->ts,
                        .id = ev->id,
                        .seq = ev->seq,
                        .corr = ev->corr};
    f->args_at = w->nargs;
    if (w->flags & TCONV_SPANWALK_ARGS && ev->nargs) {
        TCONV_GROW(w->args, w->args_cap, w->nargs + ev->nargs);
        memcpy(w->args + w->nargs, ev->args, ev->nargs * sizeof(*ev->args));
        f->s.nargs = ev->nargs;
        w->nargs += ev->nargs;
    }
    w->depth++;
}

static void spanwalk_end(tconv_spanwalk *w, const tconv_event *ev)
{
    spanwalk_frame *f = &w->frames[--w->depth];
    tconv_span *s = &w->span;
    *s = f->s;
    s->flags |= ev->flags;
    if (!s->name) s->name = ev->name;
    if (!s->cat) s->cat = ev->cat;
    if (!s->corr) s->corr = ev->corr;
    s->dur = ev->ts - f->s.ts;
    s->self = s->dur - f->children;
    /* The args stay in place until the next BEGIN overwrites them. */
    s->args = s->nargs ? w->args + f->args_at : NULL;
    w->nargs = f->args_at;
    if (w->depth) w->frames[w->depth - 1].children += s->dur;
}

TCONV_API tconv_walk_step tconv_spanwalk_event(tconv_spanwalk *w, const tconv_event *ev)
{
    if (ev->kind == TCONV_EV_METADATA) return TCONV_WALK_META;
    if (ev->track != w->track) {
        w->track = ev->track;
        w->depth = 0;
        w->nargs = 0;
        w->nhidden = 0;
    }
    int span = ev->kind == TCONV_EV_BEGIN || ev->kind == TCONV_EV_END;
    if (span && w->flags & TCONV_SPANWALK_WORK_ONLY && spanwalk_hide(w, ev))
        return TCONV_WALK_HIDDEN;
    if (ev->kind == TCONV_EV_BEGIN) {
        spanwalk_begin(w, ev);
        return TCONV_WALK_BEGIN;
    }
    if (ev->kind != TCONV_EV_END) return TCONV_WALK_POINT;
    if (!w->depth) return TCONV_WALK_SKIP;
    spanwalk_end(w, ev);
    return TCONV_WALK_END;
}

TCONV_API const tconv_span *tconv_spanwalk_span(const tconv_spanwalk *w)
{
    return &w->span;
}

TCONV_API uint32_t tconv_spanwalk_depth(const tconv_spanwalk *w)
{
    return (uint32_t)w->depth;
}

TCONV_API const tconv_span *tconv_spanwalk_open(const tconv_spanwalk *w, uint32_t d)
{
    spanwalk_frame *f = &w->frames[d];
    f->s.args = f->s.nargs ? w->args + f->args_at : NULL; /* the stack may have moved */
    return &f->s;
}

TCONV_API uint32_t tconv_spanwalk_track(const tconv_spanwalk *w)
{
    return w->track;
}

TCONV_API unsigned tconv_spanwalk_hidden_role(const tconv_spanwalk *w)
{
    return w->hidden_role;
}
