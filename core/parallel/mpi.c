/* The MPI side of a run (core/parallel/mpirank.h). Messages from one rank to rank 0 arrive in the
 * order they were sent (MPI's non-overtaking rule), and each rank sends its inputs' recordings in
 * input order, so rank 0 receives input k by receiving the next message of k's rank: what it holds
 * at once is the recording it replays, and MPI holds what a rank sent before rank 0 wants it
 * (a large one waits on its sender: MPI sends large messages only once they are received).
 * Each rank but 0 has at most two recordings' bytes unsent: the one being sent and the next.
 *
 * A message is a length (8 bytes), then the bytes in pieces of at most 1 GiB (MPI counts are
 * ints); the length UINT64_MAX says the rank sent all it will. */
#include <fcntl.h>
#include <limits.h>
#include <mpi.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "mpirank.h"

enum { MPI_TAG_DATA = 1, MPI_TAG_STOP = 2 };
#define MPI_PIECE ((size_t)1 << 30)

struct tconv_mpi {
    int rank, size;
    int planned, stopped;
    int joined; /* MPI_Init was ours: so is MPI_Finalize (a program using MPI itself keeps it) */
    int *owner;
    size_t n;
    char **dirs; /* rank > 0: the directory names of the inputs it was given */
    size_t ndirs;
    /* rank > 0: the message being sent, and rank 0's word to stop */
    tconv_wire sending;
    MPI_Request *req;
    int nreq;
    MPI_Request stop_req;
    int stop_word;
};

/* Waits for n requests without holding a core: MPI's own waits poll without pause, and a rank
 * waiting on another's reading would take the core that rank (or another on the node) reads
 * on. A pause of 50 us is nothing next to reading an input. */
static void mpi_wait(int n, MPI_Request *req)
{
    int done = 0;
    struct timespec pause = {0, 50000};
    for (int spins = 0;; spins++) {
        MPI_Testall(n, req, &done, MPI_STATUSES_IGNORE);
        if (done) return;
        if (spins > 100) nanosleep(&pause, NULL);
    }
}

/* Launched by mpirun or srun: the variables their process managers set. */
static int mpi_launched(int *size)
{
    const char *s = getenv("OMPI_COMM_WORLD_SIZE");
    if (!s) s = getenv("PMI_SIZE");
    if (s) {
        *size = atoi(s);
        return 1;
    }
    *size = -1; /* PMIx tells the rank, the size once joined */
    return getenv("PMIX_RANK") != NULL;
}

/* The port of a PMIx server URI ("<namespace>.<rank>;tcp4://127.0.0.1:54501"), or 0. */
static int mpi_uri_port(const char *uri)
{
    const char *t = strstr(uri, "://");
    const char *colon = t ? strrchr(t, ':') : NULL;
    if (!colon || colon < t + 3) return 0;
    int port = atoi(colon + 1);
    return port > 0 && port < 65536 ? port : 0;
}

static int mpi_peer_port(int fd)
{
    int type;
    socklen_t len = sizeof(type);
    if (getsockopt(fd, SOL_SOCKET, SO_TYPE, &type, &len) != 0 || type != SOCK_STREAM) return 0;
    struct sockaddr_storage peer;
    len = sizeof(peer);
    if (getpeername(fd, (struct sockaddr *)&peer, &len) != 0) return 0;
    if (peer.ss_family == AF_INET) return ntohs(((struct sockaddr_in *)&peer)->sin_port);
    if (peer.ss_family == AF_INET6) return ntohs(((struct sockaddr_in6 *)&peer)->sin6_port);
    return 0;
}

/* Open MPI's process manager (PMIx) talks to each process over a TCP socket without
 * TCP_NODELAY. MPI_Finalize's fence sends small messages back to back; the second waits for
 * the acknowledgement of the first, which the server's kernel delays by 40 ms. That was 0.04 s
 * of every run: mpirun -n 2 of a program doing nothing but MPI_Init and MPI_Finalize took
 * 0.11 s, and 0.05 s with the option set on that socket. The socket is found by the port of the
 * server the environment names (PMIX_SERVER_URI*, one variable per PMIx version); MPI's own TCP
 * sockets, if any, already have the option. */
