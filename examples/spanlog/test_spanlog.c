/* The spanlog reader's tests, in-process with tconv's harness (tconv/harness.h): bytes in,
 * events out, as a writer would get them; and through a writer of the test's own, the order the
 * stages give. Built like the plugin, against an installed tconv only (make check). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <tconv/harness.h>
#include <tconv/tconv.h>

/* The plugin's entry point, compiled into the test from spanlog.c. */
const tconv_plugin_desc *tconv_plugin_describe(void);

static int failures;

#define CHECK(cond)                                                                                \
    do {                                                                                           \
        if (!(cond)) {                                                                             \
            fprintf(stderr, "%s:%d: failed: %s\n", __FILE__, __LINE__, #cond);                     \
            failures++;                                                                            \
        }                                                                                          \
    } while (0)

static const tconv_reader_class *spanlog(void)
{
    return tconv_plugin_describe()->readers[0];
}

static const char *str(tconv_harness *h, tconv_str s)
{
    return tconv_string_get(tconv_harness_ctx(h), s);
}

static const char *first_error(tconv_harness *h)
{
    size_t n;
    const char *const *chain = tconv_error_chain(tconv_harness_ctx(h), &n);
    return n ? chain[0] : "";
}

static const char sample[] = "# spanlog\n"
                             "# thread\t100\t7\tmain\n"
                             "1000\t500\t100\t7\tstep\ttrain\n"
                             "1100\t200\t100\t7\tforward\n"
                             "\n"
                             "2000\t10\t100\t8\tio\n";

/* The spans, with their tracks, names and times; the thread name as metadata. */
static void test_events(void)
{
    tconv_harness *h = tconv_harness_new();
    CHECK(tconv_harness_read(h, spanlog(), "sample.spanlog", sample, strlen(sample), NULL, 0) ==
          TCONV_OK);
    size_t n;
    const tconv_event *ev = tconv_harness_events(h, &n);
    CHECK(n == 4);
    if (n == 4) {
        CHECK(ev[0].kind == TCONV_EV_METADATA && !strcmp(str(h, ev[0].name), "thread_name") &&
              !strcmp(str(h, ev[0].text), "main"));
        CHECK(ev[1].kind == TCONV_EV_COMPLETE && ev[1].ts == 1000 && ev[1].dur == 500);
        CHECK(!strcmp(str(h, ev[1].name), "step") && !strcmp(str(h, ev[1].cat), "train"));
        CHECK(ev[2].cat == 0 && ev[1].track == ev[2].track && ev[3].track != ev[1].track);
        const tconv_track *t = tconv_track_describe(tconv_harness_ctx(h), ev[1].track);
        CHECK(!strcmp(str(h, t->pid), "100") && !strcmp(str(h, t->tid), "7"));
        CHECK(t->thread_name && !strcmp(str(h, t->thread_name), "main"));
        CHECK(ev[3].seq == 3 && ev[3].input == 0);
    }
    tconv_harness_free(h);
}

/* Times in another unit, and a line that is not a span: a counted warning, or an error at its
 * line with strict=true. */
static void test_options(void)
{
    static const char log[] = "# spanlog\n3\t2\t1\t1\tus\nnot a span\n";
    tconv_harness *h = tconv_harness_new();
    const char *us[] = {"unit=us"};
    CHECK(tconv_harness_read(h, spanlog(), "a.spanlog", log, strlen(log), us, 1) == TCONV_OK);
    size_t n;
    const tconv_event *ev = tconv_harness_events(h, &n);
    CHECK(n == 1 && ev[0].ts == 3000 && ev[0].dur == 2000);
    CHECK(tconv_warning_count(tconv_harness_ctx(h), "spanlog.bad-line") == 1);
    const char *strict[] = {"strict=true"};
    CHECK(tconv_harness_read(h, spanlog(), "a.spanlog", log, strlen(log), strict, 1) ==
          TCONV_FATAL);
    CHECK(strstr(first_error(h), "a.spanlog:3: not a span") != NULL);
    const char *bad[] = {"unit=days"};
    CHECK(tconv_harness_read(h, spanlog(), "a.spanlog", log, strlen(log), bad, 1) == TCONV_FATAL);
    CHECK(strstr(first_error(h), "unit") != NULL);
    tconv_harness_free(h);
}

/* The probe claims its own first line only. */
static void test_probe(void)
{
    const tconv_reader_class *rc = spanlog();
    CHECK(rc->probe((const unsigned char *)sample, strlen(sample)) == 100);
    CHECK(rc->probe((const unsigned char *)"{\"traceEvents\":[]}", 18) == 0);
    CHECK(rc->probe((const unsigned char *)"", 0) == 0);
}

/* A writer of the test's own behind the ordering stage (TCONV_WRITER_ORDERED): each track's
 * spans in time order and nested, as BEGIN and END, whatever order the log had them in. */
static char order_seen[256];

static tconv_status order_open(tconv_ctx *ctx, tconv_output *out, const tconv_options *o,
                               void **state)
{
    (void)out, (void)o;
    order_seen[0] = 0;
    *state = ctx;
    return TCONV_OK;
}

static tconv_status order_event(void *state, const tconv_event *ev)
{
    if (ev->kind != TCONV_EV_BEGIN && ev->kind != TCONV_EV_END) return TCONV_OK;
    size_t len = strlen(order_seen);
    snprintf(order_seen + len, sizeof(order_seen) - len, "%s%s ",
             ev->kind == TCONV_EV_BEGIN ? "+" : "-", tconv_string_get(state, ev->name));
    return TCONV_OK;
}

static void order_destroy(void *state)
{
    (void)state;
}

static const tconv_writer_class order_writer = {
    .struct_size = sizeof(tconv_writer_class),
    .name = "order",
    .accepts = TCONV_KINDS_ALL,
    .flags = TCONV_WRITER_ORDERED,
    .open = order_open,
    .event = order_event,
    .destroy = order_destroy,
};

static void test_ordered(void)
{
    static const char log[] = "# spanlog\n1100\t200\t1\t1\tinner\n1000\t500\t1\t1\touter\n";
    tconv_harness *h = tconv_harness_new();
    CHECK(tconv_harness_open(h, &order_writer, NULL, 0) != NULL);
    CHECK(tconv_harness_read(h, spanlog(), "b.spanlog", log, strlen(log), NULL, 0) == TCONV_OK);
    CHECK(tconv_harness_finish(h) == TCONV_OK);
    CHECK(!strcmp(order_seen, "+outer +inner -inner -outer "));
    tconv_harness_free(h);
}

int main(void)
{
    test_events();
    test_options();
    test_probe();
    test_ordered();
    if (failures) {
        fprintf(stderr, "test_spanlog: %d failed\n", failures);
        return 1;
    }
    printf("test_spanlog: ok\n");
    return 0;
}
