/* The rocprof plugin: one reader for the ROCm profilers' outputs, rocprofv3 JSON and rpd
 * SQLite, told apart by their first bytes. */
#include <string.h>

#include "rocprof_probe.h"
#include "rocprof_reader.h"
#include "../nsys/sqlin.h"

static const tconv_option_desc rocprof_options[] = {
    {"names", TCONV_OPT_ENUM, "demangled", "demangled|short|mangled",
     "kernel names: demangled (rocprofv3's formatted name), the short base name (no namespace, "
     "template arguments or parameters), or the mangled symbol (rocprofv3 only)"},
    {"by", TCONV_OPT_ENUM, "auto", "auto|stream|queue",
     "GPU tracks per HIP stream (where the profile records it) or per HSA queue; auto: streams "
     "for rocprofv3, as it shows them, queues for rpd, which records streams for kernel and "
     "copy launches only"},
    {"strict", TCONV_OPT_BOOL, "false", NULL,
     "stop with an error at a malformed record instead of skipping it with a counted warning"},
    {0},
};

static tconv_status rocprof_read(tconv_ctx *ctx, tconv_input *in, const tconv_options *o,
                                 tconv_sink *sink)
{
    rp_opts opt = {0};
    const char *names = tconv_option_get_string(o, "names");
    opt.names = strcmp(names, "short") == 0     ? RP_NAMES_SHORT
                : strcmp(names, "mangled") == 0 ? RP_NAMES_MANGLED
                                                : RP_NAMES_DEMANGLED;
    const char *by = tconv_option_get_string(o, "by");
    opt.by = strcmp(by, "queue") == 0    ? RP_BY_QUEUE
             : strcmp(by, "stream") == 0 ? RP_BY_STREAM
                                         : RP_BY_AUTO;
    opt.strict = tconv_option_get_bool(o, "strict");
    rp_common c;
    rp_common_init(&c, ctx, sink, &opt, tconv_input_name(in));
    size_t hlen;
    const unsigned char *head = tconv_input_peek(in, &hlen);
    tconv_status st = tconv_error_pending(ctx)      ? TCONV_FATAL
                      : sqlin_is_sqlite(head, hlen) ? rp_rpd_read(&c, in)
                                                    : rp_json_read(&c, in);
    rp_common_free(&c);
    return st;
}

static const tconv_reader_class rocprof_reader_class = {
    .struct_size = sizeof(tconv_reader_class),
    .name = "rocprof",
    .description = "ROCm profilers: rocprofv3 JSON (--output-format json) and rpd_tracer SQLite "
                   "(.rpd): kernels, copies, HIP/HSA calls, roctx",
    .extensions = "rpd|rpd.gz|db|json|json.gz",
    .options = rocprof_options,
    .probe = rocprof_probe,
    .read = rocprof_read,
    .flags = TCONV_READER_CONCURRENT,
};

static const tconv_reader_class *const rocprof_readers[] = {&rocprof_reader_class, NULL};

static const tconv_plugin_desc rocprof_plugin = {
    .struct_size = sizeof(tconv_plugin_desc),
    .abi_major = TCONV_ABI_MAJOR,
    .abi_minor = TCONV_ABI_MINOR,
    .name = "rocprof",
    .version = TCONV_VERSION,
    .description = "AMD ROCm profiler readers (rocprofv3 JSON, rpd SQLite)",
    .readers = rocprof_readers,
    .writers = NULL,
};

TCONV_PLUGIN(rocprof_plugin)
