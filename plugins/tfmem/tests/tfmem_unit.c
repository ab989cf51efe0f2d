/* Unit tests of the tfmem building blocks: proto3 JSON numbers, time conversion, the probe, host
 * names and the run-folder checks. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "tconv/harness.h"
#include "tfmem_num.h"
#include "tfmem_probe.h"
#include "tfmem_run.h"

static tfmem_num_status tfmem_test_i64(const char *json, int64_t *out)
{
    json_t *v = json_loads(json, JSON_DECODE_ANY, NULL);
    assert_non_null(v);
    tfmem_num_status st = tfmem_num_int64(v, out);
    json_decref(v);
    return st;
}

static void test_int64(void **state)
{
    (void)state;
    int64_t x = 0;
    assert_int_equal(tfmem_test_i64("\"123\"", &x), TFMEM_NUM_OK);
    assert_int_equal(x, 123);
    assert_int_equal(tfmem_test_i64("\"-5\"", &x), TFMEM_NUM_OK);
    assert_int_equal(x, -5);
    assert_int_equal(tfmem_test_i64("7", &x), TFMEM_NUM_OK);
    assert_int_equal(x, 7);
    assert_int_equal(tfmem_test_i64("7.0", &x), TFMEM_NUM_OK);
    assert_int_equal(x, 7);
    assert_int_equal(tfmem_test_i64("\"9223372036854775807\"", &x), TFMEM_NUM_OK);
    assert_true(x == INT64_MAX);
    assert_int_equal(tfmem_test_i64("\"-9223372036854775808\"", &x), TFMEM_NUM_OK);
    assert_true(x == INT64_MIN);
    static const char *const bad[] = {"7.5",       "\"9223372036854775808\"",
                                      "\"1e3\"",   "\" 12\"",
                                      "\"+1\"",    "\"\"",
                                      "\"12 MB\"", "true",
                                      "{}",        "[1]",
                                      "9.3e18"};
    for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
        assert_int_equal(tfmem_test_i64(bad[i], &x), TFMEM_NUM_BAD);
    assert_int_equal(tfmem_test_i64("null", &x), TFMEM_NUM_ABSENT);
    assert_int_equal(tfmem_num_int64(NULL, &x), TFMEM_NUM_ABSENT);
}

static void test_uint64(void **state)
{
    (void)state;
    uint64_t u = 0;
    json_t *v = json_string("18446744073709551615");
    assert_int_equal(tfmem_num_uint64(v, &u), TFMEM_NUM_OK);
    assert_true(u == UINT64_MAX);
    json_decref(v);
    v = json_string("-1");
    assert_int_equal(tfmem_num_uint64(v, &u), TFMEM_NUM_BAD);
    json_decref(v);
    v = json_integer(-1);
    assert_int_equal(tfmem_num_uint64(v, &u), TFMEM_NUM_BAD);
    json_decref(v);
    v = json_integer(139887974023168);
    assert_int_equal(tfmem_num_uint64(v, &u), TFMEM_NUM_OK);
    assert_true(u == 139887974023168ull);
    json_decref(v);
    v = json_string("18446744073709551616");
    assert_int_equal(tfmem_num_uint64(v, &u), TFMEM_NUM_BAD);
    json_decref(v);
}

static void test_double(void **state)
{
    (void)state;
    double d = 0;
    json_t *v = json_real(0.25);
    assert_int_equal(tfmem_num_double(v, &d), TFMEM_NUM_OK);
    assert_true(d == 0.25);
    json_decref(v);
    v = json_integer(0);
    assert_int_equal(tfmem_num_double(v, &d), TFMEM_NUM_OK);
    assert_true(d == 0);
    json_decref(v);
    static const char *const ok[] = {"NaN", "Infinity", "-Infinity", "0.037", "1e-3"};
    for (size_t i = 0; i < sizeof(ok) / sizeof(ok[0]); i++) {
        v = json_string(ok[i]);
        assert_int_equal(tfmem_num_double(v, &d), TFMEM_NUM_OK);
        json_decref(v);
    }
    v = json_string("-Infinity");
    tfmem_num_double(v, &d);
    assert_true(isinf(d) && d < 0);
    json_decref(v);
    static const char *const bad[] = {"inf", "0x10", "", " 1", "1 ", "abc", "nan"};
    for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
        v = json_string(bad[i]);
        assert_int_equal(tfmem_num_double(v, &d), TFMEM_NUM_BAD);
        json_decref(v);
    }
}

static void test_ps_to_ns(void **state)
{
    (void)state;
    assert_int_equal(tfmem_ps_to_ns(0, 0), 0);
    assert_int_equal(tfmem_ps_to_ns(1999, 0), 1);
    assert_int_equal(tfmem_ps_to_ns(45001000, 0), 45001);
    assert_int_equal(tfmem_ps_to_ns(-1, 0), -1);
    assert_int_equal(tfmem_ps_to_ns(-1000, 0), -1);
    assert_int_equal(tfmem_ps_to_ns(-1001, 0), -2);
    assert_int_equal(tfmem_ps_to_ns(5000, -7), -2);
}

static int tfmem_test_probe(const char *s)
{
    return tfmem_probe((const unsigned char *)s, strlen(s));
}

static void test_probe(void **state)
{
    (void)state;
    assert_int_equal(tfmem_test_probe("{\"memoryProfilePerAllocator\":{\"GPU_0_bfc\":{"), 100);
    assert_int_equal(tfmem_test_probe("\xef\xbb\xbf\n { \"memoryProfilePerAllocator\" : {}}"), 100);
    assert_int_equal(tfmem_test_probe("{\"numHosts\":1,\"memoryProfilePerAllocator\":{}}"), 95);
    assert_int_equal(tfmem_test_probe("{\"x\":{\"memoryProfileSnapshots\":[]}"), 70);
    assert_int_equal(tfmem_test_probe("{\"x\":{\"sampledTimelineSnapshots\":[]}"), 70);
    assert_int_equal(tfmem_test_probe("{\"traceEvents\":[{\"ph\":\"X\"}]}"), 0);
    assert_int_equal(tfmem_test_probe("[{\"memoryProfilePerAllocator\":{}}]"), 0);
    assert_int_equal(tfmem_test_probe(""), 0);
    assert_int_equal(tfmem_test_probe("   "), 0);
    assert_int_equal(tfmem_test_probe("{\"memoryProfilePerAll"), 0);
}

static void tfmem_test_host(const char *path, const char *want)
{
    char *host = tfmem_run_host(path);
    if (want) {
        assert_non_null(host);
        assert_string_equal(host, want);
    } else {
        assert_null(host);
    }
    free(host);
}

static void test_host(void **state)
{
    (void)state;
    tfmem_test_host("logs/plugins/profile/run/hostA.memory_profile.json.gz", "hostA");
    tfmem_test_host("t1v-n-1234-w-0.memory_profile.json", "t1v-n-1234-w-0");
    tfmem_test_host("a.b.memory_profile.json", "a.b");
    tfmem_test_host(".memory_profile.json", NULL);
    tfmem_test_host("hostA.trace.json.gz", NULL);
    tfmem_test_host("profile.json", NULL);
    tfmem_test_host("x.memory_profile.json.gz/other.json", NULL);
}

static char tfmem_test_root[1024];

/* The path of rel below the scratch root; the caller frees it. */
static char *tfmem_test_path(const char *rel)
{
    char path[2048];
    snprintf(path, sizeof(path), "%s/%s", tfmem_test_root, rel);
    return strdup(path);
}

