/* The io layer (core/io/): inputs (a file or stdin, gzip inflated by ISA-L or zlib on a
 * read-ahead thread), the inputs of a run, outputs (a temporary name committed at the end, a
 * directory output, gzip out), and what may be removed next to an output. */
#ifndef TCONV_CORE_IO_H
#define TCONV_CORE_IO_H

#include "context.h"

/* ---- input ---- */
/* limit: most decompressed bytes a gzip input may produce (0: no limit). */
tconv_input *tconv_input_open(tconv_ctx *ctx, const char *path, uint32_t index, uint64_t limit);
/* An input another process read to its end (an MPI run): its name and how far it was read
 * (raw_offset without by_name), for the messages and counts of the process that replays it.
 * Nothing can be read from it. */
tconv_input *tconv_input_read_elsewhere(tconv_ctx *ctx, const char *name, uint32_t index,
                                        uint64_t offset, uint64_t raw_offset, uint64_t by_name);
/* The bytes the reader read by name (tconv_input_add_read). */
uint64_t tconv_input_by_name(const tconv_input *in);
void tconv_input_close(tconv_input *in);
/* Gives n bytes read from in back to it: tconv_input_read returns them next, and the offset
 * counts them again (core/parallel/split.c reads ahead of the reader it resumes). */
void tconv_input_unread(tconv_input *in, const void *bytes, size_t n);
/* A read of in failed ahead of the reader (core/parallel/split.c): the failure is taken off the
 * context and said again when the reader's read reaches it, which a reader that stops earlier
 * never does, as when it reads the input itself. */
void tconv_input_reraise(tconv_input *in);
/* The file's size when it is a regular file (compressed or not), else 0. */
uint64_t tconv_input_file_size(const tconv_input *in);
/* The name for messages from now on (the harness names an input by what the test calls it). */
void tconv_input_set_name(tconv_input *in, const char *name);

/* ---- a plain input file mapped for tconv_input_view (core/io/inmap.c) ---- */
/* The whole file behind fd, registered so that a SIGBUS inside it (the file cut short while it
 * is read) ends the run with an error naming it; NULL: read it instead. */
const unsigned char *tconv_inmap_open(int fd, const char *name, size_t *len);
void tconv_inmap_close(const unsigned char *map, size_t len);

/* ---- the inputs of a run (core/inputs.c) ---- */
typedef struct tconv_input_item {
    char *path;
    const char *dir; /* the directory named by the user it was found in, or NULL */
} tconv_input_item;
typedef struct tconv_input_list {
    tconv_input_item *items;
    size_t n, cap;
} tconv_input_list;
/* Every named input, directories replaced by the files below them; none: standard input.
 * What cannot be read below a directory is a warning on ctx. */
void tconv_inputs_expand(tconv_ctx *ctx, tconv_input_list *l, const char *const *args,
                         size_t nargs);
void tconv_inputs_free(tconv_input_list *l);

/* ---- one gzip member's inflater: ISA-L or zlib (core/inflate.c) ---- */
typedef struct tconv_inflater tconv_inflater;
enum { TCONV_INFLATE_ZLIB, TCONV_INFLATE_ISAL };
/* What tconv_inflater_run returns. REFUSED: ISA-L will not or cannot go on (an error, or a
 * header it may read otherwise than zlib): inflate the input again with zlib. */
enum {
    TCONV_INFLATE_ERROR = -2,
    TCONV_INFLATE_REFUSED = -1,
    TCONV_INFLATE_MORE = 0,
    TCONV_INFLATE_END = 1 /* the member ended: reset for another */
};
/* ISA-L when built with it, unless TCONV_INFLATE=zlib. */
int tconv_inflater_default(void);
tconv_inflater *tconv_inflater_new(int backend); /* NULL: out of memory or zlib failed */
int tconv_inflater_backend(const tconv_inflater *z);
int tconv_inflater_reset(tconv_inflater *z);
/* Inflate in[0 .. in_len) into out[0 .. out_cap); *why says what is wrong on ERROR (zlib's
 * message) and REFUSED. */
int tconv_inflater_run(tconv_inflater *z, const unsigned char *in, size_t in_len, size_t *in_used,
                       unsigned char *out, size_t out_cap, size_t *out_made, const char **why);
void tconv_inflater_free(tconv_inflater *z);

/* ---- read-ahead: a producer thread ahead of its consumer (core/readahead.c) ---- */
typedef struct tconv_readahead tconv_readahead;
/* Called on the producer thread: up to cap bytes into dst; the count, 0 at the end, -1 on a
 * failure (whose description the producer keeps for the consumer). */
typedef ssize_t (*tconv_produce_fn)(void *user, tconv_readahead *ra, unsigned char *dst,
                                    size_t cap);
/* Starts the thread; NULL when it cannot be started (the caller then produces in line).
 * fd >= 0: the producer reads fd, which may block (a pipe or a terminal): see
 * tconv_readahead_wait; what it produced goes to the consumer as soon as fd has nothing more. */
tconv_readahead *tconv_readahead_start(tconv_produce_fn produce, void *user, size_t slot_cap,
                                       int fd);
/* The next produced buffer (valid until the next call); NULL at the end (*status 0) or after
 * the producer's failure (*status -1). */
const unsigned char *tconv_readahead_next(tconv_readahead *ra, size_t *len, int *status);
/* For the producer, before reading the fd given to tconv_readahead_start: 0 when it is
 * readable (at once when it was -1), -1 when the consumer is gone. */
int tconv_readahead_wait(tconv_readahead *ra);
/* Stops and joins the thread, whatever it was doing. */
void tconv_readahead_free(tconv_readahead *ra);

/* ---- output ---- */
enum { TCONV_OUT_STREAM = 0, TCONV_OUT_DIR = 1 };
typedef struct tconv_output_opts {
    int mode;
    int force;
    int binary; /* refuse a terminal */
} tconv_output_opts;
tconv_output *tconv_output_open(tconv_ctx *ctx, const char *path, const tconv_output_opts *o);
/* Flush and move into place. */
int tconv_output_commit(tconv_output *out);
tconv_output *tconv_output_borrow_dir(tconv_ctx *ctx, const char *name, const char *dir);
/* Remove whatever was created; the old file (if any) is left untouched. */
void tconv_output_abort(tconv_output *out);
void tconv_output_close(tconv_output *out);
/* Removes every temporary output of the process now; how many. */
size_t tconv_output_discard_all(void);
uint64_t tconv_output_bytes(const tconv_output *out);

/* ---- what may be removed next to an output (core/outsafe.c) ---- */
struct timespec;
/* 0 when dir holds nothing (*empty) or only an OTF2 archive; else *foreign is the first entry
 * (malloc'd path) that is not part of one. -1 when dir cannot be read (errno). */
int tconv_outsafe_foreign(const char *dir, char **foreign, int *empty);
/* A usage error (shown names dir) when dir is '.', '..', '/', a mount point or holds the
 * current directory. */
int tconv_outsafe_place(tconv_ctx *ctx, const char *dir, const char *shown);
/* Removes ".<base>.tconv-<pid>-*" in dir left by processes that are gone, older than start. */
void tconv_outsafe_sweep(const char *dir, const char *base, const struct timespec *start);
void tconv_outsafe_rm_tree(const char *path);

#endif
