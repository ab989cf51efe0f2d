/* The nsys plugin: a reader for Nsight Systems SQLite exports (`nsys export --type sqlite`). */
#include <string.h>

#include "nsys_probe.h"
#include "nsys_reader.h"

static const tconv_option_desc nsys_options[] = {
    {"names", TCONV_OPT_ENUM, "demangled", "demangled|short|mangled",
     "kernel names: demangled with templates and parameters (as nsys stats shows them), the "
     "short base name, or the mangled symbol"},
    {"samples", TCONV_OPT_ENUM, "auto", "auto|true|false",
     "CPU sampling (COMPOSITE_EVENTS) as stack samples; auto: only when the export has no "
     "traced calls or GPU work, since profile writers would add the samples' CPU time to the "
     "spans' self time (and GPU attribution cannot use them)"},
    {"backtraces", TCONV_OPT_BOOL, "true", NULL,
     "the backtraces nsys took at CUDA and OS runtime calls as the frames enclosing each call, "
     "so GPU time shows under the code that launched it"},
    {0},
};

static tconv_status nsys_plugin_read(tconv_ctx *ctx, tconv_input *in, const tconv_options *o,
                                     tconv_sink *sink)
{
    nsys_opts opt = {0};
    const char *names = tconv_option_get_string(o, "names");
    opt.names = strcmp(names, "short") == 0     ? NSYS_NAMES_SHORT
                : strcmp(names, "mangled") == 0 ? NSYS_NAMES_MANGLED
                                                : NSYS_NAMES_DEMANGLED;
    const char *samples = tconv_option_get_string(o, "samples");
    opt.samples = strcmp(samples, "true") == 0    ? NSYS_SAMPLES_ON
                  : strcmp(samples, "false") == 0 ? NSYS_SAMPLES_OFF
                                                  : NSYS_SAMPLES_AUTO;
    opt.backtraces = tconv_option_get_bool(o, "backtraces");
    return nsys_read(ctx, in, &opt, sink);
}

static const tconv_reader_class nsys_reader_class = {
    .struct_size = sizeof(tconv_reader_class),
    .name = "nsys",
    .description = "Nsight Systems SQLite export (nsys export --type sqlite, schemas 2.9 to 3.x): "
                   "CUDA kernels, copies and API calls, NVTX, OS runtime, CPU samples",
    .extensions = "sqlite|sqlite.gz|nsys.sqlite",
    .options = nsys_options,
    .probe = nsys_probe,
    .read = nsys_plugin_read,
    .flags = TCONV_READER_CONCURRENT,
};

static const tconv_reader_class *const nsys_readers[] = {&nsys_reader_class, NULL};

static const tconv_plugin_desc nsys_plugin = {
    .struct_size = sizeof(tconv_plugin_desc),
    .abi_major = TCONV_ABI_MAJOR,
    .abi_minor = TCONV_ABI_MINOR,
    .name = "nsys",
    .version = TCONV_VERSION,
    .description = "NVIDIA Nsight Systems SQLite export reader",
    .readers = nsys_readers,
    .writers = NULL,
};

TCONV_PLUGIN(nsys_plugin)