static void tfmem_test_touch(const char *rel)
{
    char *path = tfmem_test_path(rel);
    FILE *f = fopen(path, "w");
    assert_non_null(f);
    fclose(f);
    free(path);
}

static void test_run_check(void **state)
{
    (void)state;
    const char *base = getenv("TFMEM_TEST_TMP");
    snprintf(tfmem_test_root, sizeof(tfmem_test_root), "%s/tfmem-unit-run", base ? base : "/tmp");
    char cmd[4 * sizeof(tfmem_test_root) + 64];
    snprintf(cmd, sizeof(cmd), "rm -rf '%s' && mkdir -p '%s/run1' '%s/run2'", tfmem_test_root,
             tfmem_test_root, tfmem_test_root);
    assert_int_equal(system(cmd), 0);
    tfmem_test_touch("run1/h1.memory_profile.json.gz");
    tfmem_test_touch("run1/h1.trace.json.gz");
    tfmem_test_touch("run1/h2.memory_profile.json.gz");
    tfmem_test_touch("run2/h3.memory_profile.json.gz");

    tconv_harness *hr = tconv_harness_new();
    tconv_ctx *ctx = tconv_harness_ctx(hr);
    char *h1 = tfmem_test_path("run1/h1.memory_profile.json.gz");
    assert_int_equal(tfmem_run_check(ctx, h1, "h1", 0, 0), TCONV_OK);
    assert_int_equal(tconv_warning_count(ctx, "tfmem.no-trace"), 0);
    /* h2 has no trace next to it while h1 has one. */
    char *h2 = tfmem_test_path("run1/h2.memory_profile.json.gz");
    assert_int_equal(tfmem_run_check(ctx, h2, "h2", 2, 0), TCONV_OK);
    assert_int_equal(tconv_warning_count(ctx, "tfmem.no-trace"), 1);
    /* The same host again, and a second run. */
    assert_int_equal(tfmem_run_check(ctx, h1, "h1", 3, 0), TCONV_FATAL);
    size_t n;
    const char *const *chain = tconv_error_chain(ctx, &n);
    assert_true(n >= 1 && strstr(chain[0], "host 'h1' has more than one memory profile"));
    tconv_error_clear(ctx);
    char *h3 = tfmem_test_path("run2/h3.memory_profile.json.gz");
    assert_int_equal(tfmem_run_check(ctx, h3, "h3", 4, 0), TCONV_FATAL);
    chain = tconv_error_chain(ctx, &n);
    assert_true(n >= 1 && strstr(chain[0], "more than one profiler run"));
    assert_true(strstr(chain[0], "h1.memory_profile.json.gz, h1.trace.json.gz, "
                                 "h2.memory_profile.json.gz") != NULL);
    tconv_error_clear(ctx);
    assert_int_equal(tfmem_run_check(ctx, h3, "h3", 5, 1), TCONV_OK);
    /* Input numbering that starts over is a new conversion. */
    assert_int_equal(tfmem_run_check(ctx, h1, "h1", 0, 0), TCONV_OK);
    /* So is another context. */
    tconv_harness *other_h = tconv_harness_new();
    tconv_ctx *other = tconv_harness_ctx(other_h);
    assert_int_equal(tfmem_run_check(other, h3, "h3", 7, 0), TCONV_OK);
    tconv_harness_free(other_h);
    /* A context whose tracks do not hold the recorded profile's first track is another one,
     * even at the same address and with a later input. */
    tconv_harness_input(hr, 3);
    uint32_t t = tconv_track_get(ctx, tconv_string_intern_cstr(ctx, "h1"),
                                 tconv_string_intern_cstr(ctx, "GPU_0_bfc"));
    assert_int_equal(tfmem_run_check(ctx, h1, "h1", 3, 0), TCONV_OK);
    tfmem_run_track(ctx, 3, t);
    assert_int_equal(tfmem_run_check(ctx, h3, "h3", 4, 0), TCONV_FATAL);
    tconv_error_clear(ctx);
    tconv_harness_free(hr);
    hr = tconv_harness_new();
    ctx = tconv_harness_ctx(hr);
    assert_int_equal(tfmem_run_check(ctx, h3, "h3", 5, 0), TCONV_OK);
    tconv_harness_free(hr);
    tfmem_run_reset();
    free(h1);
    free(h2);
    free(h3);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_int64),     cmocka_unit_test(test_uint64),
        cmocka_unit_test(test_double),    cmocka_unit_test(test_ps_to_ns),
        cmocka_unit_test(test_probe),     cmocka_unit_test(test_host),
        cmocka_unit_test(test_run_check),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
