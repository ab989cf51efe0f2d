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

/* Every emitted event, kept whole (names as ids), for the tests that check fields. */
typedef struct kept {
    tconv_event *ev;
    size_t n, cap;
} kept;

static tconv_status keep_emit(void *user, const tconv_event *ev)
{
    kept *k = user;
    if (k->n == k->cap) {
        k->cap = k->cap ? 2 * k->cap : 64;
        k->ev = realloc(k->ev, k->cap * sizeof(*k->ev));
    }
    k->ev[k->n] = *ev;
    k->ev[k->n].args = NULL; /* not kept past the call */
    k->n++;
    return TCONV_OK;
}

static void order_keep(tconv_ctx *ctx, tconv_event *evs, size_t n, kept *k)
{
    tconv_order *o = tconv_order_new(ctx, 1);
    for (size_t i = 0; i < n; i++)
        assert_int_equal(tconv_order_add(o, &evs[i]), TCONV_OK);
    memset(k, 0, sizeof(*k));
    assert_int_equal(tconv_order_flush(o, keep_emit, k), TCONV_OK);
    tconv_order_free(o);
}

/* What a record cannot hold inline must come back whole: 64-bit flow ids, counter values,
 * durations beyond 48 bits (given, or made by pairing), flags, input sequence numbers far
 * apart on one track. */
static void fields_survive_buffering(void **state)
{
    (void)state;
    tconv_ctx *ctx = tconv_ctx_new();
    uint32_t t = T(ctx, "1");
    const int64_t big = INT64_C(1) << 50;
    tconv_event evs[] = {
        mk(ctx, t, TCONV_EV_COMPLETE, 0, big, "long"),
        mk(ctx, t, TCONV_EV_FLOW_START, 5, 0, "wide"),
        mk(ctx, t, TCONV_EV_FLOW_END, 6, 0, "narrow"),
        mk(ctx, t, TCONV_EV_COUNTER, 7, 0, "mem"),
        mk(ctx, t, TCONV_EV_BEGIN, big + 10, 0, "b"),
        mk(ctx, t, TCONV_EV_END, 2 * big + 10, 0, "b"),
    };
    evs[1].id = UINT64_MAX - 4;
    evs[1].flags = TCONV_EVF_BIND_ENCLOSING;
    evs[2].id = 77;
    evs[3].value = 3.25;
    evs[3].key = tconv_string_intern_cstr(ctx, "Total Allocated");
    evs[3].unit = tconv_string_intern_cstr(ctx, "bytes");
    evs[3].seq = (UINT64_C(1) << 33) + 5; /* far from its chunk's base */
    evs[4].seq = (UINT64_C(1) << 34);
    evs[5].seq = (UINT64_C(1) << 34) + 1;
    kept k;
    order_keep(ctx, evs, 6, &k);
    assert_int_equal(k.n, 7);
    static const int kinds[] = {TCONV_EV_BEGIN,   TCONV_EV_FLOW_START, TCONV_EV_FLOW_END,
                                TCONV_EV_COUNTER, TCONV_EV_END,        TCONV_EV_BEGIN,
                                TCONV_EV_END};
    static const size_t from[] = {0, 1, 2, 3, 0, 4, 4};
    for (size_t i = 0; i < 7; i++) {
        assert_int_equal(k.ev[i].kind, kinds[i]);
        assert_int_equal(k.ev[i].seq, evs[from[i]].seq);
        assert_int_equal(k.ev[i].name, evs[from[i]].name);
    }
    assert_int_equal(k.ev[1].id, UINT64_MAX - 4);
    assert_int_equal(k.ev[1].flags, TCONV_EVF_BIND_ENCLOSING);
    assert_int_equal(k.ev[2].id, 77);
    assert_true(k.ev[3].value == 3.25);
    assert_int_equal(k.ev[3].key, evs[3].key);
    assert_int_equal(k.ev[3].unit, evs[3].unit);
    assert_int_equal(k.ev[4].ts, big);
    assert_int_equal(k.ev[6].ts, 2 * big + 10);
    assert_int_equal(tconv_warning_count(ctx, "order.child-outlives-parent"), 0);
    free(k.ev);
    tconv_ctx_free(ctx);
}

/* Counter values come back exactly whether the record holds them (48-bit integers) or not;
 * times far from the track's first one (beyond 48 bits of offset) come back too. */
static void counter_values_and_far_times(void **state)
{
    (void)state;
    tconv_ctx *ctx = tconv_ctx_new();
    uint32_t t = T(ctx, "1");
    static const double values[] = {
        0.0,   -0.0,  1.5, -7.0, 140737488355327.0, 140737488355328.0, -140737488355327.0,
        1e300, 4096.0};
    enum { NV = sizeof(values) / sizeof(*values) };
    const int64_t far = INT64_C(1) << 50;
    tconv_event evs[NV + 2];
    for (size_t i = 0; i < NV; i++) {
        evs[i] = mk(ctx, t, TCONV_EV_COUNTER, (int64_t)i, 0, "mem");
        evs[i].value = values[i];
    }
    evs[NV] = mk(ctx, t, TCONV_EV_COMPLETE, far, 10, "far");
    evs[NV + 1] = mk(ctx, t, TCONV_EV_INSTANT, -far, 0, "before");
    kept k;
    order_keep(ctx, evs, NV + 2, &k);
    assert_int_equal(k.n, NV + 3);
    assert_int_equal(k.ev[0].ts, -far);
    for (size_t i = 0; i < NV; i++) {
        assert_int_equal(k.ev[i + 1].ts, (int64_t)i);
        assert_memory_equal(&k.ev[i + 1].value, &values[i], sizeof(double)); /* -0 stays -0 */
    }
    assert_int_equal(k.ev[NV + 1].ts, far);
    assert_int_equal(k.ev[NV + 2].ts, far + 10);
    free(k.ev);
    tconv_ctx_free(ctx);
}

