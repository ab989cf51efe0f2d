/* The speedscope plugin: speedscope's JSON file format, read and written. */
#include "speedscope.h"

static const tconv_reader_class *const speedscope_readers[] = {&speedscope_reader_class, NULL};
static const tconv_writer_class *const speedscope_writers[] = {&speedscope_writer_class, NULL};

static const tconv_plugin_desc speedscope_plugin = {
    .struct_size = sizeof(tconv_plugin_desc),
    .abi_major = TCONV_ABI_MAJOR,
    .abi_minor = TCONV_ABI_MINOR,
    .name = "speedscope",
    .version = TCONV_VERSION,
    .description = "speedscope's file format (py-spy, rbspy, speedscope's export): reader and "
                   "writer",
    .readers = speedscope_readers,
    .writers = speedscope_writers,
};

TCONV_PLUGIN(speedscope_plugin)
