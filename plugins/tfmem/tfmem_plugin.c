/* The tfmem plugin: its descriptor, options and the walk over a memory profile's allocators. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tfmem_num.h"
#include "tfmem_probe.h"
#include "tfmem_reader.h"
#include "tfmem_run.h"

/* The newest layout this reader knows: version 1 added sampledTimelineSnapshots. */
enum { TFMEM_KNOWN_VERSION = 1 };

static const tconv_option_desc tfmem_options[] = {
    {"strict", TCONV_OPT_BOOL, "false", NULL,
     "stop with an error at a malformed snapshot or value (no time, a byte count that is not a "
     "number, ...) instead of skipping it with a counted warning"},
    {"activities", TCONV_OPT_ENUM, "instant", "instant|span|none",
     "each memory activity (allocation, deallocation, ...) as an instant, as a span lasting "
     "until the allocator's next snapshot, or left out (counters only)"},
    {"max-bytes", TCONV_OPT_INT, "536870912", "1..",
     "the largest document read (bytes, decompressed); a profile is loaded whole and takes "
     "about 8 times its size in memory"},
    {"time-offset", TCONV_OPT_INT, "0", NULL,
     "nanoseconds added to every time; timeOffsetPs counts from the start of the profiling "
     "session, as the trace's timestamps do"},
    {"host", TCONV_OPT_STRING, NULL, NULL,
     "the profiled host's name (default: <host> of <host>.memory_profile.json[.gz])"},
    {"merge-runs", TCONV_OPT_BOOL, "false", NULL,
     "accept memory profiles from more than one profiler run folder in one conversion"},
    {0},
};

tconv_status tfmem_push(tfmem_reader *r, const tconv_event *ev)
{
    return tconv_sink_push(r->sink, ev) == TCONV_FATAL ? TCONV_FATAL : TCONV_OK;
}

static void tfmem_names_init(tfmem_reader *r)
{
    tconv_ctx *ctx = r->ctx;
    tfmem_names *n = &r->n;
    n->memory = tconv_string_intern_cstr(ctx, "memory");
    for (size_t i = 0; i < TFMEM_NSTATS; i++) {
        n->series[i] = tconv_string_intern_cstr(ctx, tfmem_stats[i].series);
        n->stat_key[i] = tconv_string_intern_cstr(ctx, tfmem_stats[i].field);
    }
    for (size_t i = 0; i < TFMEM_NMETA; i++)
        n->meta_key[i] = tconv_string_intern_cstr(ctx, tfmem_meta[i].field);
    n->bytes = tconv_string_intern_cstr(ctx, "bytes");
    n->ratio = tconv_string_intern_cstr(ctx, "ratio");
    n->peak = tconv_string_intern_cstr(ctx, "peak");
    n->summary_lifetime = tconv_string_intern_cstr(ctx, "peakBytesUsageLifetime");
    n->summary_capacity = tconv_string_intern_cstr(ctx, "memoryCapacity");
    n->active_allocations = tconv_string_intern_cstr(ctx, "activeAllocations");
}

static int tfmem_cmp_str(const void *a, const void *b)
{
    return strcmp(*(const char *const *)a, *(const char *const *)b);
}

/* The allocators in track order: memoryIds first (the profiler lists the allocators that have
 * snapshots there, sorted), then any other, sorted by name. */
static tconv_status tfmem_allocator_order(tfmem_reader *r, json_t *doc, json_t *per,
                                          const char ***out, size_t *count)
{
    size_t cap = json_object_size(per), n = 0;
    const char **v = malloc((cap ? cap : 1) * sizeof(*v));
    if (!v) {
        tconv_error_set(r->ctx, "%s: out of memory", r->name);
        return TCONV_FATAL;
    }
    json_t *ids = json_object_get(doc, "memoryIds");
    if (ids && !json_is_null(ids) && !json_is_array(ids)) {
        tfmem_where w = {NULL, NULL, 0, "memoryIds"};
        if (tfmem_bad(r, "tfmem.bad-member", &w,
                      "expected an array of allocator names, found %s; ignored",
                      tfmem_num_kind(ids)) == TCONV_FATAL)
            goto fatal;
    }
    for (size_t i = 0; json_is_array(ids) && i < json_array_size(ids); i++) {
        json_t *id = json_array_get(ids, i);
        tfmem_where w = {NULL, "memoryIds", i, NULL};
        const char *name = json_string_value(id);
        tconv_status st = TCONV_OK;
        if (!name)
            st = tfmem_bad(r, "tfmem.bad-member", &w,
                           "expected an allocator name, found %s; ignored", tfmem_num_kind(id));
        else if (!json_object_get(per, name))
            st =
                tfmem_bad(r, "tfmem.unknown-memory-id", &w,
                          "\"%s\" is not an allocator of memoryProfilePerAllocator; ignored", name);
        if (st == TCONV_FATAL) goto fatal;
        int seen = 0;
        for (size_t k = 0; name && st == TCONV_OK && k < n; k++)
            seen |= strcmp(v[k], name) == 0;
        if (name && st == TCONV_OK && !seen) v[n++] = name;
    }
    size_t listed = n;
    const char *key;
    json_t *val;
    json_object_foreach(per, key, val)
    {
        int seen = 0;
        for (size_t k = 0; k < listed; k++)
            seen |= strcmp(v[k], key) == 0;
        if (!seen) v[n++] = key;
    }
    qsort(v + listed, n - listed, sizeof(*v), tfmem_cmp_str);
    *out = v;
    *count = n;
    return TCONV_OK;
fatal:
    free(v);
    return TCONV_FATAL;
}

