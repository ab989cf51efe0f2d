/* The jsonl writer's tests, in-process with tconv's harness (tconv/harness.h): events pushed
 * into the writer through the core's pipeline, its bytes back. Built like the plugin, against an
 * installed tconv only (make check). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <tconv/harness.h>
#include <tconv/tconv.h>

/* The plugin's entry point, compiled into the test from jsonl.c. */
const tconv_plugin_desc *tconv_plugin_describe(void);

static int failures;

#define CHECK(cond)                                                                                \
    do {                                                                                           \
        if (!(cond)) {                                                                             \
            fprintf(stderr, "%s:%d: failed: %s\n", __FILE__, __LINE__, #cond);                     \
            failures++;                                                                            \
        }                                                                                          \
    } while (0)

/* The bytes the writer makes of one span with an arg and one counter, with options. */
static char *write_two(const char *const *opts, size_t nopts)
{
    tconv_harness *h = tconv_harness_new();
    tconv_ctx *ctx = tconv_harness_ctx(h);
    tconv_sink *sink = tconv_harness_open(h, tconv_plugin_describe()->writers[0], opts, nopts);
    CHECK(sink != NULL);
    if (!sink) {
        tconv_harness_free(h);
        return NULL;
    }
    uint32_t t = tconv_track_get(ctx, tconv_string_intern_cstr(ctx, "100"),
                                 tconv_string_intern_cstr(ctx, "7"));
    tconv_arg arg = {tconv_string_intern_cstr(ctx, "bytes"), TCONV_ARG_INT, {.i = 4096}};
    tconv_event ev = TCONV_EVENT_INIT;
    ev.kind = TCONV_EV_COMPLETE;
    ev.track = t;
    ev.ts = 1000;
    ev.dur = 500;
    ev.name = tconv_string_intern_cstr(ctx, "step \"1\"");
    ev.args = &arg;
    ev.nargs = 1;
    CHECK(tconv_sink_push(sink, &ev) == TCONV_OK);
    tconv_event c = TCONV_EVENT_INIT;
    c.kind = TCONV_EV_COUNTER;
    c.track = t;
    c.ts = 2000;
    c.key = tconv_string_intern_cstr(ctx, "used");
    c.value = 2048;
    CHECK(tconv_sink_push(sink, &c) == TCONV_OK);
    CHECK(tconv_harness_finish(h) == TCONV_OK);
    size_t len;
    const unsigned char *out = tconv_harness_output(h, &len);
    char *text = malloc(len + 1);
    if (text) {
        memcpy(text, out, len);
        text[len] = 0;
    }
    tconv_harness_free(h);
    return text;
}

static void test_lines(void)
{
    char *text = write_two(NULL, 0);
    CHECK(text && !strcmp(text, "{\"kind\":\"complete\",\"ts\":1000,\"dur\":500,\"pid\":\"100\","
                                "\"tid\":\"7\",\"name\":\"step \\\"1\\\"\",\"args\":"
                                "{\"bytes\":4096}}\n"
                                "{\"kind\":\"counter\",\"ts\":2000,\"pid\":\"100\",\"tid\":\"7\","
                                "\"series\":\"used\",\"value\":2048}\n"));
    if (text && failures) fprintf(stderr, "got:\n%s", text);
    free(text);
}

static void test_options(void)
{
    const char *no_args[] = {"args=false"};
    char *text = write_two(no_args, 1);
    CHECK(text && !strstr(text, "\"args\"") && strstr(text, "\"name\":\"step \\\"1\\\"\""));
    free(text);
    /* An option the writer does not have is refused before it opens. */
    tconv_harness *h = tconv_harness_new();
    const char *bad[] = {"colour=red"};
    CHECK(tconv_harness_open(h, tconv_plugin_describe()->writers[0], bad, 1) == NULL);
    CHECK(tconv_error_pending(tconv_harness_ctx(h)));
    tconv_harness_free(h);
}

int main(void)
{
    test_lines();
    test_options();
    if (failures) {
        fprintf(stderr, "test_jsonl: %d failed\n", failures);
        return 1;
    }
    printf("test_jsonl: ok\n");
    return 0;
}
