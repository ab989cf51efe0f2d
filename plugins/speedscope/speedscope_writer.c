/* Writes speedscope's file format: one profile per thread, evented (open and close events) for
 * its spans and sampled (stacks and weights) for its stack samples, all indexing one table of
 * shared frames. The writer is ordered, so each thread's spans come time-ordered and properly
 * nested, and a thread's events come together: its profile is written when the next thread
 * starts, and only the frames are kept to the end.
 *
 * Times are nanoseconds from the trace's first event (JavaScript's doubles hold integers to
 * 2^53, about 104 days of nanoseconds, not a Unix date in them). Weights are the values of the
 * run's default sample type, in its unit: a time in its own unit, bytes as bytes, anything else
 * as "none" (a thread without values of that type takes the first type it has values of). Profiles
 * are named as speedscope names the threads of a trace it imports itself
 * ("python (pid 12), worker (tid 14)"), so a trace and its conversion list the same names; a
 * thread with both has its samples under that name, as speedscope shows a trace with samples,
 * and its spans under "<name> (spans)". */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "speedscope.h"
#include "speedscope_wframes.h"

typedef struct speedscope_writer {
    tconv_ctx *ctx;
    tconv_output *out;
    speedscope_wframes frames;
    size_t nprofiles;
    int have_base;
    int64_t base;
    /* the thread being written */
    uint32_t track;
    int have_track;
    speedscope_text events; /* its evented profile's events */
    size_t nevents;
    int64_t first_at, last_at;
    uint32_t *open; /* frames of the open spans */
    size_t nopen, open_cap;
    speedscope_text samples; /* its sampled profile: stacks, and each sample's values */
    int64_t *values;
    size_t nsamples, values_cap;
    /* the sample types, from the first sample */
    int have_types;
    size_t value, nvalues;
    const tconv_sample_type *types;
    speedscope_text tmp;
    uint64_t async; /* async spans left out */
} speedscope_writer;

/* The profile's name, as speedscope names the threads of a Chrome trace. */
static void speedscope_writer_name(speedscope_writer *w, const char *suffix)
{
    const tconv_track *t = tconv_track_describe(w->ctx, w->track);
    const char *pid = t ? tconv_string_get(w->ctx, t->pid) : "";
    const char *tid = t ? tconv_string_get(w->ctx, t->tid) : "";
    const char *proc = t && t->process_name ? tconv_string_get(w->ctx, t->process_name) : NULL;
    const char *thr = t && t->thread_name ? tconv_string_get(w->ctx, t->thread_name) : NULL;
    char buf[1024];
    if (!*pid && !*tid)
        snprintf(buf, sizeof buf, "%s%s", thr ? thr : proc ? proc : "profile", suffix);
    else if (!*pid)
        snprintf(buf, sizeof buf, "%s%s", thr ? thr : tid, suffix);
    else if (proc && thr)
        snprintf(buf, sizeof buf, "%s (pid %s), %s (tid %s)%s", proc, pid, thr, tid, suffix);
    else if (proc || thr)
        snprintf(buf, sizeof buf, "%s (pid %s, tid %s)%s", proc ? proc : thr, pid, tid, suffix);
    else
        snprintf(buf, sizeof buf, "pid %s, tid %s%s", pid, tid, suffix);
    speedscope_text_json(&w->tmp, buf, strlen(buf));
}

static int speedscope_writer_emit(speedscope_writer *w)
{
    int rc = tconv_output_write(w->out, w->tmp.p, w->tmp.len);
    w->tmp.len = 0;
    return rc;
}

static void speedscope_writer_types(speedscope_writer *w)
{
    size_t n = 0, def = 0;
    w->types = tconv_sampletypes_get(w->ctx, &n, &def);
    w->have_types = 1;
    w->nvalues = w->types ? n : 0;
    w->value = def;
}

/* The unit a sample type's values have in the file format. */
static const char *speedscope_writer_unit(const tconv_sample_type *t)
{
    speedscope_class cls;
    double scale;
    if (!t || !t->unit || speedscope_unit(t->unit, &cls, &scale) != 0 || cls == SPEEDSCOPE_NONE)
        return "none";
    return t->unit;
}

/* The type whose values weigh this thread's samples: the default, unless the thread has none
 * of it (a document whose profiles count different things: bytes in one, calls in another),
 * then the first other type it has values of, the count of samples last. */
static size_t speedscope_writer_column(const speedscope_writer *w)
{
    size_t nv = w->nvalues ? w->nvalues : 1;
    for (size_t j = 0; j <= nv; j++) {
        size_t k = j == 0 ? w->value : j == nv ? 0 : j;
        for (size_t i = 0; i < w->nsamples; i++)
            if (w->values[i * nv + k]) return k;
    }
    return w->value;
}

