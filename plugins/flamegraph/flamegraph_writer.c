/* The writer takes what the folded writer takes and sums it the same way (the value the input
 * calls its default, or only the GPU time the core attributed to launching stacks with
 * -W value=gpu, under the same thread root frame with -W root), so that every frame's value is
 * the sum of the folded lines under it; a GPU stream's stacks (without -W root) sit under a frame
 * naming the stream, as in pprof, which the folded lines do not have. Names are kept as they are:
 * an SVG can hold ';' and line breaks, which the folded format cannot. With -W diff=true the first
 * input is the profile before and the second the one after, summed into the two columns of one
 * tree. */
#include "flamegraph_writer.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "flamegraph_colour.h"
#include "folded_root.h"
#include "flamegraph_oom.h"
#include "flamegraph_svg.h"
#include "flamegraph_tree.h"

typedef struct flamegraph_writer {
    tconv_ctx *ctx;
    tconv_output *out;
    flamegraph_svg_options svg;
    char *title;
    flamegraph_tree *tree;
    int mode_known;
    size_t vindex;
    int gpu;            /* -W value=gpu */
    int no_gpu;         /* ... and the input had no gpu sample type */
    int roles;          /* frames are spans (module = category): colour them by role */
    int root;           /* FOLDED_ROOT_*: a thread root frame on every stack */
    tconv_str *root_of; /* track -> its root frame's name, plus 1 */
    size_t rootcap;
    tconv_str *stream_of; /* GPU track -> its stream root frame's name (flamegraph_writer_stream) */
    size_t streamcap;
    tconv_str *names; /* one sample's stack */
    uint8_t *hues;
    size_t namecap, huecap;
    uint8_t *hue_of; /* category id -> colour class + 1 */
    size_t hueofcap;
    int overflowed;
    char unit_name[32]; /* the unit's name, copied: the next input's types replace the core's */
    tconv_steps *steps; /* -W steps=merge: the core's steps stage; NULL: keep */
} flamegraph_writer;

static tconv_status flamegraph_writer_open(tconv_ctx *ctx, tconv_output *out,
                                           const tconv_options *o, void **state)
{
    int64_t width = tconv_option_get_int(o, "width");
    if (width < 100 || width > 100000) {
        tconv_error_set(ctx, "flamegraph: width must be between 100 and 100000 pixels, not %lld",
                        (long long)width);
        return TCONV_FATAL;
    }
    double minwidth = tconv_option_get_double(o, "minwidth");
    if (!(minwidth >= 0)) {
        tconv_error_set(ctx, "flamegraph: minwidth must be 0 or more pixels, not %g", minwidth);
        return TCONV_FATAL;
    }
    if (tconv_option_is_set(o, "size") && !tconv_option_get_bool(o, "diff")) {
        tconv_error_usage(ctx, "flamegraph: -W size chooses a profile of a differential graph; "
                               "it needs -W diff=true");
        return TCONV_FATAL;
    }
    flamegraph_writer *w = flamegraph_alloc(1, sizeof(*w));
    w->ctx = ctx;
    w->out = out;
    w->gpu = strcmp(tconv_option_get_string(o, "value"), "gpu") == 0;
    w->svg.icicle = tconv_option_get_bool(o, "icicle");
    w->svg.width = (int)width;
    w->svg.minwidth = minwidth;
    w->svg.diff = tconv_option_get_bool(o, "diff");
    w->svg.size_before = strcmp(tconv_option_get_string(o, "size"), "before") == 0;
    w->root = folded_root_mode(tconv_option_get_string(o, "root"));
    const char *title = tconv_option_is_set(o, "title") ? tconv_option_get_string(o, "title")
                        : w->svg.diff && w->svg.icicle  ? "Differential Icicle Graph"
                        : w->svg.diff                   ? "Differential Flame Graph"
                        : w->svg.icicle                 ? "Icicle Graph"
                                                        : "Flame Graph";
    w->title = strdup(title);
    if (!w->title) flamegraph_oom(strlen(title) + 1);
    w->svg.title = w->title;
    w->tree = flamegraph_tree_new(tconv_string_intern_cstr(ctx, "all"), w->svg.diff);
    if (tconv_steps_merged(o)) w->steps = tconv_steps_new(ctx);
    *state = w;
    return TCONV_OK;
}

static void flamegraph_writer_mode_pick(flamegraph_writer *w);

/* Which value to show, as the folded writer chooses it. */
static void flamegraph_writer_mode(flamegraph_writer *w)
{
    flamegraph_writer_mode_pick(w);
    snprintf(w->unit_name, sizeof(w->unit_name), "%s", w->svg.unit.name);
    w->svg.unit.name = w->unit_name;
}

