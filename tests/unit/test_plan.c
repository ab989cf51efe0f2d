/* The plan of a run (core/pipeline/plan.c): the route a writer's class gives, the selection it can
 * take, and the scheduling its needs (or the deprecated flags) allow, decided alike on every rank.
 */
#include "testutil.h"

static tconv_status plan_open(tconv_ctx *ctx, tconv_output *out, const tconv_options *o,
                              void **state)
{
    (void)ctx, (void)out, (void)o, (void)state;
    return TCONV_OK;
}

static tconv_status plan_event(void *state, const tconv_event *ev)
{
    (void)state, (void)ev;
    return TCONV_OK;
}

static void plan_destroy(void *state)
{
    (void)state;
}

static uint32_t plan_needs_value;

static uint32_t plan_needs(const tconv_options *o)
{
    (void)o;
    return plan_needs_value;
}

/* A writer class: what it takes, its flags, and needs() returning plan_needs_value. */
static tconv_writer_class plan_writer(uint32_t accepts, uint32_t flags)
{
    return (tconv_writer_class){.struct_size = sizeof(tconv_writer_class),
                                .name = "w",
                                .accepts = accepts,
                                .flags = flags,
                                .open = plan_open,
                                .event = plan_event,
                                .destroy = plan_destroy,
                                .needs = plan_needs};
}

static const uint32_t stacks_accepts =
    TCONV_KIND_BIT(TCONV_EV_SAMPLE) | TCONV_KIND_BIT(TCONV_EV_METADATA);

/* The plan of wc with needs n, as a run makes it: options, needs, then the writer open. */
static void plan_make(tconv_plan *p, tconv_ctx *ctx, const tconv_writer_class *wc, uint32_t n,
                      int keep_going, int mpi)
{
    plan_needs_value = n;
    tconv_plan_set_writer(p, wc);
    tconv_options o = {0};
    tconv_plan_needs(p, ctx, &o, keep_going, mpi);
    tconv_plan_opened(p, ctx);
}

static void test_route(void **state)
{
    (void)state;
    tconv_plan p;
    tconv_plan_init(&p);
    tconv_writer_class direct = plan_writer(TCONV_KINDS_ALL, 0);
    tconv_writer_class ordered = plan_writer(TCONV_KINDS_ALL, TCONV_WRITER_ORDERED);
    tconv_writer_class stacks = plan_writer(stacks_accepts, 0);
    tconv_writer_class stacks_ordered = plan_writer(stacks_accepts, TCONV_WRITER_ORDERED);
    tconv_plan_set_writer(&p, &direct);
    assert_int_equal(p.route, TCONV_ROUTE_DIRECT);
    assert_false(p.order_all);
    tconv_plan_set_writer(&p, &ordered);
    assert_int_equal(p.route, TCONV_ROUTE_ORDERED);
    assert_true(p.order_all);
    tconv_plan_set_writer(&p, &stacks);
    assert_int_equal(p.route, TCONV_ROUTE_STACKS);
    assert_false(p.order_all);
    /* samples without spans win: spans become samples, and the rest is ordered too */
    tconv_plan_set_writer(&p, &stacks_ordered);
    assert_int_equal(p.route, TCONV_ROUTE_STACKS);
    assert_true(p.order_all);
    tconv_plan_free(&p);
}

/* A streaming writer cannot wait for a window, steps or ranks; one that buffers can. */
static void test_check(void **state)
{
    (void)state;
    tconv_ctx *ctx = tconv_ctx_new();
    tconv_writer_class direct = plan_writer(TCONV_KINDS_ALL, 0);
    tconv_writer_class ordered = plan_writer(TCONV_KINDS_ALL, TCONV_WRITER_ORDERED);
    tconv_plan p;
    tconv_plan_init(&p);
    char err[256];
    assert_int_equal(tconv_selection_parse(&p.sel, "1ms:2ms", NULL, NULL, err, sizeof(err)), 0);
    tconv_plan_set_writer(&p, &direct);
    assert_int_equal(tconv_plan_check(&p, ctx), -1);
    assert_true(tconv_error_is_usage(ctx));
    size_t n;
    assert_non_null(strstr(tconv_error_chain(ctx, &n)[0], "--window and --steps cannot apply"));
    tconv_error_clear(ctx);
    tconv_plan_set_writer(&p, &ordered);
    assert_int_equal(tconv_plan_check(&p, ctx), 0);
    tconv_plan_free(&p);
    tconv_plan_init(&p);
    p.sel.by_rank = 1;
    tconv_plan_set_writer(&p, &direct);
    assert_int_equal(tconv_plan_check(&p, ctx), -1);
    assert_non_null(strstr(tconv_error_chain(ctx, &n)[0], "--rank cannot apply"));
    tconv_plan_free(&p);
    tconv_ctx_free(ctx);
}

