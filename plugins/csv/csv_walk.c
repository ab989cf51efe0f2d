/* The span walker. */
#include <stdlib.h>
#include <string.h>

#include "csv_mem.h"
#include "csv_walk.h"

void csv_walk_init(csv_walk *w)
{
    memset(w, 0, sizeof *w);
    w->track = UINT32_MAX;
}

void csv_walk_free(csv_walk *w)
{
    free(w->frames);
    free(w->args);
    free(w->hidden);
    memset(w, 0, sizeof *w);
}

void csv_walk_work_only(csv_walk *w, const tconv_ctx *ctx)
{
    w->work_ctx = ctx;
}

/* 1 if a BEGIN or END is left out. The ordered stream nests each track's spans, so an END is
 * left out exactly when its BEGIN was. */
static int csv_walk_hide(csv_walk *w, const tconv_event *ev)
{
    if (ev->kind == TCONV_EV_BEGIN) {
        CSV_GROW(w->hidden, w->hidden_cap, w->nhidden + 1);
        int work = tconv_span_is_work(w->work_ctx, ev);
        w->hidden[w->nhidden++] = (uint16_t)(work ? 0 : ev->role + 1);
        w->hidden_role = ev->role;
        return !work;
    }
    if (!w->nhidden) return 0;
    uint16_t h = w->hidden[--w->nhidden];
    w->hidden_role = (uint16_t)(h ? h - 1 : 0);
    return h != 0;
}

csv_step csv_walk_event(csv_walk *w, const tconv_event *ev)
{
    if (ev->kind == TCONV_EV_METADATA) return CSV_WALK_META;
    w->track_changed = ev->track != w->track;
    if (w->track_changed) {
        /* The ordering stage closes every span of a track before the next track starts. */
        w->track = ev->track;
        w->depth = 0;
        w->nargs = 0;
        w->nhidden = 0;
    }
    if (w->work_ctx && (ev->kind == TCONV_EV_BEGIN || ev->kind == TCONV_EV_END) &&
        csv_walk_hide(w, ev))
        return CSV_WALK_HIDDEN;
    if (ev->kind == TCONV_EV_BEGIN) {
        CSV_GROW(w->frames, w->cap, w->depth + 1);
        CSV_GROW(w->args, w->args_cap, w->nargs + ev->nargs);
        csv_walk_frame *f = &w->frames[w->depth++];
        f->name = ev->name;
        f->cat = ev->cat;
        f->flags = ev->flags;
        f->role = ev->role;
        f->corr = ev->corr;
        f->ts = ev->ts;
        f->children = 0;
        f->id = ev->id;
        f->seq = ev->seq;
        f->args_at = w->nargs;
        f->nargs = ev->nargs;
        if (ev->nargs) memcpy(w->args + w->nargs, ev->args, ev->nargs * sizeof *ev->args);
        w->nargs += ev->nargs;
        return CSV_WALK_BEGIN;
    }
    if (ev->kind != TCONV_EV_END) return CSV_WALK_POINT;
    if (!w->depth) return CSV_WALK_SKIP;
    csv_walk_frame *f = &w->frames[--w->depth];
    csv_span *s = &w->span;
    s->track = ev->track;
    s->input = ev->input;
    s->flags = f->flags | ev->flags;
    s->role = f->role;
    s->corr = f->corr ? f->corr : ev->corr;
    s->depth = w->depth;
    s->name = f->name ? f->name : ev->name;
    s->cat = f->cat ? f->cat : ev->cat;
    s->ts = f->ts;
    s->dur = ev->ts - f->ts;
    s->self = s->dur - f->children;
    s->id = f->id;
    s->seq = f->seq;
    /* The args stay in place until the next BEGIN overwrites them. */
    s->args = f->nargs ? w->args + f->args_at : NULL;
    s->nargs = f->nargs;
    w->nargs = f->args_at;
    if (w->depth) w->frames[w->depth - 1].children += s->dur;
    return CSV_WALK_END;
}
