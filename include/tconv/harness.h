/* The plugin kit's harness (ABI 1.4): a reader or a writer run inside a test program, through
 * the same checks and stages as a conversion by the tconv program, with no host, no plugin
 * search and no files but its own temporary ones. For a plugin's unit tests:
 *
 *     tconv_harness *h = tconv_harness_new();
 *     // a reader: feed it bytes, get the events a writer would get
 *     if (tconv_harness_read(h, &my_reader, "x.myf", bytes, len, NULL, 0) != TCONV_OK)
 *         ...                               // the error chain is on tconv_harness_ctx(h)
 *     size_t n;
 *     const tconv_event *ev = tconv_harness_events(h, &n);
 *     // a writer: push events into it, get its bytes
 *     tconv_sink *sink = tconv_harness_open(h, &my_writer, NULL, 0);
 *     tconv_sink_push(sink, &event);        // or tconv_harness_read(): a reader into it
 *     if (tconv_harness_finish(h) == TCONV_OK) {
 *         size_t size;
 *         const unsigned char *out = tconv_harness_output(h, &size);
 *     }
 *     tconv_harness_free(h);
 *
 * Strings and tracks of the events pushed and kept are those of the harness's context. A harness
 * belongs to one thread; any number may exist at once. docs/plugin-guide.md walks through a
 * reader and its test with it. */
#ifndef TCONV_HARNESS_H
#define TCONV_HARNESS_H

#include <stddef.h>
#include <stdint.h>

#include "context.h"
#include "event.h"
#include "plugin.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct tconv_harness tconv_harness;

/* A harness with a context of its own; NULL when no temporary folder can be made (under
 * $TMPDIR, else /tmp). */
tconv_harness *tconv_harness_new(void);
/* Removes its temporary files and folders. */
void tconv_harness_free(tconv_harness *h);
/* Its context: the strings and tracks of every event, the error chain of a call that failed,
 * the warnings of everything run so far. */
tconv_ctx *tconv_harness_ctx(tconv_harness *h);

/* Reads len bytes of data as one more input (gzip recognised by its magic bytes, as for any
 * input) with reader rc and options "key=value" (checked against rc's descriptors: a wrong one
 * fails as a usage error). name names the input in messages ("<input>" when NULL). The events go
 * to the writer of tconv_harness_open if one is open; else they are kept, as the pipeline gives
 * them to a writer that takes every kind as it comes: checked, with their input and sequence
 * numbers, their args, frames and values copied. TCONV_OK, or TCONV_FATAL with the error on the
 * context. */
tconv_status tconv_harness_read(tconv_harness *h, const tconv_reader_class *rc, const char *name,
                                const void *data, size_t len, const char *const *options,
                                size_t noptions);
/* The same with the bytes of a file, named by its path. */
tconv_status tconv_harness_read_file(tconv_harness *h, const tconv_reader_class *rc,
                                     const char *path, const char *const *options, size_t noptions);
/* The input whose tracks tconv_track_get makes from now on, and whose events are pushed directly
 * (into a writer's sink): for a test of a plugin's own functions that look at inputs. Each read
 * moves it to the next input. */
void tconv_harness_input(tconv_harness *h, uint32_t input);
/* The events kept so far, in the order they were pushed; valid until the next call on h. */
const tconv_event *tconv_harness_events(const tconv_harness *h, size_t *n);

/* Opens writer wc with options "key=value" on an output of the harness's own (a file, or a
 * folder for a TCONV_WRITER_DIRECTORY writer), and returns the sink to push its events into:
 * the same stages as a conversion (ordering, stacks, GPU attribution) as the writer's flags and
 * needs ask. Each input read into it is one more input of the writer's; events pushed directly
 * belong to the input of the last read (0 before any). NULL with the error on the context when
 * an option is wrong or the writer fails to open. One writer at a time. */
tconv_sink *tconv_harness_open(tconv_harness *h, const tconv_writer_class *wc,
                               const char *const *options, size_t noptions);
/* Flushes the stages into the writer and finishes it, as at the end of a conversion, and
 * closes it. TCONV_OK, or TCONV_FATAL with the error on the context. */
tconv_status tconv_harness_finish(tconv_harness *h);
/* What the last writer wrote: its bytes (a stream writer's; NULL for a folder), and the path of
 * the file or folder it made. Valid until the next open or tconv_harness_free. */
const unsigned char *tconv_harness_output(const tconv_harness *h, size_t *len);
const char *tconv_harness_output_path(const tconv_harness *h);

#ifdef __cplusplus
}
#endif
#endif
