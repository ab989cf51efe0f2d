/* The JSON string writer: every escape, bytes that are not UTF-8, and the same text whatever
 * the room it is given at a time (the chrome writer gives it what is left of a fixed buffer). */
#include "testutil.h"

static void expect(const char *in, size_t n, const char *want)
{
    char out[256];
    size_t used = 0;
    size_t len = tconv_json_escape(out, sizeof(out), in, n, &used);
    assert_int_equal(used, n);
    assert_int_equal(len, strlen(want));
    assert_memory_equal(out, want, len);
    /* Any room from 6 bytes up gives the same text, written piece by piece. */
    for (size_t cap = 6; cap < 20; cap++) {
        char whole[256];
        size_t o = 0, i = 0;
        while (i < n) {
            size_t k = tconv_json_escape(whole + o, cap, in + i, n - i, &used);
            assert_true(k <= cap);
            assert_true(used > 0);
            o += k;
            i += used;
        }
        assert_int_equal(o, len);
        assert_memory_equal(whole, want, len);
    }
}

static void escapes(void **state)
{
    (void)state;
    expect("plain", 5, "plain");
    expect("a\"b\\c", 5, "a\\\"b\\\\c");
    expect("\n\r\t", 3, "\\n\\r\\t");
    expect("\x01\x1f", 2, "\\u0001\\u001f");
    expect("nul\0x", 5, "nul\\u0000x");
    expect("</script>", 9, "</script>");
}

static void utf8(void **state)
{
    (void)state;
    expect("caf\xc3\xa9 \xe2\x82\xac \xf0\x9f\x94\xa5", 14,
           "caf\xc3\xa9 \xe2\x82\xac \xf0\x9f\x94\xa5");
    /* a bad lead byte, a cut sequence, a lone continuation byte: one U+FFFD each byte */
    expect("\xff", 1, "\xef\xbf\xbd");
    expect("a\xe2\x82", 3, "a\xef\xbf\xbd\xef\xbf\xbd");
    expect("\x80z", 2, "\xef\xbf\xbdz");
    /* surrogates encoded in UTF-8 are not well-formed */
    expect("\xed\xa0\x80", 3, "\xef\xbf\xbd\xef\xbf\xbd\xef\xbf\xbd");
}

static void never_splits(void **state)
{
    (void)state;
    char out[8];
    size_t used = 99;
    /* 5 bytes of room cannot hold \u0001: nothing is written, nothing taken */
    assert_int_equal(tconv_json_escape(out, 5, "\x01", 1, &used), 0);
    assert_int_equal(used, 0);
    /* 3 bytes hold "ab" then not the 4-byte character */
    assert_int_equal(tconv_json_escape(out, 3, "ab\xf0\x9f\x94\xa5", 6, &used), 2);
    assert_int_equal(used, 2);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(escapes),
        cmocka_unit_test(utf8),
        cmocka_unit_test(never_splits),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
