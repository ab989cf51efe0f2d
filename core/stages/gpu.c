/* GPU attribution: each GPU activity (kernel, copy, set) is charged, with its duration, to the
 * CPU stack that launched it, so a profile answers "which code is responsible for this GPU
 * time". The stage rides on the stack stage, which walks every track's spans in nesting order:
 *
 *   - a CPU span that carries a correlation id (a runtime call such as cudaLaunchKernel), or
 *     that a flow leaves from, is a launch: its stack at that moment (every enclosing span of
 *     its track, itself included) is kept, shared with other launches from the same code;
 *   - a span that is a GPU activity is kept with its correlation id and the flows that reach it;
 *   - once every track has been walked (GPU streams may come before the threads that feed them)
 *     each activity finds its launch and becomes one sample: the launch's stack, then a leaf
 *     frame "[gpu] <activity>", weighing the activity's exact duration in ns.
 *
 * What is kept is small on purpose: a correlation id and a duration per correlated span (the
 * ordering stage keeps no args for profile writers), a record per launch and per activity, and
 * the distinct launch stacks. CPU stacks sampled at the launch calls themselves (a uprobe) are
 * matched to the launches in core/stages/gpumatch.c and put in front of the launch's stack. */
#include <string.h>

#include "stages.h"

#define GPU_NONE UINT32_MAX

const tconv_sample_type tconv_gpu_sample_types[3] = {
    {"samples", "count"},
    {"wall", "nanoseconds"},
    {"gpu", "nanoseconds"},
};

/* Whatever the ordering stage will not carry to the stack stage: the correlation id of a span
 * and its duration as the input gave it (the stage may clip a span, and a GPU activity weighs
 * its own length). Pushed in sequence order, so found by binary search. */
typedef struct gpu_note {
    uint64_t seq;
    uint64_t corr; /* 0: none */
    int64_t dur;   /* -1: a BEGIN, whose length only its END tells */
} gpu_note;

typedef struct gpu_launch {
    int64_t ts;
    uint32_t track, input;
    uint32_t node;  /* its stack in the stack table */
    uint32_t depth; /* of that stack */
    uint32_t stack; /* the launch stack matched to it, or GPU_NONE */
    uint32_t used;  /* activities attributed to it */
} gpu_launch;

typedef struct gpu_activity {
    uint64_t corr, flow;
    int64_t ts, dur;
    uint64_t seq;
    tconv_str name, cat;
    uint32_t track, input;
    uint32_t launch;
    uint8_t has_flow;
    uint8_t done; /* emitted as soon as it ended */
} gpu_activity;

/* A CPU stack sampled at a launch call, from an input that declared launch stacks. */
typedef struct gpu_stack {
    int64_t ts;
    uint32_t track, input, node;
} gpu_stack;

/* What a flow or correlation id leads to: key (input, kind, id) -> launch. */
enum { GPU_KEY_CORR = 1, GPU_KEY_FLOW = 2 };
typedef struct gpu_key {
    uint64_t id;
    uint32_t input, kind;
    uint32_t launch;
} gpu_key;

enum { GPU_ROLE_CPU, GPU_ROLE_ACTIVITY, GPU_ROLE_SKIP };

/* The stack stage's open spans, as this stage sees them. */
typedef struct gpu_open {
    int64_t ts;
    uint32_t launch, act;
    int role;
} gpu_open;

typedef struct gpu_leaf {
    tconv_str name1; /* activity name + 1; 0: an empty slot */
    tconv_str leaf;
} gpu_leaf;

typedef struct gpu_pending {
    uint64_t id;
    unsigned kind;
} gpu_pending;

