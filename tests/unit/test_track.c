#include "testutil.h"

static tconv_str S(tconv_ctx *ctx, const char *s)
{
    return tconv_string_intern_cstr(ctx, s);
}

static void keyed_by_pid_and_tid(void **state)
{
    (void)state;
    tconv_ctx *ctx = tconv_ctx_new();
    uint32_t a = tconv_track_get(ctx, S(ctx, "100"), S(ctx, "7"));
    uint32_t b = tconv_track_get(ctx, S(ctx, "200"), S(ctx, "7")); /* same tid, other process */
    uint32_t c = tconv_track_get(ctx, S(ctx, "100"), S(ctx, "7"));
    uint32_t d = tconv_track_get(ctx, S(ctx, "CPU functions"), S(ctx, "stream 7"));
    assert_int_equal(a, 0);
    assert_int_equal(b, 1);
    assert_int_equal(c, a);
    assert_int_equal(d, 2);
    const tconv_track *ta = tconv_track_describe(ctx, a);
    assert_true(ta->has_pid_num);
    assert_int_equal(ta->pid_num, 100);
    assert_int_equal(ta->tid_num, 7);
    const tconv_track *td = tconv_track_describe(ctx, d);
    assert_false(td->has_pid_num);
    assert_string_equal(tconv_string_get(ctx, td->tid), "stream 7");
    assert_null(tconv_track_describe(ctx, 99));
    tconv_ctx_free(ctx);
}

static void inputs_stay_apart(void **state)
{
    (void)state;
    tconv_ctx *ctx = tconv_ctx_new();
    uint32_t a = tconv_track_get(ctx, S(ctx, "1"), S(ctx, "1"));
    tconv_ctx_set_input(ctx, 1);
    uint32_t b = tconv_track_get(ctx, S(ctx, "1"), S(ctx, "1"));
    assert_int_not_equal(a, b);
    assert_int_equal(tconv_track_describe(ctx, b)->input, 1);
    tconv_ctx_free(ctx);
}

static void many_tracks(void **state)
{
    (void)state;
    tconv_ctx *ctx = tconv_ctx_new();
    char buf[32];
    for (int i = 0; i < 5000; i++) {
        snprintf(buf, sizeof(buf), "%d", i);
        assert_int_equal(tconv_track_get(ctx, S(ctx, "1"), S(ctx, buf)), (uint32_t)i);
    }
    for (int i = 0; i < 5000; i += 7) {
        snprintf(buf, sizeof(buf), "%d", i);
        assert_int_equal(tconv_track_get(ctx, S(ctx, "1"), S(ctx, buf)), (uint32_t)i);
    }
    tconv_ctx_free(ctx);
}

static void metadata_names_tracks(void **state)
{
    (void)state;
    tconv_ctx *ctx = tconv_ctx_new();
    uint32_t t1 = tconv_track_get(ctx, S(ctx, "5"), S(ctx, "1"));
    tconv_event ev = TCONV_EVENT_INIT;
    ev.kind = TCONV_EV_METADATA;
    ev.track = t1;
    ev.name = S(ctx, "process_name");
    ev.text = S(ctx, "python");
    tconv_track_apply_metadata(ctx, &ev);
    ev.name = S(ctx, "thread_name");
    ev.text = S(ctx, "main");
    tconv_track_apply_metadata(ctx, &ev);
    ev.name = S(ctx, "thread_sort_index");
    ev.text = S(ctx, "-3");
    tconv_track_apply_metadata(ctx, &ev);
    /* A thread of the same process seen later inherits the process name. */
    uint32_t t2 = tconv_track_get(ctx, S(ctx, "5"), S(ctx, "2"));
    uint32_t other = tconv_track_get(ctx, S(ctx, "6"), S(ctx, "1"));
    assert_string_equal(tconv_string_get(ctx, tconv_track_describe(ctx, t1)->process_name),
                        "python");
    assert_string_equal(tconv_string_get(ctx, tconv_track_describe(ctx, t2)->process_name),
                        "python");
    assert_int_equal(tconv_track_describe(ctx, other)->process_name, 0);
    assert_string_equal(tconv_string_get(ctx, tconv_track_describe(ctx, t1)->thread_name), "main");
    assert_int_equal(tconv_track_describe(ctx, t2)->thread_name, 0);
    assert_int_equal(tconv_track_describe(ctx, t1)->thread_sort, -3);
    char buf[64];
    assert_string_equal(tconv_track_label(ctx, t1, buf, sizeof(buf)), "main");
    assert_string_equal(tconv_track_label(ctx, t2, buf, sizeof(buf)), "5/2");
    tconv_ctx_free(ctx);
}

/* Many processes, their threads interleaved and spread over two inputs: a process's metadata
 * reaches all its threads (also those that come after it), and no other process's. */
static void many_processes(void **state)
{
    (void)state;
    tconv_ctx *ctx = tconv_ctx_new();
    enum { NPROC = 3000 };
    char pid[32], tid[32];
    tconv_event ev = TCONV_EVENT_INIT;
    ev.kind = TCONV_EV_METADATA;
    for (uint32_t input = 0; input < 2; input++) {
        tconv_ctx_set_input(ctx, input);
        for (int t = 0; t < 3; t++)
            for (int p = 0; p < NPROC; p++) {
                snprintf(pid, sizeof(pid), "%d", p);
                snprintf(tid, sizeof(tid), "%d", t);
                uint32_t id = tconv_track_get(ctx, S(ctx, pid), S(ctx, tid));
                if (t != 1 || p % 2) continue;
                ev.track = id;
                ev.name = S(ctx, "process_name");
                snprintf(tid, sizeof(tid), "proc %u.%d", input, p);
                ev.text = S(ctx, tid);
                tconv_track_apply_metadata(ctx, &ev);
                ev.name = S(ctx, "process_sort_index");
                snprintf(tid, sizeof(tid), "%d", p + 1);
                ev.text = S(ctx, tid);
                tconv_track_apply_metadata(ctx, &ev);
            }
    }
    assert_int_equal(tconv_track_count(ctx), 2 * 3 * NPROC);
    for (uint32_t id = 0; id < tconv_track_count(ctx); id++) {
        const tconv_track *k = tconv_track_describe(ctx, id);
        int p = (int)k->pid_num;
        if (p % 2) {
            assert_int_equal(k->process_name, 0);
            assert_int_equal(k->process_sort, 0);
            continue;
        }
        snprintf(tid, sizeof(tid), "proc %u.%d", k->input, p);
        assert_string_equal(tconv_string_get(ctx, k->process_name), tid);
        assert_int_equal(k->process_sort, p + 1);
    }
    tconv_ctx_free(ctx);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(keyed_by_pid_and_tid), cmocka_unit_test(inputs_stay_apart),
        cmocka_unit_test(many_tracks),          cmocka_unit_test(metadata_names_tracks),
        cmocka_unit_test(many_processes),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
