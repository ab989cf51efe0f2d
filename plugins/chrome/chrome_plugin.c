/* The Chrome Trace Event plugin: its descriptor, the reader's read loop and the writer's entry
 * points. */
#include <locale.h>
#include <stdlib.h>
#include <string.h>

#include <tconv/tconv.h>

#include "chrome_probe.h"
#include "chrome_reader.h"
#include "chrome_writer.h"

#define CHROME_CHUNK ((size_t)256 * 1024)

static const tconv_option_desc chrome_options[] = {
    {"strict", TCONV_OPT_BOOL, "false", NULL,
     "stop with an error at a malformed event (missing ph, ts that is not a number, ...) "
     "instead of skipping it with a counted warning"},
    {0},
};

/* The TensorFlow profiler names its trace <host>.trace.json.gz; PyTorch's
 * <worker>.<time>.pt.trace.json[.gz] carries no host. */
static tconv_str chrome_host_of(tconv_ctx *ctx, const char *path)
{
    static const char *const chrome_tf_sfx[] = {".trace.json.gz", ".trace.json"};
    const char *slash = strrchr(path, '/');
    const char *base = slash ? slash + 1 : path;
    size_t n = strlen(base);
    for (size_t i = 0; i < sizeof chrome_tf_sfx / sizeof chrome_tf_sfx[0]; i++) {
        size_t m = strlen(chrome_tf_sfx[i]);
        if (n <= m || strcmp(base + n - m, chrome_tf_sfx[i]) != 0) continue;
        size_t stem = n - m;
        if (stem >= 3 && memcmp(base + stem - 3, ".pt", 3) == 0) return 0;
        return tconv_string_intern(ctx, base, stem);
    }
    return 0;
}

/* Events in a row at the array's start that the fast path takes, from which on an array is read
 * whole (chrome_split_worth). */
#define CHROME_SPLIT_FLAT 64

/* Whether the event array, whose first bytes are buf, is worth reading in parts. An array that
 * begins with a run of events the fast path takes (a dense trace of the legacy exporter) is not:
 * there the fast path reads at ~500 MB/s and the run's time is the stages after the reader,
 * which stay on one thread, while cutting parts and replaying them cost the calling thread more
 * than the reading it hands off (a 136 MB dense trace: -j 2 took 1.1x the time of -j 1; a
 * Kineto trace with args, 0.75-0.86x). TCONV_SPLIT_BYTES (tests) reads every array in parts. */
static int chrome_split_worth(const chrome_reader *r, const unsigned char *buf, size_t len)
{
    if (r->fast_off || getenv("TCONV_SPLIT_BYTES")) return 1;
    return chrome_fast_count(buf, len, CHROME_SPLIT_FLAT) < CHROME_SPLIT_FLAT;
}

/* The input goes to the JSON lexer a piece at a time, straight from the input's own buffers
 * (tconv_input_view: no copy); the lexer completes a token cut by the end of a piece itself. */
static tconv_status chrome_read_all(chrome_reader *r)
{
    /* Some Windows tools start the file with a UTF-8 byte order mark, which is not JSON;
     * offsets still count it. A peek sees it whole however the first piece is cut. */
    size_t head;
    const unsigned char *h = tconv_input_peek(r->in, &head);
    if (head >= 3 && memcmp(h, "\xEF\xBB\xBF", 3) == 0) {
        const void *bom;
        if (tconv_input_view(r->in, &bom, 3) != 3) return TCONV_FATAL;
        tconv_json_set_offset(r->lex, 3);
    }
    for (;;) {
        const void *v;
        uint64_t at = tconv_input_offset(r->in); /* of the piece's first byte */
        ssize_t n = tconv_input_view(r->in, &v, CHROME_CHUNK);
        if (n < 0) return TCONV_FATAL;
        if (n == 0) break;
        const unsigned char *p = v;
        /* The lexer may take the '[' and its stop as the last token of a long one it completed
         * from its carry, and answer as if it went on: split_hit says the walk stopped. */
        if (chrome_parse_chunk(r, p, (size_t)n) == TCONV_FATAL || r->split_hit) {
            if (!r->split_hit) return TCONV_FATAL;
            /* The walk stopped at the event array's '[': the array goes to the core in parts,
             * and the walk goes on after it from the input's next bytes. */
            r->split_hit = 0;
            r->failed = 0;
            size_t used = (size_t)(r->split_at - at);
            if (chrome_split_worth(r, p + used, (size_t)n - used)) {
                if (chrome_split_read(r, p + used, (size_t)n - used) == TCONV_FATAL)
                    return TCONV_FATAL;
            } else { /* read on in line, from just past the '[' */
                r->split_ok = 0;
                if (chrome_parse_prime(r, r->split_at, 1)) {
                    tconv_error_set(r->ctx, "chrome: out of memory");
                    return TCONV_FATAL;
                }
                if (chrome_parse_chunk(r, p + used, (size_t)n - used) == TCONV_FATAL)
                    return TCONV_FATAL;
            }
        }
    }
    if (chrome_parse_end(r) == TCONV_FATAL) return TCONV_FATAL;
    return chrome_emit_finish(r);
}