/* The thread's profiles, written out. */
static tconv_status speedscope_writer_flush(speedscope_writer *w)
{
    if (!w->have_track) return TCONV_OK;
    if (w->nevents) {
        speedscope_text_str(&w->tmp, w->nprofiles++ ? ",\n{\"type\":\"evented\",\"name\":"
                                                    : "\n{\"type\":\"evented\",\"name\":");
        speedscope_writer_name(w, w->nsamples ? " (spans)" : "");
        speedscope_text_str(&w->tmp, ",\"unit\":\"nanoseconds\",\"startValue\":");
        speedscope_text_int(&w->tmp, w->first_at);
        speedscope_text_str(&w->tmp, ",\"endValue\":");
        speedscope_text_int(&w->tmp, w->last_at);
        speedscope_text_str(&w->tmp, ",\"events\":[");
        if (speedscope_writer_emit(w) < 0 ||
            tconv_output_write(w->out, w->events.p, w->events.len) < 0 ||
            tconv_output_write(w->out, "]}", 2) < 0)
            return TCONV_FATAL;
    }
    if (w->nsamples) {
        size_t nv = w->nvalues ? w->nvalues : 1, k = speedscope_writer_column(w);
        int64_t total = 0;
        for (size_t i = 0; i < w->nsamples; i++)
            if (__builtin_add_overflow(total, w->values[i * nv + k], &total)) total = INT64_MAX;
        speedscope_text_str(&w->tmp, w->nprofiles++ ? ",\n{\"type\":\"sampled\",\"name\":"
                                                    : "\n{\"type\":\"sampled\",\"name\":");
        speedscope_writer_name(w, "");
        speedscope_text_str(&w->tmp, ",\"unit\":\"");
        speedscope_text_str(&w->tmp, speedscope_writer_unit(w->types ? &w->types[k] : NULL));
        speedscope_text_str(&w->tmp, "\",\"startValue\":0,\"endValue\":");
        speedscope_text_int(&w->tmp, total);
        speedscope_text_str(&w->tmp, ",\"samples\":[");
        if (speedscope_writer_emit(w) < 0 ||
            tconv_output_write(w->out, w->samples.p, w->samples.len) < 0)
            return TCONV_FATAL;
        speedscope_text_str(&w->tmp, "],\"weights\":[");
        for (size_t i = 0; i < w->nsamples; i++) {
            if (i) speedscope_text_put(&w->tmp, ",", 1);
            speedscope_text_int(&w->tmp, w->values[i * nv + k]);
            if (w->tmp.len > 65536 && speedscope_writer_emit(w) < 0) return TCONV_FATAL;
        }
        speedscope_text_str(&w->tmp, "]}");
        if (speedscope_writer_emit(w) < 0) return TCONV_FATAL;
    }
    w->events.len = w->samples.len = 0;
    w->nevents = w->nsamples = w->nopen = 0;
    w->have_track = 0;
    return TCONV_OK;
}

static void speedscope_writer_event_text(speedscope_writer *w, char type, uint32_t frame,
                                         int64_t at)
{
    char buf[80];
    int n =
        snprintf(buf, sizeof buf, "%s{\"type\":\"%c\",\"frame\":%" PRIu32 ",\"at\":%" PRId64 "}",
                 w->nevents ? "," : "", type, frame, at);
    speedscope_text_put(&w->events, buf, (size_t)n);
    if (!w->nevents) w->first_at = at;
    w->last_at = at;
    w->nevents++;
}

static tconv_status speedscope_writer_sample(speedscope_writer *w, const tconv_event *ev)
{
    if (!w->have_types) speedscope_writer_types(w);
    size_t nv = w->nvalues ? w->nvalues : 1;
    int64_t one = 1;
    const int64_t *v = ev->values;
    if (!w->nvalues) {
        v = ev->nvalues && ev->values ? ev->values : &one;
    } else if (ev->nvalues != w->nvalues || !ev->values) {
        tconv_warning_add(w->ctx, "speedscope.bad-sample",
                          "a sample with %u values where %zu sample types were declared; "
                          "sample dropped",
                          ev->nvalues, w->nvalues);
        return TCONV_OK;
    }
    for (size_t k = 0; k < nv; k++)
        if (v[k] < 0) {
            tconv_warning_add(w->ctx, "speedscope.bad-weight",
                              "a sample of weight %" PRId64 ", which speedscope cannot show; "
                              "dropped",
                              v[k]);
            return TCONV_OK;
        }
    TCONV_ARRAY_GROW(w->values, w->values_cap, (w->nsamples + 1) * nv);
    memcpy(w->values + w->nsamples * nv, v, nv * sizeof *v);
    speedscope_text_put(&w->samples, w->nsamples ? ",[" : "[", w->nsamples ? 2 : 1);
    for (uint32_t i = 0; i < ev->nframes; i++) {
        const tconv_frame *f = &ev->frames[i];
        if (i) speedscope_text_put(&w->samples, ",", 1);
        speedscope_text_int(&w->samples,
                            speedscope_wframes_get(&w->frames, f->name, f->file, f->line));
    }
    speedscope_text_put(&w->samples, "]", 1);
    w->nsamples++;
    return TCONV_OK;
}

