/* The stack stage turns ordered spans into stack samples for profile writers (pprof, folded).
 * Each span yields one sample at its full stack (outermost span of the track at the root) whose
 * value is its self time: its duration minus the durations of its direct children. Because the
 * ordering stage guarantees proper nesting, self times on a track add up to exactly the track's
 * busy time (the union of its top-level spans), and no time is counted twice. */
#include <string.h>

#include "internal.h"

const tconv_sample_type tconv_stack_sample_types[2] = {
    {"samples", "count"},
    {"wall", "nanoseconds"},
};

typedef struct stack_entry {
    int64_t start;
    int64_t children; /* summed durations of direct children */
} stack_entry;

struct tconv_stack {
    tconv_ctx *ctx;
    tconv_emit_fn emit;
    void *user;
    uint32_t track;
    stack_entry *entries;
    tconv_frame *frames;
    size_t depth, cap, fcap;
    tconv_gpu *gpu; /* GPU attribution watches the walk (core/gpu.c), or NULL */
};

tconv_stack *tconv_stack_new(tconv_ctx *ctx, tconv_emit_fn emit, void *user)
{
    tconv_stack *s = tconv_xcalloc(1, sizeof(*s));
    s->ctx = ctx;
    s->emit = emit;
    s->user = user;
    s->track = UINT32_MAX;
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
    free(s->entries);
    free(s->frames);
    free(s);
}

tconv_status tconv_stack_event(void *stack, const tconv_event *ev)
{
    tconv_stack *s = stack;
    if (ev->track != s->track) {
        /* The ordering stage closes every span of a track before the next track starts. */
        s->track = ev->track;
        s->depth = 0;
    }
    if (ev->kind == TCONV_EV_BEGIN) {
        TCONV_GROW(s->entries, s->cap, s->depth + 1);
        TCONV_GROW(s->frames, s->fcap, s->depth + 1);
        s->entries[s->depth] = (stack_entry){ev->ts, 0};
        s->frames[s->depth] = (tconv_frame){.name = ev->name, .module = ev->cat};
        s->depth++;
        if (s->gpu) tconv_gpu_begin(s->gpu, ev, s->frames, s->depth);
        return TCONV_OK;
    }
    if (ev->kind != TCONV_EV_END) {
        if (s->gpu) tconv_gpu_point(s->gpu, ev, s->frames, s->depth); /* flows */
        return s->emit(s->user, ev); /* what an ordered writer takes */
    }
    if (!s->depth) return TCONV_OK;
    tconv_status st = s->gpu ? tconv_gpu_end(s->gpu, ev, s->depth) : TCONV_OK;
    if (st == TCONV_FATAL) return st;
    stack_entry *top = &s->entries[s->depth - 1];
    int64_t dur = ev->ts - top->start;
    /* Under GPU attribution a third value, gpu time, which CPU spans do not have. */
    int64_t values[3] = {1, dur - top->children, 0};
    tconv_event smp = TCONV_EVENT_INIT;
    smp.kind = TCONV_EV_SAMPLE;
    smp.track = ev->track;
    smp.ts = top->start;
    smp.dur = dur;
    smp.name = ev->name;
    smp.cat = ev->cat;
    smp.frames = s->frames;
    smp.nframes = (uint32_t)s->depth;
    smp.values = values;
    smp.nvalues = s->gpu ? 3 : 2;
    smp.input = ev->input;
    smp.seq = ev->seq;
    s->depth--;
    if (s->depth) s->entries[s->depth - 1].children += dur;
    return s->emit(s->user, &smp);
}
