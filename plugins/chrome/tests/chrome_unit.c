/* Unit tests of the Chrome reader's building blocks: exact decimal conversion, UTF-8 repair,
 * the probe, the record collector and the string map. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

#include "chrome_probe.h"
#include "chrome_record.h"
#include "chrome_strmap.h"
#include "chrome_time.h"

static int64_t us_to_ns(const char *s)
{
    int64_t v = 0;
    assert_int_equal(chrome_num_scaled(s, strlen(s), 3, &v), CHROME_NUM_OK);
    return v;
}

static void test_time_exact(void **state)
{
    (void)state;
    /* 19 significant digits: a double would give ...689047 only by luck of rounding. */
    assert_true(us_to_ns("1712195495519689.047") == INT64_C(1712195495519689047));
    assert_true(us_to_ns("2413669096090.100") == INT64_C(2413669096090100));
    assert_true(us_to_ns("551.1320000000001") == 551132);
    assert_true(us_to_ns("0.9999999999999999") == 1000);
    assert_true(us_to_ns("1.5e3") == 1500000);
    assert_true(us_to_ns("25E-4") == 3);
    assert_true(us_to_ns("0.0005") == 1);
    assert_true(us_to_ns("0.0004999") == 0);
    assert_true(us_to_ns("-2.0005") == -2001);
    assert_true(us_to_ns("-0") == 0);
    assert_true(us_to_ns("0") == 0);
    assert_true(us_to_ns("0e999999") == 0);
    assert_true(us_to_ns("1e-999999") == 0);
    assert_true(us_to_ns(" 42 ") == 42000);
    assert_true(us_to_ns("+7") == 7000);
    assert_true(us_to_ns("0000.1") == 100);
    assert_true(us_to_ns(".5") == 500);
    assert_true(us_to_ns("5.") == 5000);
    assert_true(us_to_ns("9223372036854775.807") == INT64_MAX);
    assert_true(us_to_ns("-9223372036854775.808") == INT64_MIN);
}

static void test_time_errors(void **state)
{
    (void)state;
    int64_t v;
    const char *bad[] = {"",    " ",   "-",    ".",   "abc", "1.2.3", "1e",
                         "1e+", "NaN", "0x10", "1 2", "12a", NULL};
    for (size_t i = 0; bad[i]; i++)
        assert_int_equal(chrome_num_scaled(bad[i], strlen(bad[i]), 3, &v), CHROME_NUM_INVALID);
    const char *big[] = {"9223372036854775.8075",   "9223372036854776",
                         "-9223372036854775.809",   "1e999999",
                         "99999999999999999999999", NULL};
    for (size_t i = 0; big[i]; i++)
        assert_int_equal(chrome_num_scaled(big[i], strlen(big[i]), 3, &v), CHROME_NUM_RANGE);
    /* Shift 0 reads integers as they are. */
    assert_int_equal(chrome_num_scaled("-9223372036854775808", 20, 0, &v), CHROME_NUM_OK);
    assert_true(v == INT64_MIN);
    assert_int_equal(chrome_num_scaled("2.5", 3, 0, &v), CHROME_NUM_OK);
    assert_true(v == 3);
}

/* Plain decimals take a shortcut; a leading blank sends the same text down the general path,
 * which must agree with it. */
static void test_time_plain_agrees(void **state)
{
    (void)state;
    unsigned seed = 1;
    char text[40], padded[41];
    for (int k = 0; k < 200000; k++) {
        size_t n = 0;
        seed = seed * 1103515245u + 12345u;
        unsigned nint = 1 + (seed >> 8) % 17, nfrac = (seed >> 16) % 7;
        for (unsigned i = 0; i < nint; i++) {
            seed = seed * 1103515245u + 12345u;
            text[n++] = (char)('0' + (seed >> 12) % 10);
        }
        if (nfrac || (seed & 1)) text[n++] = '.';
        for (unsigned i = 0; i < nfrac; i++) {
            seed = seed * 1103515245u + 12345u;
            text[n++] = (char)('0' + (seed >> 12) % 10);
        }
        padded[0] = ' ';
        memcpy(padded + 1, text, n);
        for (int shift = 0; shift <= 4; shift++) {
            int64_t a = 0, b = 0;
            chrome_num_status sa = chrome_num_scaled(text, n, shift, &a);
            chrome_num_status sb = chrome_num_scaled(padded, n + 1, shift, &b);
            assert_int_equal(sa, sb);
            if (sa == CHROME_NUM_OK) assert_true(a == b);
        }
    }
}

