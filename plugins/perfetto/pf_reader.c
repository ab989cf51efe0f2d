#include <tconv/tconv.h>
static tconv_status pf_r_read(tconv_ctx *ctx, tconv_input *in, const tconv_options *opts, tconv_sink *sink)
{ (void)in; (void)opts; (void)sink; tconv_error_set(ctx, "todo"); return TCONV_FATAL; }
const tconv_reader_class pf_reader_class = {.struct_size = sizeof(tconv_reader_class), .name = "perfetto", .read = pf_r_read};