static void mpi_pmix_nodelay(void)
{
    extern char **environ;
    int ports[8], np = 0;
    for (char **e = environ; *e && np < 8; e++)
        if (strncmp(*e, "PMIX_SERVER_URI", 15) == 0) {
            int port = mpi_uri_port(*e);
            if (port) ports[np++] = port;
        }
    for (int fd = 3; np && fd < 1024; fd++) {
        int port = mpi_peer_port(fd);
        for (int i = 0; port && i < np; i++)
            if (port == ports[i]) {
                int one = 1;
                setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
                break;
            }
    }
}

tconv_mpi *tconv_mpi_begin(void)
{
    int size, flag;
    if (!mpi_launched(&size) || (size >= 0 && size < 2)) return NULL;
    MPI_Initialized(&flag);
    if (!flag && MPI_Init(NULL, NULL) != MPI_SUCCESS) return NULL;
    mpi_pmix_nodelay();
    tconv_mpi *m = tconv_xcalloc(1, sizeof(*m));
    m->joined = !flag;
    MPI_Comm_rank(MPI_COMM_WORLD, &m->rank);
    MPI_Comm_size(MPI_COMM_WORLD, &m->size);
    if (m->size < 2) {
        if (m->joined) MPI_Finalize();
        free(m);
        return NULL;
    }
    if (m->rank != 0) {
        /* Rank 0 says everything once (warnings, errors, progress); what goes wrong here
         * reaches it with the recording. */
        int fd = open("/dev/null", O_WRONLY | O_CLOEXEC);
        if (fd >= 0) {
            dup2(fd, 2);
            close(fd);
        }
        MPI_Irecv(&m->stop_word, 1, MPI_INT, 0, MPI_TAG_STOP, MPI_COMM_WORLD, &m->stop_req);
    }
    return m;
}

int tconv_mpi_rank(const tconv_mpi *m)
{
    return m->rank;
}

static int64_t mpi_size_of(const char *path)
{
    struct stat sb;
    if (strcmp(path, "-") == 0 || stat(path, &sb) != 0 || !S_ISREG(sb.st_mode)) return -1;
    return (int64_t)sb.st_size;
}

/* Largest first onto the least loaded rank (the lowest of equals; inputs of equal size by
 * position): deterministic, within one largest input of the best balance. Standard input and
 * what is not a regular file stay on rank 0, which alone can read them. (Rank 0 also replays
 * and writes, but starting it with that share as its load made the 8-input benchmark slower:
 * rank 0 then waited for the first inputs instead of reading them.) */
static const int64_t *mpi_sizes;

static int mpi_larger_first(const void *a, const void *b)
{
    size_t x = *(const size_t *)a, y = *(const size_t *)b;
    if (mpi_sizes[x] != mpi_sizes[y]) return mpi_sizes[x] > mpi_sizes[y] ? -1 : 1;
    return x < y ? -1 : x > y;
}

static void mpi_balance(tconv_mpi *m, const tconv_input_list *l)
{
    size_t n = l->n;
    int64_t *sz = tconv_xcalloc(n ? n : 1, sizeof(*sz));
    size_t *ord = tconv_xcalloc(n ? n : 1, sizeof(*ord));
    uint64_t *load = tconv_xcalloc((size_t)m->size, sizeof(*load));
    for (size_t i = 0; i < n; i++) {
        sz[i] = mpi_size_of(l->items[i].path);
        ord[i] = i;
    }
    mpi_sizes = sz;
    qsort(ord, n, sizeof(*ord), mpi_larger_first);
    for (size_t i = 0; i < n; i++) {
        size_t k = ord[i];
        int best = 0;
        if (sz[k] >= 0)
            for (int q = 1; q < m->size; q++)
                if (load[q] < load[best]) best = q;
        m->owner[k] = best;
        load[best] += sz[k] > 0 ? (uint64_t)sz[k] : 0;
    }
    free(sz);
    free(ord);
    free(load);
}

