/* The otf2 writer: an OTF2 archive (traces.otf2, traces.def, traces/) for Vampir, otf2-print
 * and the Score-P tool chain. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "otf2_oom.h"
#include "otf2_reader.h"
#include "otf2_writer.h"

static const tconv_option_desc otf2_options[] = {
    {"args", TCONV_OPT_BOOL, "true", NULL,
     "write event args: span and flow args as OTF2 attributes, instant args as marker text"},
    {"flows", TCONV_OPT_ENUM, "parameters", "parameters|messages|none",
     "flows (launch -> kernel): Parameter records that name them, MPI messages (arrows in "
     "Vampir, counted as MPI traffic), or none"},
    {0}};

static tconv_status otf2_open(tconv_ctx *ctx, tconv_output *out, const tconv_options *opts,
                              void **state)
{
    otf2_state *st = calloc(1, sizeof(*st));
    if (!st) otf2_oom();
    st->ctx = ctx;
    st->out = out;
    st->opt_args = tconv_option_get_bool(opts, "args");
    const char *flows = tconv_option_get_string(opts, "flows");
    st->opt_flows = flows && strcmp(flows, "messages") == 0 ? OTF2W_FLOWS_MESSAGES
                    : flows && strcmp(flows, "none") == 0   ? OTF2W_FLOWS_NONE
                                                            : OTF2W_FLOWS_PARAMETERS;
    st->str_null = tconv_string_intern_cstr(ctx, "null");
    otf2_state_strings(st);
    otf2_error_install(st);
    *state = st;
    return TCONV_OK;
}

static tconv_status otf2_event(void *state, const tconv_event *ev)
{
    return otf2_collect_event(state, ev);
}

/* With -v: what the compact buffers cost, the number behind the writer's memory use. */
static void otf2_report_buffers(const otf2_state *st)
{
    uint64_t records = 0, bytes = st->markers.len;
    for (size_t t = 0; t < st->nlocs_cap; t++) {
        records += st->locs[t].nrec;
        bytes += st->locs[t].buf.len;
    }
    uint64_t flow_bytes = (uint64_t)st->nflows * (sizeof(otf2_flow) + sizeof(otf2_link) + 4);
    tconv_note(st->ctx,
               "otf2: %llu records and %llu markers buffered in %.1f MB (%.1f bytes each); %zu "
               "flow events paired with %.1f MB more",
               (unsigned long long)records, (unsigned long long)st->nmarkers, (double)bytes / 1e6,
               records + st->nmarkers ? (double)bytes / (double)(records + st->nmarkers) : 0.0,
               st->nflows, (double)flow_bytes / 1e6);
}

static tconv_status otf2_finish(void *state)
{
    otf2_state *st = state;
    if (tconv_ctx_verbosity(st->ctx) > 0) otf2_report_buffers(st);
    tconv_collective *c = tconv_ctx_collective(st->ctx);
    if (c) return otf2_unify_finish(st, c);
    otf2_collect_close_open(st);
    otf2_markers_drop_carried(st);
    otf2_regions_detect_hip(st);
    otf2_flows_pair(st);
    otf2_layout_build(st);
    if (!st->nlocations) {
        /* OTF2 readers refuse an archive without locations; say so rather than write one. */
        tconv_error_set(st->ctx, "otf2: the input holds nothing an OTF2 location can show (no "
                                 "spans, counters, flows or thread instants)");
        return TCONV_FATAL;
    }
    tconv_status s = otf2_archive_write(st);
    if (s == TCONV_OK) s = otf2_error_flush_warnings(st);
    return s;
}

void otf2_state_free(otf2_state *st)
{
    for (size_t t = 0; t < st->nlocs_cap; t++) {
        otf2_bytes_free(&st->locs[t].buf);
        free(st->locs[t].stack);
    }
    free(st->locs);
    free(st->regions);
    tconv_map_free(&st->region_map);
    free(st->series);
    tconv_map_free(&st->series_map);
    free(st->instances);
    tconv_map_free(&st->instance_map);
    free(st->attrs);
    tconv_map_free(&st->attr_map);
    free(st->attr_last);
    free(st->markdefs);
    tconv_map_free(&st->markdef_map);
    otf2_bytes_free(&st->markers);
    free(st->flows);
    tconv_map_free(&st->flow_class_map);
    free(st->links);
    free(st->chain);
    free(st->phase);
    tconv_map_free(&st->proc_map);
    tconv_map_free(&st->memts_map);
    free(st->inputs);
    tconv_map_free(&st->labels_map);
    otf2_bytes_free(&st->labels_log);
    free(st->groups);
    free(st->order);
    free(st->node_name_refs);
    free(st->node_class_refs);
    free(st->strref);
    free(st->strings);
    free(st->string_input);
    free(st->gtracks);
    free(st->grank);
    free(st->grank_has);
    if (st->xl) {
        free(st->xl->region);
        free(st->xl->attr);
        free(st->xl->string);
        free(st->xl->metric);
        free(st->xl->flow_tag);
        free(st->xl->metric_int);
        free(st->xl);
    }
    free(st);
}

static void otf2_destroy(void *state)
{
    otf2_error_uninstall();
    if (state) otf2_state_free(state);
}

/* Without args=true nothing reads them: spare the ordering stage their copies. Metadata is kept
 * per input and used at the finish (otf2_meta.c); the rest follows the order of the events,
 * whenever they come. In an MPI run each rank writes its own locations (otf2_unify.c). */
static uint32_t otf2_needs(const tconv_options *opts)
{
    return (tconv_option_get_bool(opts, "args") ? TCONV_NEED_ARGS : 0) | TCONV_NEED_METADATA_APART |
           TCONV_NEED_RANK_PARTS;
}

static const tconv_writer_class otf2_writer_class = {
    .struct_size = sizeof(tconv_writer_class),
    .name = "otf2",
    .description = "OTF2 trace archive (a directory) for Vampir, otf2-print and Score-P tools",
    .options = otf2_options,
    .accepts = TCONV_KINDS_SPANS | TCONV_KINDS_FLOWS | TCONV_KIND_BIT(TCONV_EV_INSTANT) |
               TCONV_KIND_BIT(TCONV_EV_COUNTER) | TCONV_KIND_BIT(TCONV_EV_METADATA),
    .flags = TCONV_WRITER_ORDERED | TCONV_WRITER_DIRECTORY,
    .open = otf2_open,
    .event = otf2_event,
    .finish = otf2_finish,
    .destroy = otf2_destroy,
    .needs = otf2_needs,
};

static const tconv_writer_class *const otf2_writers[] = {&otf2_writer_class, NULL};

static const tconv_reader_class *const otf2_readers[] = {&otf2_reader_class, NULL};

static const tconv_plugin_desc otf2_plugin = {
    .struct_size = sizeof(tconv_plugin_desc),
    .abi_major = TCONV_ABI_MAJOR,
    .abi_minor = TCONV_ABI_MINOR,
    .name = "otf2",
    .version = TCONV_VERSION,
    .description = "OTF2 reader and writer (Open Trace Format 2, OTF2 3.x)",
    .readers = otf2_readers,
    .writers = otf2_writers,
};

TCONV_PLUGIN(otf2_plugin)
