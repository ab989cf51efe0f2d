#include "testutil.h"

static void empty_is_zero(void **state)
{
    (void)state;
    tconv_ctx *ctx = tconv_ctx_new();
    assert_int_equal(tconv_string_intern(ctx, "", 0), 0);
    assert_int_equal(tconv_string_intern_cstr(ctx, ""), 0);
    assert_string_equal(tconv_string_get(ctx, 0), "");
    assert_int_equal(tconv_string_count(ctx), 1);
    tconv_ctx_free(ctx);
}

static void same_text_same_id(void **state)
{
    (void)state;
    tconv_ctx *ctx = tconv_ctx_new();
    tconv_str a = tconv_string_intern_cstr(ctx, "aten::matmul");
    tconv_str b = tconv_string_intern_cstr(ctx, "aten::mm");
    tconv_str a2 = tconv_string_intern(ctx, "aten::matmulXYZ", 12);
    assert_int_equal(a, 1);
    assert_int_equal(b, 2);
    assert_int_equal(a, a2);
    assert_string_equal(tconv_string_get(ctx, a), "aten::matmul");
    /* Length counts, not NUL: "a\0b" and "a" differ. */
    tconv_str z = tconv_string_intern(ctx, "a\0b", 3);
    tconv_str y = tconv_string_intern(ctx, "a", 1);
    assert_int_not_equal(z, y);
    assert_int_equal(tconv_string_length(ctx, z), 3);
    tconv_ctx_free(ctx);
}

static void many_strings_survive_rehash(void **state)
{
    (void)state;
    tconv_ctx *ctx = tconv_ctx_new();
    enum { N = 200000 };
    const char *first = NULL;
    char buf[32];
    for (int i = 0; i < N; i++) {
        snprintf(buf, sizeof(buf), "s%d", i);
        tconv_str id = tconv_string_intern_cstr(ctx, buf);
        assert_int_equal(id, (tconv_str)i + 1); /* dense, in order of first use */
        if (i == 0) first = tconv_string_get(ctx, id);
    }
    for (int i = 0; i < N; i += 997) {
        snprintf(buf, sizeof(buf), "s%d", i);
        assert_int_equal(tconv_string_intern_cstr(ctx, buf), (tconv_str)i + 1);
    }
    /* Pointers handed out earlier stay valid. */
    assert_ptr_equal(first, tconv_string_get(ctx, 1));
    assert_string_equal(first, "s0");
    assert_int_equal(tconv_string_count(ctx), N + 1);
    tconv_ctx_free(ctx);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(empty_is_zero),
        cmocka_unit_test(same_text_same_id),
        cmocka_unit_test(many_strings_survive_rehash),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
