/* Inputs read ahead by worker threads and taken by the main thread in input order (tconv -j).
 *
 * Jobs are begun in order (but for a much larger one just past the window, jobs_pick), by
 * whichever thread is free, only within a window of `threads` - 1 jobs from the one the main
 * thread takes (one more while the main thread reads that one in line, as it then holds no
 * result): a thread that is that far ahead waits, which bounds the
 * results held at once (each one input's recording) by `threads` - 1, one per worker. Every
 * result costs the main thread a replay, and one it made itself a recording too; since each input
 * is flushed as it is replayed (the stack writers' early flush), the main thread's share of the
 * work is the bottleneck, and a wider window made it read inputs ahead into recordings while the
 * workers idled at the end. With two threads the window is one: the main thread reads every
 * other input in line while the worker records the next (8 x 50 MB to pprof: 0.45 s and 0.79 s
 * of CPU, against 0.46 to 0.47 s and 0.84 s with `threads` + 1; 32 MB against 81 MB). The
 * main thread reads the job it needs in line when no one has begun it, and begins later ones
 * itself while it waits for one a worker is reading, if the window allows.
 *
 * A byte budget bounds the results by their size too: a result's maker reports its bytes as they
 * grow (tconv_jobs_hold), the caller's freeing of one gives them back (tconv_jobs_release); a job
 * is begun only while the budget has room for the largest result so far, and while the total is
 * over the budget a worker whose job is not the one the caller takes next waits at its next
 * report. The job the caller takes next is never held back,
 * so the budget is exceeded by that job's result (and by what each thread adds between two
 * reports), never by more.
 *
 * Why this cannot deadlock. Only the caller frees results, so a thread that waits for bytes must
 * never be the caller: a job the caller began itself (while waiting for job k) is given up
 * instead when over the budget (its maker leaves it for the caller to do in line, at its turn).
 * The caller waits for one thing only: job k, the one it takes, when a worker is doing it. That
 * worker never waits for bytes (its job is the one taken next: the wait re-checks this whenever
 * the caller takes a job, which wakes every waiter), nor for anything else here, so it finishes
 * k, marks it done and wakes the caller. The caller then replays and frees k, which gives its
 * bytes back and wakes the waiters, and takes k + 1: every job, in turn, is the one taken next,
 * and no worker waits on it. tconv_jobs_stop wakes every waiter too. The budget only keeps jobs
 * from being begun otherwise, and a job no one began the caller does in line. */
#include <pthread.h>
#include <string.h>

#include "parallel.h"

enum { JOB_FREE, JOB_BUSY, JOB_DONE };

struct tconv_jobs {
    pthread_mutex_t mu;
    pthread_cond_t cv;
    size_t n;
    unsigned char *state;
    unsigned char *by_caller; /* begun by the caller's thread, which must not wait for bytes */
    void **result;
    size_t next;     /* the first job no one has begun (a later one may have been) */
    uint64_t *size;  /* per job, its input's size (the order in which to begin them), or NULL */
    size_t consumer; /* the job the main thread takes */
    size_t window;
    int inline_read; /* the caller reads its job in line: it holds no result meanwhile */
    int stop;
    uint64_t budget, held; /* bytes: the most the results may hold, and what they hold */
    uint64_t largest;      /* the most one result reported */
    uint64_t pooled;       /* of held, memory kept for the next results (the next job reuses it) */
    int gave_up;           /* the caller gave a job up since it last took one */
    atomic_int abandon;
    tconv_job_fn fn;
    void *user;
    pthread_t *threads;
    size_t nthreads;
};

/* The job to begin among the free ones from next up to lim (exclusive): next, or the one just
 * past lim when it is a quarter larger than every free one before it. Inputs are taken in their
 * order, and the window keeps a worker within one job of the caller at -j 2: a large input after a
 * smaller one was left to the caller to read in line while the worker read the small ones (four
 * real traces of 35, 54, 87 and 33 MB: the calling thread read 0.46 s of the 0.61 s). Begun first,
 * it is read while the caller reads the ones before it. Sizes about equal keep the order. */
static size_t jobs_pick(const tconv_jobs *j, size_t lim)
{
    if (!j->size || lim >= j->n || j->state[lim] != JOB_FREE) return j->next;
    for (size_t k = j->next; k < lim; k++)
        if (j->state[k] == JOB_FREE && j->size[lim] / 5 * 4 <= j->size[k]) return j->next;
    return lim;
}

/* Job k is begun: next moves past it and any others begun, to the first no one has. */
static void jobs_begun(tconv_jobs *j, size_t k)
{
    j->state[k] = JOB_BUSY;
    while (j->next < j->n && j->state[j->next] != JOB_FREE)
        j->next++;
}

/* Begins the next job if the window and the budget allow; with mu held, which it releases while
 * working. The budget must have room for the largest result so far (memory kept for the next
 * results counts as free: the job reuses it): a job begun without it would soon wait for bytes,
 * and the caller, when it comes to that job, for the job, where it could have done the job in
 * line itself. The caller's thread, which gives up a job that goes over the budget (and the work
 * done on it), begins none once it gave one up until it takes the next. */