static void mpi_bcast_wire(tconv_mpi *m, tconv_wire *w)
{
    uint64_t len = w->len;
    MPI_Request req;
    MPI_Ibcast(&len, 1, MPI_UINT64_T, 0, MPI_COMM_WORLD, &req);
    mpi_wait(1, &req);
    if (m->rank != 0) {
        w->p = tconv_xmalloc(len ? (size_t)len : 1);
        w->len = w->cap = (size_t)len;
    }
    for (size_t off = 0; off < len; off += MPI_PIECE) {
        size_t k = len - off < MPI_PIECE ? (size_t)(len - off) : MPI_PIECE;
        MPI_Ibcast(w->p + off, (int)k, MPI_BYTE, 0, MPI_COMM_WORLD, &req);
        mpi_wait(1, &req);
    }
}

void tconv_mpi_plan(tconv_mpi *m, tconv_input_list *l)
{
    tconv_wire w = {0};
    if (m->rank == 0) {
        m->n = l->n;
        m->owner = tconv_xcalloc(l->n ? l->n : 1, sizeof(*m->owner));
        mpi_balance(m, l);
        tconv_wire_u64(&w, 1);
        tconv_wire_u64(&w, l->n);
        for (size_t i = 0; i < l->n; i++) {
            tconv_wire_str(&w, l->items[i].path);
            tconv_wire_str(&w, l->items[i].dir);
            tconv_wire_u64(&w, (uint64_t)m->owner[i]);
        }
    }
    mpi_bcast_wire(m, &w);
    m->planned = 1;
    if (m->rank == 0 || !tconv_wire_get_u64(&w)) {
        free(w.p);
        return;
    }
    /* A directory's name is kept once for all the files found in it (the list does not own
     * them: they are the arguments, on rank 0). */
    m->n = (size_t)tconv_wire_get_u64(&w);
    m->owner = tconv_xcalloc(m->n ? m->n : 1, sizeof(*m->owner));
    char **dirs = m->dirs = tconv_xcalloc(m->n ? m->n : 1, sizeof(*dirs));
    size_t ndirs = 0;
    l->items = tconv_xcalloc(m->n ? m->n : 1, sizeof(*l->items));
    l->n = l->cap = m->n;
    for (size_t i = 0; i < m->n; i++) {
        l->items[i].path = tconv_wire_get_str(&w, NULL);
        char *dir = tconv_wire_get_str(&w, NULL);
        if (dir && ndirs && strcmp(dirs[ndirs - 1], dir) == 0) {
            free(dir);
        } else if (dir) {
            dirs[ndirs++] = dir;
        }
        l->items[i].dir = dir ? dirs[ndirs - 1] : NULL;
        m->owner[i] = (int)tconv_wire_get_u64(&w);
    }
    free(w.p);
    m->ndirs = ndirs;
}

int tconv_mpi_owner(const tconv_mpi *m, size_t k)
{
    return k < m->n ? m->owner[k] : 0;
}

static void mpi_recv_bytes(int from, unsigned char *p, size_t len)
{
    for (size_t off = 0; off < len; off += MPI_PIECE) {
        size_t k = len - off < MPI_PIECE ? len - off : MPI_PIECE;
        MPI_Request req;
        MPI_Irecv(p + off, (int)k, MPI_BYTE, from, MPI_TAG_DATA, MPI_COMM_WORLD, &req);
        mpi_wait(1, &req);
    }
}

/* The next message from a rank into w (emptied first); -1 for its last word. */
static int mpi_recv_from(int from, tconv_wire *w)
{
    uint64_t len;
    MPI_Request req;
    MPI_Irecv(&len, 1, MPI_UINT64_T, from, MPI_TAG_DATA, MPI_COMM_WORLD, &req);
    mpi_wait(1, &req);
    w->len = w->pos = 0;
    w->bad = 0;
    if (len == UINT64_MAX) return -1;
    TCONV_GROW(w->p, w->cap, (size_t)len ? (size_t)len : 1);
    mpi_recv_bytes(from, w->p, (size_t)len);
    w->len = (size_t)len;
    return 0;
}

int tconv_mpi_recv(tconv_mpi *m, size_t k, tconv_wire *w)
{
    int from = tconv_mpi_owner(m, k);
    if (m->stopped || from == 0) return -1;
    return mpi_recv_from(from, w);
}

