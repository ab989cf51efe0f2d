/* Inputs read ahead by worker threads and taken by the main thread in input order (tconv -j).
 *
 * Jobs are begun in order, by whichever thread is free, only within a window of `threads` + 1
 * jobs from the one the main thread takes (one more while the main thread reads that one in
 * line, as it then holds no result): a thread that is that far ahead waits, which bounds the
 * results held at once (each one input's recording) by `threads` + 1. With a window of
 * `threads`, a worker that finished an input waited while the main thread replayed: with two
 * threads the main thread then did 57% of the work, and both did the same with the one more. The
 * main thread never idles while a later job could be begun: it reads the job it needs in line when
 * no one has begun it, and begins later ones itself while it waits for one a worker is reading. */
#include <pthread.h>
#include <string.h>

#include "internal.h"

enum { JOB_FREE, JOB_BUSY, JOB_DONE };

struct tconv_jobs {
    pthread_mutex_t mu;
    pthread_cond_t cv;
    size_t n;
    unsigned char *state;
    void **result;
    size_t next;     /* the first job no one has begun */
    size_t consumer; /* the job the main thread takes */
    size_t window;
    int inline_read; /* the caller reads its job in line: it holds no result meanwhile */
    int stop;
    atomic_int abandon;
    tconv_job_fn fn;
    void *user;
    pthread_t *threads;
    size_t nthreads;
};

/* Begins the next job if the window allows; with mu held, which it releases while working. */
static int jobs_run_one(tconv_jobs *j)
{
    if (j->stop || j->next >= j->n || j->next >= j->consumer + j->window + (size_t)j->inline_read)
        return 0;
    size_t k = j->next++;
    j->state[k] = JOB_BUSY;
    pthread_mutex_unlock(&j->mu);
    void *res = j->fn(j->user, k, &j->abandon);
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
        if (!jobs_run_one(j)) pthread_cond_wait(&j->cv, &j->mu);
    }
    pthread_mutex_unlock(&j->mu);
    return NULL;
}

tconv_jobs *tconv_jobs_start(size_t n, unsigned threads, tconv_job_fn fn, void *user)
{
    tconv_jobs *j = tconv_xcalloc(1, sizeof(*j));
    pthread_mutex_init(&j->mu, NULL);
    pthread_cond_init(&j->cv, NULL);
    j->n = n;
    j->state = tconv_xcalloc(n ? n : 1, 1);
    j->result = tconv_xcalloc(n ? n : 1, sizeof(*j->result));
    j->window = threads + 1;
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
    pthread_cond_broadcast(&j->cv); /* the window moved */
    void *res = NULL;
    j->inline_read = j->next <= k;
    if (j->inline_read) {
        j->next = k + 1; /* the caller reads it in line */
    } else {
        while (j->state[k] != JOB_DONE)
            if (!jobs_run_one(j)) pthread_cond_wait(&j->cv, &j->mu);
        res = j->result[k];
        j->result[k] = NULL;
    }
    pthread_mutex_unlock(&j->mu);
    return res;
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
    free(j->state);
    free(j->result);
    pthread_cond_destroy(&j->cv);
    pthread_mutex_destroy(&j->mu);
    free(j);
}
