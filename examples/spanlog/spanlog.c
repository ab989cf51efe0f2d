/* spanlog: an out-of-tree tconv reader plugin, the reader a tutorial would write. A span log is
 * text, one span per line, fields separated by tabs:
 *
 *   # spanlog
 *   # thread<TAB>PID<TAB>TID<TAB>NAME              names a thread (optional)
 *   START<TAB>DURATION<TAB>PID<TAB>TID<TAB>NAME[<TAB>CATEGORY]
 *
 * Times are integers, in nanoseconds unless -R unit=us or unit=ms. Other lines starting with
 * '#' and empty lines are comments. A line that is not a span is a counted warning, or with
 * -R strict=true an error naming the file and line. It is built only against an installed tconv,
 * through pkg-config (see the Makefile), and tested in-process with tconv's harness
 * (test_spanlog.c); docs/plugin-guide.md, "Writing a reader", walks through it. */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include <tconv/tconv.h>

static const tconv_option_desc spanlog_options[] = {
    {"unit", TCONV_OPT_ENUM, "ns", "ns|us|ms", "unit of the times in the log"},
    {"strict", TCONV_OPT_BOOL, "false", NULL, "a line that is not a span is an error"},
    {0},
};

/* The first line says what the file is: no guessing from the rest. */
static int spanlog_probe(const unsigned char *buf, size_t len)
{
    static const char magic[] = "# spanlog";
    size_t n = sizeof(magic) - 1;
    return len >= n && memcmp(buf, magic, n) == 0 ? 100 : 0;
}

/* The line split at its tabs into at most max fields; how many. */
static size_t spanlog_fields(char *line, char **field, size_t max)
{
    size_t n = 0;
    for (char *p = line; n < max;) {
        field[n++] = p;
        p = strchr(p, '\t');
        if (!p) break;
        *p++ = 0;
    }
    return n;
}

/* A decimal integer that is the whole field, times scale, within int64. */
static int spanlog_time(const char *s, int64_t scale, int64_t *out)
{
    char *end;
    long long v = strtoll(s, &end, 10);
    if (end == s || *end || v > INT64_MAX / scale || v < INT64_MIN / scale) return 0;
    *out = (int64_t)v * scale;
    return 1;
}

static tconv_str spanlog_str(tconv_ctx *ctx, const char *s)
{
    return tconv_string_intern_cstr(ctx, s);
}

/* "# thread PID TID NAME": the thread's name, as metadata on its track. */
static tconv_status spanlog_thread(tconv_ctx *ctx, tconv_sink *sink, char **f)
{
    tconv_event ev = TCONV_EVENT_INIT;
    ev.kind = TCONV_EV_METADATA;
    ev.track = tconv_track_get(ctx, spanlog_str(ctx, f[1]), spanlog_str(ctx, f[2]));
    ev.name = spanlog_str(ctx, "thread_name");
    ev.text = spanlog_str(ctx, f[3]);
    return tconv_sink_push(sink, &ev);
}

static tconv_status spanlog_read(tconv_ctx *ctx, tconv_input *in, const tconv_options *opts,
                                 tconv_sink *sink)
{
    const char *unit = tconv_option_get_string(opts, "unit");
    int64_t scale = strcmp(unit, "ms") == 0 ? 1000000 : strcmp(unit, "us") == 0 ? 1000 : 1;
    int strict = tconv_option_get_bool(opts, "strict");
    size_t len;
    const char *line;
    char *copy = NULL;
    size_t cap = 0;
    while ((line = tconv_input_getline(in, &len))) {
        if (len + 1 > cap) { /* the fields are cut in a copy: the line is the input's */
            cap = len + 1;
            char *p = realloc(copy, cap);
            if (!p) abort();
            copy = p;
        }
        memcpy(copy, line, len + 1);
        char *f[6];
        size_t n = spanlog_fields(copy, f, 6);
        tconv_status st = TCONV_OK;
        int64_t ts, dur;
        if (strcmp(f[0], "# thread") == 0 && n == 4) {
            st = spanlog_thread(ctx, sink, f);
        } else if (len == 0 || line[0] == '#') {
            continue;
        } else if (n >= 5 && spanlog_time(f[0], scale, &ts) && spanlog_time(f[1], scale, &dur) &&
                   dur >= 0) {
            tconv_event ev = TCONV_EVENT_INIT;
            ev.kind = TCONV_EV_COMPLETE;
            ev.track = tconv_track_get(ctx, spanlog_str(ctx, f[2]), spanlog_str(ctx, f[3]));
            ev.name = spanlog_str(ctx, f[4]);
            ev.cat = n > 5 ? spanlog_str(ctx, f[5]) : 0;
            ev.ts = ts;
            ev.dur = dur;
            st = tconv_sink_push(sink, &ev);
        } else if (strict) {
            tconv_error_at(ctx, tconv_input_name(in), tconv_input_line(in),
                           "not a span: START, DURATION, PID, TID and NAME separated by tabs");
            st = TCONV_FATAL;
        } else {
            tconv_warning_add(ctx, "spanlog.bad-line", "%s:%" PRIu64 ": not a span; skipped",
                              tconv_input_name(in), tconv_input_line(in));
        }
        if (st == TCONV_FATAL) {
            free(copy);
            return TCONV_FATAL;
        }
    }
    free(copy);
    return tconv_error_pending(ctx) ? TCONV_FATAL : TCONV_OK; /* the end, or a read error */
}

static const tconv_reader_class spanlog_reader = {
    .struct_size = sizeof(tconv_reader_class),
    .name = "spanlog",
    .description = "span logs: START DURATION PID TID NAME [CATEGORY] per line, tab-separated",
    .extensions = "spanlog|spanlog.gz",
    .options = spanlog_options,
    .probe = spanlog_probe,
    .read = spanlog_read,
    /* No state outside read(): inputs may be read on several threads at once (tconv -j). */
    .flags = TCONV_READER_CONCURRENT,
};

static const tconv_reader_class *const spanlog_readers[] = {&spanlog_reader, NULL};

static const tconv_plugin_desc spanlog_plugin = {
    .struct_size = sizeof(tconv_plugin_desc),
    .abi_major = TCONV_ABI_MAJOR,
    .abi_minor = TCONV_ABI_MINOR,
    .name = "spanlog",
    .version = "1.0",
    .description = "an example reader: tab-separated span logs",
    .readers = spanlog_readers,
};

TCONV_PLUGIN(spanlog_plugin)