/* What the early flush, partial results and collective writing come to, for a writer that
 * says what it needs and for one that sets the deprecated flags instead: the same. */
typedef struct plan_sched_case {
    uint32_t accepts, flags, needs;
} plan_sched_case;

static void plan_expect(const plan_sched_case *c, int keep_going, int mpi, const char *window,
                        int early, int partial, int collective)
{
    tconv_ctx *ctx = tconv_ctx_new();
    tconv_writer_class wc = plan_writer(c->accepts, c->flags);
    tconv_plan p;
    tconv_plan_init(&p);
    char err[256];
    if (window)
        assert_int_equal(tconv_selection_parse(&p.sel, window, NULL, NULL, err, sizeof(err)), 0);
    plan_make(&p, ctx, &wc, c->needs, keep_going, mpi);
    assert_int_equal(p.early, early);
    assert_int_equal(p.partial, partial);
    assert_int_equal(p.collective, collective);
    tconv_plan_free(&p);
    tconv_ctx_free(ctx);
}

static void test_sched(void **state)
{
    (void)state;
    unsetenv("TCONV_FLUSH_AT_END");
    const plan_sched_case sums[] = {
        {stacks_accepts, 0, TCONV_NEED_STACK_SUMS},
        {stacks_accepts, TCONV_WRITER_EARLY_SAMPLES | TCONV_WRITER_SUMMED_SAMPLES, 0},
    };
    for (size_t i = 0; i < 2; i++) {
        plan_expect(&sums[i], 0, 0, NULL, 1, 1, 0);
        /* --keep-going undoes a failed input's events, which the worker's stages cannot */
        plan_expect(&sums[i], 1, 0, NULL, 1, 0, 0);
        /* a window is relative to the whole trace's first time */
        plan_expect(&sums[i], 0, 0, "1ms:", 0, 0, 0);
    }
    /* each sample: early still, no sums */
    const plan_sched_case each[] = {
        {stacks_accepts, 0, TCONV_NEED_STACK_SUMS | TCONV_NEED_EACH_SAMPLE},
        {stacks_accepts, TCONV_WRITER_EARLY_SAMPLES | TCONV_WRITER_SUMMED_SAMPLES,
         TCONV_NEED_EACH_SAMPLE},
    };
    for (size_t i = 0; i < 2; i++)
        plan_expect(&each[i], 0, 0, NULL, 1, 0, 0);
    /* an ordered writer that keeps metadata apart, and writes its part per rank */
    const plan_sched_case ordered[] = {
        {TCONV_KINDS_ALL, TCONV_WRITER_ORDERED, TCONV_NEED_METADATA_APART | TCONV_NEED_RANK_PARTS},
        {TCONV_KINDS_ALL,
         TCONV_WRITER_ORDERED | TCONV_WRITER_EARLY_EVENTS | TCONV_WRITER_COLLECTIVE, 0},
    };
    for (size_t i = 0; i < 2; i++) {
        plan_expect(&ordered[i], 0, 1, NULL, 1, 0, 1);
        plan_expect(&ordered[i], 0, 0, NULL, 1, 0, 0);   /* not an MPI run */
        plan_expect(&ordered[i], 1, 1, NULL, 1, 0, 0);   /* --keep-going: rank 0 writes */
        plan_expect(&ordered[i], 0, 1, "1ms:", 0, 0, 0); /* the window: rank 0 writes */
    }
    /* nothing said: nothing early, nothing elsewhere */
    const plan_sched_case plain[] = {{stacks_accepts, 0, 0}, {TCONV_KINDS_ALL, 0, 0}};
    for (size_t i = 0; i < 2; i++)
        plan_expect(&plain[i], 0, 1, NULL, 0, 0, 0);
    /* a direct writer has no stage to flush early */
    const plan_sched_case direct = {TCONV_KINDS_ALL, 0, TCONV_NEED_METADATA_APART};
    plan_expect(&direct, 0, 0, NULL, 0, 0, 0);
    /* the test switch: every flush at the end */
    setenv("TCONV_FLUSH_AT_END", "1", 1);
    plan_expect(&sums[0], 0, 0, NULL, 0, 0, 0);
    setenv("TCONV_FLUSH_AT_END", "0", 1);
    plan_expect(&sums[0], 0, 0, NULL, 1, 1, 0);
    unsetenv("TCONV_FLUSH_AT_END");
}

