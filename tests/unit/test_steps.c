/* The steps stage: which names are steps, the name they share, their numbers, and a stack's
 * merge (its outermost step's number, other fields kept). */
#include "testutil.h"

#include "tconv/steps.h"

static tconv_str S(tconv_ctx *ctx, const char *s)
{
    return tconv_string_intern_cstr(ctx, s);
}

static void kineto_names(void **state)
{
    (void)state;
    tconv_ctx *ctx = tconv_ctx_new();
    tconv_steps *s = tconv_steps_new(ctx);
    tconv_str merged = 0;
    int64_t n = -1;
    assert_true(tconv_steps_name(s, S(ctx, "ProfilerStep#12"), &merged, &n));
    assert_string_equal(tconv_string_get(ctx, merged), "ProfilerStep");
    assert_int_equal(n, 12);
    /* asked again: the kept answer, the number still its own */
    assert_true(tconv_steps_name(s, S(ctx, "ProfilerStep#12"), NULL, &n));
    assert_int_equal(n, 12);
    assert_true(tconv_steps_name(s, S(ctx, "ProfilerStep#0"), NULL, &n));
    assert_int_equal(n, 0);
    /* --steps's rule (tconv_step_number): separators may stand before the number */
    assert_true(tconv_steps_name(s, S(ctx, "ProfilerStep#_4"), NULL, &n));
    assert_int_equal(n, 4);
    static const char *const not_steps[] = {"ProfilerStep#",
                                            "ProfilerStep#1a",
                                            "ProfilerStep",
                                            "aten::mm",
                                            "",
                                            "ProfilerStep#99999999999999999999"};
    for (size_t i = 0; i < sizeof(not_steps) / sizeof(not_steps[0]); i++) {
        assert_false(tconv_steps_name(s, S(ctx, not_steps[i]), &merged, &n));
        assert_false(tconv_steps_name(s, S(ctx, not_steps[i]), &merged, &n));
    }
    tconv_steps_destroy(s);
    tconv_ctx_free(ctx);
}

static void step_name_prefix(void **state)
{
    (void)state;
    tconv_ctx *ctx = tconv_ctx_new();
    ctx->step_name = "iteration_"; /* as the run sets it from --step-name */
    tconv_steps *s = tconv_steps_new(ctx);
    tconv_str merged = 0;
    int64_t n = -1;
    assert_true(tconv_steps_name(s, S(ctx, "iteration_7"), &merged, &n));
    assert_string_equal(tconv_string_get(ctx, merged), "iteration");
    assert_int_equal(n, 7);
    /* the run's prefix replaces Kineto's */
    assert_false(tconv_steps_name(s, S(ctx, "ProfilerStep#3"), &merged, &n));
    tconv_steps_destroy(s);
    tconv_ctx_free(ctx);
}

static void stacks_merge(void **state)
{
    (void)state;
    tconv_ctx *ctx = tconv_ctx_new();
    tconv_steps *s = tconv_steps_new(ctx);
    tconv_frame in[4] = {
        {.name = S(ctx, "main"), .module = S(ctx, "python")},
        {.name = S(ctx, "ProfilerStep#5"), .module = S(ctx, "user_annotation"), .line = 3},
        {.name = S(ctx, "ProfilerStep#6"), .module = S(ctx, "cpu_op")},
        {.name = S(ctx, "aten::mm"), .module = S(ctx, "cpu_op")},
    };
    tconv_frame out[4];
    int64_t n = -1;
    assert_true(tconv_steps_merge(s, in, 4, out, &n));
    assert_int_equal(n, 5); /* the outermost */
    assert_string_equal(tconv_string_get(ctx, out[1].name), "ProfilerStep");
    assert_int_equal(out[1].module, in[1].module);
    assert_int_equal(out[1].line, 3);
    assert_int_equal(out[2].name, out[1].name);
    assert_int_equal(out[0].name, in[0].name);
    assert_int_equal(out[3].name, in[3].name);
    /* in place, and a stack without a step */
    assert_true(tconv_steps_merge(s, in, 4, in, NULL));
    assert_int_equal(in[1].name, out[1].name);
    n = -1;
    assert_false(tconv_steps_merge(s, &in[3], 1, out, &n));
    assert_int_equal(n, -1);
    assert_false(tconv_steps_merge(s, in, 0, out, &n));
    tconv_steps_destroy(s);
    tconv_ctx_free(ctx);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(kineto_names),
        cmocka_unit_test(step_name_prefix),
        cmocka_unit_test(stacks_merge),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
