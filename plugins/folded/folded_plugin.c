/* The folded plugin: reader and writer of folded stacks, the flame-graph tools' exchange format. */
#include "folded_reader.h"
#include "folded_writer.h"

static const tconv_reader_class *const folded_readers[] = {&folded_reader_class, NULL};
static const tconv_writer_class *const folded_writers[] = {&folded_writer_class, NULL};

static const tconv_plugin_desc folded_plugin = {
    .struct_size = sizeof(tconv_plugin_desc),
    .abi_major = TCONV_ABI_MAJOR,
    .abi_minor = TCONV_ABI_MINOR,
    .name = "folded",
    .version = TCONV_VERSION,
    .description = "folded stacks (flamegraph.pl, inferno): reader and writer",
    .readers = folded_readers,
    .writers = folded_writers,
};

TCONV_PLUGIN(folded_plugin)