static void flamegraph_writer_mode_pick(flamegraph_writer *w)
{
    size_t n = 0, def = 0;
    const tconv_sample_type *types = tconv_sampletypes_get(w->ctx, &n, &def);
    w->mode_known = 1;
    w->svg.unit = flamegraph_value_unit(NULL, NULL);
    if (w->gpu) {
        size_t i = 0;
        while (i < n && !(types[i].type && strcmp(types[i].type, "gpu") == 0))
            i++;
        w->no_gpu = i == n;
        w->vindex = i;
        w->svg.unit = flamegraph_value_unit("gpu", "nanoseconds");
        w->roles = 1;
        return;
    }
    if (!types || !n) return;
    w->vindex = def < n ? def : 0;
    const tconv_sample_type *t = &types[w->vindex];
    w->svg.unit = flamegraph_value_unit(t->type, t->unit);
    /* the stack stage's samples: frames are spans, whose module is their category */
    w->roles =
        t->type && t->unit && strcmp(t->type, "wall") == 0 && strcmp(t->unit, "nanoseconds") == 0;
}

static uint8_t flamegraph_writer_hue(flamegraph_writer *w, const tconv_frame *f)
{
    if (!w->roles) return FLAMEGRAPH_HUE_HASH;
    w->hue_of = flamegraph_grow(w->hue_of, &w->hueofcap, (size_t)f->module + 1, 1);
    if (!w->hue_of[f->module])
        w->hue_of[f->module] =
            (uint8_t)(flamegraph_colour_of_role(tconv_role_of_category(w->ctx, f->module)) + 1);
    return (uint8_t)(w->hue_of[f->module] - 1);
}

static tconv_str flamegraph_writer_root(flamegraph_writer *w, uint32_t track)
{
    w->root_of = flamegraph_grow(w->root_of, &w->rootcap, (size_t)track + 1, sizeof(*w->root_of));
    if (!w->root_of[track]) w->root_of[track] = folded_root_name(w->ctx, track, w->root) + 1;
    return w->root_of[track] - 1;
}

/* A GPU stream's work under one frame naming its device and stream (folded_stream_root, as
 * pprof names it): kernels of different devices and streams stay apart, and none sits at the
 * root beside the CPU's stacks. 0 for other tracks. */
static tconv_str flamegraph_writer_stream(flamegraph_writer *w, uint32_t track)
{
    const tconv_track *t = tconv_track_describe(w->ctx, track);
    if (!t || t->kind != TCONV_TRACK_GPU) return 0;
    w->stream_of =
        flamegraph_grow(w->stream_of, &w->streamcap, (size_t)track + 1, sizeof(*w->stream_of));
    if (!w->stream_of[track]) w->stream_of[track] = folded_stream_root(w->ctx, track);
    return w->stream_of[track];
}

static tconv_status flamegraph_writer_event(void *state, const tconv_event *ev)
{
    flamegraph_writer *w = state;
    if (ev->kind != TCONV_EV_SAMPLE) return TCONV_OK;
    if (!w->mode_known) flamegraph_writer_mode(w);
    int64_t v = w->vindex < ev->nvalues ? ev->values[w->vindex] : 1;
    if (w->gpu && (w->no_gpu || w->vindex >= ev->nvalues)) return TCONV_OK;
    /* a frame has no width without value, and a sample without frames has no place */
    if (v <= 0 || !ev->nframes) return TCONV_OK;
    /* a third input makes finish() fail; its samples need not be summed meanwhile */
    if (w->svg.diff && ev->input > 1) return TCONV_OK;
    tconv_str stream = w->root == FOLDED_ROOT_NONE ? flamegraph_writer_stream(w, ev->track) : 0;
    size_t n = ev->nframes + (w->root != FOLDED_ROOT_NONE || stream), k = 0;
    w->names = flamegraph_grow(w->names, &w->namecap, n, sizeof(*w->names));
    w->hues = flamegraph_grow(w->hues, &w->huecap, n, 1);
    if (w->root != FOLDED_ROOT_NONE) {
        w->names[k] = flamegraph_writer_root(w, ev->track);
        w->hues[k++] = FLAMEGRAPH_HUE_HASH;
    } else if (stream) {
        w->names[k] = stream;
        w->hues[k++] = FLAMEGRAPH_HUE_STREAM;
    }
    for (uint32_t i = 0; i < ev->nframes; i++, k++) {
        w->names[k] = ev->frames[i].name;
        if (w->steps) tconv_steps_name(w->steps, w->names[k], &w->names[k], NULL);
        w->hues[k] = flamegraph_writer_hue(w, &ev->frames[i]);
    }
    /* the first column sizes the frames: after (input 1), or before (input 0) with size=before */
    int other = w->svg.diff && (ev->input == 1) == w->svg.size_before;
    if (flamegraph_tree_add(w->tree, w->names, w->hues, n, v, other) && !w->overflowed) {
        w->overflowed = 1;
        tconv_warning_add(w->ctx, "flamegraph.overflow",
                          "a frame's summed value does not fit in 64 bits; drawn saturated");
    }
    return TCONV_OK;
}

