/* The Chrome Trace Event reader: plugin descriptor and the read loop. */
#include <locale.h>
#include <stdlib.h>
#include <string.h>

#include <tconv/tconv.h>

#include "chrome_probe.h"
#include "chrome_reader.h"

#define CHROME_CHUNK (256u * 1024u)

static const tconv_option_desc chrome_options[] = {
    {"strict", TCONV_OPT_BOOL, "false", NULL,
     "stop with an error at a malformed event (missing ph, ts that is not a number, ...) "
     "instead of skipping it with a counted warning"},
    {0},
};

static tconv_status chrome_read_all(chrome_reader *r, unsigned char *buf)
{
    uint64_t total = 0;
    for (;;) {
        ssize_t n = tconv_input_read(r->in, buf, CHROME_CHUNK);
        if (n < 0) return TCONV_FATAL;
        if (n == 0) break;
        size_t skip = 0;
        /* Some Windows tools start the file with a UTF-8 byte order mark, which is not JSON.
         * (A read returns at least 3 bytes unless the input is shorter.) */
        if (total == 0 && n >= 3 && memcmp(buf, "\xEF\xBB\xBF", 3) == 0) skip = 3;
        r->chunk_base = total + skip;
        if (chrome_parse_chunk(r, buf + skip, (size_t)n - skip) == TCONV_FATAL) return TCONV_FATAL;
        total += (uint64_t)n;
    }
    if (chrome_parse_end(r, total) == TCONV_FATAL) return TCONV_FATAL;
    return chrome_emit_finish(r);
}

static tconv_status chrome_read(tconv_ctx *ctx, tconv_input *in, const tconv_options *opts,
                                tconv_sink *sink)
{
    chrome_reader *r = calloc(1, sizeof *r);
    unsigned char *buf = malloc(CHROME_CHUNK);
    /* Numbers are converted with strtod, whose decimal point follows LC_NUMERIC: pin it to
     * "C" for this thread while reading. */
    locale_t cloc = newlocale(LC_NUMERIC_MASK, "C", (locale_t)0);
    locale_t old = cloc ? uselocale(cloc) : (locale_t)0;
    tconv_status st = TCONV_FATAL;
    if (!r || !buf) {
        tconv_error_set(ctx, "chrome: out of memory");
        goto out;
    }
    r->ctx = ctx;
    r->in = in;
    r->sink = sink;
    r->input_name = tconv_input_name(in);
    r->strict = tconv_option_get_bool(opts, "strict");
    for (unsigned i = 0; i < CHROME_TRACK_CACHE; i++)
        r->tcache[i].track = UINT32_MAX;
    if (chrome_parse_init(r)) {
        tconv_error_set(ctx, "chrome: out of memory");
        goto out;
    }
    st = chrome_read_all(r, buf);
out:
    if (r) {
        chrome_parse_free(r);
        chrome_emit_free(r);
        chrome_frames_free(r);
        free(r);
    }
    free(buf);
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
};

static const tconv_reader_class *const chrome_readers[] = {&chrome_reader_class, NULL};

static const tconv_plugin_desc chrome_plugin = {
    .struct_size = sizeof(tconv_plugin_desc),
    .abi_major = TCONV_ABI_MAJOR,
    .abi_minor = TCONV_ABI_MINOR,
    .name = "chrome",
    .version = "0.1.0",
    .description = "Chrome Trace Event format reader",
    .readers = chrome_readers,
    .writers = NULL,
};

TCONV_PLUGIN(chrome_plugin)
