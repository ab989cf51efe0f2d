/* The text writers: a deterministic, line-per-event dump of the event stream. Golden tests of
 * every reader compare against it, so its format changes only on purpose. Three classes share
 * the code: "text" (events as read), "text-ordered" (after the ordering stage) and
 * "text-stacks" (after the stack stage), which makes the core's stages testable from the CLI. */
#include <inttypes.h>
#include <stdarg.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tconv/tconv.h"

typedef struct text_state {
    tconv_ctx *ctx;
    tconv_output *out;
    int tracks;
    char *buf;
    size_t len, cap;
    size_t oom; /* the size of a line that could not be held, reported by text_line */
} text_state;

static void text_put(text_state *t, const char *s, size_t n)
{
    if (t->oom) return;
    if (t->len + n + 1 > t->cap) {
        size_t cap = t->cap ? t->cap : 256;
        while (cap < t->len + n + 1)
            cap *= 2;
        char *p = realloc(t->buf, cap);
        if (!p) {
            t->oom = cap;
            return;
        }
        t->buf = p;
        t->cap = cap;
    }
    memcpy(t->buf + t->len, s, n);
    t->len += n;
}

static void text_cstr(text_state *t, const char *s)
{
    text_put(t, s, strlen(s));
}

static void text_fmt(text_state *t, const char *fmt, ...) TCONV_PRINTF(2, 3);
static void text_fmt(text_state *t, const char *fmt, ...)
{
    char tmp[128];
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(tmp, sizeof(tmp), fmt, ap);
    va_end(ap);
    text_put(t, tmp, (size_t)n < sizeof(tmp) ? (size_t)n : sizeof(tmp) - 1);
}

/* Decimal integers without printf: golden dumps of big traces are mostly numbers. */
static void text_u64(text_state *t, uint64_t v)
{
    char tmp[24];
    size_t i = sizeof(tmp);
    do {
        tmp[--i] = (char)('0' + v % 10);
        v /= 10;
    } while (v);
    text_put(t, tmp + i, sizeof(tmp) - i);
}

static void text_i64(text_state *t, int64_t v)
{
    if (v < 0) {
        text_put(t, "-", 1);
        text_u64(t, (uint64_t)0 - (uint64_t)v);
    } else {
        text_u64(t, (uint64_t)v);
    }
}

/* " label=" then the number */
static void text_num_field(text_state *t, const char *label, int64_t v)
{
    text_cstr(t, label);
    text_i64(t, v);
}

/* Quoted, with C escapes for quotes, backslashes and every byte outside printable ASCII, so a
 * golden file is plain ASCII whatever the input's encoding. */
static void text_quoted(text_state *t, tconv_str id)
{
    const unsigned char *s = (const unsigned char *)tconv_string_get(t->ctx, id);
    size_t n = tconv_string_length(t->ctx, id);
    text_put(t, "\"", 1);
    size_t run = 0; /* start of the pending run of bytes that need no escape */
    for (size_t i = 0; i < n; i++) {
        unsigned char c = s[i];
        if (c >= 0x20 && c < 0x7f && c != '"' && c != '\\') continue;
        text_put(t, (const char *)s + run, i - run);
        run = i + 1;
        if (c == '"' || c == '\\') {
            char e[2] = {'\\', (char)c};
            text_put(t, e, 2);
        } else if (c == '\n') {
            text_put(t, "\\n", 2);
        } else if (c == '\t') {
            text_put(t, "\\t", 2);
        } else {
            static const char hex[] = "0123456789abcdef";
            char e[4] = {'\\', 'x', hex[c >> 4], hex[c & 15]};
            text_put(t, e, 4);
        }
    }
    text_put(t, (const char *)s + run, n - run);
    text_put(t, "\"", 1);
}

/* The shortest decimal that reads back as the same double. */
static void text_double(text_state *t, double d)
{
    char tmp[64];
    if (!isfinite(d)) {
        text_cstr(t, isnan(d) ? "nan" : d > 0 ? "inf" : "-inf");
        return;
    }
    /* The shortest "%.Ng" that reads back; the golden files of every reader depend on this
     * exact form, so it stays even where a plain integer would read better. */
    for (int prec = 1; prec <= 17; prec++) {
        snprintf(tmp, sizeof(tmp), "%.*g", prec, d);
        if (strtod(tmp, NULL) == d) break;
    }
    text_cstr(t, tmp);
}

