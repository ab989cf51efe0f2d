/* The stack stage turns ordered spans into stack samples for profile writers (pprof, folded).
 * Each span yields one sample at its full stack (outermost span of the track at the root) whose
 * value is its self time, as the span walk (core/stages/spanwalk.c) computes it: so self times on a
 * track add up to exactly the track's busy time, and csv and summary, which walk spans
 * themselves, agree with pprof and folded. */
#include <string.h>

#include "stages.h"

const tconv_sample_type tconv_stack_sample_types[2] = {
    {"samples", "count"},
    {"wall", "nanoseconds"},
};

struct tconv_stack {
    tconv_ctx *ctx;
    tconv_emit_fn emit;
    void *user;
    tconv_spanwalk *walk; /* depth and self time (core/stages/spanwalk.c) */
    tconv_frame *frames;  /* the open spans as frames, root first */
    size_t fcap;
    tconv_gpu *gpu; /* GPU attribution watches the walk (core/stages/gpu.c), or NULL */
};

tconv_stack *tconv_stack_new(tconv_ctx *ctx, tconv_emit_fn emit, void *user)
{
    tconv_stack *s = tconv_xcalloc(1, sizeof(*s));
    s->ctx = ctx;
    s->emit = emit;
    s->user = user;
    s->walk = tconv_spanwalk_new(ctx, 0);
    return s;
}

void tconv_stack_attach_gpu(tconv_stack *s, tconv_gpu *g)
{
    s->gpu = g;
    tconv_gpu_emit_to(g, s->emit, s->user);
}

void tconv_stack_free(tconv_stack *s)
{
    if (!s) return;
    tconv_spanwalk_destroy(s->walk);
    free(s->frames);
    free(s);
}

tconv_status tconv_stack_event(void *stack, const tconv_event *ev)
{
    tconv_stack *s = stack;
    tconv_walk_step step = tconv_spanwalk_event(s->walk, ev);
    size_t depth = tconv_spanwalk_depth(s->walk);
    switch (step) {
    case TCONV_WALK_BEGIN:
        TCONV_GROW(s->frames, s->fcap, depth);
        s->frames[depth - 1] = (tconv_frame){.name = ev->name, .module = ev->cat};
        if (s->gpu) tconv_gpu_begin(s->gpu, ev, s->frames, depth);
        return TCONV_OK;
    case TCONV_WALK_SKIP:
    case TCONV_WALK_HIDDEN:
        return TCONV_OK;
    case TCONV_WALK_POINT:
    case TCONV_WALK_META:
        if (s->gpu) tconv_gpu_point(s->gpu, ev, s->frames, depth); /* flows */
        return s->emit(s->user, ev); /* what an ordered writer takes */
    case TCONV_WALK_END:
        break;
    }
    /* The span that closed is frames[depth], one below what is still open. */
    tconv_status st = s->gpu ? tconv_gpu_end(s->gpu, ev, depth + 1) : TCONV_OK;
    if (st == TCONV_FATAL) return st;
    const tconv_span *span = tconv_spanwalk_span(s->walk);
    /* Under GPU attribution a third value, gpu time, which CPU spans do not have. */
    int64_t values[3] = {1, span->self, 0};
    tconv_event smp = TCONV_EVENT_INIT;
    smp.kind = TCONV_EV_SAMPLE;
    smp.track = ev->track;
    smp.ts = span->ts;
    smp.dur = span->dur;
    smp.name = ev->name;
    smp.cat = ev->cat;
    smp.frames = s->frames;
    smp.nframes = (uint32_t)depth + 1;
    smp.values = values;
    smp.nvalues = s->gpu ? 3 : 2;
    smp.input = ev->input;
    smp.seq = ev->seq;
    return s->emit(s->user, &smp);
}
