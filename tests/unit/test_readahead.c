/* The read-ahead ring: bytes in order whatever the sizes the producer writes, its failure where
 * it happened, and a consumer that leaves early (also while the producer waits on a pipe). */
#include <fcntl.h>
#include <pthread.h>
#include <signal.h>

#include "testutil.h"

/* A producer of the bytes i % 251 for i < total, in pieces of varying size; it fails after
 * fail_at bytes when fail_at is set. */
typedef struct counting {
    size_t next, total, fail_at;
    unsigned seed;
    int wait_fd; /* >= 0: wait on this descriptor (the one given to the ring) before producing */
    int waited;  /* what tconv_readahead_wait returned; 1 before it is called */
} counting;

static ssize_t counting_produce(void *user, tconv_readahead *ra, unsigned char *dst, size_t cap)
{
    counting *c = user;
    if (c->wait_fd >= 0) {
        c->waited = tconv_readahead_wait(ra);
        if (c->waited < 0) return -1;
    }
    if (c->fail_at && c->next >= c->fail_at) return -1;
    c->seed = c->seed * 1103515245u + 12345u;
    size_t n = 1 + (c->seed >> 8) % 70000;
    if (n > cap) n = cap;
    if (n > c->total - c->next) n = c->total - c->next;
    if (c->fail_at && n > c->fail_at - c->next) n = c->fail_at - c->next;
    for (size_t i = 0; i < n; i++)
        dst[i] = (unsigned char)((c->next + i) % 251);
    c->next += n;
    return (ssize_t)n;
}

/* Reads everything; returns the final status and the byte count in *got. */
static int drain(tconv_readahead *ra, size_t *got)
{
    size_t n = 0, len;
    int status;
    const unsigned char *p;
    while ((p = tconv_readahead_next(ra, &len, &status)) != NULL) {
        assert_true(len > 0);
        for (size_t i = 0; i < len; i++)
            if (p[i] != (unsigned char)((n + i) % 251)) fail_msg("byte %zu is wrong", n + i);
        n += len;
    }
    *got = n;
    return status;
}

static void in_order(void **state)
{
    (void)state;
    counting c = {.total = 5u << 20, .seed = 7, .wait_fd = -1};
    tconv_readahead *ra = tconv_readahead_start(counting_produce, &c, 64 * 1024, -1);
    assert_non_null(ra);
    size_t got;
    assert_int_equal(drain(ra, &got), 0);
    assert_int_equal(got, c.total);
    /* asking again after the end stays at the end */
    size_t len;
    int status;
    assert_null(tconv_readahead_next(ra, &len, &status));
    assert_int_equal(status, 0);
    tconv_readahead_free(ra);
}

static void failure_after_its_bytes(void **state)
{
    (void)state;
    counting c = {.total = 5u << 20, .fail_at = 1234567, .seed = 3, .wait_fd = -1};
    tconv_readahead *ra = tconv_readahead_start(counting_produce, &c, 64 * 1024, -1);
    assert_non_null(ra);
    size_t got;
    assert_int_equal(drain(ra, &got), -1);
    assert_int_equal(got, 1234567);
    tconv_readahead_free(ra);
}

static void consumer_leaves_early(void **state)
{
    (void)state;
    /* Read one buffer of many, or none at all: the producer, blocked on a full ring, stops. */
    for (int reads = 0; reads < 2; reads++) {
        counting c = {.total = (size_t)1 << 30, .seed = 11, .wait_fd = -1};
        tconv_readahead *ra = tconv_readahead_start(counting_produce, &c, 64 * 1024, -1);
        assert_non_null(ra);
        size_t len;
        int status;
        if (reads) assert_non_null(tconv_readahead_next(ra, &len, &status));
        tconv_readahead_free(ra);
        assert_true(c.next < c.total);
    }
}

static void stop_ends_a_wait_on_a_pipe(void **state)
{
    (void)state;
    int fds[2];
    assert_int_equal(pipe(fds), 0);
    counting c = {.total = 100, .seed = 5, .wait_fd = fds[0], .waited = 1};
    tconv_readahead *ra = tconv_readahead_start(counting_produce, &c, 64 * 1024, fds[0]);
    assert_non_null(ra);
    usleep(100 * 1000); /* most likely waiting by now; if not, it must not start */
    /* Nothing is ever written: without the wake-up this would hang (the test's time limit). */
    alarm(20);
    tconv_readahead_free(ra);
    alarm(0);
    assert_int_not_equal(c.waited, 0);
    assert_int_equal(c.next, 0);
    close(fds[0]);
    close(fds[1]);
}

static void a_readable_pipe_is_read(void **state)
{
    (void)state;
    int fds[2];
    assert_int_equal(pipe(fds), 0);
    assert_int_equal(write(fds[1], "x", 1), 1);
    counting c = {.total = 300000, .seed = 9, .wait_fd = fds[0]};
    tconv_readahead *ra = tconv_readahead_start(counting_produce, &c, 64 * 1024, fds[0]);
    assert_non_null(ra);
    size_t got;
    assert_int_equal(drain(ra, &got), 0);
    assert_int_equal(got, c.total);
    assert_int_equal(c.waited, 0);
    tconv_readahead_free(ra);
    close(fds[0]);
    close(fds[1]);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(in_order),
        cmocka_unit_test(failure_after_its_bytes),
        cmocka_unit_test(consumer_leaves_early),
        cmocka_unit_test(stop_ends_a_wait_on_a_pipe),
        cmocka_unit_test(a_readable_pipe_is_read),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
