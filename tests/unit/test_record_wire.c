/* The wire form of a recording (core/parallel/record_wire.c), which carries an input read by
 * another process of an MPI run: what is decoded encodes to the same bytes (nothing of the
 * recording is lost or changed on the way), the worker's tables come back with the same ids, and
 * every cut-short or altered message is refused without reading past its end. */
#include "testutil.h"

#include "wire.h"

static tconv_str S(tconv_ctx *ctx, const char *s)
{
    return tconv_string_intern_cstr(ctx, s);
}

/* A recording with one of each step: strings and tracks in several syncs, a track kind,
 * sample types, a launch-stack tolerance, warnings, a notice, a lane, events with args, frames
 * and values, the reader's error at the end, and a partial result (core/pipeline/sink.c) whose sums
 * are the last event and whose warnings name a track. */
static tconv_rec *wire_sample(tconv_ctx **wctx)
{
    tconv_ctx *w = tconv_ctx_new();
    tconv_rec *rec = tconv_rec_new(w, (tconv_rec_buf){0});
    tconv_event e = TCONV_EVENT_INIT;
    e.kind = TCONV_EV_COMPLETE;
    e.track = tconv_track_get(w, S(w, "1234"), S(w, "7"));
    e.name = S(w, "aten::mm");
    e.cat = S(w, "cpu_op");
    e.ts = 1000;
    e.dur = 250;
    e.corr = 42;
    tconv_arg args[2] = {{.key = S(w, "shape"), .type = TCONV_ARG_STRING, .v.s = S(w, "[2, 3]")},
                         {.key = S(w, "bytes"), .type = TCONV_ARG_INT, .v.i = -5}};
    e.args = args;
    e.nargs = 2;
    tconv_rec_event(rec, &e);
    tconv_track_set_kind(w, e.track, TCONV_TRACK_GPU);
    tconv_warning_add(w, "test.kind", "first %d", 1);
    tconv_warning_add(w, "test.kind", "second %d", 2);
    tconv_notice(w, TCONV_NOTICE_INFO, "a note with \"quotes\"");
    tconv_sample_type types[2] = {{"samples", "count"}, {"cpu", "nanoseconds"}};
    tconv_sampletypes_set(w, 2, types, 1);
    tconv_launchstacks_declare(w, 2000);
    tconv_event s = TCONV_EVENT_INIT;
    s.kind = TCONV_EV_SAMPLE;
    s.track = tconv_track_get(w, S(w, "1234"), S(w, "8"));
    s.ts = 2000;
    tconv_frame frames[2] = {{.name = S(w, "main"), .module = S(w, "prog"), .line = 3},
                             {.name = S(w, "work"), .file = S(w, "work.c"), .addr = 0x400010}};
    int64_t values[2] = {1, 1000000};
    s.frames = frames;
    s.nframes = 2;
    s.values = values;
    s.nvalues = 2;
    w->obs->lane(w->obs_user, e.track, 1); /* the step alone, as tconv_track_lane records it */
    tconv_rec_event(rec, &s);
    S(w, "made after the last event");
    tconv_partial *p = tconv_xcalloc(1, sizeof(*p));
    p->n.seq = 7;
    p->n.accepted = 6;
    p->not_work[1] = 3;
    p->n.dropped[TCONV_EV_COUNTER] = 2;
    p->n.have_spans = p->have_bounds = 1;
    p->first_ns = -5;
    p->last_ns = 1250;
    p->sums_at = 1;
    tconv_ctx *aside = tconv_ctx_new(); /* the warning set as the early flush keeps it */
    tconv_warning_add_track(aside, "order.unclosed-span", 1, " ends", "span '%s' on track ", "x");
    p->warnings = (tconv_warning_set){aside->warnings, aside->nwarnings, aside->capwarnings};
    aside->warnings = NULL;
    aside->nwarnings = aside->capwarnings = 0;
    tconv_ctx_free(aside);
    tconv_rec_set_partial(rec, p);
    tconv_error_set(w, "in.json:99: cut off");
    tconv_error_hint(w, "give the whole file");
    tconv_rec_finish(rec, TCONV_FATAL);
    *wctx = w;
    return rec;
}

static void wire_free(tconv_rec *rec, tconv_ctx *w)
{
    free(tconv_rec_free(rec).ev);
    tconv_ctx_free(w);
}

