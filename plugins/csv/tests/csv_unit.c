/* Unit tests of the csv writer's text building blocks: field quoting, JSON strings, UTF-8
 * checking, number formats and the hash map. */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "csv_buf.h"
#include "csv_field.h"
#include "csv_json.h"
#include <tconv/tconv.h>

static void expect_field(const char *in, size_t n, const char *want)
{
    csv_buf b = {0};
    csv_field(&b, in, n);
    csv_buf_putc(&b, '\0');
    assert_string_equal(b.p, want);
    csv_buf_free(&b);
}

static void test_field_quoting(void **state)
{
    (void)state;
    expect_field("plain", 5, "plain");
    expect_field("", 0, "");
    expect_field("a,b", 3, "\"a,b\"");
    expect_field("say \"hi\"", 8, "\"say \"\"hi\"\"\"");
    expect_field("\"", 1, "\"\"\"\"");
    expect_field("two\nlines", 9, "\"two\nlines\"");
    expect_field("cr\r", 3, "\"cr\r\"");
    expect_field(" lead", 5, "\" lead\"");
    expect_field("trail ", 6, "\"trail \"");
    expect_field("mid space", 9, "mid space");
    expect_field("tab\tx", 5, "tab\tx");
}

static void test_field_utf8(void **state)
{
    (void)state;
    expect_field("caf\xc3\xa9 \xe6\x97\xa5 \xf0\x9f\x8e\x89", 14,
                 "caf\xc3\xa9 \xe6\x97\xa5 \xf0\x9f\x8e\x89");
    expect_field("a\xff"
                 "b",
                 3,
                 "a\xef\xbf\xbd"
                 "b");
    expect_field("nul\0x", 5, "nul\xef\xbf\xbdx");
    /* A quote after a replaced byte is still doubled, and the field quoted. */
    expect_field("\xfe\"", 2, "\"\xef\xbf\xbd\"\"\"");
}

static void expect_json(const char *in, size_t n, const char *want)
{
    csv_buf b = {0};
    csv_json_string(&b, in, n);
    csv_buf_putc(&b, '\0');
    assert_string_equal(b.p, want);
    csv_buf_free(&b);
}

static void test_json_string(void **state)
{
    (void)state;
    expect_json("x", 1, "\"x\"");
    expect_json("q\"b\\", 4, "\"q\\\"b\\\\\"");
    expect_json("\n\r\t", 3, "\"\\n\\r\\t\"");
    expect_json("\x01\x1f\x7f", 3, "\"\\u0001\\u001f\x7f\"");
    expect_json("\0", 1, "\"\\u0000\"");
    expect_json("\xc3\xa9\xff", 3, "\"\xc3\xa9\xef\xbf\xbd\"");
}

static void expect_double(double d, const char *want)
{
    csv_buf b = {0};
    csv_buf_double(&b, d);
    csv_buf_putc(&b, '\0');
    assert_string_equal(b.p, want);
    csv_buf_free(&b);
}

static void test_double(void **state)
{
    (void)state;
    expect_double(0.25, "0.25");
    expect_double(36000.0, "36000");
    expect_double(7500.0, "7500");
    expect_double(-2.5, "-2.5");
    expect_double(0.1, "0.1");
    expect_double(1.0 / 3.0, "0.3333333333333333");
    expect_double(1.5e-5, "0.000015");
    expect_double(1e-7, "1e-07");
    expect_double(1e20, "1e+20");
    expect_double(123456789012.0, "123456789012");
    expect_double(0.0, "0");
    expect_double(NAN, "");
    expect_double(INFINITY, "");
}

static void test_map(void **state)
{
    (void)state;
    tconv_map m = {0};
    assert_int_equal(tconv_map_get(&m, 1, 2), TCONV_MAP_NONE);
    for (uint32_t i = 0; i < 10000; i++)
        assert_int_equal(tconv_map_put(&m, (uint64_t)i * 7919u, i % 3, i), i);
    /* A present key keeps its value. */
    assert_int_equal(tconv_map_put(&m, 7919u, 1, 99), 1);
    for (uint32_t i = 0; i < 10000; i++)
        assert_int_equal(tconv_map_get(&m, (uint64_t)i * 7919u, i % 3), i);
    /* Both parts of the key matter. */
    assert_int_equal(tconv_map_get(&m, 7919u, 2), TCONV_MAP_NONE);
    assert_int_equal(m.n, 10000);
    tconv_map_free(&m);
}

static void test_header(void **state)
{
    (void)state;
    static const char *const cols[] = {"a", "b,c", NULL};
    csv_buf b = {0};
    csv_header(&b, cols, "\r\n");
    csv_buf_putc(&b, '\0');
    assert_string_equal(b.p, "a,\"b,c\"\r\n");
    csv_buf_free(&b);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_field_quoting), cmocka_unit_test(test_field_utf8),
        cmocka_unit_test(test_json_string),   cmocka_unit_test(test_double),
        cmocka_unit_test(test_map),           cmocka_unit_test(test_header),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
