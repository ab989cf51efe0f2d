/* The firefox plugin: the Firefox Profiler's processed profile and Firefox's Gecko profile.
 *
 * A processed profile (meta.preprocessedProfileVersion) lists its threads in profile.threads
 * with the libraries in profile.libs (per thread before version 41) and the strings per thread
 * (stringArray; stringTable in old versions) or, from version 53, in profile.shared.stringArray.
 * A Gecko profile (meta.version) lists the parent process's threads and nests the other
 * processes in profile.processes, each with its own start time, libraries and threads; a
 * recording saved by Firefox's DevTools wraps it as {"profile": ...}. Times are milliseconds
 * from meta.startTime, the Unix time in ms, which becomes the input's time origin; a nested
 * process's times are moved by its start's distance from the root's, as the Firefox Profiler
 * moves them.
 *
 * Sample types: samples/count (a sample's weight when its weight type is "samples"), and as
 * the threads need them time/nanoseconds (weight type "tracing-ms"), space/bytes ("bytes"),
 * cpu/nanoseconds (threadCPUDelta in µs or ns). The default is the first of time, space and
 * samples present, what the Firefox Profiler's call tree shows. */
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "firefox_reader.h"
#include "jsondoc.h"

/* The newest processed format this reader was written for; newer ones are read the same way,
 * with a warning. */
#define FIREFOX_PROCESSED_KNOWN 56

typedef struct firefox_threads {
    firefox_thread *items;
    size_t n, cap;
} firefox_threads;

static double firefox_start_ms(json_t *profile)
{
    json_t *v = json_object_get(json_object_get(profile, "meta"), "startTime");
    return json_is_number(v) ? json_number_value(v) : 0;
}

static void firefox_add(firefox_threads *ts, json_t *profile, json_t *categories, int gecko,
                        int64_t offset_ns)
{
    json_t *threads = json_object_get(profile, "threads");
    json_t *libs = json_object_get(profile, "libs");
    for (size_t i = 0; i < json_array_size(threads); i++) {
        json_t *t = json_array_get(threads, i);
        if (!json_is_object(t)) continue;
        TCONV_ARRAY_GROW(ts->items, ts->cap, ts->n + 1);
        firefox_thread *th = &ts->items[ts->n];
        memset(th, 0, sizeof *th);
        th->obj = t;
        th->gecko = gecko;
        th->categories = categories;
        th->offset_ns = offset_ns;
        th->index = ts->n++;
        th->libs = json_is_array(json_object_get(t, "libs")) ? json_object_get(t, "libs") : libs;
        json_t *s = json_object_get(t, "stringArray");
        if (!json_is_array(s)) s = json_object_get(t, "stringTable");
        th->strings = json_is_array(s) ? s : NULL;
    }
}

/* A Gecko profile and its nested processes, depth first. */
static void firefox_add_gecko(firefox_threads *ts, json_t *profile, json_t *categories,
                              double root_ms, unsigned depth)
{
    json_t *cats = json_object_get(json_object_get(profile, "meta"), "categories");
    if (json_is_array(cats)) categories = cats;
    double start = firefox_start_ms(profile);
    double off = (start && root_ms ? start - root_ms : 0) * 1e6;
    firefox_add(ts, profile, categories, 1, fabs(off) < 4.6e18 ? llround(off) : 0);
    json_t *procs = json_object_get(profile, "processes");
    for (size_t i = 0; depth < 16 && i < json_array_size(procs); i++)
        firefox_add_gecko(ts, json_array_get(procs, i), categories, root_ms, depth + 1);
}

static int firefox_types(firefox_reader *r, const firefox_threads *ts, json_t *meta)
{
    int tracing = 0, bytes = 0, cpu = 0;
    json_t *units = json_object_get(meta, "sampleUnits");
    json_t *cu = json_object_get(units, "threadCPUDelta");
    const char *cpu_unit = json_is_string(cu) ? json_string_value(cu) : "";
    r->cpu_scale = strcmp(cpu_unit, "ns") == 0 ? 1 : strcmp(cpu_unit, "\xc2\xb5s") == 0 ? 1e3 : 0;
    for (size_t i = 0; i < ts->n; i++) {
        json_t *s = json_object_get(ts->items[i].obj, "samples");
        json_t *wt = json_object_get(s, "weightType");
        if (json_is_string(wt)) {
            tracing |= strcmp(json_string_value(wt), "tracing-ms") == 0;
            bytes |= strcmp(json_string_value(wt), "bytes") == 0;
        }
        firefox_table t;
        firefox_table_open(s, &t);
        cpu |= r->cpu_scale > 0 && firefox_table_col(&t, "threadCPUDelta").present && t.length;
    }
    tconv_sample_type types[4] = {{"samples", "count"}};
    r->nvalues = 1;
    r->v_samples = 0;
    r->v_time = r->v_bytes = r->v_cpu = -1;
    if (tracing) {
        r->v_time = (int)r->nvalues;
        types[r->nvalues++] = (tconv_sample_type){"time", "nanoseconds"};
    }
    if (bytes) {
        r->v_bytes = (int)r->nvalues;
        types[r->nvalues++] = (tconv_sample_type){"space", "bytes"};
    }
    if (cpu) {
        r->v_cpu = (int)r->nvalues;
        types[r->nvalues++] = (tconv_sample_type){"cpu", "nanoseconds"};
    }
    size_t def = tracing ? (size_t)r->v_time : bytes ? (size_t)r->v_bytes : 0;
    return tconv_sampletypes_set(r->ctx, r->nvalues, types, def);
}

