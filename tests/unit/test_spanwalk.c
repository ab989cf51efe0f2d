/* The public span walk, fed as an ordered writer is: self times, depths, the args of open
 * spans, and the work-only mode that leaves the profiler's window out. */
#include "stage_util.h"

static tconv_event B(tconv_ctx *ctx, uint32_t track, int64_t ts, const char *name, unsigned role)
{
    tconv_event e = mk(ctx, track, TCONV_EV_BEGIN, ts, 0, name);
    e.role = (uint16_t)role;
    return e;
}

static tconv_event E(tconv_ctx *ctx, uint32_t track, int64_t ts, unsigned role)
{
    tconv_event e = mk(ctx, track, TCONV_EV_END, ts, 0, "");
    e.name = 0;
    e.role = (uint16_t)role;
    return e;
}

static void self_time_depth_and_args(void **state)
{
    (void)state;
    tconv_ctx *ctx = tconv_ctx_new();
    tconv_spanwalk *w = tconv_spanwalk_new(ctx, TCONV_SPANWALK_ARGS);
    tconv_arg arg = {.key = tconv_string_intern_cstr(ctx, "k"), .type = TCONV_ARG_INT, .v.i = 7};
    tconv_event main_b = B(ctx, 0, 0, "main", TCONV_ROLE_CPU);
    main_b.args = &arg;
    main_b.nargs = 1;
    main_b.corr = 42;
    assert_int_equal(tconv_spanwalk_event(w, &main_b), TCONV_WALK_BEGIN);
    tconv_event f = B(ctx, 0, 10, "f", TCONV_ROLE_CPU);
    assert_int_equal(tconv_spanwalk_event(w, &f), TCONV_WALK_BEGIN);
    assert_int_equal(tconv_spanwalk_depth(w), 2);
    const tconv_span *open = tconv_spanwalk_open(w, 0);
    assert_int_equal(open->nargs, 1);
    assert_int_equal(open->args[0].v.i, 7);
    tconv_event i = mk(ctx, 0, TCONV_EV_INSTANT, 20, 0, "mark");
    assert_int_equal(tconv_spanwalk_event(w, &i), TCONV_WALK_POINT);
    tconv_event fe = E(ctx, 0, 60, TCONV_ROLE_CPU);
    assert_int_equal(tconv_spanwalk_event(w, &fe), TCONV_WALK_END);
    const tconv_span *s = tconv_spanwalk_span(w);
    assert_string_equal(tconv_string_get(ctx, s->name), "f");
    assert_int_equal(s->dur, 50);
    assert_int_equal(s->self, 50);
    assert_int_equal(s->depth, 1);
    tconv_event me = E(ctx, 0, 100, TCONV_ROLE_CPU);
    assert_int_equal(tconv_spanwalk_event(w, &me), TCONV_WALK_END);
    s = tconv_spanwalk_span(w);
    assert_int_equal(s->dur, 100);
    assert_int_equal(s->self, 50);
    assert_int_equal(s->depth, 0);
    assert_int_equal(s->corr, 42);
    assert_int_equal(s->nargs, 1);
    /* An END with nothing open, and a new track that starts over. */
    assert_int_equal(tconv_spanwalk_event(w, &me), TCONV_WALK_SKIP);
    tconv_event g = B(ctx, 1, 5, "g", TCONV_ROLE_CPU);
    assert_int_equal(tconv_spanwalk_event(w, &g), TCONV_WALK_BEGIN);
    assert_int_equal(tconv_spanwalk_track(w), 1);
    assert_int_equal(tconv_spanwalk_depth(w), 1);
    tconv_spanwalk_destroy(w);
    tconv_ctx_free(ctx);
}

/* window [0,100] > op [10,40]: work-only gives op its 30 and the window nothing, as the stack
 * stage does; without the mode the window keeps its 70. */
static void work_only_leaves_the_window_out(void **state)
{
    (void)state;
    tconv_ctx *ctx = tconv_ctx_new();
    for (int mode = 0; mode < 2; mode++) {
        tconv_spanwalk *w = tconv_spanwalk_new(ctx, mode ? TCONV_SPANWALK_WORK_ONLY : 0);
        tconv_event evs[] = {B(ctx, 0, 0, "window", TCONV_ROLE_WINDOW),
                             B(ctx, 0, 10, "op", TCONV_ROLE_CPU), E(ctx, 0, 40, TCONV_ROLE_CPU),
                             E(ctx, 0, 100, TCONV_ROLE_WINDOW)};
        int64_t self_sum = 0;
        int hidden = 0;
        for (size_t k = 0; k < 4; k++) {
            tconv_walk_step st = tconv_spanwalk_event(w, &evs[k]);
            if (st == TCONV_WALK_END) {
                const tconv_span *s = tconv_spanwalk_span(w);
                self_sum += s->self;
                if (mode) assert_int_equal(s->depth, 0);
            }
            if (st == TCONV_WALK_HIDDEN) {
                hidden++;
                assert_int_equal(tconv_spanwalk_hidden_role(w), TCONV_ROLE_WINDOW);
            }
        }
        assert_int_equal(self_sum, mode ? 30 : 100);
        assert_int_equal(hidden, mode ? 2 : 0);
        tconv_spanwalk_destroy(w);
    }
    tconv_ctx_free(ctx);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(self_time_depth_and_args),
        cmocka_unit_test(work_only_leaves_the_window_out),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
