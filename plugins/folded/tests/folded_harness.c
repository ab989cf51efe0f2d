/* The folded reader and writer in-process, with the plugin kit's harness (tconv/harness.h):
 * folded bytes to events, events to folded bytes, and the two together, through the same checks
 * and stages as a conversion. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "tconv/harness.h"
#include "tconv/tconv.h"

/* The plugin's entry point, compiled into the test. */
const tconv_plugin_desc *tconv_plugin_describe(void);

static const tconv_reader_class *folded_reader(void)
{
    return tconv_plugin_describe()->readers[0];
}

static const tconv_writer_class *folded_writer(void)
{
    return tconv_plugin_describe()->writers[0];
}

/* The writer's bytes, NUL-terminated (the harness keeps them until it is freed). */
static char *folded_harness_text(tconv_harness *h)
{
    size_t len;
    const unsigned char *out = tconv_harness_output(h, &len);
    char *s = malloc(len + 1);
    assert_non_null(s);
    memcpy(s, out, len);
    s[len] = 0;
    return s;
}

/* Each line one sample: its frames root first, its count as the value; the sample types the
 * counts are in. */
static void test_read(void **state)
{
    (void)state;
    static const char in[] = "main;work 3\nmain;idle 2\n";
    tconv_harness *h = tconv_harness_new();
    assert_non_null(h);
    tconv_ctx *ctx = tconv_harness_ctx(h);
    assert_int_equal(tconv_harness_read(h, folded_reader(), "x.folded", in, strlen(in), NULL, 0),
                     TCONV_OK);
    size_t n;
    const tconv_event *ev = tconv_harness_events(h, &n);
    int64_t work = 0, idle = 0;
    for (size_t i = 0; i < n; i++) {
        if (ev[i].kind != TCONV_EV_SAMPLE) continue;
        assert_int_equal(ev[i].nframes, 2);
        assert_int_equal(ev[i].nvalues, 1);
        assert_string_equal(tconv_string_get(ctx, ev[i].frames[0].name), "main");
        const char *leaf = tconv_string_get(ctx, ev[i].frames[1].name);
        if (!strcmp(leaf, "work")) work += ev[i].values[0];
        if (!strcmp(leaf, "idle")) idle += ev[i].values[0];
    }
    assert_int_equal(work, 3);
    assert_int_equal(idle, 2);
    size_t ntypes;
    const tconv_sample_type *t = tconv_sampletypes_get(ctx, &ntypes, NULL);
    assert_int_equal(ntypes, 1);
    assert_string_equal(t[0].type, "samples");
    /* A line that is not folded stacks: an error at its line. */
    static const char bad[] = "main;work 3\nmain;work three\n";
    assert_int_equal(
        tconv_harness_read(h, folded_reader(), "bad.folded", bad, strlen(bad), NULL, 0),
        TCONV_FATAL);
    size_t nerr;
    const char *const *chain = tconv_error_chain(ctx, &nerr);
    assert_true(nerr >= 1 && strstr(chain[0], "bad.folded:2") != NULL);
    tconv_harness_free(h);
}

/* Spans pushed into the writer come out as self time per stack, through the ordering and stack
 * stages the writer's class asks for (it takes samples, not spans). */
static void test_write_spans(void **state)
{
    (void)state;
    tconv_harness *h = tconv_harness_new();
    tconv_ctx *ctx = tconv_harness_ctx(h);
    tconv_sink *sink = tconv_harness_open(h, folded_writer(), NULL, 0);
    assert_non_null(sink);
    uint32_t t = tconv_track_get(ctx, tconv_string_intern_cstr(ctx, "1"),
                                 tconv_string_intern_cstr(ctx, "1"));
    /* the child first: the stages order them */
    const struct {
        const char *name;
        int64_t ts, dur;
    } spans[] = {{"inner", 10, 30}, {"outer", 0, 100}};
    for (size_t i = 0; i < 2; i++) {
        tconv_event ev = TCONV_EVENT_INIT;
        ev.kind = TCONV_EV_COMPLETE;
        ev.track = t;
        ev.name = tconv_string_intern_cstr(ctx, spans[i].name);
        ev.ts = spans[i].ts;
        ev.dur = spans[i].dur;
        assert_int_equal(tconv_sink_push(sink, &ev), TCONV_OK);
    }
    assert_int_equal(tconv_harness_finish(h), TCONV_OK);
    char *text = folded_harness_text(h);
    assert_string_equal(text, "outer 70\nouter;inner 30\n");
    free(text);
    tconv_harness_free(h);
}

/* Folded stacks through the reader into the writer give back the same sorted lines. */
static void test_round_trip(void **state)
{
    (void)state;
    static const char in[] = "a;b 5\na;c 1\nd 2\n";
    tconv_harness *h = tconv_harness_new();
    assert_non_null(tconv_harness_open(h, folded_writer(), NULL, 0));
    assert_int_equal(tconv_harness_read(h, folded_reader(), "in.folded", in, strlen(in), NULL, 0),
                     TCONV_OK);
    assert_int_equal(tconv_harness_finish(h), TCONV_OK);
    char *text = folded_harness_text(h);
    assert_string_equal(text, in);
    free(text);
    /* An option the writer does not have is a usage error before it opens. */
    const char *bad[] = {"colour=red"};
    assert_null(tconv_harness_open(h, folded_writer(), bad, 1));
    assert_true(tconv_error_pending(tconv_harness_ctx(h)));
    tconv_harness_free(h);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_read),
        cmocka_unit_test(test_write_spans),
        cmocka_unit_test(test_round_trip),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
