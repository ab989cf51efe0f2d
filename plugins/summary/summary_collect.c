/* What the summary gathers from each event of the ordered stream. */
#include <string.h>

#include "csv_mem.h"
#include "csv_sat.h"
#include "summary.h"

static summary_track *summary_track_of(summary *s, uint32_t track)
{
    if (track >= s->tracks_cap) {
        size_t old = s->tracks_cap;
        CSV_GROW(s->tracks, s->tracks_cap, (size_t)track + 1);
        memset(s->tracks + old, 0, (s->tracks_cap - old) * sizeof *s->tracks);
    }
    return &s->tracks[track];
}

static void summary_category(summary *s, const csv_span *span)
{
    uint32_t i = csv_map_put(&s->cat_index, span->cat, 0, (uint32_t)s->ncats);
    if (i == s->ncats) {
        CSV_GROW(s->cats, s->cats_cap, s->ncats + 1);
        s->cats[s->ncats++] = (summary_cat){.cat = span->cat};
    }
    s->cats[i].spans++;
    s->cats[i].self = csv_sat_add(s->cats[i].self, span->self);
}

/* 1 when ev goes to the walker. The ordered stream nests each track's spans and finishes a track
 * before the next, so an END is hidden exactly when its BEGIN was. */
static int summary_visible(summary *s, const tconv_event *ev)
{
    if (ev->kind != TCONV_EV_BEGIN && ev->kind != TCONV_EV_END) return 1;
    if (ev->track != s->hidden_track) {
        s->hidden_track = ev->track;
        s->hidden_depth = 0;
    }
    if (ev->kind == TCONV_EV_BEGIN) {
        CSV_GROW(s->hidden, s->hidden_cap, s->hidden_depth + 1);
        int work = tconv_span_is_work(s->ctx, ev);
        s->hidden[s->hidden_depth++] = (uint16_t)(work ? 0 : ev->role + 1);
        return work;
    }
    if (!s->hidden_depth) return 1;
    uint16_t role = s->hidden[--s->hidden_depth];
    if (!role) return 1;
    /* Still an event of its track: counted, but in no time total. */
    s->not_work[role - 1]++;
    s->kinds[TCONV_EV_COMPLETE]++;
    summary_track_of(s, ev->track)->events++;
    return 0;
}

void summary_collect(summary *s, const tconv_event *ev)
{
    if (!summary_visible(s, ev)) return;
    csv_step step = csv_walk_event(&s->walk, ev);
    switch (step) {
    case CSV_WALK_META:
        s->kinds[TCONV_EV_METADATA]++;
        return;
    case CSV_WALK_BEGIN:
        csv_ops_begin(s->ops, &s->walk);
        return;
    case CSV_WALK_END: {
        const csv_span *span = &s->walk.span;
        s->kinds[TCONV_EV_COMPLETE]++;
        summary_track *t = summary_track_of(s, span->track);
        t->events++;
        if (span->depth == 0) t->busy = csv_sat_add(t->busy, span->dur);
        summary_category(s, span);
        csv_ops_end(s->ops, span);
        csv_kernels_end(s->kernels, span);
        summary_steps_span(&s->steps, span);
        summary_gpu_span(&s->gpu, span);
        return;
    }
    case CSV_WALK_POINT:
        s->kinds[ev->kind]++;
        summary_track_of(s, ev->track)->events++;
        if (ev->kind == TCONV_EV_SAMPLE) csv_stacks_sample(&s->stacks, ev);
        return;
    case CSV_WALK_SKIP:
        return;
    }
}
