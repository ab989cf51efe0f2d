/* The csv writer: one RFC 4180 table per run, chosen with -W table=. */
#include <stdlib.h>
#include <string.h>

#include "csv_writer.h"

static const tconv_option_desc csv_options[] = {
    {"table", TCONV_OPT_ENUM, "events", "events|ops|kernels|stacks|memory|counters",
     "events: one row per event (spans with duration, self time and depth); ops: per operator "
     "calls, host and device time; kernels: per GPU kernel durations, launch configuration, "
     "occupancy; stacks: per distinct stack its values; memory: memory use over time "
     "(PyTorch [memory] events, memory counters); counters: counter values"},
    {"ops", TCONV_OPT_ENUM, "auto", "auto|pytorch|all",
     "ops table rows: pytorch: PyTorch operators (cpu_op/Operator) with the TensorBoard "
     "plugin's rules; all: every span by name and category; auto: pytorch when the input has "
     "operators"},
    {"eol", TCONV_OPT_ENUM, "crlf", "crlf|lf", "line end: CRLF as RFC 4180 says, or LF"},
    {0},
};

static csv_table csv_table_of(const char *s)
{
    static const char *const names[] = {"events", "ops", "kernels", "stacks", "memory", "counters"};
    for (size_t i = 0; i < sizeof names / sizeof *names; i++)
        if (strcmp(s, names[i]) == 0) return (csv_table)i;
    return CSV_TABLE_EVENTS;
}

static tconv_status csv_open(tconv_ctx *ctx, tconv_output *out, const tconv_options *opts,
                             void **state)
{
    csv_writer *w = calloc(1, sizeof *w);
    if (!w) {
        tconv_error_set(ctx, "csv: out of memory");
        return TCONV_FATAL;
    }
    w->ctx = ctx;
    w->out = out;
    w->table = csv_table_of(tconv_option_get_string(opts, "table"));
    w->eol = strcmp(tconv_option_get_string(opts, "eol"), "lf") == 0 ? "\n" : "\r\n";
    const char *mode = tconv_option_get_string(opts, "ops");
    w->ops_mode = strcmp(mode, "pytorch") == 0 ? CSV_OPS_PYTORCH
                  : strcmp(mode, "all") == 0   ? CSV_OPS_ALL
                                               : CSV_OPS_AUTO;
    /* The stacks table holds self times, which must agree with pprof's and folded's. */
    w->walk = tconv_spanwalk_new(
        ctx, TCONV_SPANWALK_ARGS | (w->table == CSV_TABLE_STACKS ? TCONV_SPANWALK_WORK_ONLY : 0));
    csv_kineto_init(&w->kineto, ctx);
    csv_stacks_init(&w->stacks, ctx);
    w->track_cached = UINT32_MAX;
    *state = w;
    switch (w->table) {
    case CSV_TABLE_EVENTS:
        return csv_events_header(w);
    case CSV_TABLE_OPS:
        w->ops = csv_ops_new(ctx, &w->kineto);
        return TCONV_OK;
    case CSV_TABLE_KERNELS:
        w->kernels = csv_kernels_new(ctx, &w->kineto);
        return TCONV_OK;
    case CSV_TABLE_STACKS:
        return TCONV_OK;
    case CSV_TABLE_MEMORY:
        w->memory = csv_memory_new(ctx);
        return TCONV_OK;
    case CSV_TABLE_COUNTERS:
        return csv_series_header(w);
    }
    return TCONV_OK;
}

