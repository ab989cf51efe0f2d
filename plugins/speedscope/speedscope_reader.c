/* Reads speedscope's file format (schema 0.x and 1.x): a document of profiles that index one
 * table of frames, shared.frames. A sampled profile (stacks, root first, and their weights)
 * becomes stack samples; an evented one (open and close events of frames) becomes spans. Each
 * profile is a track of its own (pid "", tid its index) named after the profile.
 *
 * Sample types: samples/count (1 per sample) and one per kind of unit the sampled profiles use:
 * time/nanoseconds for the time units, space/bytes, weight/count for "none"; the default is
 * that of the profile the document shows first (activeProfileIndex). A sampled profile has no
 * times: a sample's time is the profile's start plus the weights before it when the unit is a
 * time, as speedscope's time-order view lays them out, and 0 otherwise. */
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "jsondoc.h"
#include "speedscope.h"

enum { SPEEDSCOPE_NCLASS = 3 };

typedef struct speedscope_reader {
    tconv_ctx *ctx;
    tconv_sink *sink;
    const char *name;
    tconv_frame *frames; /* shared.frames */
    size_t nframes;
    tconv_frame *stack;
    size_t stack_cap;
    int want_args;
    /* the value index of each class of unit (0 is samples/count), -1 when unused */
    int value_of[SPEEDSCOPE_NCLASS];
    size_t nvalues;
    tconv_str s_empty, s_file, s_line, s_thread_name, s_process_name;
} speedscope_reader;

static const tconv_sample_type speedscope_types[SPEEDSCOPE_NCLASS] = {
    [SPEEDSCOPE_TIME] = {"time", "nanoseconds"},
    [SPEEDSCOPE_BYTES] = {"space", "bytes"},
    [SPEEDSCOPE_NONE] = {"weight", "count"},
};

/* An error about profile `profile` (0-based) of the document; jansson keeps no offsets of
 * values, so the profile and the element name the place. */
static void speedscope_reader_fail(speedscope_reader *r, size_t profile, const char *fmt, ...)
    TCONV_PRINTF(3, 4);
static void speedscope_reader_fail(speedscope_reader *r, size_t profile, const char *fmt, ...)
{
    char what[256];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(what, sizeof what, fmt, ap);
    va_end(ap);
    tconv_error_set(r->ctx, "%s: profile %zu: %s", r->name, profile + 1, what);
}

/* A finite number within ±2^62 once scaled: int64 nanoseconds with room for sums. */
static int speedscope_reader_num(json_t *v, double scale, int64_t *out)
{
    if (!json_is_number(v)) return -1;
    double d = json_number_value(v) * scale;
    if (!isfinite(d) || fabs(d) > 4.6e18) return -1;
    *out = llround(d);
    return 0;
}

static const char *speedscope_reader_text(json_t *obj, const char *key)
{
    json_t *v = json_object_get(obj, key);
    return json_is_string(v) ? json_string_value(v) : NULL;
}

static tconv_str speedscope_reader_intern(speedscope_reader *r, json_t *v)
{
    return tconv_string_intern(r->ctx, json_string_value(v), json_string_length(v));
}

static int speedscope_reader_frames(speedscope_reader *r, json_t *doc)
{
    json_t *shared = json_object_get(doc, "shared");
    json_t *frames = json_object_get(shared, "frames");
    if (!json_is_array(frames)) {
        tconv_error_set(r->ctx, "%s: no shared.frames array; not a speedscope file", r->name);
        return -1;
    }
    r->nframes = json_array_size(frames);
    r->frames = tconv_array_alloc(r->nframes ? r->nframes : 1, sizeof *r->frames);
    for (size_t i = 0; i < r->nframes; i++) {
        json_t *f = json_array_get(frames, i);
        json_t *name = json_object_get(f, "name");
        if (!json_is_string(name)) {
            tconv_error_set(r->ctx, "%s: shared.frames[%zu] has no name", r->name, i);
            return -1;
        }
        r->frames[i].name = speedscope_reader_intern(r, name);
        json_t *file = json_object_get(f, "file"), *line = json_object_get(f, "line");
        if (json_is_string(file)) r->frames[i].file = speedscope_reader_intern(r, file);
        if (json_is_integer(line) && json_integer_value(line) > 0 &&
            json_integer_value(line) <= UINT32_MAX)
            r->frames[i].line = (uint32_t)json_integer_value(line);
    }
    return 0;
}