static void text_arg(text_state *t, const tconv_arg *a)
{
    text_quoted(t, a->key);
    text_put(t, ":", 1);
    switch (a->type) {
    case TCONV_ARG_NULL:
        text_cstr(t, "null");
        break;
    case TCONV_ARG_BOOL:
        text_cstr(t, a->v.i ? "true" : "false");
        break;
    case TCONV_ARG_INT:
        text_i64(t, a->v.i);
        break;
    case TCONV_ARG_UINT:
        text_u64(t, a->v.u);
        text_put(t, "u", 1);
        break;
    case TCONV_ARG_DOUBLE:
        text_double(t, a->v.d);
        break;
    case TCONV_ARG_STRING:
        text_quoted(t, a->v.s);
        break;
    case TCONV_ARG_JSON:
        text_cstr(t, "json");
        text_quoted(t, a->v.s);
        break;
    default:
        text_fmt(t, "?%u", a->type);
    }
}

static void text_str_field(text_state *t, const char *label, tconv_str id)
{
    if (!id) return;
    text_put(t, " ", 1);
    text_cstr(t, label);
    text_put(t, "=", 1);
    text_quoted(t, id);
}

/* Write the line built in buf; a line that did not fit in memory ends the run. */
static tconv_status text_line(text_state *t)
{
    if (t->oom) {
        tconv_error_set(t->ctx, "text: out of memory (allocating %zu bytes)", t->oom);
        return TCONV_FATAL;
    }
    return tconv_output_write(t->out, t->buf, t->len) < 0 ? TCONV_FATAL : TCONV_OK;
}

static tconv_status text_event(void *state, const tconv_event *ev)
{
    text_state *t = state;
    t->len = 0;
    const char *kind = tconv_event_kind_name(ev->kind);
    size_t klen = strlen(kind);
    text_put(t, kind, klen);
    text_put(t, "           ", klen < 10 ? 11 - klen : 1); /* as "%-10s " */
    text_i64(t, ev->ts);
    if (ev->kind == TCONV_EV_COMPLETE || ev->dur) text_num_field(t, " dur=", ev->dur);
    text_num_field(t, " T", ev->track);
    text_str_field(t, "name", ev->name);
    text_str_field(t, "cat", ev->cat);
    if (ev->id) {
        text_cstr(t, " id=");
        text_u64(t, ev->id);
    }
    text_str_field(t, "key", ev->key);
    if (ev->kind == TCONV_EV_COUNTER) {
        text_cstr(t, " value=");
        text_double(t, ev->value);
    }
    text_str_field(t, "unit", ev->unit);
    text_str_field(t, "text", ev->text);
    if (ev->flags) text_fmt(t, " flags=0x%x", ev->flags);
    if (ev->nframes) {
        text_cstr(t, " stack=[");
        for (uint32_t i = 0; i < ev->nframes; i++) {
            const tconv_frame *f = &ev->frames[i];
            if (i) text_cstr(t, ";");
            text_quoted(t, f->name);
            if (f->module) {
                text_cstr(t, "@");
                text_quoted(t, f->module);
            }
            if (f->file) {
                text_cstr(t, " file=");
                text_quoted(t, f->file);
                text_fmt(t, ":%u", f->line);
            }
            if (f->addr) text_fmt(t, " addr=0x%" PRIx64, f->addr);
            if (f->flags) text_fmt(t, " ff=%u", f->flags);
        }
        text_cstr(t, "]");
    }
    if (ev->nvalues) {
        text_cstr(t, " values=[");
        for (uint32_t i = 0; i < ev->nvalues; i++) {
            if (i) text_put(t, ",", 1);
            text_i64(t, ev->values[i]);
        }
        text_cstr(t, "]");
    }
    if (ev->nargs) {
        text_cstr(t, " args={");
        for (uint32_t i = 0; i < ev->nargs; i++) {
            if (i) text_cstr(t, ",");
            text_arg(t, &ev->args[i]);
        }
        text_cstr(t, "}");
    }
    text_put(t, "\n", 1);
    return text_line(t);
}

