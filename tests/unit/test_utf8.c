#include "testutil.h"

#include <tconv/utf8.h>

static void valid_and_repaired(void **state)
{
    (void)state;
    const unsigned char ok[] = "plain ascii text, then \xe2\x82\xac and \xf0\x9f\x98\x80";
    assert_int_equal(tconv_utf8_valid_prefix(ok, sizeof ok - 1), sizeof ok - 1);
    const unsigned char bad[] = "caf\xe9 \xff\xfe end";
    assert_int_equal(tconv_utf8_valid_prefix(bad, sizeof bad - 1), 3);
    char out[64];
    size_t n = tconv_utf8_repair(out, bad, sizeof bad - 1);
    const char want[] = "caf\xef\xbf\xbd \xef\xbf\xbd\xef\xbf\xbd end";
    assert_int_equal(n, sizeof want - 1);
    assert_memory_equal(out, want, n);
    /* Overlong, surrogate and truncated sequences are not UTF-8. */
    const unsigned char overlong[] = "\xc0\xaf";
    assert_int_equal(tconv_utf8_valid_prefix(overlong, 2), 0);
    const unsigned char surrogate[] = "\xed\xa0\x80";
    assert_int_equal(tconv_utf8_valid_prefix(surrogate, 3), 0);
    const unsigned char cut[] = "ab\xe2\x82";
    assert_int_equal(tconv_utf8_valid_prefix(cut, 4), 2);
    n = tconv_utf8_repair(out, cut, 4);
    assert_int_equal(n, 5);
    assert_memory_equal(out, "ab\xef\xbf\xbd", 5);
    /* A bad lead byte takes the continuation bytes after it into its one U+FFFD. */
    const unsigned char lead[] = "x\xf8\x80\x80y";
    n = tconv_utf8_repair(out, lead, 5);
    assert_int_equal(n, 5);
    assert_memory_equal(out, "x\xef\xbf\xbdy", 5);
    /* The ASCII fast path ends at the first byte that is not. */
    const unsigned char late[] = "0123456789abcdef\x80";
    assert_int_equal(tconv_utf8_valid_prefix(late, 17), 16);
}

/* What a "\\u" escape names, encoded: one rule for what UTF-8 cannot hold (U+FFFD), the same
 * as for bytes that are not UTF-8. */
static void encoded(void **state)
{
    (void)state;
    static const struct {
        uint32_t cp;
        const char *utf8;
    } cases[] = {{0x41, "A"},
                 {0xe9, "\xc3\xa9"},
                 {0x20ac, "\xe2\x82\xac"},
                 {0x1f600, "\xf0\x9f\x98\x80"},
                 {0xd83d, "\xef\xbf\xbd"}, /* a high surrogate alone */
                 {0xdc00, "\xef\xbf\xbd"}, /* a low one alone */
                 {0x110000, "\xef\xbf\xbd"}};
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        unsigned char out[4];
        size_t n = tconv_utf8_encode(cases[i].cp, out);
        assert_int_equal(n, strlen(cases[i].utf8));
        assert_memory_equal(out, cases[i].utf8, n);
    }
}

static void sequences(void **state)
{
    (void)state;
    /* Each boundary of the Unicode table of well-formed sequences, inside and outside. */
    static const struct {
        const char *s;
        size_t n, want;
    } cases[] = {
        {"a", 1, 1},
        {"\x7f", 1, 1},
        {"\x80", 1, 0},
        {"\xc0\x80", 2, 0}, /* overlong NUL */
        {"\xc1\xbf", 2, 0},
        {"\xc2\x80", 2, 2},
        {"\xc2\x80", 1, 0}, /* cut */
        {"\xdf\xbf", 2, 2},
        {"\xc2\xc0", 2, 0},
        {"\xe0\x80\x80", 3, 0}, /* overlong */
        {"\xe0\x9f\xbf", 3, 0},
        {"\xe0\xa0\x80", 3, 3},
        {"\xed\x9f\xbf", 3, 3},
        {"\xed\xa0\x80", 3, 0}, /* surrogate */
        {"\xef\xbf\xbf", 3, 3},
        {"\xef\xbf", 2, 0},
        {"\xf0\x8f\xbf\xbf", 4, 0}, /* overlong */
        {"\xf0\x90\x80\x80", 4, 4},
        {"\xf4\x8f\xbf\xbf", 4, 4},
        {"\xf4\x90\x80\x80", 4, 0}, /* above U+10FFFF */
        {"\xf5\x80\x80\x80", 4, 0},
        {"\xff", 1, 0},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++)
        assert_int_equal(tconv_utf8_seq((const unsigned char *)cases[i].s, cases[i].n),
                         cases[i].want);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(valid_and_repaired),
        cmocka_unit_test(sequences),
        cmocka_unit_test(encoded),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