/* The sample types: samples/count, then one per class of unit in order of first use. */
static int speedscope_reader_types(speedscope_reader *r, json_t *profiles, json_t *active)
{
    tconv_sample_type types[1 + SPEEDSCOPE_NCLASS] = {{"samples", "count"}};
    for (int c = 0; c < SPEEDSCOPE_NCLASS; c++)
        r->value_of[c] = -1;
    r->nvalues = 1;
    size_t def = 0, act = json_is_integer(active) ? (size_t)json_integer_value(active) : 0;
    int have_def = 0;
    for (size_t i = 0; i < json_array_size(profiles); i++) {
        json_t *p = json_array_get(profiles, i);
        const char *type = speedscope_reader_text(p, "type");
        speedscope_class cls;
        double scale;
        if (!type || strcmp(type, "sampled") != 0 ||
            speedscope_unit(speedscope_reader_text(p, "unit"), &cls, &scale) != 0)
            continue;
        if (r->value_of[cls] < 0) {
            r->value_of[cls] = (int)r->nvalues;
            types[r->nvalues++] = speedscope_types[cls];
        }
        if (!have_def || i == act) def = (size_t)r->value_of[cls];
        have_def = 1;
    }
    if (r->nvalues == 1) return 0; /* no sampled profile: the spans' types are the core's */
    return tconv_sampletypes_set(r->ctx, r->nvalues, types, def);
}

static tconv_status speedscope_reader_meta(speedscope_reader *r, uint32_t track, tconv_str what,
                                           const char *text)
{
    tconv_event ev = TCONV_EVENT_INIT;
    ev.kind = TCONV_EV_METADATA;
    ev.track = track;
    ev.name = what;
    ev.text = tconv_string_intern_cstr(r->ctx, text);
    return tconv_sink_push(r->sink, &ev) == TCONV_FATAL ? TCONV_FATAL : TCONV_OK;
}

