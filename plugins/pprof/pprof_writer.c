/* The pprof writer: collects stack samples (from a stack reader, or made from spans by the
 * core's stack stage) into distinct stacks per track, and writes a gzipped pprof profile. */
#include "pprof_writer.h"
#include "pprof_reader.h"

#include <stdlib.h>
#include <string.h>

static const tconv_option_desc pprof_options[] = {
    {"labels", TCONV_OPT_ENUM, "all", "all|pid|none",
     "sample labels: all = pid, tid, thread, process, device on GPU streams (and the input's "
     "rank or position); pid = pid, process and device (and rank or position) only (threads "
     "of a process merge); none = no labels but step (all threads merge)"},
    {"root", TCONV_OPT_ENUM, "gpu", "gpu|all|none",
     "add the track's name as outermost frame: on GPU stream tracks, on every track, or never"},
    {"category", TCONV_OPT_ENUM, "file", "file|system|none",
     "where a frame's category goes: the function's filename (for frames without a source "
     "file), its system_name, or nowhere"},
    {"unit", TCONV_OPT_ENUM, "ns", "ns|us|ms|s",
     "unit of time-valued sample types (values are rounded to it)"},
    {"sample_type", TCONV_OPT_STRING, NULL, NULL,
     "the default sample type shown by pprof (e.g. samples, wall); default: the input's"},
    {"start", TCONV_OPT_INT, NULL, NULL,
     "keep only samples at or after this time (ns, the trace's clock; a span counts by its start)"},
    {"end", TCONV_OPT_INT, NULL, NULL, "keep only samples before this time (ns)"},
    {"track", TCONV_OPT_STRING, NULL, NULL,
     "keep only tracks matching one of these comma-separated globs, tried on \"pid/tid\", the "
     "thread name and the process name"},
    {"gpu", TCONV_OPT_ENUM, "off", "off|attribute",
     "attribute: charge each GPU kernel, copy and set to the CPU stack that launched it, as a "
     "third sample type gpu (go tool pprof -sample_index=gpu)"},
    TCONV_STEPS_OPTION,
    {0},
};

static void pprof_destroy(void *state)
{
    pprof_writer *w = state;
    if (!w) return;
    pprof_stacks_free(&w->stacks);
    pprof_agg_free(&w->agg);
    pprof_meta_free(&w->meta);
    free(w);
}

static tconv_status pprof_open(tconv_ctx *ctx, tconv_output *out, const tconv_options *opts,
                               void **state)
{
    pprof_writer *w = calloc(1, sizeof *w);
    if (!w) {
        tconv_error_set(ctx, "pprof: out of memory");
        return TCONV_FATAL;
    }
    w->ctx = ctx;
    w->out = out;
    pprof_stacks_init(&w->stacks);
    pprof_agg_init(&w->agg, 0);

    const char *labels = tconv_option_get_string(opts, "labels");
    w->labels = strcmp(labels, "none") == 0  ? PPROF_LABELS_NONE
                : strcmp(labels, "pid") == 0 ? PPROF_LABELS_PID
                                             : PPROF_LABELS_ALL;
    const char *root = tconv_option_get_string(opts, "root");
    w->root = strcmp(root, "all") == 0    ? PPROF_ROOT_ALL
              : strcmp(root, "none") == 0 ? PPROF_ROOT_NONE
                                          : PPROF_ROOT_GPU;
    const char *cat = tconv_option_get_string(opts, "category");
    w->category = strcmp(cat, "system") == 0 ? PPROF_CATEGORY_SYSTEM
                  : strcmp(cat, "none") == 0 ? PPROF_CATEGORY_NONE
                                             : PPROF_CATEGORY_FILE;
    const char *unit = tconv_option_get_string(opts, "unit");
    w->unit_div = 1;
    w->unit_name = "nanoseconds";
    if (strcmp(unit, "us") == 0) {
        w->unit_div = 1000;
        w->unit_name = "microseconds";
    } else if (strcmp(unit, "ms") == 0) {
        w->unit_div = 1000000;
        w->unit_name = "milliseconds";
    } else if (strcmp(unit, "s") == 0) {
        w->unit_div = 1000000000;
        w->unit_name = "seconds";
    }
    if (tconv_option_is_set(opts, "sample_type"))
        w->sample_type = tconv_option_get_string(opts, "sample_type");
    w->has_start = tconv_option_is_set(opts, "start");
    w->start = w->has_start ? tconv_option_get_int(opts, "start") : 0;
    w->has_end = tconv_option_is_set(opts, "end");
    w->end = w->has_end ? tconv_option_get_int(opts, "end") : 0;
    if (w->has_start && w->has_end && w->end <= w->start) {
        tconv_error_usage(ctx, "pprof: end=%lld must be after start=%lld", (long long)w->end,
                          (long long)w->start);
        pprof_destroy(w);
        return TCONV_FATAL;
    }
    w->steps_merged = tconv_steps_merged(opts);
    if (tconv_option_is_set(opts, "track")) {
        w->track_filter = tconv_option_get_string(opts, "track");
        if (!*w->track_filter) w->track_filter = NULL;
    }
    *state = w;
    return TCONV_OK;
}

