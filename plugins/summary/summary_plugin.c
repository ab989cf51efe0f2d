/* The summary writer: a readable report of a trace or profile. */
#include <stdlib.h>
#include <string.h>

#include "summary.h"

static const tconv_option_desc summary_options[] = {
    {"top", TCONV_OPT_INT, "10", "1..", "rows in each top-N table (operations, kernels, stacks)"},
    {"width", TCONV_OPT_INT, "100", "0|8..",
     "cut names longer than this many bytes (stacks: twice as many) with ...; 0: never"},
    {0},
};

static tconv_status summary_open(tconv_ctx *ctx, tconv_output *out, const tconv_options *opts,
                                 void **state)
{
    int64_t top = tconv_option_get_int(opts, "top");
    if (top < 1) {
        tconv_error_usage(ctx, "summary: top must be at least 1, not %lld", (long long)top);
        return TCONV_FATAL;
    }
    int64_t width = tconv_option_get_int(opts, "width");
    if (width < 0 || (width > 0 && width < 8)) {
        tconv_error_usage(ctx, "summary: width must be 0 or at least 8, not %lld",
                          (long long)width);
        return TCONV_FATAL;
    }
    summary *s = calloc(1, sizeof *s);
    if (!s) {
        tconv_error_set(ctx, "summary: out of memory");
        return TCONV_FATAL;
    }
    s->ctx = ctx;
    s->out = out;
    s->top = (size_t)top;
    s->width = (size_t)width;
    s->walk = tconv_spanwalk_new(ctx, TCONV_SPANWALK_ARGS | TCONV_SPANWALK_WORK_ONLY);
    csv_kineto_init(&s->kineto, ctx);
    s->ops = csv_ops_new(ctx, &s->kineto);
    s->kernels = csv_kernels_new(ctx, &s->kineto);
    csv_stacks_init(&s->stacks, ctx);
    summary_steps_init(&s->steps, ctx, &s->kineto);
    summary_gpu_init(&s->gpu, ctx, &s->kineto);
    *state = s;
    return TCONV_OK;
}

static tconv_status summary_event(void *state, const tconv_event *ev)
{
    summary_collect(state, ev);
    return TCONV_OK;
}

static tconv_status summary_finish(void *state)
{
    return summary_report(state);
}

static void summary_destroy(void *state)
{
    summary *s = state;
    if (!s) return;
    tconv_spanwalk_destroy(s->walk);
    csv_ops_free(s->ops);
    csv_kernels_free(s->kernels);
    csv_stacks_free(&s->stacks);
    summary_steps_free(&s->steps);
    summary_gpu_free(&s->gpu);
    csv_kineto_free(&s->kineto);
    free(s->tracks);
    free(s->cats);
    tconv_map_free(&s->cat_index);
    csv_buf_free(&s->buf);
    csv_buf_free(&s->tmp);
    free(s);
}

/* Args for device numbers and launch configurations; the correlation id ties device time to
 * its launch in the step breakdown. Metadata (track names, ranks) is read at the finish. */
static uint32_t summary_needs(const tconv_options *o)
{
    (void)o;
    return TCONV_NEED_ARGS | TCONV_NEED_CORR | TCONV_NEED_METADATA_APART;
}

static const tconv_writer_class summary_writer_class = {
    .struct_size = sizeof(tconv_writer_class),
    .name = "summary",
    .description = "readable report: span, tracks, top operations, time by category, GPU "
                   "utilisation, step breakdown, top stacks, recommendations",
    .options = summary_options,
    .accepts = TCONV_KINDS_ALL,
    /* Self times, the op tree and the step breakdown need each track ordered and nested. */
    .flags = TCONV_WRITER_ORDERED,
    .open = summary_open,
    .event = summary_event,
    .finish = summary_finish,
    .destroy = summary_destroy,
    .needs = summary_needs,
};

static const tconv_writer_class *const summary_writers[] = {&summary_writer_class, NULL};

static const tconv_plugin_desc summary_plugin = {
    .struct_size = sizeof(tconv_plugin_desc),
    .abi_major = TCONV_ABI_MAJOR,
    .abi_minor = TCONV_ABI_MINOR,
    .name = "summary",
    .version = TCONV_VERSION,
    .description = "Text report of a trace or profile",
    .writers = summary_writers,
};

TCONV_PLUGIN(summary_plugin)
