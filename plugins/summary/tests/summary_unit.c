/* Unit tests of the summary's interval arithmetic and text formats. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "summary_fmt.h"
#include "summary_ranges.h"

static summary_ranges ranges(const int64_t *v, size_t n)
{
    summary_ranges l = {0};
    for (size_t i = 0; i + 1 < n; i += 2)
        summary_ranges_add(&l, v[i], v[i + 1]);
    summary_ranges_merge(&l);
    return l;
}

static void expect_ranges(const summary_ranges *l, const int64_t *v, size_t n)
{
    assert_int_equal(l->n, n / 2);
    for (size_t i = 0; i < l->n; i++) {
        assert_int_equal(l->r[i].start, v[2 * i]);
        assert_int_equal(l->r[i].end, v[2 * i + 1]);
    }
}

static void test_merge(void **state)
{
    (void)state;
    /* Unsorted, overlapping, touching, nested, empty. */
    const int64_t in[] = {50, 60, 0, 10, 10, 20, 5, 8, 30, 30, 40, 55, 70, 80};
    summary_ranges l = ranges(in, 14);
    const int64_t want[] = {0, 20, 40, 60, 70, 80};
    expect_ranges(&l, want, 6);
    assert_int_equal(summary_ranges_sum(&l), 50);
    summary_ranges_free(&l);
}

static void test_intersect_subtract(void **state)
{
    (void)state;
    const int64_t av[] = {0, 100, 200, 300};
    const int64_t bv[] = {50, 250, 290, 400};
    summary_ranges a = ranges(av, 4), b = ranges(bv, 4), out = {0};
    summary_ranges_intersect(&a, &b, &out);
    const int64_t inter[] = {50, 100, 200, 250, 290, 300};
    expect_ranges(&out, inter, 6);
    summary_ranges_subtract(&a, &b, &out);
    const int64_t diff[] = {0, 50, 250, 290};
    expect_ranges(&out, diff, 4);
    summary_ranges_subtract(&b, &a, &out);
    const int64_t diff2[] = {100, 200, 300, 400};
    expect_ranges(&out, diff2, 4);
    assert_int_equal(summary_ranges_overlap(&a, 90, 210), 20);
    assert_int_equal(summary_ranges_overlap(&a, 100, 200), 0);
    assert_int_equal(summary_ranges_overlap(&a, -10, 1000), 200);
    summary_ranges_free(&a);
    summary_ranges_free(&b);
    summary_ranges_free(&out);
}

static void test_durations(void **state)
{
    (void)state;
    char c[48];
    assert_string_equal(summary_dur(0, c, sizeof c), "0 ns");
    assert_string_equal(summary_dur(999, c, sizeof c), "999 ns");
    assert_string_equal(summary_dur(1000, c, sizeof c), "1.000 us");
    assert_string_equal(summary_dur(1234567, c, sizeof c), "1.235 ms");
    assert_string_equal(summary_dur(-2500, c, sizeof c), "-2.500 us");
    assert_string_equal(summary_dur(3600000000000, c, sizeof c), "3600.000 s");
    assert_string_equal(summary_dur(INT64_MAX, c, sizeof c), "9223372036.855 s");
    assert_string_equal(summary_pct(1, 3, c, sizeof c), "33.3%");
    assert_string_equal(summary_pct(1, 0, c, sizeof c), "-");
}

static void test_names(void **state)
{
    (void)state;
    csv_buf b = {0};
    summary_name(&b, "abcdefghij", 10, 10, 0);
    summary_name(&b, "|", 1, 10, 0);
    summary_name(&b, "abcdefghijk", 11, 10, 0);
    summary_name(&b, "|", 1, 10, 0);
    summary_name(&b, "abcdefghijk", 11, 10, 1);
    /* Never cut inside a UTF-8 sequence: \xc3\xa9 is one character. */
    summary_name(&b, "|", 1, 10, 0);
    summary_name(&b, "abcdef\xc3\xa9xyz", 12, 10, 0);
    csv_buf_putc(&b, '\0');
    assert_string_equal(b.p, "abcdefghij|abcdefg...|...efghijk|abcdef...");
    csv_buf_free(&b);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_merge),
        cmocka_unit_test(test_intersect_subtract),
        cmocka_unit_test(test_durations),
        cmocka_unit_test(test_names),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