static void round_trip(void **state)
{
    (void)state;
    tconv_ctx *w;
    tconv_rec *rec = wire_sample(&w);
    tconv_wire a = {0}, b = {0};
    tconv_rec_encode(rec, &a);
    tconv_ctx *w2;
    tconv_rec *rec2 = tconv_rec_decode(&a, &w2);
    assert_non_null(rec2);
    tconv_rec_encode(rec2, &b);
    assert_int_equal(a.len, b.len);
    assert_memory_equal(a.p, b.p, a.len);
    /* The worker's tables, as the replay reads them. */
    assert_int_equal(tconv_string_count(w2), tconv_string_count(w));
    for (uint32_t i = 0; i < tconv_string_count(w); i++)
        assert_string_equal(tconv_string_get(w2, i), tconv_string_get(w, i));
    assert_int_equal(tconv_track_count(w2), 2);
    assert_string_equal(tconv_string_get(w2, tconv_track_describe(w2, 1)->tid), "8");
    const char *kind, *first;
    uint64_t count;
    assert_int_equal(tconv_warning_get(w2, 0, &kind, &first, &count), 0);
    assert_string_equal(kind, "test.kind");
    assert_string_equal(first, "first 1");
    size_t n;
    const char *const *chain = tconv_error_chain(w2, &n);
    assert_int_equal(n, 1);
    assert_string_equal(chain[0], "in.json:99: cut off");
    assert_string_equal(tconv_error_hint_get(w2), "give the whole file");
    const tconv_partial *p = tconv_rec_partial(rec2);
    assert_non_null(p);
    assert_int_equal(p->n.seq, 7);
    assert_int_equal(p->not_work[1], 3);
    assert_int_equal(p->n.dropped[TCONV_EV_COUNTER], 2);
    assert_int_equal(p->first_ns, -5);
    assert_int_equal(p->sums_at, 1);
    assert_int_equal(p->warnings.n, 1);
    assert_string_equal(p->warnings.w[0].first, "span 'x' on track 1 ends");
    assert_int_equal(p->warnings.w[0].track, 1);
    assert_int_equal(p->warnings.w[0].track_at, strlen("span 'x' on track "));
    /* The run's number in place of the worker's (tconv_warnings_give_mapped). */
    tconv_warning_set to = {0}, from = p->warnings;
    uint32_t tmap[2] = {0, 12};
    ((tconv_partial *)p)->warnings = (tconv_warning_set){0};
    tconv_warnings_give_mapped(&to, &from, tmap, 2);
    assert_string_equal(to.w[0].first, "span 'x' on track 12 ends");
    tconv_warnings_free(&to);
    free(a.p);
    free(b.p);
    wire_free(rec2, w2);
    wire_free(rec, w);
}

/* Every prefix of a message, and the message with a byte more, is refused. */
static void cut_short(void **state)
{
    (void)state;
    tconv_ctx *w;
    tconv_rec *rec = wire_sample(&w);
    tconv_wire a = {0};
    tconv_rec_encode(rec, &a);
    size_t full = a.len;
    for (size_t len = 0; len < full; len++) {
        tconv_wire cut = {.p = a.p, .len = len};
        tconv_ctx *w2 = (tconv_ctx *)1;
        assert_null(tconv_rec_decode(&cut, &w2));
        assert_null(w2);
    }
    tconv_wire_u64(&a, 0);
    tconv_wire more = {.p = a.p, .len = full + 1};
    tconv_ctx *w2;
    assert_null(tconv_rec_decode(&more, &w2));
    free(a.p);
    wire_free(rec, w);
}

/* Counts and indices out of range: a step naming a warning or track the message lacks. */
static void altered(void **state)
{
    (void)state;
    tconv_ctx *w;
    tconv_rec *rec = wire_sample(&w);
    tconv_wire a = {0};
    tconv_rec_encode(rec, &a);
    int refused = 0;
    for (size_t at = 0; at + 8 <= a.len; at += 8) {
        unsigned char keep[8];
        memcpy(keep, a.p + at, 8);
        uint64_t big = UINT64_MAX / 2;
        memcpy(a.p + at, &big, 8);
        tconv_wire x = {.p = a.p, .len = a.len};
        tconv_ctx *w2;
        tconv_rec *r2 = tconv_rec_decode(&x, &w2);
        if (r2)
            wire_free(r2, w2);
        else
            refused++;
        memcpy(a.p + at, keep, 8);
    }
    assert_true(refused > 0);
    free(a.p);
    wire_free(rec, w);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(round_trip),
        cmocka_unit_test(cut_short),
        cmocka_unit_test(altered),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