static void mpi_wait_sent(tconv_mpi *m)
{
    if (m->nreq) mpi_wait(m->nreq, m->req);
    free(m->req);
    m->req = NULL;
    m->nreq = 0;
    free(m->sending.p);
    memset(&m->sending, 0, sizeof(m->sending));
}

void tconv_mpi_send(tconv_mpi *m, tconv_wire *w)
{
    mpi_wait_sent(m);
    m->sending = *w;
    memset(w, 0, sizeof(*w));
    uint64_t *len = tconv_xmalloc(sizeof(*len)); /* lives until the send is done */
    *len = m->sending.p ? m->sending.len : UINT64_MAX;
    size_t pieces = m->sending.p ? (m->sending.len + MPI_PIECE - 1) / MPI_PIECE : 0;
    m->req = tconv_xcalloc(pieces + 1, sizeof(*m->req));
    /* The length travels in the sending buffer's slot, freed with it. */
    MPI_Isend(len, 1, MPI_UINT64_T, 0, MPI_TAG_DATA, MPI_COMM_WORLD, &m->req[m->nreq++]);
    for (size_t off = 0; off < m->sending.len; off += MPI_PIECE) {
        size_t k = m->sending.len - off < MPI_PIECE ? m->sending.len - off : MPI_PIECE;
        MPI_Isend(m->sending.p + off, (int)k, MPI_BYTE, 0, MPI_TAG_DATA, MPI_COMM_WORLD,
                  &m->req[m->nreq++]);
    }
    mpi_wait(1, m->req); /* the length alone: small, sent eagerly */
    free(len);
    memmove(m->req, m->req + 1, (size_t)(m->nreq - 1) * sizeof(*m->req));
    m->nreq--;
}

int tconv_mpi_stopped(tconv_mpi *m)
{
    if (!m->stopped && m->rank != 0) MPI_Test(&m->stop_req, &m->stopped, MPI_STATUS_IGNORE);
    return m->stopped;
}

void tconv_mpi_stop(tconv_mpi *m)
{
    if (!m->planned && m->rank == 0) { /* gave up before reading: the others read nothing */
        tconv_wire w = {0};
        tconv_wire_u64(&w, 0);
        mpi_bcast_wire(m, &w);
        free(w.p);
        m->planned = 1;
    } else if (!m->planned) {
        /* This rank gave up before reading (its checks failed): it takes rank 0's plan all the
         * same, and if rank 0 went on, gives each of its inputs back to rank 0 to read. The
         * word 1 is the job message for "read it yourself" (core/run/run.c, run_job_encode). */
        tconv_input_list l = {0};
        tconv_mpi_plan(m, &l);
        for (size_t k = 0; k < m->n; k++) {
            if (m->owner[k] != m->rank) continue;
            tconv_wire w = {0};
            tconv_wire_u64(&w, 1);
            tconv_mpi_send(m, &w);
        }
        tconv_inputs_free(&l);
    }
    if (m->rank != 0) {
        if (m->n) {
            tconv_wire none = {0};
            tconv_mpi_send(m, &none); /* the last word */
        }
        mpi_wait_sent(m);
        if (!m->stopped) mpi_wait(1, &m->stop_req);
        m->stopped = 1;
        return;
    }
    if (m->stopped) return;
    m->stopped = 1;
    if (!m->n) {
        for (int q = 1; q < m->size; q++)
            MPI_Send(&m->stopped, 1, MPI_INT, q, MPI_TAG_STOP, MPI_COMM_WORLD);
        return;
    }
    MPI_Request *req = tconv_xcalloc((size_t)m->size, sizeof(*req));
    for (int q = 1; q < m->size; q++)
        MPI_Isend(&m->stopped, 1, MPI_INT, q, MPI_TAG_STOP, MPI_COMM_WORLD, &req[q - 1]);
    tconv_wire w = {0};
    for (int q = 1; q < m->size; q++)
        while (mpi_recv_from(q, &w) == 0) {
        }
    free(w.p);
    mpi_wait(m->size - 1, req);
    free(req);
}

