/* The sink (core/pipeline/sink.c, core/pipeline/pushcheck.c, core/parallel/worker_sink.c): what a
 * push does along each route the plan gives, and when the writer sees what. A capturing writer
 * spells out every call. */
#include "testutil.h"

typedef struct cap {
    tconv_ctx *ctx;
    char text[8192];
    size_t len;
    int finished;
} cap;

static tconv_status cap_open(tconv_ctx *ctx, tconv_output *out, const tconv_options *o,
                             void **state)
{
    (void)ctx, (void)out, (void)o, (void)state;
    return TCONV_OK;
}

static tconv_status cap_event(void *state, const tconv_event *ev)
{
    cap *c = state;
    const char *kind = tconv_event_kind_name(ev->kind);
    c->len += (size_t)snprintf(c->text + c->len, sizeof(c->text) - c->len, "%s%s %lld %s",
                               c->len ? " | " : "", kind, (long long)ev->ts,
                               tconv_string_get(c->ctx, ev->name));
    if (ev->kind == TCONV_EV_SAMPLE) {
        c->len += (size_t)snprintf(c->text + c->len, sizeof(c->text) - c->len, " [");
        for (uint32_t i = 0; i < ev->nframes; i++)
            c->len += (size_t)snprintf(c->text + c->len, sizeof(c->text) - c->len, "%s%s",
                                       i ? ";" : "", tconv_string_get(c->ctx, ev->frames[i].name));
        c->len += (size_t)snprintf(c->text + c->len, sizeof(c->text) - c->len, "]=%lld",
                                   (long long)(ev->nvalues > 1 ? ev->values[1] : 0));
    }
    return TCONV_OK;
}

static tconv_status cap_finish(void *state)
{
    ((cap *)state)->finished = 1;
    return TCONV_OK;
}

static void cap_destroy(void *state)
{
    (void)state;
}

static uint32_t cap_needs_value;

static uint32_t cap_needs(const tconv_options *o)
{
    (void)o;
    return cap_needs_value;
}

static tconv_writer_class cap_class(uint32_t accepts, uint32_t flags, uint32_t needs)
{
    cap_needs_value = needs;
    return (tconv_writer_class){.struct_size = sizeof(tconv_writer_class),
                                .name = "cap",
                                .accepts = accepts,
                                .flags = flags,
                                .open = cap_open,
                                .event = cap_event,
                                .finish = cap_finish,
                                .destroy = cap_destroy,
                                .needs = cap_needs};
}

static char noted[512]; /* the last notice */

static void quiet(void *user, tconv_notice_level level, const char *text)
{
    (void)user, (void)level;
    snprintf(noted, sizeof(noted), "%s", text);
}

/* One sink along the plan of writer wc, and what it needs. */
typedef struct fixture {
    tconv_ctx *ctx;
    tconv_writer_class wc;
    tconv_plan plan;
    cap c;
    tconv_sink *sink;
    uint32_t track;
} fixture;

static void fx_open(fixture *f, uint32_t accepts, uint32_t flags, uint32_t needs)
{
    memset(f, 0, sizeof(*f));
    unsetenv("TCONV_FLUSH_AT_END");
    f->ctx = tconv_ctx_new();
    tconv_ctx_set_verbosity(f->ctx, -1);
    f->ctx->notice = quiet;
    f->c.ctx = f->ctx;
    f->wc = cap_class(accepts, flags, needs);
    tconv_plan_init(&f->plan);
    tconv_plan_set_writer(&f->plan, &f->wc);
    tconv_options o = {0};
    tconv_plan_needs(&f->plan, f->ctx, &o, 0, 0);
    tconv_plan_opened(&f->plan, f->ctx);
    f->sink = tconv_sink_new(f->ctx, &f->plan, &f->wc, &f->c);
    f->track = tconv_track_get(f->ctx, tconv_string_intern_cstr(f->ctx, "1"),
                               tconv_string_intern_cstr(f->ctx, "1"));
}

static void fx_close(fixture *f)
{
    tconv_sink_free(f->sink);
    tconv_plan_free(&f->plan);
    tconv_ctx_free(f->ctx);
}

static tconv_status fx_push(fixture *f, int kind, int64_t ts, int64_t dur, const char *name)
{
    tconv_event e = TCONV_EVENT_INIT;
    e.kind = (uint16_t)kind;
    e.track = f->track;
    e.ts = ts;
    e.dur = dur;
    e.name = tconv_string_intern_cstr(f->ctx, name);
    if (kind == TCONV_EV_METADATA) e.text = e.name;
    return tconv_sink_push(f->sink, &e);
}

static const uint32_t stacks = TCONV_KIND_BIT(TCONV_EV_SAMPLE) | TCONV_KIND_BIT(TCONV_EV_METADATA);

