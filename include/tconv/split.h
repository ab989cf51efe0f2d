/* One large input read on several threads (tconv -j), for a reader whose events are the
 * elements of one JSON array: a trace's "traceEvents", or a bare top-level array. Added in
 * ABI 1.6.
 *
 * The reader reads its input as usual up to the array's '['. There, when tconv_split_possible
 * said yes, it hands the array to the core (tconv_split_array), which cuts it into parts at the
 * ',' between elements (found by a structural pre-pass, outside strings), has each part read on
 * a worker thread by the reader's part functions into a recording, with a context of its own,
 * and replays the recordings into the run's context and sink in input order, as -j replays
 * whole inputs. Parts no worker has begun the calling thread reads itself, in line, with the
 * reader's own state. The call returns where the reader reads on, in line, as before: near the
 * array's end (the last element, the ']' and whatever follows are the reader's), or at the
 * first part that failed, so that every message, warning and error is the one a whole read
 * gives, in its place.
 *
 * What a part reader may do: intern strings, make tracks, push events, add warnings, as a
 * reader does with a context of its own (TCONV_READER_CONCURRENT). What it must not do is use
 * state that one element leaves for the next (a name given to a track at its first event, a
 * running sum, a table read before the array): such an element it hands to the calling thread
 * with tconv_split_defer, before it has pushed or warned anything for it, and the calling thread
 * reads it there, in its place, with the reader's own state (docs/plugin-guide.md, Reading one
 * input on several threads). */
#ifndef TCONV_SPLIT_H
#define TCONV_SPLIT_H

#include <stddef.h>
#include <stdint.h>

#include "context.h"
#include "event.h"
#include "io.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct tconv_sink tconv_sink;

/* Nonzero when the core would read a JSON array of this input in parts: the run reads it on the
 * calling thread with threads to spare (-j, one input), from a regular file (plain or gzip) at
 * least as large as the run's threshold. Ask once, before the array; a reader that is told 0
 * reads the input whole, as before. A reader of another format may ask it too, as "may this
 * read keep a thread of its own busy beside the calling thread": the answer weighs the same
 * spare cores and the same input size. */
int tconv_split_possible(tconv_ctx *ctx, tconv_input *in);

/* The reader's part functions and what the core needs to know of the array. */
typedef struct tconv_split_desc {
    size_t struct_size; /* sizeof(tconv_split_desc) */
    /* The input offset just past the array's '[' (what the reader consumed up to), and the
     * bytes after it the reader read from the input already (the core takes them over). */
    uint64_t offset;
    const unsigned char *have;
    size_t nhave;
    /* Containers open inside the array, itself included: 1 for a top-level array. */
    uint32_t depth;
    /* A part reader for one part, on a worker thread, with the worker's context and a sink
     * that records: user is the reader's own, read concurrently, never written during the
     * call. NULL when out of memory. */
    void *(*part_new)(void *user, tconv_ctx *ctx, tconv_sink *sink);
    void *user;
    /* Read buf[0 .. len), the input's bytes at offset: elements of the array and the ',' between
     * them, from just after the '[' when expect_value is set (a first part, or one element the
     * part deferred), else from a ',' on; a part ends with the ',' after its last element
     * (which the next part begins with too), a deferred element with its last byte.
     * TCONV_OK only when the bytes read as whole elements, nothing cut; else TCONV_FATAL (a
     * worker's part is then read again on the calling thread, with the main state, from its
     * start). Called with a part reader on a worker, or with main on the calling thread (its
     * context and sink are then the run's). */
    tconv_status (*part_read)(void *state, const unsigned char *buf, size_t len, uint64_t offset,
                              int expect_value);
    void (*part_free)(void *state);
    /* The reader's own state, for part_read on the calling thread. */
    void *main;
} tconv_split_desc;

/* Where the reader reads on: at offset, with its JSON state after an element of the array
 * (after_bracket 0: the bytes there begin with the ',' that follows it) or just after the '['
 * (after_bracket 1: no part was read). The bytes from offset on that the core read already are
 * given back to the input: tconv_input_read returns them first (tconv_input_offset is offset
 * then). */
typedef struct tconv_split_resume {
    size_t struct_size; /* sizeof(tconv_split_resume), set by the reader */
    uint64_t offset;
    int after_bracket;
} tconv_split_resume;

/* Reads the array in parts into sink (the reader's own). TCONV_OK: read on from *res.
 * TCONV_FATAL: the run's error is on ctx (a push failed, the writer failed, an interrupt, or
 * the calling thread's read of a part or of a deferred element failed), as a read of the whole
 * input would have stopped there. */
tconv_status tconv_split_array(tconv_ctx *ctx, tconv_input *in, tconv_sink *sink,
                               const tconv_split_desc *d, tconv_split_resume *res);

/* From a part reader, for the element at input offset [offset, offset + len) that it has not
 * mapped because the mapping needs state the element before it left: the calling thread reads
 * it (part_read with main and expect_value) when the replay reaches it. 0, or -1 when sink is
 * not a part's. */
int tconv_split_defer(tconv_sink *sink, uint64_t offset, uint64_t len);

#ifdef __cplusplus
}
#endif

#endif
