/* Read-ahead: a producer thread fills a small ring of buffers while the consumer drains it, so
 * that producing the bytes (inflating gzip) and consuming them (parsing) overlap on two cores
 * instead of taking turns. The consumer sees the produced bytes in order, then the end or the
 * producer's failure at the place in the stream where it happened, as it would have without the
 * thread. The ring bounds the memory ahead of the consumer. */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <string.h>
#include <unistd.h>

#include "io.h"

enum { RA_SLOTS = 4 };

struct tconv_readahead {
    tconv_produce_fn produce;
    void *user;
    size_t slot_cap;
    unsigned char *slot[RA_SLOTS];
    size_t len[RA_SLOTS];
    pthread_mutex_t mu;
    pthread_cond_t filled, freed;
    unsigned head, count; /* slots head .. head+count-1 hold data, oldest first */
    int held;             /* the consumer is reading slot head */
    int end;              /* the producer is done: 1 at the end of its data, -1 after a failure */
    atomic_int stop;      /* the consumer is gone: produce nothing more */
    int fd;               /* what the producer reads when it may block (a pipe), else -1 */
    int wake[2];          /* written on stop, to end a wait for fd; -1 when unused */
    pthread_t thread;
};

/* A pipe whose ends are close-on-exec and never 0, 1 or 2: with a standard stream closed, a
 * low descriptor would be taken for that stream by later code. */
static int readahead_pipe(int fds[2])
{
    int raw[2];
    if (pipe(raw) != 0) return -1;
    for (int k = 0; k < 2; k++) {
        fds[k] = fcntl(raw[k], F_DUPFD_CLOEXEC, 3);
        close(raw[k]);
    }
    if (fds[0] >= 0 && fds[1] >= 0) return 0;
    for (int k = 0; k < 2; k++)
        if (fds[k] >= 0) close(fds[k]);
    fds[0] = fds[1] = -1;
    return -1;
}

static int readahead_ready(int fd)
{
    struct pollfd p = {.fd = fd, .events = POLLIN};
    return poll(&p, 1, 0) != 0; /* an error is for read() to report */
}

static void *readahead_main(void *arg)
{
    tconv_readahead *ra = arg;
    for (;;) {
        pthread_mutex_lock(&ra->mu);
        while (ra->count == RA_SLOTS && !atomic_load(&ra->stop))
            pthread_cond_wait(&ra->freed, &ra->mu);
        unsigned i = (ra->head + ra->count) % RA_SLOTS;
        pthread_mutex_unlock(&ra->mu);
        if (atomic_load(&ra->stop)) break;
        /* The slot is outside the consumer's part of the ring until it is published below. */
        size_t n = 0;
        int end = 0;
        while (n < ra->slot_cap && !atomic_load(&ra->stop)) {
            ssize_t r = ra->produce(ra->user, ra, ra->slot[i] + n, ra->slot_cap - n);
            if (r <= 0) {
                end = r < 0 ? -1 : 1;
                break;
            }
            n += (size_t)r;
            /* A pipe that has nothing now may stay silent: what came is the consumer's. */
            if (ra->fd >= 0 && !readahead_ready(ra->fd)) break;
        }
        pthread_mutex_lock(&ra->mu);
        if (n) {
            ra->len[i] = n;
            ra->count++;
        }
        if (end) ra->end = end;
        pthread_cond_signal(&ra->filled);
        pthread_mutex_unlock(&ra->mu);
        if (end) break;
    }
    return NULL;
}

tconv_readahead *tconv_readahead_start(tconv_produce_fn produce, void *user, size_t slot_cap,
                                       int fd)
{
    tconv_readahead *ra = tconv_xcalloc(1, sizeof(*ra));
    ra->produce = produce;
    ra->user = user;
    ra->slot_cap = slot_cap;
    ra->fd = fd;
    ra->wake[0] = ra->wake[1] = -1;
    atomic_init(&ra->stop, 0);
    for (unsigned i = 0; i < RA_SLOTS; i++)
        ra->slot[i] = tconv_xmalloc(slot_cap);
    int ok = 0, mu = 0, c1 = 0, c2 = 0;
    if (fd >= 0) readahead_pipe(ra->wake);
    if (fd < 0 || ra->wake[0] >= 0) {
        mu = pthread_mutex_init(&ra->mu, NULL) == 0;
        c1 = mu && pthread_cond_init(&ra->filled, NULL) == 0;
        c2 = c1 && pthread_cond_init(&ra->freed, NULL) == 0;
    }
    if (c2) {
        /* Signals are the main thread's business (and its exit status). */
        sigset_t all, old;
        sigfillset(&all);
        pthread_sigmask(SIG_SETMASK, &all, &old);
        ok = pthread_create(&ra->thread, NULL, readahead_main, ra) == 0;
        pthread_sigmask(SIG_SETMASK, &old, NULL);
    }
    if (ok) return ra;
    if (c2) pthread_cond_destroy(&ra->freed);
    if (c1) pthread_cond_destroy(&ra->filled);
    if (mu) pthread_mutex_destroy(&ra->mu);
    for (int k = 0; k < 2; k++)
        if (ra->wake[k] >= 0) close(ra->wake[k]);
    for (unsigned i = 0; i < RA_SLOTS; i++)
        free(ra->slot[i]);
    free(ra);
    return NULL;
}

const unsigned char *tconv_readahead_next(tconv_readahead *ra, size_t *len, int *status)
{
    pthread_mutex_lock(&ra->mu);
    if (ra->held) {
        ra->head = (ra->head + 1) % RA_SLOTS;
        ra->count--;
        ra->held = 0;
        pthread_cond_signal(&ra->freed);
    }
    while (!ra->count && !ra->end)
        pthread_cond_wait(&ra->filled, &ra->mu);
    const unsigned char *p = NULL;
    *status = 0;
    *len = 0;
    if (ra->count) {
        ra->held = 1;
        p = ra->slot[ra->head];
        *len = ra->len[ra->head];
    } else {
        *status = ra->end < 0 ? -1 : 0;
    }
    pthread_mutex_unlock(&ra->mu);
    return p;
}

int tconv_readahead_wait(tconv_readahead *ra)
{
    if (!ra || ra->fd < 0) return 0;
    struct pollfd p[2] = {{.fd = ra->fd, .events = POLLIN}, {.fd = ra->wake[0], .events = POLLIN}};
    for (;;) {
        if (atomic_load(&ra->stop)) return -1;
        int n = poll(p, 2, -1);
        if (n < 0 && errno == EINTR) continue;
        /* A poll failure or a hang-up is left for read() to report. */
        if (n < 0 || p[0].revents) return 0;
        if (p[1].revents) return -1;
    }
}

void tconv_readahead_free(tconv_readahead *ra)
{
    if (!ra) return;
    pthread_mutex_lock(&ra->mu);
    atomic_store(&ra->stop, 1);
    pthread_cond_signal(&ra->freed);
    pthread_mutex_unlock(&ra->mu);
    if (ra->wake[1] >= 0) {
        ssize_t w;
        do
            w = write(ra->wake[1], "", 1);
        while (w < 0 && errno == EINTR);
    }
    pthread_join(ra->thread, NULL);
    pthread_cond_destroy(&ra->freed);
    pthread_cond_destroy(&ra->filled);
    pthread_mutex_destroy(&ra->mu);
    for (int k = 0; k < 2; k++)
        if (ra->wake[k] >= 0) close(ra->wake[k]);
    for (unsigned i = 0; i < RA_SLOTS; i++)
        free(ra->slot[i]);
    free(ra);
}
