/* The selection (core/stages/select.c): what --window, --steps and --step-name parse to, which
 * spans are steps, and the selection stage on an ordered stream: spans cut to the window, each
 * track still nested. */
#include "stage_util.h"

static void test_parse(void **state)
{
    (void)state;
    char err[512];
    tconv_selection sel = {.input = -1};
    assert_int_equal(tconv_selection_parse(&sel, "1.5ms:2s", "3-5", "iter", err, sizeof(err)), 0);
    assert_true(sel.window && !sel.absolute && sel.has_end);
    assert_int_equal(sel.start, 1500000);
    assert_int_equal(sel.end, 2000000000);
    assert_true(sel.steps);
    assert_int_equal(sel.step_first, 3);
    assert_int_equal(sel.step_last, 5);
    assert_string_equal(sel.step_name, "iter");
    tconv_selection_free(&sel);

    sel = (tconv_selection){.input = -1};
    assert_int_equal(tconv_selection_parse(&sel, "@200us:", "7", NULL, err, sizeof(err)), 0);
    assert_true(sel.absolute && !sel.has_end);
    assert_int_equal(sel.start, 200000);
    assert_int_equal(sel.step_first, 7);
    assert_int_equal(sel.step_last, 7);
    assert_null(sel.step_name);

    const struct {
        const char *window, *steps, *says;
    } bad[] = {
        {"2s", NULL, "give START:END"},
        {"1.0001ns:", NULL, "whole nanoseconds"},
        {"3s:2s", NULL, "the end must be after the start"},
        {NULL, "x", "give a step number N or a range A-B"},
        {NULL, "5-3", "A <= B"},
        {NULL, "2-", "give a step number"},
    };
    for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
        sel = (tconv_selection){.input = -1};
        assert_int_equal(
            tconv_selection_parse(&sel, bad[i].window, bad[i].steps, NULL, err, sizeof(err)), -1);
        assert_non_null(strstr(err, bad[i].says));
        tconv_selection_free(&sel);
    }
}

/* ProfilerStep#N on a CPU span is a step; with --step-name, spans named so (and a number) are,
 * and ProfilerStep#N becomes an annotation around them. */
static void test_mark_step(void **state)
{
    (void)state;
    tconv_ctx *ctx = tconv_ctx_new();
    tconv_selection sel = {.input = -1};
    tconv_event e = mk(ctx, 0, TCONV_EV_COMPLETE, 0, 10, "ProfilerStep#3");
    e.role = TCONV_ROLE_CPU;
    tconv_selection_mark_step(ctx, &sel, &e);
    assert_int_equal(e.role, TCONV_ROLE_STEP);
    sel.step_name = "iteration";
    tconv_selection_mark_step(ctx, &sel, &e);
    assert_int_equal(e.role, TCONV_ROLE_ANNOTATION);
    const char *steps[] = {"iteration", "iteration#3", "iteration 3", "iteration_3", "iteration3"};
    for (size_t i = 0; i < 5; i++) {
        e = mk(ctx, 0, TCONV_EV_COMPLETE, 0, 10, steps[i]);
        e.role = TCONV_ROLE_CPU;
        tconv_selection_mark_step(ctx, &sel, &e);
        assert_int_equal(e.role, TCONV_ROLE_STEP);
    }
    assert_int_equal(sel.step_marked, 5);
    const char *not_steps[] = {"iterations", "iteration_bwd"};
    for (size_t i = 0; i < 2; i++) {
        e = mk(ctx, 0, TCONV_EV_COMPLETE, 0, 10, not_steps[i]);
        e.role = TCONV_ROLE_CPU;
        tconv_selection_mark_step(ctx, &sel, &e);
        assert_int_equal(e.role, TCONV_ROLE_CPU);
    }
    /* a kernel named so is not a host step */
    e = mk(ctx, 0, TCONV_EV_COMPLETE, 0, 10, "iteration#4");
    e.role = TCONV_ROLE_KERNEL;
    tconv_selection_mark_step(ctx, &sel, &e);
    assert_int_equal(e.role, TCONV_ROLE_KERNEL);
    tconv_selection_free(&sel);
    tconv_ctx_free(ctx);
}

