/* Input and output as plugins see them. Decompression lives here, below every reader: a gzip
 * input (recognised by its magic bytes) reads as its decompressed bytes. Outputs are written to a
 * temporary name and renamed only when the run succeeds. */
#ifndef TCONV_IO_H
#define TCONV_IO_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "context.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct tconv_input tconv_input;
typedef struct tconv_output tconv_output;

/* Reads up to cap decompressed bytes; returns the count, 0 at end, -1 on error (on the ctx). */
ssize_t tconv_input_read(tconv_input *in, void *buf, size_t cap);
/* As tconv_input_read, without the copy: *data points to up to cap bytes the input holds, valid
 * until the next call on in. The pieces may be smaller than cap anywhere in the stream (ABI 1.5).
 */
ssize_t tconv_input_view(tconv_input *in, const void **data, size_t cap);
/* The next line without its '\n' (and without a '\r' before it), NUL-terminated, valid until the
 * next read; NULL at end or on error (tconv_error_pending tells which). */
const char *tconv_input_getline(tconv_input *in, size_t *len);
/* The first bytes (decompressed) without consuming them; used by probes. */
const unsigned char *tconv_input_peek(tconv_input *in, size_t *len);
/* The name for messages: the path, or "<stdin>". */
const char *tconv_input_name(const tconv_input *in);
/* Decompressed bytes consumed so far, and the line number of the last getline (1-based). */
uint64_t tconv_input_offset(const tconv_input *in);
uint64_t tconv_input_line(const tconv_input *in);
int tconv_input_is_gzip(const tconv_input *in);
/* Compressed bytes read from the file so far, for progress, with those tconv_input_add_read
 * counted. */
uint64_t tconv_input_raw_offset(const tconv_input *in);
/* For a reader that reads its file by name (a database library, an archive of several files)
 * rather than through the input: counts bytes it read there, so that the run's progress and
 * statistics show the input's real size. It moves nothing the input returns: the offset of
 * the next byte and the positions of messages stay as they were (ABI 1.7). */
void tconv_input_add_read(tconv_input *in, uint64_t bytes);
/* The same for the input's own file, read whole by name: a plain regular file counts as read
 * to its end, the head a probe peeked at as its first bytes (taken, so that nothing counts
 * twice; read nothing more through the input after it). A gzip or a stream, which a reader
 * must read through the input (into a copy), counts itself: nothing is added (ABI 1.7). */
void tconv_input_add_file(tconv_input *in);
/* The index of this input among the run's inputs (0-based). */
uint32_t tconv_input_index(const tconv_input *in);

/* Write to a stream output; -1 on error (on the ctx). Buffered. */
int tconv_output_write(tconv_output *out, const void *buf, size_t len);
int tconv_output_printf(tconv_output *out, const char *fmt, ...) TCONV_PRINTF(2, 3);
/* For directory writers: the (temporary) directory to fill; it exists and is empty. */
const char *tconv_output_dir(const tconv_output *out);
/* The final name the user asked for ("-" for stdout), for messages. */
const char *tconv_output_name(const tconv_output *out);

/* A gzip stream onto a stream output, for formats that are gzip-wrapped. The bytes depend on
 * the data and the level alone (no time or host in the header; any split of the writes gives
 * the same stream). new: NULL with the error on ctx when zlib cannot start. write and finish
 * (which ends the stream): 0, or -1 with the error on ctx; after a failure every call fails.
 * ABI 1.2. */
typedef struct tconv_gzout tconv_gzout;
tconv_gzout *tconv_gzout_new(tconv_ctx *ctx, tconv_output *out, int level);
int tconv_gzout_write(tconv_gzout *z, const void *data, size_t len);
int tconv_gzout_finish(tconv_gzout *z);
void tconv_gzout_free(tconv_gzout *z);

#ifdef __cplusplus
}
#endif
#endif