struct tconv_gpu {
    tconv_ctx *ctx;
    gpu_note *notes;
    size_t nnotes, capnotes, note_hint;
    gpu_launch *launches;
    size_t nlaunches, caplaunches;
    gpu_activity *acts;
    size_t nacts, capacts;
    gpu_stack *stacks;
    size_t nstacks, capstacks;
    gpu_key *keys;
    size_t nkeys, capkeys;
    uint32_t *slots; /* open addressing over keys: index + 1, 0 = empty */
    size_t nslots;
    tconv_stacktab tab;
    gpu_open *open;
    size_t capopen;
    uint32_t track;
    gpu_pending *pending; /* flows that bind to the next slice of the current track */
    size_t npending, cappending;
    tconv_frame *frames;
    size_t capframes;
    gpu_leaf *leaves; /* activity name -> leaf frame name, open addressing */
    size_t nleaves, capleaves;
    tconv_emit_fn emit; /* where the GPU samples go: the stack stage's output */
    void *user;
    uint64_t nseen, nemitted; /* GPU activities, and those attributed */
};

/* ---- what the inputs declared (tconv_launchstacks_declare, core/context/ctx.c)
 * ------------------- */

static int64_t gpu_tolerance(const tconv_ctx *ctx, uint32_t input)
{
    return input < ctx->nlaunch_tol ? ctx->launch_tol[input] : -1;
}

void tconv_gpu_hint(tconv_ctx *ctx, const char *writer)
{
    for (uint32_t i = 0; i < ctx->nlaunch_tol; i++) {
        if (ctx->launch_tol[i] < 0) continue;
        tconv_warning_add(ctx, "gpu.not-attributed",
                          "stacks sampled at GPU launch calls were read together with a trace, "
                          "but the %s writer does not attribute GPU time to them; ask it to "
                          "with -W value=gpu (folded) or -W gpu=attribute (pprof)",
                          writer);
        return;
    }
}

/* ---- setup ------------------------------------------------------------------------------ */

tconv_gpu *tconv_gpu_new(tconv_ctx *ctx)
{
    tconv_gpu *g = tconv_xcalloc(1, sizeof(*g));
    g->ctx = ctx;
    tconv_stacktab_init(&g->tab);
    g->track = UINT32_MAX;
    return g;
}

void tconv_gpu_free(tconv_gpu *g)
{
    if (!g) return;
    free(g->notes);
    free(g->launches);
    free(g->acts);
    free(g->stacks);
    free(g->keys);
    free(g->slots);
    tconv_stacktab_free(&g->tab);
    free(g->open);
    free(g->pending);
    free(g->frames);
    free(g->leaves);
    free(g);
}

static size_t gpu_bytes(const tconv_gpu *g)
{
    return g->capnotes * sizeof(*g->notes) + g->caplaunches * sizeof(*g->launches) +
           g->capacts * sizeof(*g->acts) + g->capstacks * sizeof(*g->stacks) +
           g->capkeys * sizeof(*g->keys) + g->nslots * sizeof(*g->slots) +
           g->capleaves * sizeof(*g->leaves) + tconv_stacktab_bytes(&g->tab);
}

/* ---- while the readers push ------------------------------------------------------------- */

void tconv_gpu_note_span(tconv_gpu *g, const tconv_event *ev)
{
    if (ev->kind == TCONV_EV_END) return; /* an END's id would need its BEGIN's seq */
    uint64_t corr = ev->corr;
    /* A device span without an id still needs its own length, should a flow reach it. */
    if (!corr && !tconv_role_is_gpu(ev->role)) return;
    TCONV_GROW(g->notes, g->capnotes, g->nnotes + 1);
    int64_t dur = ev->kind != TCONV_EV_COMPLETE ? -1 : ev->dur > 0 ? ev->dur : 0;
    g->notes[g->nnotes++] = (gpu_note){.seq = ev->seq, .corr = corr, .dur = dur};
}

int tconv_gpu_take_stack(tconv_gpu *g, const tconv_event *ev)
{
    if (gpu_tolerance(g->ctx, ev->input) < 0) return 0;
    TCONV_GROW(g->stacks, g->capstacks, g->nstacks + 1);
    g->stacks[g->nstacks++] =
        (gpu_stack){.ts = ev->ts,
                    .track = ev->track,
                    .input = ev->input,
                    .node = tconv_stacktab_intern(&g->tab, ev->frames, ev->nframes)};
    return 1;
}