static tconv_status tfmem_meta_event(tfmem_reader *r, uint32_t track, const char *what,
                                     tconv_str text)
{
    tconv_event ev = TCONV_EVENT_INIT;
    ev.kind = TCONV_EV_METADATA;
    ev.track = track;
    ev.name = tconv_string_intern_cstr(r->ctx, what);
    ev.text = text;
    return tfmem_push(r, &ev);
}

static tconv_status tfmem_version(tfmem_reader *r, json_t *doc)
{
    char shown[64];
    json_t *v = json_object_get(doc, "version");
    int64_t version = 0;
    tfmem_where w = {NULL, NULL, 0, "version"};
    tfmem_num_status ns = tfmem_num_int64(v, &version);
    if (ns == TFMEM_NUM_BAD)
        return tfmem_bad(r, "tfmem.bad-number", &w, "%s is not a version number; read as version 0",
                         tfmem_num_show(v, shown, sizeof(shown)));
    if (version > TFMEM_KNOWN_VERSION)
        return tfmem_bad(r, "tfmem.version", &w,
                         "version %lld is newer than this reader knows (%d); read as version %d",
                         (long long)version, TFMEM_KNOWN_VERSION, TFMEM_KNOWN_VERSION);
    return TCONV_OK;
}

static tconv_status tfmem_allocators(tfmem_reader *r, json_t *doc, json_t *per)
{
    const char **order = NULL;
    size_t n = 0;
    if (tfmem_allocator_order(r, doc, per, &order, &n) == TCONV_FATAL) return TCONV_FATAL;
    uint32_t *tracks = malloc((n ? n : 1) * sizeof(*tracks));
    if (!tracks) {
        free(order);
        tconv_error_set(r->ctx, "%s: out of memory", r->name);
        return TCONV_FATAL;
    }
    tconv_status st = TCONV_OK;
    size_t used = 0;
    for (size_t i = 0; i < n && st != TCONV_FATAL; i++) {
        json_t *profile = json_object_get(per, order[i]);
        if (!json_is_object(profile)) {
            tfmem_where w = {order[i], NULL, 0, NULL};
            st = tfmem_bad(r, "tfmem.bad-allocator", &w,
                           "an allocator's profile is an object, found %s; allocator left out",
                           tfmem_num_kind(profile));
            continue;
        }
        order[used] = order[i];
        tracks[used++] =
            tconv_track_get(r->ctx, r->pid, tconv_string_intern_cstr(r->ctx, order[i]));
    }
    if (used) tfmem_run_track(r->ctx, r->index, tracks[0]);
    /* Names first, so that every writer knows the tracks before their events. */
    if (used && st != TCONV_FATAL) {
        char pname[512];
        if (r->host)
            snprintf(pname, sizeof(pname), "%s memory", tconv_string_get(r->ctx, r->host));
        else
            snprintf(pname, sizeof(pname), "memory");
        st =
            tfmem_meta_event(r, tracks[0], "process_name", tconv_string_intern_cstr(r->ctx, pname));
    }
    for (size_t i = 0; i < used && st != TCONV_FATAL; i++) {
        st = tfmem_meta_event(r, tracks[i], "thread_name",
                              tconv_string_intern_cstr(r->ctx, order[i]));
        if (st != TCONV_FATAL && r->host) st = tfmem_meta_event(r, tracks[i], "host", r->host);
    }
    for (size_t i = 0; i < used && st != TCONV_FATAL; i++) {
        json_t *profile = json_object_get(per, order[i]);
        st = tfmem_emit_snapshots(r, tracks[i], order[i], profile);
        if (st != TCONV_FATAL) st = tfmem_emit_peak(r, tracks[i], order[i], profile);
    }
    free(tracks);
    free(order);
    return st == TCONV_FATAL ? TCONV_FATAL : TCONV_OK;
}

/* Where a top-level member's name starts in the text, for errors about its value. */
static uint64_t tfmem_key_offset(const char *text, size_t len, const char *quoted_key)
{
    size_t n = strlen(quoted_key);
    for (size_t i = 0; i + n <= len; i++)
        if (text[i] == '"' && memcmp(text + i, quoted_key, n) == 0) return i;
    return 0;
}

