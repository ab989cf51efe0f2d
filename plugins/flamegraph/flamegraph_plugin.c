/* The flamegraph plugin: an interactive SVG flame graph, written by tconv itself, with no
 * external tool and nothing fetched from a network. */
#include "flamegraph_writer.h"

static const tconv_writer_class *const flamegraph_writers[] = {&flamegraph_writer_class, NULL};

static const tconv_plugin_desc flamegraph_plugin = {
    .struct_size = sizeof(tconv_plugin_desc),
    .abi_major = TCONV_ABI_MAJOR,
    .abi_minor = TCONV_ABI_MINOR,
    .name = "flamegraph",
    .version = TCONV_VERSION,
    .description = "interactive flame graphs as self-contained SVG",
    .readers = NULL,
    .writers = flamegraph_writers,
};

TCONV_PLUGIN(flamegraph_plugin)