static tconv_status speedscope_reader_sampled(speedscope_reader *r, json_t *p, size_t pi,
                                              uint32_t track)
{
    speedscope_class cls;
    double scale;
    const char *unit = speedscope_reader_text(p, "unit");
    if (speedscope_unit(unit, &cls, &scale) != 0) {
        tconv_warning_add(r->ctx, "speedscope.unit",
                          "%s: profile %zu has unit '%s', which the format does not know; "
                          "profile skipped",
                          r->name, pi + 1, unit ? unit : "(none)");
        return TCONV_OK;
    }
    json_t *samples = json_object_get(p, "samples"), *weights = json_object_get(p, "weights");
    if (!json_is_array(samples) || (weights && !json_is_array(weights))) {
        speedscope_reader_fail(r, pi, "a sampled profile without samples");
        return TCONV_FATAL;
    }
    size_t n = json_array_size(samples);
    if (weights && json_array_size(weights) != n) {
        tconv_error_set(r->ctx, "%s: profile %zu: %zu samples but %zu weights", r->name, pi + 1, n,
                        json_array_size(weights));
        return TCONV_FATAL;
    }
    int64_t at = 0, values[1 + SPEEDSCOPE_NCLASS] = {0};
    if (cls == SPEEDSCOPE_TIME &&
        speedscope_reader_num(json_object_get(p, "startValue"), scale, &at) != 0)
        at = 0;
    for (size_t i = 0; i < n; i++) {
        json_t *s = json_array_get(samples, i);
        if (!json_is_array(s)) {
            speedscope_reader_fail(r, pi, "sample %zu is not a list of frames", i + 1);
            return TCONV_FATAL;
        }
        size_t depth = json_array_size(s);
        TCONV_ARRAY_GROW(r->stack, r->stack_cap, depth ? depth : 1);
        for (size_t k = 0; k < depth; k++) {
            json_t *f = json_array_get(s, k);
            json_int_t fi = json_is_integer(f) ? json_integer_value(f) : -1;
            if (fi < 0 || (size_t)fi >= r->nframes) {
                speedscope_reader_fail(r, pi,
                                       "sample %zu names frame %lld, which shared.frames does "
                                       "not have",
                                       i + 1, (long long)fi);
                return TCONV_FATAL;
            }
            r->stack[k] = r->frames[fi];
        }
        int64_t w = 1;
        if (weights && speedscope_reader_num(json_array_get(weights, i), scale, &w) != 0) {
            speedscope_reader_fail(r, pi, "weight %zu is not a number in range", i + 1);
            return TCONV_FATAL;
        }
        memset(values, 0, sizeof values);
        values[0] = 1;
        values[r->value_of[cls]] = w;
        tconv_event ev = TCONV_EVENT_INIT;
        ev.kind = TCONV_EV_SAMPLE;
        ev.track = track;
        ev.ts = cls == SPEEDSCOPE_TIME ? at : 0;
        ev.frames = r->stack;
        ev.nframes = (uint32_t)depth;
        ev.values = values;
        ev.nvalues = (uint32_t)r->nvalues;
        if (tconv_sink_push(r->sink, &ev) == TCONV_FATAL) return TCONV_FATAL;
        if (cls == SPEEDSCOPE_TIME && !__builtin_add_overflow(at, w, &at)) continue;
    }
    return TCONV_OK;
}

static tconv_status speedscope_reader_evented(speedscope_reader *r, json_t *p, size_t pi,
                                              uint32_t track)
{
    speedscope_class cls;
    double scale;
    const char *unit = speedscope_reader_text(p, "unit");
    if (speedscope_unit(unit, &cls, &scale) != 0 || cls != SPEEDSCOPE_TIME) {
        tconv_warning_add(r->ctx, "speedscope.unit",
                          "%s: evented profile %zu has unit '%s', not a time; its values are "
                          "taken as nanoseconds",
                          r->name, pi + 1, unit ? unit : "(none)");
        scale = 1;
    }
    json_t *events = json_object_get(p, "events");
    if (!json_is_array(events)) {
        speedscope_reader_fail(r, pi, "an evented profile without events");
        return TCONV_FATAL;
    }
    for (size_t i = 0; i < json_array_size(events); i++) {
        json_t *e = json_array_get(events, i);
        const char *type = speedscope_reader_text(e, "type");
        json_t *f = json_object_get(e, "frame");
        json_int_t fi = json_is_integer(f) ? json_integer_value(f) : -1;
        int64_t at;
        if (!type || (strcmp(type, "O") != 0 && strcmp(type, "C") != 0) || fi < 0 ||
            (size_t)fi >= r->nframes ||
            speedscope_reader_num(json_object_get(e, "at"), scale, &at) != 0) {
            speedscope_reader_fail(r, pi,
                                   "event %zu is not {\"type\": \"O\" or \"C\", \"frame\": an "
                                   "index of shared.frames, \"at\": a number}",
                                   i + 1);
            return TCONV_FATAL;
        }
        const tconv_frame *fr = &r->frames[fi];
        tconv_arg args[2];
        tconv_event ev = TCONV_EVENT_INIT;
        ev.kind = type[0] == 'O' ? TCONV_EV_BEGIN : TCONV_EV_END;
        ev.track = track;
        ev.ts = at;
        ev.name = fr->name;
        if (ev.kind == TCONV_EV_BEGIN && r->want_args) {
            if (fr->file)
                args[ev.nargs++] = (tconv_arg){r->s_file, TCONV_ARG_STRING, {.s = fr->file}};
            if (fr->line) args[ev.nargs++] = (tconv_arg){r->s_line, TCONV_ARG_INT, {.i = fr->line}};
            ev.args = args;
        }
        if (tconv_sink_push(r->sink, &ev) == TCONV_FATAL) return TCONV_FATAL;
    }
    return TCONV_OK;
}