static const char *const text_track_kinds[] = {"thread", "gpu", "async", "process", "global"};

static tconv_status text_finish(void *state)
{
    text_state *t = state;
    if (!t->tracks) return TCONV_OK;
    uint32_t n = tconv_track_count(t->ctx);
    for (uint32_t i = 0; i < n; i++) {
        const tconv_track *k = tconv_track_describe(t->ctx, i);
        t->len = 0;
        text_fmt(t, "track T%u input=%u kind=%s pid=", i, k->input,
                 k->kind < 5 ? text_track_kinds[k->kind] : "?");
        text_quoted(t, k->pid);
        text_cstr(t, " tid=");
        text_quoted(t, k->tid);
        text_str_field(t, "process", k->process_name);
        text_str_field(t, "thread", k->thread_name);
        if (k->process_sort) text_fmt(t, " process_sort=%" PRId64, k->process_sort);
        if (k->thread_sort) text_fmt(t, " thread_sort=%" PRId64, k->thread_sort);
        text_put(t, "\n", 1);
        if (text_line(t) != TCONV_OK) return TCONV_FATAL;
    }
    size_t ntypes, def;
    const tconv_sample_type *types = tconv_sampletypes_get(t->ctx, &ntypes, &def);
    for (size_t i = 0; i < ntypes; i++)
        if (tconv_output_printf(t->out, "sampletype %s/%s%s\n", types[i].type, types[i].unit,
                                i == def ? " default" : "") < 0)
            return TCONV_FATAL;
    return TCONV_OK;
}

static tconv_status text_open(tconv_ctx *ctx, tconv_output *out, const tconv_options *opts,
                              void **state)
{
    text_state *t = calloc(1, sizeof(*t));
    if (!t) {
        tconv_error_set(ctx, "text: out of memory (allocating %zu bytes)", sizeof(*t));
        return TCONV_FATAL;
    }
    t->ctx = ctx;
    t->out = out;
    t->tracks = tconv_option_get_bool(opts, "tracks");
    *state = t;
    return TCONV_OK;
}

static void text_destroy(void *state)
{
    text_state *t = state;
    if (!t) return;
    free(t->buf);
    free(t);
}

static const tconv_option_desc text_options[] = {
    {"tracks", TCONV_OPT_BOOL, "true", NULL, "end with the track table and sample types"},
    {0},
};

static const tconv_writer_class text_writer = {
    .struct_size = sizeof(tconv_writer_class),
    .name = "text",
    .description = "one line per event, in input order (deterministic; for diffs and tests)",
    .options = text_options,
    .accepts = TCONV_KINDS_ALL,
    .open = text_open,
    .event = text_event,
    .finish = text_finish,
    .destroy = text_destroy,
    .extensions = "txt",
};

static const tconv_writer_class text_ordered_writer = {
    .struct_size = sizeof(tconv_writer_class),
    .name = "text-ordered",
    .description = "like text, after the ordering stage: per track, time-ordered and nested",
    .options = text_options,
    .accepts = TCONV_KINDS_ALL,
    .flags = TCONV_WRITER_ORDERED,
    .open = text_open,
    .event = text_event,
    .finish = text_finish,
    .destroy = text_destroy,
};

static const tconv_writer_class text_stacks_writer = {
    .struct_size = sizeof(tconv_writer_class),
    .name = "text-stacks",
    .description = "like text, after the stack stage: spans become self-time stack samples",
    .options = text_options,
    .accepts = TCONV_KIND_BIT(TCONV_EV_SAMPLE) | TCONV_KIND_BIT(TCONV_EV_METADATA),
    .open = text_open,
    .event = text_event,
    .finish = text_finish,
    .destroy = text_destroy,
};

static const tconv_writer_class *const text_writers[] = {&text_writer, &text_ordered_writer,
                                                         &text_stacks_writer, NULL};

static const tconv_plugin_desc text_plugin = {
    .struct_size = sizeof(tconv_plugin_desc),
    .abi_major = TCONV_ABI_MAJOR,
    .abi_minor = TCONV_ABI_MINOR,
    .name = "text",
    .version = TCONV_VERSION,
    .description = "Deterministic text dumps of the event stream",
    .writers = text_writers,
};

TCONV_PLUGIN(text_plugin)