/* The aggregate tables follow the span walker. */
static void csv_aggregate(csv_writer *w, const tconv_event *ev)
{
    tconv_walk_step step = tconv_spanwalk_event(w->walk, ev);
    if (step == TCONV_WALK_HIDDEN && ev->kind == TCONV_EV_END) w->not_work++;
    if (step == TCONV_WALK_BEGIN) {
        if (w->ops) csv_ops_begin(w->ops, w->walk);
        if (w->table == CSV_TABLE_STACKS) csv_stacks_span_begin(&w->stacks, w->walk);
    } else if (step == TCONV_WALK_END) {
        if (w->ops) csv_ops_end(w->ops, tconv_spanwalk_span(w->walk));
        if (w->kernels) csv_kernels_end(w->kernels, tconv_spanwalk_span(w->walk));
        if (w->table == CSV_TABLE_STACKS)
            csv_stacks_span_end(&w->stacks, tconv_spanwalk_span(w->walk));
    } else if (step == TCONV_WALK_POINT && ev->kind == TCONV_EV_SAMPLE &&
               w->table == CSV_TABLE_STACKS) {
        csv_stacks_sample(&w->stacks, ev);
    }
}

static tconv_status csv_event(void *state, const tconv_event *ev)
{
    csv_writer *w = state;
    switch (w->table) {
    case CSV_TABLE_EVENTS:
        return csv_events_event(w, ev);
    case CSV_TABLE_MEMORY:
        csv_memory_event(w->memory, ev);
        return TCONV_OK;
    case CSV_TABLE_COUNTERS:
        return csv_series_event(w, ev);
    default:
        csv_aggregate(w, ev);
        return TCONV_OK;
    }
}

static tconv_status csv_finish(void *state)
{
    csv_writer *w = state;
    switch (w->table) {
    case CSV_TABLE_EVENTS:
        return csv_events_finish(w);
    case CSV_TABLE_MEMORY:
        return csv_memory_write(w);
    case CSV_TABLE_COUNTERS:
        return csv_buf_flush(&w->row, w->out);
    default:
        if (w->not_work)
            tconv_note_show(w->ctx,
                            "csv: %llu span%s that %s not work of %s thread left out of the stacks "
                            "table; --all-spans counts them",
                            (unsigned long long)w->not_work, w->not_work == 1 ? "" : "s",
                            w->not_work == 1 ? "is" : "are", w->not_work == 1 ? "its" : "their");
        return csv_tables_write(w);
    }
}

static void csv_destroy(void *state)
{
    csv_writer *w = state;
    if (!w) return;
    csv_events_free(w);
    csv_memory_free(w->memory);
    csv_ops_free(w->ops);
    csv_kernels_free(w->kernels);
    csv_stacks_free(&w->stacks);
    csv_kineto_free(&w->kineto);
    tconv_spanwalk_destroy(w->walk);
    csv_buf_free(&w->row);
    csv_buf_free(&w->scratch);
    free(w);
}

/* Args for the events table and the kernels' launch configuration; the correlation id ties
 * device time to the launching op. */
static uint32_t csv_needs(const tconv_options *o)
{
    (void)o;
    return TCONV_NEED_ARGS | TCONV_NEED_CORR;
}

static const tconv_writer_class csv_writer_class = {
    .struct_size = sizeof(tconv_writer_class),
    .name = "csv",
    .description = "CSV tables (RFC 4180): events, PyTorch ops and kernels, stacks, memory, "
                   "counters (-W table=)",
    .options = csv_options,
    .accepts = TCONV_KINDS_ALL,
    /* Self time, depth and the op tree need each track time-ordered and nested. */
    .flags = TCONV_WRITER_ORDERED,
    .open = csv_open,
    .event = csv_event,
    .finish = csv_finish,
    .destroy = csv_destroy,
    .extensions = "csv",
    .needs = csv_needs,
};

static const tconv_writer_class *const csv_writers[] = {&csv_writer_class, NULL};

static const tconv_plugin_desc csv_plugin = {
    .struct_size = sizeof(tconv_plugin_desc),
    .abi_major = TCONV_ABI_MAJOR,
    .abi_minor = TCONV_ABI_MINOR,
    .name = "csv",
    .version = TCONV_VERSION,
    .description = "CSV tables for analysis: events, operators, kernels, stacks, memory",
    .writers = csv_writers,
};

TCONV_PLUGIN(csv_plugin)
