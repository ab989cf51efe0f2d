/* The html writer: one self-contained page (style, script and data inline, nothing fetched) with
 * the overview, operators, kernels and flame graph of a trace, as the summary, csv and
 * flamegraph writers compute them. */
#include <stdlib.h>
#include <string.h>

#include "flamegraph_colour.h"
#include "flamegraph_tree.h"
#include "html_writer.h"

static const tconv_option_desc html_options[] = {
    {"title", TCONV_OPT_STRING, NULL, NULL,
     "the page's heading and tab title (default: the input's file name)"},
    {"width", TCONV_OPT_INT, "1200", "400..100000", "width of the flame graph in pixels"},
    TCONV_STEPS_OPTION,
    {0},
};

static tconv_status html_open(tconv_ctx *ctx, tconv_output *out, const tconv_options *opts,
                              void **state)
{
    int64_t width = tconv_option_get_int(opts, "width");
    if (width < 400 || width > 100000) {
        tconv_error_usage(ctx, "html: width must be between 400 and 100000 pixels, not %lld",
                          (long long)width);
        return TCONV_FATAL;
    }
    html_writer *w = calloc(1, sizeof *w);
    const char *title =
        tconv_option_is_set(opts, "title") ? tconv_option_get_string(opts, "title") : NULL;
    if (!w || (title && !(w->title = strdup(title)))) {
        free(w);
        tconv_error_set(ctx, "html: out of memory");
        return TCONV_FATAL;
    }
    w->ctx = ctx;
    w->out = out;
    w->flame_width = (int)width;
    if (tconv_steps_merged(opts)) w->step_frames = tconv_steps_new(ctx);
    w->walk = tconv_spanwalk_new(ctx, TCONV_SPANWALK_ARGS);
    w->work = tconv_spanwalk_new(ctx, TCONV_SPANWALK_ARGS | TCONV_SPANWALK_WORK_ONLY);
    csv_kineto_init(&w->kineto, ctx);
    w->ops = csv_ops_new(ctx, &w->kineto);
    w->kernels = csv_kernels_new(ctx, &w->kineto);
    csv_stacks_init(&w->stacks, ctx);
    w->memory = csv_memory_new(ctx);
    summary_steps_init(&w->steps, ctx, &w->kineto);
    summary_gpu_init(&w->gpu, ctx, &w->kineto);
    *state = w;
    return TCONV_OK;
}

static void html_hue(html_writer *w, const tconv_span *s)
{
    if (tconv_map_get(&w->hue, s->name, 0) != TCONV_MAP_NONE) return;
    unsigned hue = flamegraph_colour_of_role(tconv_role_of_category(w->ctx, s->cat));
    tconv_map_put(&w->hue, s->name, 0, hue + 1);
}

/* The CPU flame graph is CPU time: a GPU stream's work is the GPU graph's. */
static int html_on_gpu(const html_writer *w, uint32_t track)
{
    const tconv_track *t = tconv_track_describe(w->ctx, track);
    return t && t->kind == TCONV_TRACK_GPU;
}

static tconv_status html_event(void *state, const tconv_event *ev)
{
    html_writer *w = state;
    if (ev->kind == TCONV_EV_METADATA) html_ranks_meta(w, ev);
    csv_memory_event(w->memory, ev);
    switch (tconv_spanwalk_event(w->walk, ev)) {
    case TCONV_WALK_BEGIN:
        csv_ops_begin(w->ops, w->walk);
        break;
    case TCONV_WALK_END:
        csv_ops_end(w->ops, tconv_spanwalk_span(w->walk));
        csv_kernels_end(w->kernels, tconv_spanwalk_span(w->walk));
        html_launch_span(w, tconv_spanwalk_span(w->walk));
        break;
    default:
        break;
    }
    switch (tconv_spanwalk_event(w->work, ev)) {
    case TCONV_WALK_BEGIN:
        if (!html_on_gpu(w, ev->track)) csv_stacks_span_begin(&w->stacks, w->work);
        break;
    case TCONV_WALK_END: {
        const tconv_span *s = tconv_spanwalk_span(w->work);
        if (!html_on_gpu(w, s->track)) csv_stacks_span_end(&w->stacks, s);
        summary_steps_span(&w->steps, s);
        summary_gpu_span(&w->gpu, s);
        html_hue(w, s);
        break;
    }
    case TCONV_WALK_HIDDEN:
        if (ev->kind == TCONV_EV_END) w->not_work++;
        break;
    case TCONV_WALK_POINT:
        if (ev->kind == TCONV_EV_SAMPLE && !html_on_gpu(w, ev->track))
            csv_stacks_sample(&w->stacks, ev);
        break;
    default:
        break;
    }
    return TCONV_OK;
}

