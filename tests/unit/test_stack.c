#include "stage_util.h"

/* Order then stack, as the sink does for profile writers. */
static void run(tconv_ctx *ctx, tconv_event *evs, size_t n, rec *r)
{
    tconv_order *o = tconv_order_new(ctx, 0);
    for (size_t i = 0; i < n; i++)
        tconv_order_add(o, &evs[i]);
    memset(r, 0, sizeof(*r));
    r->ctx = ctx;
    tconv_stack *s = tconv_stack_new(ctx, rec_emit, r);
    assert_int_equal(tconv_order_flush(o, tconv_stack_event, s), TCONV_OK);
    tconv_stack_free(s);
    tconv_order_free(o);
}

static uint32_t T(tconv_ctx *ctx, const char *pid, const char *tid)
{
    return tconv_track_get(ctx, tconv_string_intern_cstr(ctx, pid),
                           tconv_string_intern_cstr(ctx, tid));
}

static void self_time_sums_to_busy_time(void **state)
{
    (void)state;
    tconv_ctx *ctx = tconv_ctx_new();
    uint32_t a = T(ctx, "1", "7"), b = T(ctx, "2", "7");
    tconv_event evs[] = {
        /* track a: main [0,100] > f [10,60] > g [20,30], g [40,50]; then idle; h [200,210] */
        mk(ctx, a, TCONV_EV_COMPLETE, 0, 100, "main"),
        mk(ctx, a, TCONV_EV_COMPLETE, 10, 50, "f"),
        mk(ctx, a, TCONV_EV_COMPLETE, 20, 10, "g"),
        mk(ctx, a, TCONV_EV_COMPLETE, 40, 10, "g"),
        mk(ctx, a, TCONV_EV_COMPLETE, 200, 10, "h"),
        /* track b (same tid, other process): zero-length span and one that outlives its parent */
        mk(ctx, b, TCONV_EV_COMPLETE, 0, 30, "p"),
        mk(ctx, b, TCONV_EV_COMPLETE, 5, 0, "z"),
        mk(ctx, b, TCONV_EV_COMPLETE, 20, 20, "late"),
    };
    rec r;
    run(ctx, evs, sizeof(evs) / sizeof(evs[0]), &r);
    assert_string_equal(r.text,
                        "T0 P20 g [main;f;g] 10 | T0 P40 g [main;f;g] 10 | T0 P10 f [main;f] 30 | "
                        "T0 P0 main [main] 50 | T0 P200 h [h] 10 | "
                        "T1 P5 z [p;z] 0 | T1 P20 late [p;late] 10 | T1 P0 p [p] 20");
    /* busy time: track a 100 + 10, track b 30 (the clipped child stays inside its parent) */
    assert_int_equal(r.wall_sum, 140);
    assert_int_equal(tconv_warning_count(ctx, "order.child-outlives-parent"), 1);
    tconv_ctx_free(ctx);
}

static void deep_and_wide(void **state)
{
    (void)state;
    /* 1000 nested levels, each with 3 leaf children: sums must still be exact. */
    tconv_ctx *ctx = tconv_ctx_new();
    uint32_t t = T(ctx, "1", "1");
    enum { D = 1000 };
    tconv_event *evs = calloc(D * 4, sizeof(*evs));
    size_t n = 0;
    for (int d = 0; d < D; d++) {
        int64_t start = d * 10, end = 1000000 - d * 10;
        evs[n++] = mk(ctx, t, TCONV_EV_COMPLETE, start, end - start, "level");
        for (int k = 0; k < 3; k++)
            evs[n++] = mk(ctx, t, TCONV_EV_COMPLETE, end - 9 + k * 3, 2, "leaf");
    }
    tconv_order *o = tconv_order_new(ctx, 0);
    for (size_t i = n; i-- > 0;)
        tconv_order_add(o, &evs[i]); /* reversed input */
    rec r = {.ctx = ctx, .count_only = 1};
    tconv_stack *s = tconv_stack_new(ctx, rec_emit, &r);
    assert_int_equal(tconv_order_flush(o, tconv_stack_event, s), TCONV_OK);
    assert_int_equal(r.wall_sum, 1000000);
    tconv_stack_free(s);
    tconv_order_free(o);
    free(evs);
    tconv_ctx_free(ctx);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(self_time_sums_to_busy_time),
        cmocka_unit_test(deep_and_wide),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
