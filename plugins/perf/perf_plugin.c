/* The perf plugin: a reader for `perf script` text. */
#include <string.h>

#include "perf_demangle.h"
#include "perf_reader.h"

static const tconv_option_desc perf_options[] = {
    {"pid", TCONV_OPT_BOOL, "false", NULL,
     "root frame 'comm-PID' (stackcollapse-perf --pid; '?' when perf printed no pid)"},
    {"tid", TCONV_OPT_BOOL, "false", NULL, "root frame 'comm-PID/TID' (stackcollapse-perf --tid)"},
    {"kernel", TCONV_OPT_BOOL, "false", NULL, "append _[k] to kernel frames"},
    {"jit", TCONV_OPT_BOOL, "false", NULL,
     "append _[j] to JIT frames (/tmp/perf-PID.map, jitdump jitted-*.so)"},
    {"all", TCONV_OPT_BOOL, "false", NULL, "kernel and jit together"},
    {"addrs", TCONV_OPT_BOOL, "false", NULL,
     "keep the address of unknown symbols: [dso <addr>] instead of [dso]"},
    {"comm", TCONV_OPT_BOOL, "true", NULL,
     "make the process name (comm) the root frame of every stack, as flame graphs do"},
    {"event", TCONV_OPT_STRING, NULL, NULL,
     "read only samples of this event (cycles, cpu-clock:uhH, ...); default: the first event "
     "in the input"},
    {"demangle", TCONV_OPT_BOOL, "false", NULL,
     "demangle C++ names perf left mangled (_ZN...), as perf itself does when built with a "
     "demangler; off by default like the reference tools"},
    {"strict", TCONV_OPT_BOOL, "false", NULL,
     "stop with an error at a line that is neither a sample header nor a call-chain frame "
     "instead of skipping it with a counted warning"},
    {"inline", TCONV_OPT_ENUM, "keep", "keep|mark|drop",
     "frames perf marks '(inlined)' (--call-graph dwarf): keep them, mark them with _[i], or "
     "drop them"},
    {0},
};

static tconv_status perf_read(tconv_ctx *ctx, tconv_input *in, const tconv_options *o,
                              tconv_sink *sink)
{
    perf_opts opts;
    memset(&opts, 0, sizeof(opts));
    int all = tconv_option_get_bool(o, "all");
    opts.tid = tconv_option_get_bool(o, "tid");
    opts.pid = tconv_option_get_bool(o, "pid") || opts.tid;
    opts.kernel = tconv_option_get_bool(o, "kernel") || all;
    opts.jit = tconv_option_get_bool(o, "jit") || all;
    opts.addrs = tconv_option_get_bool(o, "addrs");
    opts.comm = tconv_option_get_bool(o, "comm");
    opts.strict = tconv_option_get_bool(o, "strict");
    opts.demangle = tconv_option_get_bool(o, "demangle");
    if (opts.demangle && !perf_demangle_available()) {
        tconv_error_set(ctx, "perf: -R demangle needs libstdc++ (libstdc++.so.6), which was not "
                             "found");
        return TCONV_FATAL;
    }
    opts.event = tconv_option_is_set(o, "event") ? tconv_option_get_string(o, "event") : NULL;
    const char *inl = tconv_option_get_string(o, "inline");
    opts.inlined = strcmp(inl, "mark") == 0   ? PERF_INLINE_MARK
                   : strcmp(inl, "drop") == 0 ? PERF_INLINE_DROP
                                              : PERF_INLINE_KEEP;
    return perf_reader_run(ctx, in, &opts, sink);
}

static const tconv_reader_class perf_reader_class = {
    .struct_size = sizeof(tconv_reader_class),
    .name = "perf",
    .description = "perf script text (Linux perf): stack samples of one event, any -F selection",
    .extensions = "perf|perf.txt|perf.gz|perf-script",
    .options = perf_options,
    .probe = perf_reader_probe,
    .read = perf_read,
    .flags = TCONV_READER_CONCURRENT,
};

static const tconv_reader_class *const perf_readers[] = {&perf_reader_class, NULL};

static const tconv_plugin_desc perf_plugin = {
    .struct_size = sizeof(tconv_plugin_desc),
    .abi_major = TCONV_ABI_MAJOR,
    .abi_minor = TCONV_ABI_MINOR,
    .name = "perf",
    .version = TCONV_VERSION,
    .description = "Linux perf script text reader",
    .readers = perf_readers,
    .writers = NULL,
};

TCONV_PLUGIN(perf_plugin)
