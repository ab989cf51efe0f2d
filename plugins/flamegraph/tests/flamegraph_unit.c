/* Unit tests of the flamegraph plugin's XML escaping, value formatting and colours: the parts
 * whose every byte matters (a hostile name must stay text; a golden SVG must not drift). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

#include "tconv/tconv.h"

#include "flamegraph_colour.h"
#include "flamegraph_value.h"
#include "flamegraph_xml.h"

static void flamegraph_unit_expect(const char *in, size_t n, size_t max, const char *want)
{
    flamegraph_buf b = {0};
    flamegraph_xml_escape(&b, in, n, max);
    flamegraph_buf_put(&b, "", 1);
    assert_string_equal(b.p, want);
    flamegraph_buf_free(&b);
}

#define EXPECT(lit, want) flamegraph_unit_expect(lit, sizeof(lit) - 1, SIZE_MAX, want)

static void flamegraph_unit_escape(void **state)
{
    (void)state;
    EXPECT("plain", "plain");
    EXPECT("</script>", "&lt;/script&gt;");
    EXPECT("]]>", "]]&gt;");
    EXPECT("a&b \"c\" 'd'", "a&amp;b &quot;c&quot; &#39;d&#39;");
    EXPECT("tab\there\nline\r", "tab here line ");
    EXPECT("nul-free \x01\x1f", "nul-free \xEF\xBF\xBD\xEF\xBF\xBD");
    /* DEL and C1 controls are legal in XML 1.0 */
    EXPECT("\x7f\xC2\x85", "\x7f\xC2\x85");
    /* not UTF-8: a lone continuation, an overlong '/', a surrogate, past U+10FFFF, truncated */
    EXPECT("\x80", "\xEF\xBF\xBD");
    EXPECT("\xC0\xAF", "\xEF\xBF\xBD\xEF\xBF\xBD");
    EXPECT("\xED\xA0\x80", "\xEF\xBF\xBD\xEF\xBF\xBD\xEF\xBF\xBD");
    EXPECT("\xF4\x90\x80\x80", "\xEF\xBF\xBD\xEF\xBF\xBD\xEF\xBF\xBD\xEF\xBF\xBD");
    EXPECT("end\xE2\x82", "end\xEF\xBF\xBD\xEF\xBF\xBD");
    /* non-characters XML forbids; the rest of the planes pass */
    EXPECT("\xEF\xBF\xBE\xEF\xBF\xBF", "\xEF\xBF\xBD\xEF\xBF\xBD");
    EXPECT("\xE2\x82\xAC \xF0\x9F\x94\xA5", "\xE2\x82\xAC \xF0\x9F\x94\xA5");
}

static void flamegraph_unit_cut(void **state)
{
    (void)state;
    /* a label is cut by characters: never inside a UTF-8 sequence nor an entity */
    flamegraph_unit_expect("\xE2\x82\xAC\xE2\x82\xAC\xE2\x82\xAC", 9, 2,
                           "\xE2\x82\xAC\xE2\x82\xAC");
    flamegraph_unit_expect("<<<<", 4, 3, "&lt;&lt;&lt;");
    flamegraph_unit_expect("ab\xFF"
                           "cd",
                           5, 3, "ab\xEF\xBF\xBD");
    assert_int_equal(flamegraph_xml_chars("\xE2\x82\xAC"
                                          "a\xFF",
                                          5),
                     3);
    assert_int_equal(flamegraph_xml_chars("", 0), 0);
}

static void flamegraph_unit_format(void **state)
{
    (void)state;
    char buf[64];
    flamegraph_unit ns = flamegraph_value_unit("wall", "nanoseconds");
    flamegraph_value_format(buf, 999, &ns);
    assert_string_equal(buf, "999 ns");
    flamegraph_value_format(buf, 1500, &ns);
    assert_string_equal(buf, "1.50 \xC2\xB5s");
    flamegraph_value_format(buf, 2345678, &ns);
    assert_string_equal(buf, "2.35 ms");
    flamegraph_value_format(buf, 12345678901, &ns);
    assert_string_equal(buf, "12.346 s");
    flamegraph_unit samples = flamegraph_value_unit("samples", "count");
    flamegraph_value_format(buf, 1234567, &samples);
    assert_string_equal(buf, "1,234,567 samples");
    flamegraph_value_format(buf, 12, &samples);
    assert_string_equal(buf, "12 samples");
    flamegraph_unit dec = flamegraph_value_unit("samples", "count*1e-3");
    flamegraph_value_format(buf, 12500, &dec);
    assert_string_equal(buf, "12.5 samples");
    flamegraph_value_format(buf, 3000, &dec);
    assert_string_equal(buf, "3 samples");
    flamegraph_unit bytes = flamegraph_value_unit("alloc_space", "bytes");
    flamegraph_value_format(buf, 4096, &bytes);
    assert_string_equal(buf, "4,096 bytes");
    flamegraph_value_percent(buf, 1, 3);
    assert_string_equal(buf, "33.33%");
    flamegraph_value_percent(buf, 5, 0);
    assert_string_equal(buf, "0.00%");
}

static void flamegraph_unit_colours(void **state)
{
    (void)state;
    char a[24], b[24];
    /* a name keeps its colour; the role picks the hue */
    flamegraph_colour(FLAMEGRAPH_HUE_KERNEL, "sgemm", 5, a);
    flamegraph_colour(FLAMEGRAPH_HUE_KERNEL, "sgemm", 5, b);
    assert_string_equal(a, b);
    int r, g, bl;
    assert_int_equal(sscanf(a, "rgb(%d,%d,%d)", &r, &g, &bl), 3);
    assert_true(bl > r && bl > 180); /* blue */
    flamegraph_colour(FLAMEGRAPH_HUE_PYTHON, "main", 4, a);
    assert_int_equal(sscanf(a, "rgb(%d,%d,%d)", &r, &g, &bl), 3);
    assert_true(g > r && g > bl); /* green */
    flamegraph_colour(FLAMEGRAPH_HUE_CPU, "aten::mm", 8, a);
    assert_int_equal(sscanf(a, "rgb(%d,%d,%d)", &r, &g, &bl), 3);
    assert_true(r >= 205 && bl <= 55); /* warm */
    assert_int_equal(flamegraph_colour_of_role(TCONV_ROLE_MEMCPY), FLAMEGRAPH_HUE_MEMCPY);
    assert_int_equal(flamegraph_colour_of_role(TCONV_ROLE_DRIVER), FLAMEGRAPH_HUE_RUNTIME);
    assert_int_equal(flamegraph_colour_of_role(TCONV_ROLE_CPU), FLAMEGRAPH_HUE_CPU);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(flamegraph_unit_escape),
        cmocka_unit_test(flamegraph_unit_cut),
        cmocka_unit_test(flamegraph_unit_format),
        cmocka_unit_test(flamegraph_unit_colours),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