static int jobs_run_one(tconv_jobs *j, int caller)
{
    size_t lim = j->consumer + j->window + (size_t)j->inline_read;
    if (j->stop || j->next >= j->n || j->next >= lim || j->held > j->budget ||
        (caller && j->gave_up))
        return 0;
    uint64_t room = j->budget - (j->held - j->pooled);
    if (j->largest > room) return 0;
    size_t k = jobs_pick(j, lim);
    /* The job after the caller's, while the caller has a result to replay: without room for
     * both, leave it to the caller to do in line once it freed its result (a worker woken by that
     * would otherwise begin it first, and the caller wait for all of it, each time). */
    if (!j->inline_read && k == j->consumer + 1 && j->largest > room / 2) return 0;
    jobs_begun(j, k);
    j->by_caller[k] = (unsigned char)caller;
    pthread_mutex_unlock(&j->mu);
    void *res = j->fn(j->user, k, j, &j->abandon);
    pthread_mutex_lock(&j->mu);
    j->result[k] = res;
    j->state[k] = JOB_DONE;
    pthread_cond_broadcast(&j->cv);
    return 1;
}

static void *jobs_worker(void *arg)
{
    tconv_jobs *j = arg;
    pthread_mutex_lock(&j->mu);
    while (!j->stop) {
        if (!jobs_run_one(j, 0)) pthread_cond_wait(&j->cv, &j->mu);
    }
    pthread_mutex_unlock(&j->mu);
    return NULL;
}

tconv_jobs *tconv_jobs_start(size_t n, unsigned threads, uint64_t budget, tconv_job_fn fn,
                             void *user)
{
    return tconv_jobs_start_sized(n, threads, budget, NULL, fn, user);
}

tconv_jobs *tconv_jobs_start_sized(size_t n, unsigned threads, uint64_t budget,
                                   const uint64_t *size, tconv_job_fn fn, void *user)
{
    tconv_jobs *j = tconv_xcalloc(1, sizeof(*j));
    if (size && n) {
        j->size = tconv_xmalloc(n * sizeof(*j->size));
        memcpy(j->size, size, n * sizeof(*j->size));
    }
    pthread_mutex_init(&j->mu, NULL);
    pthread_cond_init(&j->cv, NULL);
    j->n = n;
    j->state = tconv_xcalloc(n ? n : 1, 1);
    j->result = tconv_xcalloc(n ? n : 1, sizeof(*j->result));
    j->by_caller = tconv_xcalloc(n ? n : 1, 1);
    j->budget = budget;
    j->window = threads - 1;
    /* Job 0 is the caller's, in line: a worker that began it before the caller's first take
     * (thread start-up races the caller) made it a recording to replay, and the caller began
     * job 1 ahead into another, 0.05 s of a 0.5 s run. */
    j->next = n ? 1 : 0;
    j->inline_read = 1;
    j->fn = fn;
    j->user = user;
    atomic_init(&j->abandon, 0);
    j->threads = tconv_xcalloc(threads, sizeof(*j->threads));
    for (unsigned i = 1; i < threads; i++) {
        if (pthread_create(&j->threads[j->nthreads], NULL, jobs_worker, j) != 0) break;
        j->nthreads++;
    }
    if (!j->nthreads) {
        tconv_jobs_stop(j, NULL);
        return NULL;
    }
    return j;
}

void *tconv_jobs_take(tconv_jobs *j, size_t k)
{
    pthread_mutex_lock(&j->mu);
    j->consumer = k;
    j->gave_up = 0;
    pthread_cond_broadcast(&j->cv); /* the window moved */
    void *res = NULL;
    j->inline_read = j->state[k] == JOB_FREE;
    if (j->inline_read) { /* the caller reads it in line */
        jobs_begun(j, k);
    } else {
        while (j->state[k] != JOB_DONE)
            if (!jobs_run_one(j, 1)) pthread_cond_wait(&j->cv, &j->mu);
        res = j->result[k];
        j->result[k] = NULL;
    }
    pthread_mutex_unlock(&j->mu);
    return res;
}

int tconv_jobs_hold(tconv_jobs *j, size_t k, uint64_t more, uint64_t total, uint64_t unpooled)
{
    int rc = 0;
    pthread_mutex_lock(&j->mu);
    j->held += more;
    j->pooled -= unpooled;
    if (total > j->largest) j->largest = total;
    if (j->held > j->budget && j->by_caller[k]) {
        rc = -1;
        j->gave_up = 1;
    } else {
        while (j->held > j->budget && k != j->consumer && !j->stop)
            pthread_cond_wait(&j->cv, &j->mu);
    }
    pthread_mutex_unlock(&j->mu);
    return rc;
}

int tconv_jobs_release(tconv_jobs *j, uint64_t bytes, uint64_t keep)
{
    pthread_mutex_lock(&j->mu);
    j->held -= bytes;
    int kept = j->held <= j->budget;
    if (!kept)
        j->held -= keep;
    else
        j->pooled += keep;
    pthread_cond_broadcast(&j->cv);
    pthread_mutex_unlock(&j->mu);
    return kept;
}

void tconv_jobs_stop(tconv_jobs *j, void (*drop)(void *result))
{
    if (!j) return;
    pthread_mutex_lock(&j->mu);
    j->stop = 1;
    atomic_store(&j->abandon, 1);
    pthread_cond_broadcast(&j->cv);
    pthread_mutex_unlock(&j->mu);
    for (size_t i = 0; i < j->nthreads; i++)
        pthread_join(j->threads[i], NULL);
    for (size_t k = 0; k < j->n; k++)
        if (j->result[k] && drop) drop(j->result[k]);
    free(j->threads);
    free(j->size);
    free(j->state);
    free(j->by_caller);
    free(j->result);
    pthread_cond_destroy(&j->cv);
    pthread_mutex_destroy(&j->mu);
    free(j);
}