static tconv_status speedscope_writer_event(void *state, const tconv_event *ev)
{
    speedscope_writer *w = state;
    if (ev->kind == TCONV_EV_METADATA) return TCONV_OK; /* names are read from the tracks */
    /* Async spans are no thread's calls: speedscope's own import of a trace leaves them out. */
    const tconv_track *t = tconv_track_describe(w->ctx, ev->track);
    if (t && t->kind == TCONV_TRACK_ASYNC && ev->kind != TCONV_EV_SAMPLE) {
        w->async += ev->kind == TCONV_EV_BEGIN;
        return TCONV_OK;
    }
    if (!w->have_track || ev->track != w->track) {
        if (speedscope_writer_flush(w) != TCONV_OK) return TCONV_FATAL;
        w->track = ev->track;
        w->have_track = 1;
    }
    if (ev->kind == TCONV_EV_SAMPLE) return speedscope_writer_sample(w, ev);
    if (!w->have_base) {
        int64_t last;
        if (!tconv_ctx_bounds(w->ctx, &w->base, &last)) w->base = 0;
        w->have_base = 1;
    }
    int64_t at = ev->ts - w->base;
    if (ev->kind == TCONV_EV_BEGIN) {
        uint32_t f = speedscope_wframes_get(&w->frames, ev->name, 0, 0);
        TCONV_ARRAY_GROW(w->open, w->open_cap, w->nopen + 1);
        w->open[w->nopen++] = f;
        speedscope_writer_event_text(w, 'O', f, at);
    } else if (ev->kind == TCONV_EV_END && w->nopen) {
        speedscope_writer_event_text(w, 'C', w->open[--w->nopen], at);
    }
    return TCONV_OK;
}

static tconv_status speedscope_writer_open(tconv_ctx *ctx, tconv_output *out,
                                           const tconv_options *opts, void **state)
{
    (void)opts;
    speedscope_writer *w = calloc(1, sizeof *w);
    if (!w) {
        tconv_error_set(ctx, "speedscope: out of memory");
        return TCONV_FATAL;
    }
    w->ctx = ctx;
    w->out = out;
    static const char head[] =
        "{\"$schema\":\"https://www.speedscope.app/file-format-schema.json\","
        "\n\"profiles\":[";
    if (tconv_output_write(out, head, sizeof head - 1) < 0) {
        free(w);
        return TCONV_FATAL;
    }
    *state = w;
    return TCONV_OK;
}

static tconv_status speedscope_writer_finish(void *state)
{
    speedscope_writer *w = state;
    if (speedscope_writer_flush(w) != TCONV_OK) return TCONV_FATAL;
    if (w->async)
        tconv_note_show(w->ctx,
                        "speedscope: %llu async span%s left out: they belong to no thread's "
                        "calls (speedscope's own import of a trace leaves them out too)",
                        (unsigned long long)w->async, w->async == 1 ? "" : "s");
    speedscope_text_str(&w->tmp, "],\n\"shared\":{\"frames\":");
    speedscope_wframes_json(&w->frames, w->ctx, &w->tmp);
    speedscope_text_str(&w->tmp, "},\n\"name\":");
    uint32_t n = tconv_ctx_input_count(w->ctx);
    const char *path = n ? tconv_ctx_input_name(w->ctx, 0) : NULL;
    const char *base = path ? strrchr(path, '/') : NULL;
    base = base && base[1] ? base + 1 : path ? path : "tconv";
    speedscope_text_json(&w->tmp, base, strlen(base));
    speedscope_text_str(&w->tmp,
                        ",\"activeProfileIndex\":0,\"exporter\":\"tconv@" TCONV_VERSION "\"}\n");
    return speedscope_writer_emit(w) < 0 ? TCONV_FATAL : TCONV_OK;
}

static void speedscope_writer_destroy(void *state)
{
    speedscope_writer *w = state;
    if (!w) return;
    speedscope_wframes_free(&w->frames);
    speedscope_text_free(&w->events);
    speedscope_text_free(&w->samples);
    free(w->values);
    speedscope_text_free(&w->tmp);
    free(w->open);
    free(w);
}

/* Names and times only: no args. */
static uint32_t speedscope_writer_needs(const tconv_options *opts)
{
    (void)opts;
    return 0;
}

const tconv_writer_class speedscope_writer_class = {
    .struct_size = sizeof(tconv_writer_class),
    .name = "speedscope",
    .description = "speedscope file format (speedscope.app, speedscope CLI): one profile per "
                   "thread, evented for spans, sampled for stack samples",
    .accepts =
        TCONV_KINDS_SPANS | TCONV_KIND_BIT(TCONV_EV_SAMPLE) | TCONV_KIND_BIT(TCONV_EV_METADATA),
    .flags = TCONV_WRITER_ORDERED,
    .open = speedscope_writer_open,
    .event = speedscope_writer_event,
    .finish = speedscope_writer_finish,
    .destroy = speedscope_writer_destroy,
    .extensions = "speedscope.json",
    .needs = speedscope_writer_needs,
};