int tconv_gpu_has_stacks(const tconv_gpu *g)
{
    return g->nstacks != 0;
}

/* ---- launches and their keys ------------------------------------------------------------ */

static uint32_t gpu_key_hash(uint32_t input, uint32_t kind, uint64_t id)
{
    uint64_t h = (id ^ ((uint64_t)input << 40 | (uint64_t)kind << 32)) * 0x9E3779B97F4A7C15ull;
    return (uint32_t)(h >> 32);
}

static void gpu_rehash(tconv_gpu *g)
{
    size_t ns = g->nslots ? g->nslots * 2 : 1024;
    uint32_t *slots = tconv_xcalloc(ns, sizeof(*slots));
    for (size_t k = 0; k < g->nkeys; k++) {
        const gpu_key *e = &g->keys[k];
        tconv_slots_put(slots, ns, gpu_key_hash(e->input, e->kind, e->id), (uint32_t)k + 1);
    }
    free(g->slots);
    g->slots = slots;
    g->nslots = ns;
}

/* The slot of (input, kind, id): a filled one, or the empty one where it would go. */
static size_t gpu_slot(const tconv_gpu *g, uint32_t input, uint32_t kind, uint64_t id)
{
    size_t i = gpu_key_hash(input, kind, id) & (g->nslots - 1);
    for (; g->slots[i]; i = (i + 1) & (g->nslots - 1)) {
        const gpu_key *e = &g->keys[g->slots[i] - 1];
        if (e->id == id && e->input == input && e->kind == kind) break;
    }
    return i;
}

static uint32_t gpu_lookup(const tconv_gpu *g, uint32_t input, uint32_t kind, uint64_t id)
{
    if (!g->nslots) return GPU_NONE;
    size_t i = gpu_slot(g, input, kind, id);
    return g->slots[i] ? g->keys[g->slots[i] - 1].launch : GPU_NONE;
}

static void gpu_key_put(tconv_gpu *g, uint32_t kind, uint64_t id, uint32_t launch)
{
    const gpu_launch *l = &g->launches[launch];
    if (2 * (g->nkeys + 1) > g->nslots) gpu_rehash(g);
    size_t i = gpu_slot(g, l->input, kind, id);
    if (g->slots[i]) {
        /* A runtime call and the driver call inside it may share an id: the inner one, whose
         * stack holds both, wins. Elsewhere the first launch keeps the id. */
        gpu_key *e = &g->keys[g->slots[i] - 1];
        const gpu_launch *old = &g->launches[e->launch];
        if (old->track == l->track && l->depth > old->depth) e->launch = launch;
        return;
    }
    TCONV_GROW(g->keys, g->capkeys, g->nkeys + 1);
    g->keys[g->nkeys] = (gpu_key){id, l->input, kind, launch};
    g->slots[i] = (uint32_t)++g->nkeys;
}

static uint32_t gpu_launch_new(tconv_gpu *g, const tconv_event *ev, const gpu_open *o,
                               const tconv_frame *frames, size_t depth)
{
    TCONV_GROW(g->launches, g->caplaunches, g->nlaunches + 1);
    g->launches[g->nlaunches] = (gpu_launch){.ts = o->ts,
                                             .track = ev->track,
                                             .input = ev->input,
                                             .node = tconv_stacktab_intern(&g->tab, frames, depth),
                                             .depth = (uint32_t)depth,
                                             .stack = GPU_NONE};
    return (uint32_t)g->nlaunches++;
}

/* ---- hooks of the stack stage ----------------------------------------------------------- */

void tconv_gpu_emit_to(tconv_gpu *g, tconv_emit_fn emit, void *user)
{
    g->emit = emit;
    g->user = user;
}