void tconv_mpi_settle(tconv_mpi *m, const atomic_int *interrupt, const atomic_int *signo,
                      int vote[2])
{
    tconv_mpi_stop(m);
    /* The ranks that are done wait for the last (rank 0, which writes), and only then say
     * whether they were stopped: a signal that comes while they wait still counts. */
    MPI_Request req;
    MPI_Ibarrier(MPI_COMM_WORLD, &req);
    mpi_wait(1, &req);
    int mine[2] = {atomic_load(interrupt) != 0, atomic_load(signo)};
    MPI_Iallreduce(mine, vote, 2, MPI_INT, MPI_MAX, MPI_COMM_WORLD, &req);
    mpi_wait(1, &req);
}

int tconv_mpi_end(tconv_mpi *m, int outcome)
{
    if (!m) return outcome;
    tconv_mpi_stop(m);
    /* The others wait here while rank 0 finishes the writer (MPI_Finalize would wait too, but
     * busily). They then end with success: mpirun ends the whole job when a rank exits with
     * a failure, and a rank but 0 doing so would cut rank 0's messages short. mpirun's and
     * srun's status is then rank 0's, the single process's. */
    int rank0 = outcome;
    MPI_Request req;
    MPI_Ibcast(&rank0, 1, MPI_INT, 0, MPI_COMM_WORLD, &req);
    mpi_wait(1, &req);
    if (m->rank != 0) outcome = TCONV_DONE;
    free(m->owner);
    for (size_t i = 0; i < m->ndirs; i++)
        free(m->dirs[i]);
    free(m->dirs);
    if (m->joined) MPI_Finalize();
    free(m);
    return outcome;
}

/* ---- the collective service of writers that run on every rank (collective.h) ------------- */

int tconv_mpi_size(const tconv_mpi *m)
{
    return m->size;
}

int tconv_mpi_barrier(tconv_mpi *m)
{
    (void)m;
    MPI_Request req;
    MPI_Ibarrier(MPI_COMM_WORLD, &req);
    mpi_wait(1, &req);
    return 0;
}

int tconv_mpi_bcast(tconv_mpi *m, void *buf, size_t n, int root)
{
    (void)m;
    if (n > INT_MAX) return -1;
    MPI_Request req;
    MPI_Ibcast(buf, (int)n, MPI_BYTE, root, MPI_COMM_WORLD, &req);
    mpi_wait(1, &req);
    return 0;
}

/* MPI's counts and displacements are ints: what does not fit is refused on every rank alike,
 * since every rank is told the total first. */
static int mpi_counts(tconv_mpi *m, const size_t *counts, int root, int **cnt, int **displ)
{
    uint64_t total = 0;
    *cnt = *displ = NULL;
    if (m->rank == root)
        for (int q = 0; q < m->size; q++)
            total += counts[q];
    tconv_mpi_bcast(m, &total, sizeof(total), root);
    if (total > INT_MAX) return -1;
    if (m->rank != root) return 0;
    *cnt = tconv_xcalloc((size_t)m->size, sizeof(**cnt));
    *displ = tconv_xcalloc((size_t)m->size, sizeof(**displ));
    for (int q = 0, off = 0; q < m->size; q++) {
        (*cnt)[q] = (int)counts[q];
        (*displ)[q] = off;
        off += (int)counts[q];
    }
    return 0;
}

int tconv_mpi_gatherv(tconv_mpi *m, const void *in, size_t n, void *out, const size_t *counts,
                      int root)
{
    int *cnt, *displ;
    if (mpi_counts(m, counts, root, &cnt, &displ) < 0) return -1;
    MPI_Request req;
    MPI_Igatherv(in, (int)n, MPI_BYTE, out, cnt, displ, MPI_BYTE, root, MPI_COMM_WORLD, &req);
    mpi_wait(1, &req);
    free(cnt);
    free(displ);
    return 0;
}

int tconv_mpi_scatterv(tconv_mpi *m, const void *in, const size_t *counts, void *out, size_t n,
                       int root)
{
    int *cnt, *displ;
    if (mpi_counts(m, counts, root, &cnt, &displ) < 0) return -1;
    MPI_Request req;
    MPI_Iscatterv(in, cnt, displ, MPI_BYTE, out, (int)n, MPI_BYTE, root, MPI_COMM_WORLD, &req);
    mpi_wait(1, &req);
    free(cnt);
    free(displ);
    return 0;
}