/* Enough shuffled points to fill several full-size chunks: they must come out in (time, input)
 * order, each with its own sequence number and value. */
static void many_shuffled_points_keep_input_order_at_ties(void **state)
{
    (void)state;
    enum { N = 30000 };
    tconv_ctx *ctx = tconv_ctx_new();
    uint32_t t = T(ctx, "1");
    tconv_event *evs = calloc(N, sizeof(*evs));
    uint64_t s = 1;
    for (size_t i = 0; i < N; i++) {
        s = s * 6364136223846793005u + 1442695040888963407u;
        evs[i] = mk(ctx, t, TCONV_EV_COUNTER, (int64_t)(s >> 54), 0, "c"); /* 1024 times */
        evs[i].value = (double)i;
    }
    kept k;
    order_keep(ctx, evs, N, &k);
    assert_int_equal(k.n, N);
    for (size_t i = 0; i < N; i++) {
        size_t in = (size_t)k.ev[i].value;
        assert_int_equal(k.ev[i].seq, evs[in].seq);
        assert_int_equal(k.ev[i].ts, evs[in].ts);
        if (i) {
            assert_true(k.ev[i - 1].ts <= k.ev[i].ts);
            if (k.ev[i - 1].ts == k.ev[i].ts) assert_true(k.ev[i - 1].seq < k.ev[i].seq);
        }
    }
    free(k.ev);
    free(evs);
    tconv_ctx_free(ctx);
}

/* (time, input) order of counter values whose value is their input index. */
static void assert_time_input_order(const kept *k, const tconv_event *evs, size_t n)
{
    assert_int_equal(k->n, n);
    for (size_t i = 0; i < n; i++) {
        size_t in = (size_t)k->ev[i].value;
        assert_int_equal(k->ev[i].ts, evs[in].ts);
        if (i) {
            assert_true(k->ev[i - 1].ts <= k->ev[i].ts);
            if (k->ev[i - 1].ts == k->ev[i].ts) assert_true(k->ev[i - 1].seq < k->ev[i].seq);
        }
    }
}

/* Tracks nearly in time order (a GPU stream's kernels as a profiler hands them over) are
 * sorted by moving the few out of place; past a budget of moves, as when the last value
 * belongs first, the track is sorted whole. Both must give (time, input) order, ties too. */
static void nearly_sorted_tracks(void **state)
{
    (void)state;
    enum { N = 5000 };
    for (int shape = 0; shape < 3; shape++) {
        tconv_ctx *ctx = tconv_ctx_new();
        uint32_t t = T(ctx, "1");
        tconv_event *evs = calloc(N, sizeof(*evs));
        uint64_t s = 3;
        for (size_t i = 0; i < N; i++) {
            int64_t ts = (int64_t)(i / 2); /* pairs at one time: ties in input order */
            s = s * 6364136223846793005u + 1442695040888963407u;
            if (shape == 0 && s >> 60 == 0) ts -= (int64_t)(s >> 56 & 7); /* a few, a little */
            if (shape == 1 && i == N - 1) ts = -1;                        /* one, all the way */
            if (shape == 2 && i % 97 == 0) ts = (int64_t)(s >> 52);       /* many, far */
            evs[i] = mk(ctx, t, TCONV_EV_COUNTER, ts, 0, "c");
            evs[i].value = (double)i;
        }
        kept k;
        order_keep(ctx, evs, N, &k);
        assert_time_input_order(&k, evs, N);
        free(k.ev);
        free(evs);
        tconv_ctx_free(ctx);
    }
}

/* Many shuffled, overlapping spans: the output is balanced, nested and time-ordered. */
static void many_shuffled_spans_nest(void **state)
{
    (void)state;
    enum { N = 20000 };
    tconv_ctx *ctx = tconv_ctx_new();
    uint32_t t = T(ctx, "1");
    tconv_event *evs = calloc(N, sizeof(*evs));
    uint64_t s = 7;
    for (size_t i = 0; i < N; i++) {
        s = s * 6364136223846793005u + 1442695040888963407u;
        evs[i] = mk(ctx, t, TCONV_EV_COMPLETE, (int64_t)(s >> 50), (int64_t)(s >> 58), "x");
    }
    kept k;
    order_keep(ctx, evs, N, &k);
    assert_int_equal(k.n, 2 * N);
    size_t depth = 0;
    for (size_t i = 0; i < k.n; i++) {
        if (i) assert_true(k.ev[i - 1].ts <= k.ev[i].ts);
        if (k.ev[i].kind == TCONV_EV_BEGIN) {
            depth++;
        } else {
            assert_int_equal(k.ev[i].kind, TCONV_EV_END);
            assert_true(depth > 0);
            depth--;
        }
    }
    assert_int_equal(depth, 0);
    free(k.ev);
    free(evs);
    tconv_ctx_free(ctx);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(equal_start_child_listed_first),
        cmocka_unit_test(shuffled_input_is_sorted_per_track),
        cmocka_unit_test(child_outliving_parent_is_clipped),
        cmocka_unit_test(begin_end_pairing_and_repairs),
        cmocka_unit_test(fields_survive_buffering),
        cmocka_unit_test(counter_values_and_far_times),
        cmocka_unit_test(many_shuffled_points_keep_input_order_at_ties),
        cmocka_unit_test(many_shuffled_spans_nest),
        cmocka_unit_test(nearly_sorted_tracks),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
