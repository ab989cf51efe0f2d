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
    char *buf = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&buf, &len);
    tconv_error_print(ctx, f);
    fclose(f);
    assert_string_equal(buf, "tconv: error: reading trace.json failed\n"
                             "  caused by: trace.json:1234: expected ','\n");
    free(buf);
    /* set replaces the whole chain */
    tconv_error_set(ctx, "fresh");
    chain = tconv_error_chain(ctx, &n);
    assert_int_equal(n, 1);
    assert_string_equal(chain[0], "fresh");
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
    char *buf = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&buf, &len);
    tconv_warning_print(ctx, f);
    fclose(f);
    assert_string_equal(buf, "tconv: warning: bad event 0 [x.bad, 1000 times; first shown]\n"
                             "tconv: warning: other [y.other]\n");
    free(buf);
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