/* Direct: each event as pushed, during the push; what the writer does not take is counted. */
static void test_direct(void **state)
{
    (void)state;
    fixture f;
    fx_open(&f, TCONV_KINDS_SPANS, 0, 0);
    assert_int_equal(fx_push(&f, TCONV_EV_COMPLETE, 50, 10, "b"), TCONV_OK);
    assert_string_equal(f.c.text, "complete 50 b");
    assert_int_equal(fx_push(&f, TCONV_EV_COMPLETE, 10, 100, "a"), TCONV_OK);
    assert_int_equal(fx_push(&f, TCONV_EV_INSTANT, 20, 0, "i"), TCONV_OK);
    assert_int_equal(tconv_sink_finish(f.sink), TCONV_OK);
    assert_string_equal(f.c.text, "complete 50 b | complete 10 a");
    assert_true(f.c.finished);
    assert_non_null(strstr(noted, "the cap writer has no place for some events (1 instant)"));
    assert_int_equal(tconv_sink_events(f.sink), 3);
    assert_int_equal(tconv_sink_accepted(f.sink), 3);
    fx_close(&f);
}

/* Ordered: metadata as pushed; the rest at the flush, per track, in order, nested. */
static void test_ordered(void **state)
{
    (void)state;
    fixture f;
    fx_open(&f, TCONV_KINDS_ALL, TCONV_WRITER_ORDERED, 0);
    fx_push(&f, TCONV_EV_COMPLETE, 20, 10, "inner");
    fx_push(&f, TCONV_EV_METADATA, 0, 0, "thread_name");
    fx_push(&f, TCONV_EV_COMPLETE, 10, 100, "outer");
    assert_string_equal(f.c.text, "metadata 0 thread_name");
    assert_int_equal(tconv_sink_input_done(f.sink), TCONV_OK); /* no early flush: not said */
    assert_string_equal(f.c.text, "metadata 0 thread_name");
    assert_int_equal(tconv_sink_finish(f.sink), TCONV_OK);
    assert_string_equal(f.c.text, "metadata 0 thread_name | begin 10 outer | begin 20 inner | "
                                  "end 30 inner | end 110 outer");
    fx_close(&f);
}

/* Ordered, keeping metadata apart: each input's events as soon as it is read. */
static void test_ordered_early(void **state)
{
    (void)state;
    fixture f;
    fx_open(&f, TCONV_KINDS_ALL, TCONV_WRITER_ORDERED, TCONV_NEED_METADATA_APART);
    fx_push(&f, TCONV_EV_COMPLETE, 10, 5, "x");
    assert_string_equal(f.c.text, "");
    assert_int_equal(tconv_sink_input_done(f.sink), TCONV_OK);
    assert_string_equal(f.c.text, "begin 10 x | end 15 x");
    assert_int_equal(tconv_sink_finish(f.sink), TCONV_OK);
    assert_string_equal(f.c.text, "begin 10 x | end 15 x");
    fx_close(&f);
}

/* Stacks: spans become samples of their self time at the flush, at their full stack; a span
 * that is not work of its thread is left out. */
static void test_stacks(void **state)
{
    (void)state;
    fixture f;
    fx_open(&f, stacks, 0, 0);
    fx_push(&f, TCONV_EV_COMPLETE, 0, 100, "outer");
    fx_push(&f, TCONV_EV_COMPLETE, 10, 30, "inner");
    tconv_event async = TCONV_EVENT_INIT;
    async.kind = TCONV_EV_COMPLETE;
    async.flags = TCONV_EVF_ASYNC;
    async.track = f.track;
    async.ts = 0;
    async.dur = 500;
    async.name = tconv_string_intern_cstr(f.ctx, "request");
    assert_int_equal(tconv_sink_push(f.sink, &async), TCONV_OK);
    assert_string_equal(f.c.text, "");
    assert_int_equal(tconv_sink_finish(f.sink), TCONV_OK);
    /* each sample as its span closes */
    assert_string_equal(f.c.text, "sample 10 inner [outer;inner]=30 | sample 0 outer [outer]=70");
    size_t n, def;
    const tconv_sample_type *t = tconv_sampletypes_get(f.ctx, &n, &def);
    assert_int_equal(n, 2);
    assert_string_equal(t[def].type, "wall");
    fx_close(&f);
}

/* Stacks with the sums: the early flush gives each input's samples at its end. */
static void test_stacks_early(void **state)
{
    (void)state;
    fixture f;
    fx_open(&f, stacks, 0, TCONV_NEED_STACK_SUMS);
    assert_true(f.plan.early && f.plan.partial);
    fx_push(&f, TCONV_EV_COMPLETE, 0, 10, "a");
    assert_int_equal(tconv_sink_input_done(f.sink), TCONV_OK);
    assert_string_equal(f.c.text, "sample 0 a [a]=10");
    assert_true(tconv_sink_partial_ok(f.sink));
    assert_int_equal(tconv_sink_finish(f.sink), TCONV_OK);
    assert_string_equal(f.c.text, "sample 0 a [a]=10");
    fx_close(&f);
}