static tconv_status html_finish(void *state)
{
    html_writer *w = state;
    if (w->not_work)
        tconv_note_show(w->ctx,
                        "html: %llu span%s that %s not work of %s thread left out of the step "
                        "times, GPU times and flame graph; --all-spans counts them",
                        (unsigned long long)w->not_work, w->not_work == 1 ? "" : "s",
                        w->not_work == 1 ? "is" : "are", w->not_work == 1 ? "its" : "their");
    csv_ops_finish(w->ops);
    html_launch_finish(w);
    summary_steps_finish(&w->steps);
    summary_gpu_finish(&w->gpu);
    html_flame_build(w);
    return html_page(w);
}

static void html_destroy(void *state)
{
    html_writer *w = state;
    if (!w) return;
    tconv_spanwalk_destroy(w->walk);
    tconv_spanwalk_destroy(w->work);
    csv_ops_free(w->ops);
    csv_kernels_free(w->kernels);
    csv_stacks_free(&w->stacks);
    csv_memory_free(w->memory);
    summary_steps_free(&w->steps);
    html_ranks_free(w);
    summary_gpu_free(&w->gpu);
    csv_kineto_free(&w->kineto);
    tconv_map_free(&w->hue);
    tconv_steps_destroy(w->step_frames);
    free(w->calls);
    free(w->kernel_ops);
    if (w->gpu_tree) flamegraph_tree_free(w->gpu_tree);
    if (w->cpu_tree) flamegraph_tree_free(w->cpu_tree);
    csv_buf_free(&w->page);
    csv_buf_free(&w->tmp);
    free(w->title);
    free(w);
}

/* Args for devices and launch configurations; correlation ids tie device time to launches. */
static uint32_t html_needs(const tconv_options *o)
{
    (void)o;
    return TCONV_NEED_ARGS | TCONV_NEED_CORR;
}

static const tconv_writer_class html_writer_class = {
    .struct_size = sizeof(tconv_writer_class),
    .name = "html",
    .description =
        "self-contained HTML report: overview, step breakdown and every step's time, GPU "
        "utilisation, advice, operators and kernels tables, CPU and GPU flame graphs, memory "
        "timeline, per-rank steps",
    .options = html_options,
    .accepts = TCONV_KINDS_ALL,
    /* Self times, the op tree and the step breakdown need each track ordered and nested. */
    .flags = TCONV_WRITER_ORDERED,
    .open = html_open,
    .event = html_event,
    .finish = html_finish,
    .destroy = html_destroy,
    .extensions = "html|htm",
    .needs = html_needs,
};

static const tconv_writer_class *const html_writers[] = {&html_writer_class, NULL};

static const tconv_plugin_desc html_plugin = {
    .struct_size = sizeof(tconv_plugin_desc),
    .abi_major = TCONV_ABI_MAJOR,
    .abi_minor = TCONV_ABI_MINOR,
    .name = "html",
    .version = TCONV_VERSION,
    .description = "self-contained HTML report of a trace",
    .writers = html_writers,
};

TCONV_PLUGIN(html_plugin)