static void gpu_on_track(tconv_gpu *g, uint32_t track)
{
    if (track == g->track) return;
    g->track = track;
    g->npending = 0; /* a flow waiting for a slice that never came on its track binds nothing */
}

static const gpu_note *gpu_note_find(tconv_gpu *g, uint64_t seq)
{
    /* A track's spans mostly come in input order, so the next note is usually just after the
     * last one found: gallop from there before bisecting. */
    size_t n = g->nnotes, h = g->note_hint < n ? g->note_hint : 0, lo = 0, hi = n;
    if (n && g->notes[h].seq < seq) {
        size_t step = 1;
        lo = h + 1;
        while (h + step < n && g->notes[h + step].seq < seq) {
            lo = h + step + 1;
            step *= 2;
        }
        hi = h + step < n ? h + step + 1 : n;
    } else if (n) {
        size_t step = 1;
        hi = h + 1;
        while (step <= h && g->notes[h - step].seq >= seq) {
            hi = h - step + 1;
            step *= 2;
        }
        lo = step <= h ? h - step : 0;
    }
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (g->notes[mid].seq < seq)
            lo = mid + 1;
        else
            hi = mid;
    }
    if (lo >= n || g->notes[lo].seq != seq) return NULL;
    g->note_hint = lo;
    return &g->notes[lo];
}

/* Device roles are GPU work wherever they are (CUPTI-style JSON puts them on tracks no reader
 * marks as GPU); on a GPU stream everything but waits, annotations and the tracer's own cost
 * is. */
static int gpu_role(const tconv_gpu *g, const tconv_event *ev)
{
    if (tconv_role_is_gpu(ev->role)) return GPU_ROLE_ACTIVITY;
    if (ev->role == TCONV_ROLE_SYNC || ev->role == TCONV_ROLE_GPU_ANNOTATION ||
        ev->role == TCONV_ROLE_OVERHEAD)
        return GPU_ROLE_SKIP;
    const tconv_track *t = tconv_track_describe(g->ctx, ev->track);
    return t && t->kind == TCONV_TRACK_GPU ? GPU_ROLE_ACTIVITY : GPU_ROLE_CPU;
}

/* A flow binds to the open span at depth: an arriving one marks a GPU activity, a leaving one
 * makes a CPU span a launch. */
static void gpu_bind(tconv_gpu *g, const tconv_event *ev, unsigned kind, uint64_t id,
                     const tconv_frame *frames, size_t depth)
{
    gpu_open *o = &g->open[depth - 1];
    if (o->role == GPU_ROLE_ACTIVITY && kind != TCONV_EV_FLOW_START) {
        g->acts[o->act].flow = id;
        g->acts[o->act].has_flow = 1;
    } else if (o->role == GPU_ROLE_CPU && kind != TCONV_EV_FLOW_END) {
        if (o->launch == GPU_NONE) o->launch = gpu_launch_new(g, ev, o, frames, depth);
        gpu_key_put(g, GPU_KEY_FLOW, id, o->launch);
    }
}

void tconv_gpu_begin(tconv_gpu *g, const tconv_event *ev, const tconv_frame *frames, size_t depth)
{
    gpu_on_track(g, ev->track);
    TCONV_GROW(g->open, g->capopen, depth);
    gpu_open *o = &g->open[depth - 1];
    *o = (gpu_open){ev->ts, GPU_NONE, GPU_NONE, gpu_role(g, ev)};
    const gpu_note *n = gpu_note_find(g, ev->seq);
    if (o->role == GPU_ROLE_ACTIVITY) {
        TCONV_GROW(g->acts, g->capacts, g->nacts + 1);
        g->acts[g->nacts] = (gpu_activity){.corr = n ? n->corr : 0,
                                           .ts = ev->ts,
                                           .dur = n ? n->dur : -1,
                                           .seq = ev->seq,
                                           .name = ev->name,
                                           .cat = ev->cat,
                                           .track = ev->track,
                                           .input = ev->input,
                                           .launch = GPU_NONE};
        o->act = (uint32_t)g->nacts++;
        g->nseen++;
    } else if (o->role == GPU_ROLE_CPU && n && n->corr) {
        o->launch = gpu_launch_new(g, ev, o, frames, depth);
        gpu_key_put(g, GPU_KEY_CORR, n->corr, o->launch);
    }
    for (size_t i = 0; i < g->npending; i++)
        gpu_bind(g, ev, g->pending[i].kind, g->pending[i].id, frames, depth);
    g->npending = 0;
}