/* The window [100, 200): a span around it is held and given the window's start, one across its
 * end ends there, and what lies outside goes nowhere. */
static void test_window(void **state)
{
    (void)state;
    tconv_ctx *ctx = tconv_ctx_new();
    tconv_selection sel = {.input = -1};
    char err[256];
    assert_int_equal(tconv_selection_parse(&sel, "@100ns:200ns", NULL, NULL, err, sizeof(err)), 0);
    rec r = {.ctx = ctx};
    tconv_select *s = tconv_select_new(ctx, &sel, rec_emit, &r);
    tconv_event in[] = {
        mk(ctx, 0, TCONV_EV_BEGIN, 0, 0, "outer"),    mk(ctx, 0, TCONV_EV_BEGIN, 10, 0, "before"),
        mk(ctx, 0, TCONV_EV_END, 20, 0, "before"),    mk(ctx, 0, TCONV_EV_BEGIN, 150, 0, "inside"),
        mk(ctx, 0, TCONV_EV_INSTANT, 160, 0, "mark"), mk(ctx, 0, TCONV_EV_END, 170, 0, "inside"),
        mk(ctx, 0, TCONV_EV_INSTANT, 250, 0, "late"), mk(ctx, 0, TCONV_EV_END, 300, 0, "outer"),
    };
    for (size_t i = 0; i < sizeof(in) / sizeof(in[0]); i++)
        assert_int_equal(tconv_select_event(s, &in[i]), TCONV_OK);
    assert_string_equal(r.text, "T0 B100 outer | T0 B150 inside | T0 i160 mark | T0 E170 inside | "
                                "T0 E200 outer");
    assert_int_equal(tconv_select_cut(s), 2);
    tconv_select_free(s);
    tconv_selection_free(&sel);
    tconv_ctx_free(ctx);
}

/* --steps 2: from step 2's start to its end, per input, found as the spans were pushed. */
static void test_steps(void **state)
{
    (void)state;
    tconv_ctx *ctx = tconv_ctx_new();
    tconv_selection sel = {.input = -1};
    char err[256];
    assert_int_equal(tconv_selection_parse(&sel, NULL, "2", NULL, err, sizeof(err)), 0);
    for (int k = 1; k <= 3; k++) {
        char name[32];
        snprintf(name, sizeof(name), "ProfilerStep#%d", k);
        tconv_event e = mk(ctx, 0, TCONV_EV_COMPLETE, 100 * k, 100, name);
        e.role = TCONV_ROLE_CPU;
        tconv_selection_mark_step(ctx, &sel, &e);
        tconv_selection_note_span(ctx, &sel, &e);
    }
    tconv_selection_resolve_steps(&sel);
    rec r = {.ctx = ctx};
    tconv_select *s = tconv_select_new(ctx, &sel, rec_emit, &r);
    tconv_event in[] = {
        mk(ctx, 0, TCONV_EV_INSTANT, 150, 0, "step1"),
        mk(ctx, 0, TCONV_EV_INSTANT, 250, 0, "step2"),
        mk(ctx, 0, TCONV_EV_INSTANT, 350, 0, "step3"),
    };
    for (size_t i = 0; i < 3; i++)
        assert_int_equal(tconv_select_event(s, &in[i]), TCONV_OK);
    assert_string_equal(r.text, "T0 i250 step2");
    tconv_select_free(s);
    tconv_selection_free(&sel);
    tconv_ctx_free(ctx);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_parse),
        cmocka_unit_test(test_mark_step),
        cmocka_unit_test(test_window),
        cmocka_unit_test(test_steps),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