/* --keep-going: held until committed; a discarded input leaves nothing. */
static void test_staging(void **state)
{
    (void)state;
    fixture f;
    fx_open(&f, TCONV_KINDS_ALL, 0, 0);
    tconv_sink_stage_begin(f.sink);
    fx_push(&f, TCONV_EV_INSTANT, 1, 0, "dropped");
    assert_false(tconv_sink_partial_ok(f.sink));
    tconv_sink_stage_discard(f.sink);
    assert_string_equal(f.c.text, "");
    tconv_sink_stage_begin(f.sink);
    fx_push(&f, TCONV_EV_INSTANT, 2, 0, "kept");
    assert_string_equal(f.c.text, "");
    assert_int_equal(tconv_sink_stage_commit(f.sink), TCONV_OK);
    assert_string_equal(f.c.text, "instant 2 kept");
    fx_push(&f, TCONV_EV_INSTANT, 3, 0, "after"); /* no longer staging */
    assert_string_equal(f.c.text, "instant 2 kept | instant 3 after");
    assert_int_equal(tconv_sink_accepted(f.sink), 3);
    assert_int_equal(tconv_sink_events(f.sink), 2);
    fx_close(&f);
}

/* --input: the other inputs' events reach no writer; --rank holds what would go as it comes. */
static void test_selection(void **state)
{
    (void)state;
    fixture f;
    fx_open(&f, TCONV_KINDS_ALL, 0, 0);
    f.plan.sel.input = 1;
    fx_push(&f, TCONV_EV_INSTANT, 1, 0, "input0");
    tconv_ctx_set_input(f.ctx, 1);
    f.track = tconv_track_get(f.ctx, tconv_string_intern_cstr(f.ctx, "1"),
                              tconv_string_intern_cstr(f.ctx, "1"));
    fx_push(&f, TCONV_EV_INSTANT, 2, 0, "input1");
    assert_string_equal(f.c.text, "instant 2 input1");
    fx_close(&f);

    fx_open(&f, TCONV_KINDS_ALL, TCONV_WRITER_ORDERED, 0);
    f.plan.sel.by_rank = 1;
    fx_push(&f, TCONV_EV_METADATA, 0, 0, "process_name");
    assert_string_equal(f.c.text, "");
    f.plan.sel.keep = tconv_xcalloc(1, 1);
    f.plan.sel.nkeep = 1;
    f.plan.sel.keep[0] = 1;
    assert_int_equal(tconv_sink_finish(f.sink), TCONV_OK);
    assert_string_equal(f.c.text, "metadata 0 process_name");
    fx_close(&f);
}

/* The push checks: what is wrong with an event itself, whichever sink it is pushed into. */
static void test_checks(void **state)
{
    (void)state;
    fixture f;
    fx_open(&f, TCONV_KINDS_ALL, 0, 0);
    tconv_event e = TCONV_EVENT_INIT;
    e.kind = TCONV_EV_INSTANT;
    e.track = 99;
    assert_int_equal(tconv_sink_push(f.sink, &e), TCONV_FATAL);
    size_t n;
    assert_non_null(strstr(tconv_error_chain(f.ctx, &n)[0], "track 99, which does not exist"));
    tconv_error_clear(f.ctx);
    e.track = f.track;
    e.name = 12345;
    assert_int_equal(tconv_sink_push(f.sink, &e), TCONV_FATAL);
    assert_non_null(strstr(tconv_error_chain(f.ctx, &n)[0], "string id 12345"));
    tconv_error_clear(f.ctx);
    e.name = 0;
    e.kind = 200;
    assert_int_equal(tconv_sink_push(f.sink, &e), TCONV_RECORD);
    assert_int_equal(tconv_warning_count(f.ctx, "core.bad-kind"), 1);
    e.kind = TCONV_EV_INSTANT;
    e.struct_size = 8;
    assert_int_equal(tconv_sink_push(f.sink, &e), TCONV_FATAL);
    assert_string_equal(f.c.text, "");
    fx_close(&f);
}

/* A worker's recording sink: the same checks, and what passes is recorded, not written. */
static void test_recording(void **state)
{
    (void)state;
    tconv_ctx *w = tconv_ctx_new();
    tconv_rec *rec = tconv_rec_new(w, (tconv_rec_buf){0});
    tconv_sink *s = tconv_sink_new_recording(w, rec, NULL);
    tconv_event e = TCONV_EVENT_INIT;
    e.kind = TCONV_EV_INSTANT;
    e.track =
        tconv_track_get(w, tconv_string_intern_cstr(w, "1"), tconv_string_intern_cstr(w, "2"));
    assert_int_equal(tconv_sink_push(s, &e), TCONV_OK);
    e.track = 7;
    assert_int_equal(tconv_sink_push(s, &e), TCONV_FATAL);
    assert_int_equal(tconv_rec_count(rec), 1);
    tconv_sink_free(s);
    tconv_rec_buf_free(tconv_rec_free(rec));
    tconv_ctx_free(w);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_direct),        cmocka_unit_test(test_ordered),
        cmocka_unit_test(test_ordered_early), cmocka_unit_test(test_stacks),
        cmocka_unit_test(test_stacks_early),  cmocka_unit_test(test_staging),
        cmocka_unit_test(test_selection),     cmocka_unit_test(test_checks),
        cmocka_unit_test(test_recording),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