static int probe(const char *s)
{
    return chrome_probe((const unsigned char *)s, strlen(s));
}

static void test_probe(void **state)
{
    (void)state;
    assert_int_equal(probe("{\"traceEvents\":[{\"ph\":\"X\"}]}"), 100);
    assert_int_equal(probe("\xef\xbb\xbf  {\"displayTimeUnit\":\"ns\",\"traceEvents\":[]}"), 100);
    assert_int_equal(probe("[{\"pid\":1,\"ph\":\"B\",\"ts\":0}"), 95);
    assert_int_equal(probe("{\n  \"schemaVersion\": 1,\n  \"deviceProperties\": ["), 90);
    assert_int_equal(probe("["), 30);
    assert_int_equal(probe("[[1,2],[3,4]]"), 0);
    assert_int_equal(probe("perf 1234 [000] 1.0: cycles:"), 0);
    assert_int_equal(probe("{\"$schema\":\"https://www.speedscope.app/file-format-schema.json\"}"),
                     5);
    assert_int_equal(probe(""), 0);
}

static chrome_span text(chrome_record *r, const char *s)
{
    chrome_span sp;
    int bad = 0;
    assert_int_equal(chrome_record_text(r, s, strlen(s), 1, &bad, &sp), 0);
    return sp;
}

static void test_record(void **state)
{
    (void)state;
    chrome_record r;
    memset(&r, 0, sizeof r);
    chrome_record_reset(&r);
    assert_int_equal(chrome_field_lookup("ph", 2), CHROME_F_PH);
    assert_int_equal(chrome_field_lookup("args", 4), CHROME_F_ARGS);
    assert_int_equal(chrome_field_lookup("tts", 3), CHROME_F_UNKNOWN);
    /* A repeated args key keeps its first place and takes the last value. */
    chrome_span k = text(&r, "k"), j = text(&r, "j");
    chrome_record_set_kv(&r, &r.args, k, CHROME_V_NUMBER, text(&r, "1"));
    chrome_record_set_kv(&r, &r.args, j, CHROME_V_STRING, text(&r, "x"));
    chrome_record_set_kv(&r, &r.args, text(&r, "k"), CHROME_V_STRING, text(&r, "last"));
    assert_int_equal(r.args.n, 2);
    assert_string_equal(chrome_record_str(&r, r.args.v[0].key), "k");
    assert_string_equal(chrome_record_str(&r, r.args.v[0].val.s), "last");
    assert_int_equal(r.args.v[0].val.type, CHROME_V_STRING);

    chrome_record c;
    assert_int_equal(chrome_record_clone(&c, &r), 0);
    chrome_record_reset(&r);
    assert_int_equal(r.args.n, 0);
    assert_int_equal(c.args.n, 2);
    assert_string_equal(chrome_record_str(&c, c.args.v[1].val.s), "x");
    chrome_record_free(&c);
    chrome_record_free(&r);
}

static void test_strmap(void **state)
{
    (void)state;
    chrome_strmap m;
    memset(&m, 0, sizeof m);
    char key[32];
    for (uint32_t i = 0; i < 5000; i++) {
        int n = snprintf(key, sizeof key, "frame-%u", i);
        assert_int_equal(chrome_strmap_put(&m, key, (size_t)n, i * 3), 0);
    }
    for (uint32_t i = 0; i < 5000; i++) {
        int n = snprintf(key, sizeof key, "frame-%u", i);
        uint32_t *v = chrome_strmap_find(&m, key, (size_t)n);
        assert_non_null(v);
        assert_int_equal(*v, i * 3);
    }
    assert_null(chrome_strmap_find(&m, "frame-5000", 10));
    assert_int_equal(chrome_strmap_put(&m, "frame-7", 7, 1), 0);
    assert_int_equal(*chrome_strmap_find(&m, "frame-7", 7), 1);
    assert_int_equal(m.n, 5000);
    chrome_strmap_free(&m);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_time_exact),
        cmocka_unit_test(test_time_errors),
        cmocka_unit_test(test_time_plain_agrees),
        cmocka_unit_test(test_probe),
        cmocka_unit_test(test_record),
        cmocka_unit_test(test_strmap),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