/* The first sample fixes how many values every sample has. */
static void pprof_take_types(pprof_writer *w, const tconv_event *ev)
{
    size_t n = 0, def = 0;
    const tconv_sample_type *types = tconv_sampletypes_get(w->ctx, &n, &def);
    w->nvalues = (types && n) ? (uint32_t)n : ev->nvalues;
    if (w->nvalues == 0) w->nvalues = 1;
    pprof_agg_free(&w->agg);
    pprof_agg_init(&w->agg, w->nvalues);
    w->have_types = 1;
}

static tconv_status pprof_event(void *state, const tconv_event *ev)
{
    pprof_writer *w = state;
    if (ev->kind == TCONV_EV_METADATA) pprof_meta_event(&w->meta, w->ctx, ev);
    if (ev->kind != TCONV_EV_SAMPLE)
        return TCONV_OK; /* metadata: the core's track table already holds the rest */
    if ((w->has_start && ev->ts < w->start) || (w->has_end && ev->ts >= w->end)) return TCONV_OK;
    if (!w->have_types) pprof_take_types(w, ev);
    int64_t one = 1;
    const int64_t *values = ev->values;
    if (ev->nvalues == 0 && w->nvalues == 1) {
        values = &one; /* a bare sample counts once */
    } else if (ev->nvalues != w->nvalues || !ev->values) {
        tconv_warning_add(w->ctx, "pprof.bad-sample",
                          "a sample with %u values where %u sample types were declared; "
                          "sample dropped",
                          ev->nvalues, w->nvalues);
        return TCONV_OK;
    }
    uint32_t node = pprof_stacks_intern(&w->stacks, ev->frames, ev->frames ? ev->nframes : 0);
    if (node == PPROF_INDEX_NONE || pprof_agg_add(&w->agg, node, ev->track, values) != 0) {
        tconv_error_set(w->ctx, "pprof: out of memory");
        return TCONV_FATAL;
    }
    return TCONV_OK;
}

/* Samples carry frames and values only: readers need not build the args of spans. Samples are
 * summed per stack and track in their order; metadata events are ignored. */
static uint32_t pprof_needs(const tconv_options *opts)
{
    uint32_t n = TCONV_NEED_STACK_SUMS;
    if (strcmp(tconv_option_get_string(opts, "gpu"), "attribute") == 0)
        n |= TCONV_NEED_GPU_ATTRIBUTION;
    /* A time window looks at each sample's time, which summed samples do not keep. */
    if (tconv_option_is_set(opts, "start") || tconv_option_is_set(opts, "end"))
        n |= TCONV_NEED_EACH_SAMPLE;
    return n;
}

static tconv_status pprof_finish(void *state)
{
    return pprof_encode(state);
}

static const tconv_writer_class pprof_writer_class = {
    .struct_size = sizeof(tconv_writer_class),
    .name = "pprof",
    .description = "pprof profile (.pb.gz): self time per stack from spans, or stack samples",
    .options = pprof_options,
    .accepts = TCONV_KIND_BIT(TCONV_EV_SAMPLE) | TCONV_KIND_BIT(TCONV_EV_METADATA),
    .flags = TCONV_WRITER_BINARY,
    .open = pprof_open,
    .event = pprof_event,
    .finish = pprof_finish,
    .destroy = pprof_destroy,
    .extensions = "pb.gz|pprof",
    .needs = pprof_needs,
};

static const tconv_writer_class *const pprof_writers[] = {&pprof_writer_class, NULL};
static const tconv_reader_class *const pprof_readers[] = {&pprof_reader_class, NULL};

static const tconv_plugin_desc pprof_plugin = {
    .struct_size = sizeof(tconv_plugin_desc),
    .abi_major = TCONV_ABI_MAJOR,
    .abi_minor = TCONV_ABI_MINOR,
    .name = "pprof",
    .version = TCONV_VERSION,
    .description = "pprof profile reader and writer",
    .readers = pprof_readers,
    .writers = pprof_writers,
};

TCONV_PLUGIN(pprof_plugin)