void tconv_gpu_point(tconv_gpu *g, const tconv_event *ev, const tconv_frame *frames, size_t depth)
{
    if (ev->kind != TCONV_EV_FLOW_START && ev->kind != TCONV_EV_FLOW_STEP &&
        ev->kind != TCONV_EV_FLOW_END)
        return;
    gpu_on_track(g, ev->track);
    if (ev->flags & TCONV_EVF_BIND_ENCLOSING) {
        if (depth) gpu_bind(g, ev, ev->kind, ev->id, frames, depth);
        return;
    }
    /* "The next slice that starts": one that starts at the flow's own time was delivered just
     * before it (begins come before points at equal times). */
    if (depth && g->open[depth - 1].ts == ev->ts) {
        gpu_bind(g, ev, ev->kind, ev->id, frames, depth);
        return;
    }
    TCONV_GROW(g->pending, g->cappending, g->npending + 1);
    g->pending[g->npending++] = (gpu_pending){ev->id, ev->kind};
}

/* "[gpu] name"; CUPTI-style JSON names kernels "Kernel: name", which says nothing the leaf
 * frame does not. */
static tconv_str gpu_leaf_make(tconv_gpu *g, tconv_str name)
{
    const char *s = tconv_string_get(g->ctx, name);
    size_t n = tconv_string_length(g->ctx, name);
    if (n > 8 && memcmp(s, "Kernel: ", 8) == 0) {
        s += 8;
        n -= 8;
    }
    char stackbuf[256];
    char *buf = n + 7 <= sizeof(stackbuf) ? stackbuf : tconv_xmalloc(n + 7);
    memcpy(buf, "[gpu] ", 6);
    memcpy(buf + 6, s, n);
    tconv_str id = tconv_string_intern(g->ctx, buf, n + 6);
    if (buf != stackbuf) free(buf);
    return id;
}

/* Few distinct kernels, launched many times: make each leaf name once. */
static tconv_str gpu_leaf_name(tconv_gpu *g, tconv_str name)
{
    if (2 * (g->nleaves + 1) > g->capleaves) {
        size_t cap = g->capleaves ? g->capleaves * 2 : 256;
        gpu_leaf *t = tconv_xcalloc(cap, sizeof(*t));
        for (size_t k = 0; k < g->capleaves; k++) {
            if (!g->leaves[k].name1) continue;
            size_t i = (g->leaves[k].name1 * 0x9E3779B9u) & (cap - 1);
            while (t[i].name1)
                i = (i + 1) & (cap - 1);
            t[i] = g->leaves[k];
        }
        free(g->leaves);
        g->leaves = t;
        g->capleaves = cap;
    }
    size_t i = ((name + 1) * 0x9E3779B9u) & (g->capleaves - 1);
    for (; g->leaves[i].name1; i = (i + 1) & (g->capleaves - 1))
        if (g->leaves[i].name1 == name + 1) return g->leaves[i].leaf;
    g->leaves[i] = (gpu_leaf){name + 1, gpu_leaf_make(g, name)};
    g->nleaves++;
    return g->leaves[i].leaf;
}

