#include "stage_util.h"

static const char *order(tconv_ctx *ctx, tconv_event *evs, size_t n, rec *r)
{
    tconv_order *o = tconv_order_new(ctx, 1);
    for (size_t i = 0; i < n; i++)
        assert_int_equal(tconv_order_add(o, &evs[i]), TCONV_OK);
    memset(r, 0, sizeof(*r));
    r->ctx = ctx;
    assert_int_equal(tconv_order_flush(o, rec_emit, r), TCONV_OK);
    tconv_order_free(o);
    return r->text;
}

static uint32_t T(tconv_ctx *ctx, const char *tid)
{
    return tconv_track_get(ctx, tconv_string_intern_cstr(ctx, "1"),
                           tconv_string_intern_cstr(ctx, tid));
}

static void equal_start_child_listed_first(void **state)
{
    (void)state;
    tconv_ctx *ctx = tconv_ctx_new();
    uint32_t t = T(ctx, "1");
    tconv_event evs[] = {
        mk(ctx, t, TCONV_EV_COMPLETE, 100, 10, "child"),
        mk(ctx, t, TCONV_EV_COMPLETE, 100, 50, "parent"),
        mk(ctx, t, TCONV_EV_COMPLETE, 100, 10, "twin"), /* same span: nests in file order */
    };
    rec r;
    assert_string_equal(order(ctx, evs, 3, &r), "T0 B100 parent | T0 B100 child | T0 B100 twin | "
                                                "T0 E110 twin | T0 E110 child | T0 E150 parent");
    tconv_ctx_free(ctx);
}

static void shuffled_input_is_sorted_per_track(void **state)
{
    (void)state;
    tconv_ctx *ctx = tconv_ctx_new();
    uint32_t a = T(ctx, "1"), b = T(ctx, "2");
    tconv_event evs[] = {
        mk(ctx, b, TCONV_EV_COMPLETE, 50, 5, "b2"),
        mk(ctx, a, TCONV_EV_COMPLETE, 30, 10, "a2"),
        mk(ctx, a, TCONV_EV_INSTANT, 30, 0, "at-a2-start"),
        mk(ctx, b, TCONV_EV_COMPLETE, 10, 5, "b1"),
        mk(ctx, a, TCONV_EV_COMPLETE, 0, 10, "a1"),
        mk(ctx, a, TCONV_EV_INSTANT, 10, 0, "at-a1-end"),
        mk(ctx, a, TCONV_EV_COUNTER, 5, 0, "mem"),
    };
    rec r;
    order(ctx, evs, 7, &r);
    assert_string_equal(r.text,
                        "T0 B0 a1 | T0 C5 mem | T0 E10 a1 | T0 i10 at-a1-end | T0 B30 a2 | "
                        "T0 i30 at-a2-start | T0 E40 a2 | T1 B10 b1 | T1 E15 b1 | T1 B50 b2 | "
                        "T1 E55 b2");
    assert_int_equal(tconv_warning_count(ctx, "order.child-outlives-parent"), 0);
    tconv_ctx_free(ctx);
}

static void child_outliving_parent_is_clipped(void **state)
{
    (void)state;
    tconv_ctx *ctx = tconv_ctx_new();
    uint32_t t = T(ctx, "1");
    tconv_event evs[] = {
        mk(ctx, t, TCONV_EV_COMPLETE, 0, 100, "parent"),
        mk(ctx, t, TCONV_EV_COMPLETE, 90, 11, "child"), /* ends at 101, 1 after its parent */
        mk(ctx, t, TCONV_EV_COMPLETE, 100, 5, "next"),
    };
    rec r;
    order(ctx, evs, 3, &r);
    assert_string_equal(r.text, "T0 B0 parent | T0 B90 child | T0 E100 child | T0 E100 parent | "
                                "T0 B100 next | T0 E105 next");
    assert_int_equal(tconv_warning_count(ctx, "order.child-outlives-parent"), 1);
    tconv_ctx_free(ctx);
}

static void begin_end_pairing_and_repairs(void **state)
{
    (void)state;
    tconv_ctx *ctx = tconv_ctx_new();
    uint32_t t = T(ctx, "1");
    tconv_event evs[] = {
        mk(ctx, t, TCONV_EV_END, 1, 0, ""), /* nothing open: dropped */
        mk(ctx, t, TCONV_EV_BEGIN, 10, 0, "outer"),
        mk(ctx, t, TCONV_EV_BEGIN, 20, 0, "inner"),
        mk(ctx, t, TCONV_EV_END, 30, 0, ""), /* unnamed: closes inner */
        mk(ctx, t, TCONV_EV_END, 40, 0, "outer"),
        mk(ctx, t, TCONV_EV_BEGIN, 50, 0, "open"), /* never closed: closed at the last time */
        mk(ctx, t, TCONV_EV_INSTANT, 70, 0, "late"),
    };
    rec r;
    order(ctx, evs, 7, &r);
    assert_string_equal(r.text, "T0 B10 outer | T0 B20 inner | T0 E30 inner | T0 E40 outer | "
                                "T0 B50 open | T0 E70 open | T0 i70 late"); /* ends before points */
    assert_int_equal(tconv_warning_count(ctx, "order.end-without-begin"), 1);
    assert_int_equal(tconv_warning_count(ctx, "order.unclosed-span"), 1);
    tconv_ctx_free(ctx);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(equal_start_child_listed_first),
        cmocka_unit_test(shuffled_input_is_sorted_per_track),
        cmocka_unit_test(child_outliving_parent_is_clipped),
        cmocka_unit_test(begin_end_pairing_and_repairs),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
