/* sloppy: a plugin that loads fine but breaks the contract tconv-plugin-check enforces: its
 * probe claims everything (and out of range), it accepts junk as an empty success, and its
 * writer's output differs from run to run. The harness must fail on each. */
#include <stdio.h>

#include "tconv/tconv.h"

static int sloppy_probe(const unsigned char *buf, size_t len)
{
    (void)buf, (void)len;
    return 200;
}

static tconv_status sloppy_read(tconv_ctx *ctx, tconv_input *in, const tconv_options *opts,
                                tconv_sink *sink)
{
    (void)ctx, (void)in, (void)opts, (void)sink;
    return TCONV_OK;
}

static tconv_status sloppy_open(tconv_ctx *ctx, tconv_output *out, const tconv_options *opts,
                                void **state)
{
    (void)ctx, (void)opts;
    *state = out;
    return TCONV_OK;
}

static tconv_status sloppy_event(void *state, const tconv_event *ev)
{
    (void)state, (void)ev;
    return TCONV_OK;
}

static tconv_status sloppy_finish(void *state)
{
    static int runs;
    return tconv_output_printf(state, "run %d\n", ++runs) < 0 ? TCONV_FATAL : TCONV_OK;
}

static void sloppy_destroy(void *state)
{
    (void)state;
}

static const tconv_reader_class sloppy_reader = {
    .struct_size = sizeof(tconv_reader_class),
    .name = "sloppy",
    .description = "test-only: breaks the reader contract",
    .probe = sloppy_probe,
    .read = sloppy_read,
};
static const tconv_writer_class sloppy_writer = {
    .struct_size = sizeof(tconv_writer_class),
    .name = "sloppy-out",
    .description = "test-only: not deterministic",
    .accepts = TCONV_KINDS_ALL,
    .open = sloppy_open,
    .event = sloppy_event,
    .finish = sloppy_finish,
    .destroy = sloppy_destroy,
};
static const tconv_reader_class *const sloppy_readers[] = {&sloppy_reader, NULL};
static const tconv_writer_class *const sloppy_writers[] = {&sloppy_writer, NULL};
static const tconv_plugin_desc sloppy_plugin = {
    .struct_size = sizeof(tconv_plugin_desc),
    .abi_major = TCONV_ABI_MAJOR,
    .abi_minor = TCONV_ABI_MINOR,
    .name = "sloppy",
    .version = "test",
    .description = "Test-only plugin that breaks the contract (not installed)",
    .readers = sloppy_readers,
    .writers = sloppy_writers,
};

TCONV_PLUGIN(sloppy_plugin)