/* The top-level members this reader needs; NULL with a positioned error when they are not
 * there. */
static json_t *tfmem_allocator_map(tfmem_reader *r, json_t *doc, const char *text, size_t len)
{
    if (!json_is_object(doc)) {
        size_t at = strspn(text, " \t\r\n");
        tconv_error_at(r->ctx, r->name, at,
                       "expected a JSON object (a TensorFlow memory profile), found %s",
                       tfmem_num_kind(doc));
        return NULL;
    }
    json_t *per = json_object_get(doc, "memoryProfilePerAllocator");
    if (!per) {
        tconv_error_at(r->ctx, r->name, len,
                       "the object has no \"memoryProfilePerAllocator\" member; expected a "
                       "TensorFlow memory profile (memory_profile.proto as JSON)");
        return NULL;
    }
    if (!json_is_object(per)) {
        tconv_error_at(r->ctx, r->name,
                       tfmem_key_offset(text, len, "\"memoryProfilePerAllocator\""),
                       "\"memoryProfilePerAllocator\" is %s; expected an object mapping each "
                       "allocator's name to its profile",
                       tfmem_num_kind(per));
        return NULL;
    }
    return per;
}

static tconv_status tfmem_read(tconv_ctx *ctx, tconv_input *in, const tconv_options *opts,
                               tconv_sink *sink)
{
    tfmem_reader r = {0};
    r.ctx = ctx;
    r.sink = sink;
    r.name = tconv_input_name(in);
    r.strict = tconv_option_get_bool(opts, "strict");
    r.offset_ns = tconv_option_get_int(opts, "time-offset");
    /* Beyond 2^62 ns (146 years) a time plus the offset could overflow int64. */
    if (r.offset_ns <= -((int64_t)1 << 62) || r.offset_ns >= (int64_t)1 << 62) {
        tconv_error_usage(ctx,
                          "tfmem: -R time-offset=%lld is out of range (at most 2^62 ns, 146 "
                          "years, either way)",
                          (long long)r.offset_ns);
        return TCONV_FATAL;
    }
    const char *act = tconv_option_get_string(opts, "activities");
    r.activities = act && strcmp(act, "span") == 0   ? TFMEM_ACT_SPAN
                   : act && strcmp(act, "none") == 0 ? TFMEM_ACT_NONE
                                                     : TFMEM_ACT_INSTANT;
    r.index = tconv_input_index(in);
    int is_file = strcmp(r.name, "<stdin>") != 0;
    const char *given = tconv_option_get_string(opts, "host");
    char *host = given && *given ? strdup(given) : is_file ? tfmem_run_host(r.name) : NULL;
    if (host) r.host = tconv_string_intern_cstr(ctx, host);
    r.pid = host ? r.host : tconv_string_intern_cstr(ctx, "memory");
    tconv_status st = TCONV_OK;
    if (is_file && host)
        st = tfmem_run_check(ctx, r.name, host, r.index, tconv_option_get_bool(opts, "merge-runs"));
    free(host);
    if (st != TCONV_OK) return TCONV_FATAL;
    char *text;
    size_t len;
    json_t *doc =
        tfmem_load(ctx, in, (uint64_t)tconv_option_get_int(opts, "max-bytes"), &text, &len);
    if (!doc) return TCONV_FATAL;
    json_t *per = tfmem_allocator_map(&r, doc, text, len);
    /* Only errors about the top level need the text; the tree is several times its size. */
    free(text);
    tfmem_names_init(&r);
    st = per ? tfmem_version(&r, doc) : TCONV_FATAL;
    if (st != TCONV_FATAL) st = tfmem_allocators(&r, doc, per);
    json_decref(doc);
    return st == TCONV_FATAL ? TCONV_FATAL : TCONV_OK;
}

static const tconv_reader_class tfmem_reader_class = {
    .struct_size = sizeof(tconv_reader_class),
    .name = "tfmem",
    .description = "TensorFlow profiler memory profile (<host>.memory_profile.json[.gz])",
    .extensions = "memory_profile.json|memory_profile.json.gz",
    .options = tfmem_options,
    .probe = tfmem_probe,
    .read = tfmem_read,
};

static const tconv_reader_class *const tfmem_readers[] = {&tfmem_reader_class, NULL};

static const tconv_plugin_desc tfmem_plugin = {
    .struct_size = sizeof(tconv_plugin_desc),
    .abi_major = TCONV_ABI_MAJOR,
    .abi_minor = TCONV_ABI_MINOR,
    .name = "tfmem",
    .version = TCONV_VERSION,
    .description = "TensorFlow memory profiles: allocator counters and memory activities",
    .readers = tfmem_readers,
};

TCONV_PLUGIN(tfmem_plugin)