static tconv_status chrome_read(tconv_ctx *ctx, tconv_input *in, const tconv_options *opts,
                                tconv_sink *sink)
{
    chrome_reader *r = calloc(1, sizeof *r);
    /* Numbers are converted with strtod, whose decimal point follows LC_NUMERIC: pin it to
     * "C" for this thread while reading. */
    locale_t cloc = newlocale(LC_NUMERIC_MASK, "C", (locale_t)0);
    locale_t old = cloc ? uselocale(cloc) : (locale_t)0;
    tconv_status st = TCONV_FATAL;
    if (!r) {
        tconv_error_set(ctx, "chrome: out of memory");
        goto out;
    }
    r->ctx = ctx;
    r->in = in;
    r->sink = sink;
    r->input_name = tconv_input_name(in);
    r->host = chrome_host_of(ctx, r->input_name);
    r->strict = tconv_option_get_bool(opts, "strict");
    r->args_wanted = tconv_args_wanted(ctx);
    for (unsigned i = 0; i < CHROME_TRACK_CACHE; i++)
        r->tcache[i].track = UINT32_MAX;
    r->flow_catlen = SIZE_MAX;
    r->split_ok = tconv_split_possible(ctx, in);
    if (chrome_parse_init(r)) {
        tconv_error_set(ctx, "chrome: out of memory");
        goto out;
    }
    st = chrome_read_all(r);
out:
    if (r) {
        chrome_parse_free(r);
        chrome_emit_free(r);
        chrome_frames_free(r);
        free(r);
    }
    if (cloc) {
        uselocale(old);
        freelocale(cloc);
    }
    return st;
}

static const tconv_reader_class chrome_reader_class = {
    .struct_size = sizeof(tconv_reader_class),
    .name = "chrome",
    .description = "Chrome Trace Event JSON (Chromium, PyTorch/Kineto, clang -ftime-trace, "
                   "rocprof, ...), plain or gzip",
    .extensions = "json|json.gz|trace.json|pt.trace.json|pt.trace.json.gz",
    .options = chrome_options,
    .probe = chrome_probe,
    .read = chrome_read,
    .flags = TCONV_READER_CONCURRENT,
};

static const tconv_reader_class *const chrome_readers[] = {&chrome_reader_class, NULL};

static const tconv_option_desc chrome_writer_options[] = {
    {"lanes", TCONV_OPT_BOOL, "true", NULL,
     "put kernels that overlap on a GPU stream on lanes of their own (tid \"<tid> #2\"), as "
     "viewers drop or clip slices that do not nest"},
    {0},
};

static int chrome_ends_with(const char *s, const char *sfx)
{
    size_t n = strlen(s), m = strlen(sfx);
    return n >= m && strcmp(s + n - m, sfx) == 0;
}

static tconv_status chrome_wopen(tconv_ctx *ctx, tconv_output *out, const tconv_options *opts,
                                 void **state)
{
    chrome_writer *w = calloc(1, sizeof *w);
    chrome_wbuf *b = malloc(sizeof *b);
    if (!w || !b) {
        free(w);
        free(b);
        tconv_error_set(ctx, "chrome: out of memory");
        return TCONV_FATAL;
    }
    /* Standard output stays plain: a gzip stream is asked for by the output's name. */
    if (chrome_wbuf_open(b, ctx, out, chrome_ends_with(tconv_output_name(out), ".gz"))) {
        free(w);
        free(b);
        return TCONV_FATAL;
    }
    w->ctx = ctx;
    w->b = b;
    w->lanes = tconv_option_get_bool(opts, "lanes");
    w->s_memory = tconv_string_intern_cstr(ctx, "memory");
    w->s_allocated = tconv_string_intern_cstr(ctx, "allocated bytes");
    w->s_reserved = tconv_string_intern_cstr(ctx, "reserved bytes");
    w->s_bytes = tconv_string_intern_cstr(ctx, "bytes");
    w->s_memory_instant = tconv_string_intern_cstr(ctx, "[memory]");
    w->s_id = tconv_string_intern_cstr(ctx, "id");
    w->s_id2_local = tconv_string_intern_cstr(ctx, "id2.local");
    w->s_id2_global = tconv_string_intern_cstr(ctx, "id2.global");
    chrome_wbuf_putc(b, '{');
    *state = w;
    return TCONV_OK;
}

static tconv_status chrome_wevent(void *state, const tconv_event *ev)
{
    return chrome_writer_event(state, ev);
}

static tconv_status chrome_wfinish(void *state)
{
    return chrome_writer_finish(state);
}

static void chrome_wdestroy(void *state)
{
    chrome_writer *w = state;
    chrome_writer_free(w);
    chrome_wbuf_free(w->b);
    free(w->b);
    free(w);
}

static const tconv_writer_class chrome_writer_class = {
    .struct_size = sizeof(tconv_writer_class),
    .name = "chrome",
    .description = "Chrome Trace Event JSON for Perfetto, chrome://tracing and speedscope; gzip "
                   "when the output's name ends in .gz",
    .options = chrome_writer_options,
    .accepts = TCONV_KINDS_ALL,
    .flags = 0,
    .open = chrome_wopen,
    .event = chrome_wevent,
    .finish = chrome_wfinish,
    .destroy = chrome_wdestroy,
    .extensions = "json|json.gz",
};

static const tconv_writer_class *const chrome_writers[] = {&chrome_writer_class, NULL};

static const tconv_plugin_desc chrome_plugin = {
    .struct_size = sizeof(tconv_plugin_desc),
    .abi_major = TCONV_ABI_MAJOR,
    .abi_minor = TCONV_ABI_MINOR,
    .name = "chrome",
    .version = TCONV_VERSION,
    .description = "Chrome Trace Event format reader and writer",
    .readers = chrome_readers,
    .writers = chrome_writers,
};

TCONV_PLUGIN(chrome_plugin)
