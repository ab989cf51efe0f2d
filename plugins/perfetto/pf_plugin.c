/* The perfetto plugin: Perfetto's protobuf trace format, written (pf_writer.c) and read
 * (pf_reader.c). docs/perfetto.md gives the mapping both ways. */
#include <tconv/tconv.h>

extern const tconv_writer_class pf_writer_class;
extern const tconv_reader_class pf_reader_class;

static const tconv_writer_class *const pf_writers[] = {&pf_writer_class, NULL};
static const tconv_reader_class *const pf_readers[] = {&pf_reader_class, NULL};

static const tconv_plugin_desc pf_plugin = {
    .struct_size = sizeof(tconv_plugin_desc),
    .abi_major = TCONV_ABI_MAJOR,
    .abi_minor = TCONV_ABI_MINOR,
    .name = "perfetto",
    .version = TCONV_VERSION,
    .description = "Perfetto protobuf traces (.pftrace): TrackEvent writer and reader",
    .readers = pf_readers,
    .writers = pf_writers,
};

TCONV_PLUGIN(pf_plugin)
