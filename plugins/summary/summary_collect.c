/* What the summary gathers from each event of the ordered stream. */
#include <string.h>

#include "csv_sat.h"
#include "summary.h"

static summary_track *summary_track_of(summary *s, uint32_t track)
{
    if (track >= s->tracks_cap) {
        size_t old = s->tracks_cap;
        TCONV_ARRAY_GROW(s->tracks, s->tracks_cap, (size_t)track + 1);
        memset(s->tracks + old, 0, (s->tracks_cap - old) * sizeof *s->tracks);
    }
    return &s->tracks[track];
}

static void summary_category(summary *s, const tconv_span *span)
{
    uint32_t i = tconv_map_put(&s->cat_index, span->cat, 0, (uint32_t)s->ncats);
    if (i == s->ncats) {
        TCONV_ARRAY_GROW(s->cats, s->cats_cap, s->ncats + 1);
        s->cats[s->ncats++] = (summary_cat){.cat = span->cat};
    }
    s->cats[i].spans++;
    s->cats[i].self = csv_sat_add(s->cats[i].self, span->self);
}

void summary_collect(summary *s, const tconv_event *ev)
{
    tconv_walk_step step = tconv_spanwalk_event(s->walk, ev);
    switch (step) {
    case TCONV_WALK_HIDDEN:
        /* Still an event of its track: counted, but in no time total. */
        if (ev->kind != TCONV_EV_END) return;
        s->not_work[tconv_spanwalk_hidden_role(s->walk)]++;
        s->kinds[TCONV_EV_COMPLETE]++;
        summary_track_of(s, ev->track)->events++;
        return;
    case TCONV_WALK_META:
        s->kinds[TCONV_EV_METADATA]++;
        return;
    case TCONV_WALK_BEGIN:
        csv_ops_begin(s->ops, s->walk);
        return;
    case TCONV_WALK_END: {
        const tconv_span *span = tconv_spanwalk_span(s->walk);
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
    case TCONV_WALK_POINT:
        s->kinds[ev->kind]++;
        summary_track_of(s, ev->track)->events++;
        if (ev->kind == TCONV_EV_SAMPLE) csv_stacks_sample(&s->stacks, ev);
        return;
    case TCONV_WALK_SKIP:
        return;
    }
}