static tconv_status gpu_emit(tconv_gpu *g, const gpu_activity *a)
{
    const gpu_launch *l = &g->launches[a->launch];
    const gpu_stack *ls = l->stack != GPU_NONE ? &g->stacks[l->stack] : NULL;
    size_t pre = ls ? tconv_stacktab_depth(&g->tab, ls->node) : 0;
    size_t n = pre + tconv_stacktab_depth(&g->tab, l->node) + 1;
    TCONV_GROW(g->frames, g->capframes, n);
    if (ls) tconv_stacktab_frames(&g->tab, ls->node, g->frames);
    tconv_stacktab_frames(&g->tab, l->node, g->frames + pre);
    /* The probe's leaf and the tracer's outermost launch frame are one call when they share
     * its name (a uprobe on cudaLaunchKernel, a tracer that names its span cudaLaunchKernel):
     * show it once, as the tracer's frame. */
    if (pre && n - 1 > pre && g->frames[pre - 1].name == g->frames[pre].name) {
        memmove(g->frames + pre - 1, g->frames + pre, (n - 1 - pre) * sizeof(*g->frames));
        n--;
    }
    g->frames[n - 1] = (tconv_frame){.name = gpu_leaf_name(g, a->name), .module = a->cat};
    int64_t dur = a->dur > 0 ? a->dur : 0;
    int64_t values[3] = {1, 0, dur};
    tconv_event smp = TCONV_EVENT_INIT;
    smp.kind = TCONV_EV_SAMPLE;
    /* The launching thread's: where the time is charged, and the labels a profile shows. */
    smp.track = ls ? ls->track : l->track;
    smp.ts = a->ts;
    smp.dur = dur;
    smp.name = a->name;
    smp.cat = a->cat;
    smp.frames = g->frames;
    smp.nframes = (uint32_t)n;
    smp.values = values;
    smp.nvalues = 3;
    smp.input = a->input;
    smp.seq = a->seq;
    g->nemitted++;
    tconv_status st = g->emit(g->user, &smp);
    return st == TCONV_RECORD ? TCONV_OK : st;
}

static uint32_t gpu_find_launch(const tconv_gpu *g, const gpu_activity *a)
{
    uint32_t l = a->corr ? gpu_lookup(g, a->input, GPU_KEY_CORR, a->corr) : GPU_NONE;
    if (l == GPU_NONE && a->has_flow) l = gpu_lookup(g, a->input, GPU_KEY_FLOW, a->flow);
    return l;
}

tconv_status tconv_gpu_end(tconv_gpu *g, const tconv_event *ev, size_t depth)
{
    const gpu_open *o = &g->open[depth - 1];
    if (o->act == GPU_NONE) return TCONV_OK;
    gpu_activity *a = &g->acts[o->act];
    if (a->dur < 0) a->dur = ev->ts - o->ts;
    /* Its launch's thread was walked already: emit now and forget it, so that activities cost
     * memory only while they wait for a launch. Launch stacks need every activity to pair
     * them with launches, so then all wait for the end. */
    if (g->nstacks || (a->launch = gpu_find_launch(g, a)) == GPU_NONE) return TCONV_OK;
    tconv_status st = gpu_emit(g, a);
    if (o->act + 1 == g->nacts)
        g->nacts--;
    else
        a->done = 1;
    return st;
}

/* ---- at the end: attribute and emit ----------------------------------------------------- */

/* Pair the sampled launch stacks with the launches that led to GPU work, and report how it went:
 * silently when every one found its partner, as a warning otherwise. */