static tconv_status speedscope_reader_doc(speedscope_reader *r, json_t *doc)
{
    json_t *profiles = json_object_get(doc, "profiles");
    if (!json_is_object(doc) || !json_is_array(profiles)) {
        tconv_error_set(r->ctx, "%s: no profiles array; not a speedscope file", r->name);
        return TCONV_FATAL;
    }
    if (speedscope_reader_frames(r, doc) != 0) return TCONV_FATAL;
    if (speedscope_reader_types(r, profiles, json_object_get(doc, "activeProfileIndex")) != 0) {
        tconv_error_set(r->ctx, "%s: cannot declare the sample types", r->name);
        return TCONV_FATAL;
    }
    const char *docname = speedscope_reader_text(doc, "name");
    for (size_t i = 0; i < json_array_size(profiles); i++) {
        json_t *p = json_array_get(profiles, i);
        const char *type = speedscope_reader_text(p, "type");
        const char *name = speedscope_reader_text(p, "name");
        char tid[24];
        snprintf(tid, sizeof tid, "%zu", i);
        uint32_t track = tconv_track_get(r->ctx, r->s_empty, tconv_string_intern_cstr(r->ctx, tid));
        if ((docname && *docname &&
             speedscope_reader_meta(r, track, r->s_process_name, docname) != TCONV_OK) ||
            (name && *name && speedscope_reader_meta(r, track, r->s_thread_name, name) != TCONV_OK))
            return TCONV_FATAL;
        tconv_status st;
        if (type && strcmp(type, "sampled") == 0) {
            st = speedscope_reader_sampled(r, p, i, track);
        } else if (type && strcmp(type, "evented") == 0) {
            st = speedscope_reader_evented(r, p, i, track);
        } else {
            tconv_warning_add(r->ctx, "speedscope.profile-type",
                              "%s: profile %zu is of type '%s', neither sampled nor evented; "
                              "skipped",
                              r->name, i + 1, type ? type : "(none)");
            st = TCONV_OK;
        }
        if (st != TCONV_OK) return st;
    }
    return TCONV_OK;
}

static tconv_status speedscope_reader_read(tconv_ctx *ctx, tconv_input *in,
                                           const tconv_options *opts, tconv_sink *sink)
{
    (void)opts;
    speedscope_reader r;
    memset(&r, 0, sizeof r);
    r.ctx = ctx;
    r.sink = sink;
    r.name = tconv_input_name(in);
    r.want_args = tconv_args_wanted(ctx);
    r.s_empty = tconv_string_intern(ctx, "", 0);
    r.s_file = tconv_string_intern_cstr(ctx, "file");
    r.s_line = tconv_string_intern_cstr(ctx, "line");
    r.s_thread_name = tconv_string_intern_cstr(ctx, "thread_name");
    r.s_process_name = tconv_string_intern_cstr(ctx, "process_name");
    json_t *doc = jsondoc_load(ctx, in);
    if (!doc) return TCONV_FATAL;
    tconv_status st = speedscope_reader_doc(&r, doc);
    json_decref(doc);
    free(r.frames);
    free(r.stack);
    return st;
}

const tconv_reader_class speedscope_reader_class = {
    .struct_size = sizeof(tconv_reader_class),
    .name = "speedscope",
    .description = "speedscope file format (py-spy --format speedscope, rbspy, speedscope's "
                   "export): sampled profiles as stack samples, evented ones as spans",
    .extensions = "speedscope.json|speedscope.json.gz",
    .probe = speedscope_probe,
    .read = speedscope_reader_read,
};