static tconv_status firefox_origin(firefox_reader *r, double start_ms)
{
    if (!(start_ms > 0) || start_ms * 1e6 > 9e18) return TCONV_OK;
    char buf[32];
    snprintf(buf, sizeof buf, "%" PRId64, (int64_t)llround(start_ms * 1e6));
    tconv_event ev = TCONV_EVENT_INIT;
    ev.kind = TCONV_EV_METADATA;
    ev.track = tconv_track_get(r->ctx, r->s_empty, r->s_empty);
    ev.name = tconv_string_intern_cstr(r->ctx, "baseTimeNanoseconds");
    ev.text = tconv_string_intern_cstr(r->ctx, buf);
    return tconv_sink_push(r->sink, &ev) == TCONV_FATAL ? TCONV_FATAL : TCONV_OK;
}

static tconv_status firefox_doc(firefox_reader *r, json_t *doc)
{
    /* Firefox's DevTools save a recording as {"profile": <Gecko profile>, ...} */
    if (!json_object_get(doc, "meta") && json_is_object(json_object_get(doc, "profile")))
        doc = json_object_get(doc, "profile");
    json_t *meta = json_object_get(doc, "meta");
    json_t *pv = json_object_get(meta, "preprocessedProfileVersion");
    json_t *gv = json_object_get(meta, "version");
    if (!json_is_object(meta) || !json_is_array(json_object_get(doc, "threads")) ||
        (!json_is_integer(pv) && !json_is_integer(gv))) {
        tconv_error_set(r->ctx,
                        "%s: not a Firefox profile: no meta.preprocessedProfileVersion or "
                        "meta.version, or no threads",
                        r->name);
        return TCONV_FATAL;
    }
    firefox_threads ts = {0};
    json_t *cats = json_object_get(meta, "categories");
    if (json_is_integer(pv)) {
        if (json_integer_value(pv) > FIREFOX_PROCESSED_KNOWN)
            tconv_warning_add(r->ctx, "firefox.version",
                              "%s: processed profile version %" JSON_INTEGER_FORMAT
                              ", newer than the %d this reader knows; read as that one",
                              r->name, json_integer_value(pv), FIREFOX_PROCESSED_KNOWN);
        r->shared = json_object_get(doc, "shared");
        r->shared_strings = json_object_get(r->shared, "stringArray");
        firefox_add(&ts, doc, cats, 0, 0);
    } else {
        if (json_integer_value(gv) < 12)
            tconv_warning_add(r->ctx, "firefox.version",
                              "%s: Gecko profile version %" JSON_INTEGER_FORMAT
                              ", older than 12 (Firefox 63), the oldest this reader knows",
                              r->name, json_integer_value(gv));
        firefox_add_gecko(&ts, doc, cats, firefox_start_ms(doc), 0);
    }
    tconv_status st = TCONV_OK;
    if (firefox_types(r, &ts, meta) != 0) {
        tconv_error_set(r->ctx, "%s: cannot declare the sample types", r->name);
        st = TCONV_FATAL;
    }
    if (st == TCONV_OK) st = firefox_origin(r, firefox_start_ms(doc));
    for (size_t i = 0; st == TCONV_OK && i < ts.n; i++)
        st = firefox_thread_read(r, &ts.items[i]);
    free(ts.items);
    if (st == TCONV_OK && r->no_stack)
        tconv_warning_add(r->ctx, "firefox.no-stack",
                          "%s: %" PRIu64 " samples without a stack (the Firefox Profiler shows "
                          "them nowhere either); left out",
                          r->name, r->no_stack);
    return st;
}

static tconv_status firefox_read(tconv_ctx *ctx, tconv_input *in, const tconv_options *opts,
                                 tconv_sink *sink)
{
    (void)opts;
    firefox_reader r;
    memset(&r, 0, sizeof r);
    r.ctx = ctx;
    r.sink = sink;
    r.name = tconv_input_name(in);
    r.want_args = tconv_args_wanted(ctx);
    r.s_empty = tconv_string_intern(ctx, "", 0);
    r.s_thread_name = tconv_string_intern_cstr(ctx, "thread_name");
    r.s_process_name = tconv_string_intern_cstr(ctx, "process_name");
    json_t *doc = jsondoc_load(ctx, in);
    if (!doc) return TCONV_FATAL;
    tconv_status st = firefox_doc(&r, doc);
    json_decref(doc);
    free(r.frames);
    free(r.prefix);
    free(r.stack_frame);
    free(r.stack);
    free(r.args);
    return st;
}

const tconv_reader_class firefox_reader_class = {
    .struct_size = sizeof(tconv_reader_class),
    .name = "firefox",
    .description = "Firefox Profiler: processed profiles (profiler.firefox.com, samply) and "
                   "Gecko profiles (Firefox): samples with stacks, markers",
    .extensions = "json|json.gz",
    .probe = firefox_probe,
    .read = firefox_read,
};

static const tconv_reader_class *const firefox_readers[] = {&firefox_reader_class, NULL};

static const tconv_plugin_desc firefox_plugin = {
    .struct_size = sizeof(tconv_plugin_desc),
    .abi_major = TCONV_ABI_MAJOR,
    .abi_minor = TCONV_ABI_MINOR,
    .name = "firefox",
    .version = TCONV_VERSION,
    .description = "Firefox Profiler formats (processed and Gecko profiles) reader",
    .readers = firefox_readers,
};

TCONV_PLUGIN(firefox_plugin)
