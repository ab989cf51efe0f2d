/* The jobs of -j (core/parallel/jobs.c): inputs read ahead by worker threads, taken in input order;
 * a job no thread began is the caller's to do in line; results over the byte budget wait for the
 * caller to free earlier ones; what is not taken is dropped at the stop. */
#include <pthread.h>
#include <time.h>

#include "testutil.h"

typedef struct job_log {
    pthread_mutex_t mu;
    size_t n;
    int done[64];     /* how often each job was done, by a thread or in line */
    uint64_t hold;    /* bytes each result holds (0: none reported) */
    uint64_t held;    /* reported and not yet released */
    uint64_t peak;    /* the most held at once */
    unsigned dropped; /* results freed by the stop */
    size_t begun[64]; /* the jobs the threads began, in the order they began them */
    size_t nbegun;
} job_log;

static void *job_read(void *user, size_t k, tconv_jobs *j, const atomic_int *abandon)
{
    job_log *l = user;
    (void)abandon;
    pthread_mutex_lock(&l->mu);
    l->begun[l->nbegun++] = k;
    pthread_mutex_unlock(&l->mu);
    if (l->hold && j) {
        pthread_mutex_lock(&l->mu);
        l->held += l->hold;
        if (l->held > l->peak) l->peak = l->held;
        pthread_mutex_unlock(&l->mu);
        if (tconv_jobs_hold(j, k, l->hold, l->hold, 0) < 0) return NULL; /* given up */
    }
    pthread_mutex_lock(&l->mu);
    l->done[k]++;
    pthread_mutex_unlock(&l->mu);
    size_t *r = tconv_xmalloc(sizeof(*r));
    *r = k;
    return r;
}

static void job_drop(void *result)
{
    free(result);
}

/* Takes every job in order, doing in line those no thread did; each done exactly once. */
static void job_take_all(tconv_jobs *j, job_log *l)
{
    for (size_t k = 0; k < l->n; k++) {
        size_t *r = tconv_jobs_take(j, k);
        if (!r) {
            pthread_mutex_lock(&l->mu);
            l->done[k]++;
            pthread_mutex_unlock(&l->mu);
            continue;
        }
        assert_int_equal(*r, k);
        free(r);
        if (l->hold) {
            pthread_mutex_lock(&l->mu);
            l->held -= l->hold;
            pthread_mutex_unlock(&l->mu);
            tconv_jobs_release(j, l->hold, 0);
        }
    }
}

static void test_order(void **state)
{
    (void)state;
    job_log l = {.mu = PTHREAD_MUTEX_INITIALIZER, .n = 40};
    tconv_jobs *j = tconv_jobs_start(l.n, 3, UINT64_MAX, job_read, &l);
    assert_non_null(j);
    job_take_all(j, &l);
    tconv_jobs_stop(j, job_drop);
    for (size_t k = 0; k < l.n; k++)
        assert_int_equal(l.done[k], 1);
}

/* A budget of two results: the workers never hold more than that beside the caller's. */
static void test_budget(void **state)
{
    (void)state;
    job_log l = {.mu = PTHREAD_MUTEX_INITIALIZER, .n = 30, .hold = 1000};
    tconv_jobs *j = tconv_jobs_start(l.n, 4, 2000, job_read, &l);
    assert_non_null(j);
    job_take_all(j, &l);
    tconv_jobs_stop(j, job_drop);
    for (size_t k = 0; k < l.n; k++)
        assert_int_equal(l.done[k], 1);
    /* the budget, and the job the caller takes next, which is never held back */
    assert_true(l.peak <= 3000);
}

/* With sizes: the worker of -j 2 begins the job just past its window when it is much larger than
 * the one in it (87 against 54), and the caller does the one in it in line; sizes about equal
 * (60 against 54) keep the order. */
static void test_sized(void **state)
{
    (void)state;
    static const uint64_t sizes[2][4] = {{35, 54, 87, 33}, {35, 54, 60, 33}};
    for (int t = 0; t < 2; t++) {
        job_log l = {.mu = PTHREAD_MUTEX_INITIALIZER, .n = 4};
        tconv_jobs *j = tconv_jobs_start_sized(l.n, 2, UINT64_MAX, sizes[t], job_read, &l);
        assert_non_null(j);
        for (int i = 0; i < 5000; i++) { /* the worker's first job, before the caller takes any */
            pthread_mutex_lock(&l.mu);
            size_t n = l.nbegun;
            pthread_mutex_unlock(&l.mu);
            if (n) break;
            struct timespec ms = {0, 1000000};
            nanosleep(&ms, NULL);
        }
        pthread_mutex_lock(&l.mu);
        assert_true(l.nbegun >= 1);
        assert_int_equal(l.begun[0], t == 0 ? 2 : 1);
        pthread_mutex_unlock(&l.mu);
        job_take_all(j, &l);
        tconv_jobs_stop(j, job_drop);
        for (size_t k = 0; k < l.n; k++)
            assert_int_equal(l.done[k], 1);
    }
}

/* Stopped before every job was taken: the results not taken are dropped, each once. */
static void test_stop(void **state)
{
    (void)state;
    job_log l = {.mu = PTHREAD_MUTEX_INITIALIZER, .n = 10};
    tconv_jobs *j = tconv_jobs_start(l.n, 3, UINT64_MAX, job_read, &l);
    assert_non_null(j);
    size_t *r = tconv_jobs_take(j, 0);
    assert_null(r);               /* job 0 is always the caller's */
    tconv_jobs_stop(j, job_drop); /* frees whatever the workers made meanwhile */
    for (size_t k = 1; k < l.n; k++)
        assert_true(l.done[k] <= 1);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_order),
        cmocka_unit_test(test_budget),
        cmocka_unit_test(test_sized),
        cmocka_unit_test(test_stop),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
