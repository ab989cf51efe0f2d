/* The collective service of writers that run on every rank (include/tconv/collective.h): the
 * calls go to core/parallel/mpi.c. The run sets ctx->coll only around such a writer's use in an MPI
 * run (core/run/run.c). Gathering bytes of unknown sizes (their sizes first, then the bytes) is one
 * helper, for the writers and for the core's own agreement between the ranks. */
#include "parallel.h"
#include "mpirank.h"

TCONV_API tconv_collective *tconv_ctx_collective(tconv_ctx *ctx)
{
    return ctx->coll;
}

TCONV_API int tconv_collective_rank(const tconv_collective *c)
{
    return tconv_mpi_rank(c->mpi);
}

TCONV_API int tconv_collective_size(const tconv_collective *c)
{
    return tconv_mpi_size(c->mpi);
}

TCONV_API uint32_t tconv_collective_input(const tconv_collective *c, uint32_t input)
{
    return input < c->ninputs ? c->global_input[input] : UINT32_MAX;
}

TCONV_API int tconv_collective_barrier(tconv_collective *c)
{
    return tconv_mpi_barrier(c->mpi);
}

TCONV_API int tconv_collective_bcast(tconv_collective *c, void *buf, size_t n, int root)
{
    return tconv_mpi_bcast(c->mpi, buf, n, root);
}

TCONV_API int tconv_collective_gatherv(tconv_collective *c, const void *in, size_t n, void *out,
                                       const size_t *counts, int root)
{
    return tconv_mpi_gatherv(c->mpi, in, n, out, counts, root);
}

TCONV_API int tconv_collective_scatterv(tconv_collective *c, const void *in, const size_t *counts,
                                        void *out, size_t n, int root)
{
    return tconv_mpi_scatterv(c->mpi, in, counts, out, n, root);
}

int tconv_mpi_gather_bytes(tconv_mpi *m, const void *in, size_t n, int root, unsigned char **out,
                           size_t **counts)
{
    int size = tconv_mpi_size(m), me = tconv_mpi_rank(m);
    size_t *eight = tconv_xcalloc((size_t)size, sizeof(*eight));
    for (int q = 0; q < size; q++)
        eight[q] = sizeof(uint64_t);
    uint64_t len = n, *lens = me == root ? tconv_xcalloc((size_t)size, sizeof(*lens)) : NULL;
    int rc = tconv_mpi_gatherv(m, &len, sizeof(len), lens, eight, root);
    size_t *cnt = NULL, total = 0;
    if (me == root) {
        cnt = tconv_xcalloc((size_t)size, sizeof(*cnt));
        for (int q = 0; q < size; q++)
            total += cnt[q] = (size_t)lens[q];
    }
    unsigned char *all = me == root ? tconv_xmalloc(total ? total : 1) : NULL;
    if (rc == 0) rc = tconv_mpi_gatherv(m, in, n, all, cnt, root);
    free(eight);
    free(lens);
    *out = all;
    *counts = cnt;
    return rc;
}

TCONV_API int tconv_collective_gather(tconv_collective *c, const void *in, size_t n, int root,
                                      unsigned char **out, size_t **counts)
{
    return tconv_mpi_gather_bytes(c->mpi, in, n, root, out, counts);
}
