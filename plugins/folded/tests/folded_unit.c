/* Unit tests of the folded plugin's counts and stack table. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "folded_value.h"

static void folded_unit_parse(void **state)
{
    (void)state;
    int64_t m;
    int d;
    assert_true(folded_value_parse("274", 3, &m, &d));
    assert_int_equal(m, 274);
    assert_int_equal(d, 0);
    assert_true(folded_value_parse("12.5", 4, &m, &d));
    assert_int_equal(m, 125);
    assert_int_equal(d, 1);
    assert_true(folded_value_parse("6.", 2, &m, &d));
    assert_int_equal(m, 6);
    assert_int_equal(d, 0);
    assert_true(folded_value_parse(".25", 3, &m, &d));
    assert_int_equal(m, 25);
    assert_int_equal(d, 2);
    assert_false(folded_value_parse("12V.43", 6, &m, &d));
    assert_false(folded_value_parse("1.2.3", 5, &m, &d));
    assert_false(folded_value_parse(".", 1, &m, &d));
    assert_false(folded_value_parse("-3", 2, &m, &d));
    assert_int_equal(folded_value_parse("99999999999999999999", 20, &m, &d), FOLDED_VALUE_TOO_BIG);
    assert_int_equal(folded_value_parse("1.0000000001", 12, &m, &d), FOLDED_VALUE_TOO_FINE);
    assert_true(folded_value_parse("1.5000000000", 12, &m, &d) == 1 && m == 1500000000 && d == 9);
}

static void folded_unit_format(void **state)
{
    (void)state;
    char buf[32];
    size_t n = folded_value_format(buf, 125, 1);
    buf[n] = 0;
    assert_string_equal(buf, "12.5");
    n = folded_value_format(buf, 3000, 3);
    buf[n] = 0;
    assert_string_equal(buf, "3");
    n = folded_value_format(buf, 2567, 3);
    buf[n] = 0;
    assert_string_equal(buf, "2.567");
    n = folded_value_format(buf, 5, 3);
    buf[n] = 0;
    assert_string_equal(buf, "0.005");
    n = folded_value_format(buf, -15, 1);
    buf[n] = 0;
    assert_string_equal(buf, "-1.5");
    n = folded_value_format(buf, INT64_MAX, 0);
    buf[n] = 0;
    assert_string_equal(buf, "9223372036854775807");
}

static void folded_unit_units(void **state)
{
    (void)state;
    char buf[16];
    assert_string_equal(folded_value_unit(0, buf), "count");
    assert_string_equal(folded_value_unit(3, buf), "count*1e-3");
    assert_int_equal(folded_value_unit_decimals("count*1e-3"), 3);
    assert_int_equal(folded_value_unit_decimals("count"), 0);
    assert_int_equal(folded_value_unit_decimals("nanoseconds"), 0);
    assert_int_equal(folded_value_unit_decimals(NULL), 0);
}

static void folded_unit_round(void **state)
{
    (void)state;
    assert_int_equal(folded_value_round_ns(1499, 1000), 1);
    assert_int_equal(folded_value_round_ns(1500, 1000), 2);
    assert_int_equal(folded_value_round_ns(499, 1000), 0);
    assert_int_equal(folded_value_round_ns(-1500, 1000), -2);
    assert_int_equal(folded_value_round_ns(1234, 1), 1234);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(folded_unit_parse),
        cmocka_unit_test(folded_unit_format),
        cmocka_unit_test(folded_unit_units),
        cmocka_unit_test(folded_unit_round),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
