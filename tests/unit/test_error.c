#include "testutil.h"

static void chain_outermost_first(void **state)
{
    (void)state;
    tconv_ctx *ctx = tconv_ctx_new();
    assert_false(tconv_error_pending(ctx));
    tconv_error_at(ctx, "trace.json", 1234, "expected '%c'", ',');
    tconv_error_wrap(ctx, "reading %s failed", "trace.json");
    size_t n;
    const char *const *chain = tconv_error_chain(ctx, &n);
    assert_int_equal(n, 2);
    assert_string_equal(chain[0], "reading trace.json failed");
    assert_string_equal(chain[1], "trace.json:1234: expected ','");
    assert_null(tconv_error_hint_get(ctx));
    tconv_error_hint(ctx, "try %s", "-r chrome");
    assert_string_equal(tconv_error_hint_get(ctx), "try -r chrome");
    /* set replaces the whole chain, and the hint goes with it */
    tconv_error_set(ctx, "fresh");
    chain = tconv_error_chain(ctx, &n);
    assert_int_equal(n, 1);
    assert_string_equal(chain[0], "fresh");
    assert_null(tconv_error_hint_get(ctx));
    tconv_error_usage(ctx, "unknown writer '%s'", "x");
    assert_true(tconv_error_is_usage(ctx));
    tconv_error_set(ctx, "a conversion error");
    assert_false(tconv_error_is_usage(ctx));
    tconv_error_clear(ctx);
    assert_false(tconv_error_pending(ctx));
    tconv_ctx_free(ctx);
}

static void warnings_counted_once_per_kind(void **state)
{
    (void)state;
    tconv_ctx *ctx = tconv_ctx_new();
    for (int i = 0; i < 1000; i++)
        tconv_warning_add(ctx, "x.bad", "bad event %d", i);
    tconv_warning_add(ctx, "y.other", "other");
    assert_int_equal(tconv_warning_count(ctx, "x.bad"), 1000);
    assert_int_equal(tconv_warning_count(ctx, "y.other"), 1);
    assert_int_equal(tconv_warning_count(ctx, "z"), 0);
    const char *kind, *first;
    uint64_t count;
    assert_int_equal(tconv_warning_get(ctx, 0, &kind, &first, &count), 0);
    assert_string_equal(kind, "x.bad");
    assert_string_equal(first, "bad event 0");
    assert_int_equal(count, 1000);
    assert_int_equal(tconv_warning_get(ctx, 1, &kind, &first, &count), 0);
    assert_string_equal(kind, "y.other");
    assert_int_equal(count, 1);
    assert_int_equal(tconv_warning_get(ctx, 2, &kind, &first, &count), -1);
    tconv_ctx_free(ctx);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(chain_outermost_first),
        cmocka_unit_test(warnings_counted_once_per_kind),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