static void gpu_match_stacks(tconv_gpu *g)
{
    tconv_match_item *s = tconv_xcalloc(g->nstacks, sizeof(*s));
    uint32_t *lof = tconv_xmalloc((g->nlaunches ? g->nlaunches : 1) * sizeof(*lof));
    tconv_match_item *l = tconv_xcalloc(g->nlaunches ? g->nlaunches : 1, sizeof(*l));
    size_t nl = 0;
    int64_t tol = 0;
    for (size_t i = 0; i < g->nstacks; i++) {
        const tconv_track *t = tconv_track_describe(g->ctx, g->stacks[i].track);
        s[i] = (tconv_match_item){g->stacks[i].ts, t->pid, t->tid, 0};
        int64_t ti = gpu_tolerance(g->ctx, g->stacks[i].input);
        if (ti > tol) tol = ti;
    }
    for (size_t i = 0; i < g->nlaunches; i++) {
        if (!g->launches[i].used) continue;
        const tconv_track *t = tconv_track_describe(g->ctx, g->launches[i].track);
        lof[nl] = (uint32_t)i;
        l[nl++] = (tconv_match_item){g->launches[i].ts, t->pid, t->tid, 0};
    }
    tconv_match_stats st;
    tconv_match_launches(s, g->nstacks, l, nl, tol, &st);
    uint64_t matched = st.by_order + st.by_time;
    for (size_t i = 0; i < nl; i++)
        if (l[i].partner != UINT32_MAX) g->launches[lof[i]].stack = l[i].partner;
    char summary[256], label[256];
    snprintf(summary, sizeof(summary),
             "%llu of %zu launch stacks matched a launch (%llu by order, %llu by time, the "
             "clocks %+lld ns apart, tolerance %lld ns)",
             (unsigned long long)matched, g->nstacks, (unsigned long long)st.by_order,
             (unsigned long long)st.by_time, (long long)st.offset, (long long)tol);
    tconv_note(g->ctx, "%s; %zu launches with GPU work", summary, nl);
    for (size_t i = 0; i < g->nstacks; i++) {
        if (s[i].partner != UINT32_MAX) continue;
        tconv_track_label(g->ctx, g->stacks[i].track, label, sizeof(label));
        tconv_warning_add(g->ctx, "gpu.unmatched-stack",
                          "%s; the others are left out (first: thread %s at %lld ns)", summary,
                          label, (long long)g->stacks[i].ts);
    }
    for (size_t i = 0; i < nl; i++) {
        if (l[i].partner != UINT32_MAX) continue;
        tconv_track_label(g->ctx, g->launches[lof[i]].track, label, sizeof(label));
        tconv_warning_add(g->ctx, "gpu.unmatched-launch",
                          "%llu of %zu launches with GPU work have no launch stack; their GPU "
                          "time goes to the trace's own stack (first: thread %s at %lld ns)",
                          (unsigned long long)(nl - matched), nl, label,
                          (long long)g->launches[lof[i]].ts);
    }
    free(s);
    free(l);
    free(lof);
}

tconv_status tconv_gpu_flush(tconv_gpu *g)
{
    char label[256];
    if (!g->nseen)
        tconv_warning_add(g->ctx, "gpu.none",
                          "GPU attribution: the input has no GPU activity (kernel, copy or set), "
                          "so no sample carries GPU time");
    for (size_t i = 0; i < g->nacts; i++) {
        gpu_activity *a = &g->acts[i];
        if (a->done) continue;
        a->launch = gpu_find_launch(g, a);
        if (a->launch != GPU_NONE) {
            g->launches[a->launch].used++;
            continue;
        }
        tconv_track_label(g->ctx, a->track, label, sizeof(label));
        tconv_warning_add(g->ctx, "gpu.uncorrelated",
                          "GPU activity '%s' at %lld ns on '%s' has no launch to attribute it to "
                          "(no correlation id or flow, or its launch is not in the input); it "
                          "keeps only its stream-rooted stack",
                          tconv_string_get(g->ctx, a->name), (long long)a->ts, label);
    }
    if (g->nstacks) gpu_match_stacks(g);
    tconv_status st = TCONV_OK;
    for (size_t i = 0; i < g->nacts && st == TCONV_OK; i++)
        if (!g->acts[i].done && g->acts[i].launch != GPU_NONE) st = gpu_emit(g, &g->acts[i]);
    tconv_note(g->ctx,
               "GPU attribution: %llu of %llu GPU activities attributed to %zu launches (%zu "
               "stack frames kept, %.1f MB)",
               (unsigned long long)g->nemitted, (unsigned long long)g->nseen, g->nlaunches,
               g->tab.n, (double)gpu_bytes(g) / 1e6);
    return st;
}
