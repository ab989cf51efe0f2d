/* The processes of one run, for a writer that runs on each of them (ABI 1.3).
 *
 * In an MPI run (a build with -DTCONV_MPI=ON under mpirun or srun), a writer whose class has
 * TCONV_WRITER_COLLECTIVE runs on every rank: each rank reads its own inputs through its own
 * stages into its own writer, and the writers combine their parts at finish through this
 * service, which moves bytes between the ranks (the plugin need not link MPI). Outside such a
 * run, tconv_ctx_collective returns NULL and the writer is the only one.
 *
 * Every call is collective: each rank of the run makes the same calls in the same order. A
 * rank that fails must still make them (with empty data) until the writers agree to stop; the
 * core commits the output only when the finish of every rank succeeded. Sizes are bytes; a call
 * returns 0, or -1 when a size is beyond what the transport carries in one piece (2 GiB). */
#ifndef TCONV_COLLECTIVE_H
#define TCONV_COLLECTIVE_H

#include <stddef.h>
#include <stdint.h>

#include "context.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct tconv_collective tconv_collective;

/* NULL unless this writer is one of several, one per rank. */
tconv_collective *tconv_ctx_collective(tconv_ctx *ctx);
int tconv_collective_rank(const tconv_collective *c);
int tconv_collective_size(const tconv_collective *c);
/* The index in the whole run (as a single process numbers inputs) of this rank's input, whose
 * index in this rank's events is input; UINT32_MAX if there is none. */
uint32_t tconv_collective_input(const tconv_collective *c, uint32_t input);
int tconv_collective_barrier(tconv_collective *c);
/* n bytes of root's buf into every rank's buf. */
int tconv_collective_bcast(tconv_collective *c, void *buf, size_t n, int root);
/* Each rank's n bytes of in, concatenated in rank order into root's out; counts[q] (root only)
 * is what rank q gives. */
int tconv_collective_gatherv(tconv_collective *c, const void *in, size_t n, void *out,
                             const size_t *counts, int root);
/* ABI 1.4: each rank's n bytes of in, of sizes root does not know, concatenated in rank order
 * into *out on root (malloc'd, the caller frees it; NULL on the other ranks), with what rank q
 * gave in (*counts)[q] (malloc'd on root; NULL on the other ranks). The sizes go first, then
 * the bytes: two gathers. */
int tconv_collective_gather(tconv_collective *c, const void *in, size_t n, int root,
                            unsigned char **out, size_t **counts);
/* The reverse: counts[q] bytes of root's in, in rank order, to rank q's out (n bytes). */
int tconv_collective_scatterv(tconv_collective *c, const void *in, const size_t *counts, void *out,
                              size_t n, int root);

#ifdef __cplusplus
}
#endif
#endif
