/* The collective service of writers that run on every rank (include/tconv/collective.h): the
 * calls go to core/mpi.c. The run sets ctx->coll only around such a writer's use in an MPI run
 * (core/run.c). */
#include "internal.h"
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