static tconv_status flamegraph_writer_finish(void *state)
{
    flamegraph_writer *w = state;
    if (!w->mode_known) flamegraph_writer_mode(w);
    /* Only now is the number of inputs known; failing here leaves no output behind. */
    uint32_t inputs = tconv_ctx_input_count(w->ctx);
    if (w->svg.diff && inputs != 2) {
        tconv_error_usage(w->ctx,
                          "flamegraph: -W diff=true compares two inputs, before and after, "
                          "but %u %s given",
                          inputs, inputs == 1 ? "was" : "were");
        tconv_error_hint(w->ctx, "tconv -o diff.svg -W diff=true before.json.gz after.json.gz");
        return TCONV_FATAL;
    }
    return flamegraph_svg_write(w->ctx, w->out, w->tree, &w->svg);
}

static void flamegraph_writer_destroy(void *state)
{
    flamegraph_writer *w = state;
    if (!w) return;
    flamegraph_tree_free(w->tree);
    tconv_steps_destroy(w->steps);
    free(w->names);
    free(w->hues);
    free(w->hue_of);
    free(w->root_of);
    free(w->stream_of);
    free(w->title);
    free(w);
}

static const tconv_option_desc flamegraph_writer_options[] = {
    {"value", TCONV_OPT_ENUM, "cpu", "cpu|gpu",
     "cpu: self time of spans (or the samples' own value); gpu: only GPU kernels, copies and "
     "sets, each on the CPU stack that launched it, ending in a '[gpu] name' frame"},
    {"icicle", TCONV_OPT_BOOL, "false", NULL, "draw the root at the top, stacks growing down"},
    {"title", TCONV_OPT_STRING, NULL, NULL,
     "the graph's title (default: Flame Graph, or Icicle Graph)"},
    {"width", TCONV_OPT_INT, "1200", NULL, "width of the image in pixels (100 to 100000)"},
    {"minwidth", TCONV_OPT_DOUBLE, "0.1", NULL,
     "leave out frames narrower than this many pixels (their time stays in their parents); "
     "0 keeps every frame"},
    {"root", TCONV_OPT_ENUM, "none", FOLDED_ROOT_VALUES,
     "add a root frame naming the thread, as the folded writer's -W root: comm, comm-PID or "
     "comm-PID/TID"},
    {"diff", TCONV_OPT_BOOL, "false", NULL,
     "differential graph of two inputs, before then after: frames coloured by how their own "
     "time changed (red: grew, blue: shrank), as difffolded.pl with flamegraph.pl"},
    {"size", TCONV_OPT_ENUM, "after", "after|before",
     "with diff=true: which profile the frames' widths show (before shows the frames the "
     "after profile lost)"},
    TCONV_STEPS_OPTION,
    {0},
};

/* Samples carry frames and values only: readers need not build the args of spans. */
static uint32_t flamegraph_writer_needs(const tconv_options *o)
{
    return strcmp(tconv_option_get_string(o, "value"), "gpu") == 0 ? TCONV_NEED_GPU_ATTRIBUTION : 0;
}

const tconv_writer_class flamegraph_writer_class = {
    .struct_size = sizeof(tconv_writer_class),
    .name = "flamegraph",
    .description = "interactive flame graph (SVG): frames sized by self time or samples, zoom, "
                   "search; differential (two inputs) with -W diff=true",
    .options = flamegraph_writer_options,
    .accepts = TCONV_KIND_BIT(TCONV_EV_SAMPLE) | TCONV_KIND_BIT(TCONV_EV_METADATA),
    .flags = 0,
    .open = flamegraph_writer_open,
    .event = flamegraph_writer_event,
    .finish = flamegraph_writer_finish,
    .destroy = flamegraph_writer_destroy,
    .extensions = "svg",
    .needs = flamegraph_writer_needs,
};
