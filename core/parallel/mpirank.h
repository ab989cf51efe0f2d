/* The processes of an MPI run (core/parallel/mpi.c, in a build with -DTCONV_MPI=ON): rank 0 expands
 * the inputs, gives each to a rank (balanced by size), reads its own in line and replays the
 * others' recordings, received in input order; it alone writes. The other ranks read theirs
 * into recordings and send them. Without MPI, or launched without mpirun/srun, or with one
 * rank, tconv_mpi_begin returns NULL and nothing here is used. */
#ifndef TCONV_MPIRANK_H
#define TCONV_MPIRANK_H

#include "parallel.h"
#include "wire.h"

typedef struct tconv_mpi tconv_mpi;

#ifdef TCONV_MPI
/* Joins the MPI job when launched as one with more than one rank; NULL otherwise. The ranks
 * but 0 print nothing from then on: rank 0 says everything once. */
tconv_mpi *tconv_mpi_begin(void);
int tconv_mpi_rank(const tconv_mpi *m);
/* Rank 0: gives l to every rank with each input's rank. Others: receives it into l (empty
 * when rank 0 gave up before reading). */
void tconv_mpi_plan(tconv_mpi *m, tconv_input_list *l);
int tconv_mpi_owner(const tconv_mpi *m, size_t k);
/* Rank 0: the message for input k from its rank, into w; -1 if none came. */
int tconv_mpi_recv(tconv_mpi *m, size_t k, tconv_wire *w);
/* Others: sends w (its buffer is taken); nonzero once rank 0 asked for no more. */
void tconv_mpi_send(tconv_mpi *m, tconv_wire *w);
int tconv_mpi_stopped(tconv_mpi *m);
/* Rank 0, once it needs no more: tells the others to stop, and takes in what they sent
 * meanwhile. Others: says it sent all, and waits for rank 0 to have it. */
void tconv_mpi_stop(tconv_mpi *m);
/* Every rank, once done with its part (it calls tconv_mpi_stop): when all are there, whether
 * each was stopped (interrupt) and by which signal (signo), the largest of every rank's, into
 * vote on every rank. */
void tconv_mpi_settle(tconv_mpi *m, const atomic_int *interrupt, const atomic_int *signo,
                      int vote[2]);
/* Waits for rank 0 to be done, leaves MPI and frees m. Returns outcome on rank 0, success on
 * the others (see core/parallel/mpi.c). */
int tconv_mpi_end(tconv_mpi *m, int outcome);
/* The collective service (collective.h), over MPI_COMM_WORLD. */
int tconv_mpi_size(const tconv_mpi *m);
int tconv_mpi_barrier(tconv_mpi *m);
int tconv_mpi_bcast(tconv_mpi *m, void *buf, size_t n, int root);
int tconv_mpi_gatherv(tconv_mpi *m, const void *in, size_t n, void *out, const size_t *counts,
                      int root);
int tconv_mpi_scatterv(tconv_mpi *m, const void *in, const size_t *counts, void *out, size_t n,
                       int root);
#else
static inline tconv_mpi *tconv_mpi_begin(void)
{
    return NULL;
}
static inline int tconv_mpi_rank(const tconv_mpi *m)
{
    (void)m;
    return 0;
}
static inline void tconv_mpi_plan(tconv_mpi *m, tconv_input_list *l)
{
    (void)m;
    (void)l;
}
static inline int tconv_mpi_owner(const tconv_mpi *m, size_t k)
{
    (void)m;
    (void)k;
    return 0;
}
static inline int tconv_mpi_recv(tconv_mpi *m, size_t k, tconv_wire *w)
{
    (void)m;
    (void)k;
    (void)w;
    return -1;
}
static inline void tconv_mpi_send(tconv_mpi *m, tconv_wire *w)
{
    (void)m;
    (void)w;
}
static inline int tconv_mpi_stopped(tconv_mpi *m)
{
    (void)m;
    return 1;
}
static inline void tconv_mpi_stop(tconv_mpi *m)
{
    (void)m;
}
static inline void tconv_mpi_settle(tconv_mpi *m, const atomic_int *interrupt,
                                    const atomic_int *signo, int vote[2])
{
    (void)m, (void)interrupt, (void)signo, (void)vote;
}
static inline int tconv_mpi_end(tconv_mpi *m, int outcome)
{
    (void)m;
    return outcome;
}
/* Never reached: without MPI no run has a collective service. */
static inline int tconv_mpi_size(const tconv_mpi *m)
{
    (void)m;
    return 1;
}
static inline int tconv_mpi_barrier(tconv_mpi *m)
{
    (void)m;
    return -1;
}
static inline int tconv_mpi_bcast(tconv_mpi *m, void *buf, size_t n, int root)
{
    (void)m, (void)buf, (void)n, (void)root;
    return -1;
}
static inline int tconv_mpi_gatherv(tconv_mpi *m, const void *in, size_t n, void *out,
                                    const size_t *counts, int root)
{
    (void)m, (void)in, (void)n, (void)out, (void)counts, (void)root;
    return -1;
}
static inline int tconv_mpi_scatterv(tconv_mpi *m, const void *in, const size_t *counts, void *out,
                                     size_t n, int root)
{
    (void)m, (void)in, (void)counts, (void)out, (void)n, (void)root;
    return -1;
}
#endif

/* Each rank's n bytes of in, in rank order, into *out on root (malloc'd; NULL elsewhere), and
 * what each rank gave in *counts (root; NULL elsewhere). 0, or -1 when the whole is beyond what
 * the transport carries (core/parallel/collective.c). */
int tconv_mpi_gather_bytes(tconv_mpi *m, const void *in, size_t n, int root, unsigned char **out,
                           size_t **counts);

#endif