/* The needs reach the context (args, GPU attribution, correlation ids); GPU attribution, asked
 * by the needs or by an ABI 1.0 writer in open(), turns the early flush and partial results off. */
static void test_needs_ctx(void **state)
{
    (void)state;
    tconv_ctx *ctx = tconv_ctx_new();
    tconv_writer_class wc = plan_writer(stacks_accepts, 0);
    tconv_plan p;
    tconv_plan_init(&p);
    plan_make(&p, ctx, &wc, TCONV_NEED_STACK_SUMS | TCONV_NEED_GPU_ATTRIBUTION, 0, 0);
    assert_true(p.gpu);
    assert_false(p.early);
    assert_false(p.partial);
    assert_true(tconv_args_wanted(ctx)); /* GPU attribution reads correlation ids from args */
    tconv_plan_free(&p);
    tconv_ctx_free(ctx);

    ctx = tconv_ctx_new();
    tconv_plan_init(&p);
    plan_needs_value = TCONV_NEED_STACK_SUMS;
    tconv_plan_set_writer(&p, &wc);
    tconv_options o = {0};
    tconv_plan_needs(&p, ctx, &o, 0, 0);
    assert_true(p.partial);
    assert_false(tconv_args_wanted(ctx)); /* no TCONV_NEED_ARGS */
    tconv_gpu_attribute(ctx);             /* the ABI 1.0 call in open() */
    tconv_plan_opened(&p, ctx);
    assert_true(p.gpu);
    assert_false(p.early);
    tconv_plan_free(&p);
    tconv_ctx_free(ctx);

    /* a writer without needs() gets args */
    ctx = tconv_ctx_new();
    tconv_plan_init(&p);
    wc.struct_size = offsetof(tconv_writer_class, extensions);
    tconv_plan_set_writer(&p, &wc);
    tconv_plan_needs(&p, ctx, &o, 0, 0);
    assert_int_equal(p.needs, TCONV_NEED_ARGS);
    assert_true(tconv_args_wanted(ctx));
    tconv_plan_free(&p);
    tconv_ctx_free(ctx);
}

/* A worker's plan: the run's decisions, a selection of its own that selects nothing. */
static void test_worker(void **state)
{
    (void)state;
    tconv_ctx *ctx = tconv_ctx_new();
    tconv_writer_class wc = plan_writer(stacks_accepts, 0);
    tconv_plan run, w;
    tconv_plan_init(&run);
    run.sel.input = 3;
    plan_make(&run, ctx, &wc, TCONV_NEED_STACK_SUMS, 0, 0);
    tconv_plan_for_worker(&run, &w);
    assert_int_equal(w.route, run.route);
    assert_int_equal(w.early, run.early);
    assert_int_equal(w.sched, run.sched);
    assert_int_equal(w.sel.input, -1);
    assert_null(w.sel.step_spans);
    tconv_plan_free(&w);
    tconv_plan_free(&run);
    tconv_ctx_free(ctx);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_route),  cmocka_unit_test(test_check),
        cmocka_unit_test(test_sched),  cmocka_unit_test(test_needs_ctx),
        cmocka_unit_test(test_worker),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
