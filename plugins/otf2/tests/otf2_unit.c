/* Unit tests of the otf2 writer's building blocks: flow pairing, the compact encoding, the
 * definition map, the rank in distributedInfo and the JSON text of marker args. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "tconv/harness.h"
#include "otf2_argtext.h"
#include "otf2_writer.h"

/* A flow event of class 0, delivered in the order of the array. */
static otf2_flow F(uint64_t id, int64_t ts, uint32_t track, uint32_t phase)
{
    return (otf2_flow){id, ts, phase, track};
}

enum { S = OTF2W_FLOW_START, T = OTF2W_FLOW_STEP, E = OTF2W_FLOW_END };

static void flow_start_end_across_tracks(void **state)
{
    (void)state;
    otf2_flow f[] = {F(7, 100, 1, S), F(7, 300, 2, E)};
    otf2_link l[2];
    uint64_t unmatched;
    assert_int_equal(otf2_flows_link(f, 2, l, &unmatched), 1);
    assert_int_equal(unmatched, 0);
    assert_int_equal(l[0].send_to, 2);
    assert_int_equal(l[0].recv_from, OTF2W_NO_PEER);
    assert_int_equal(l[1].recv_from, 1);
    assert_int_equal(l[1].send_to, OTF2W_NO_PEER);
    assert_int_equal(l[0].send_tag, l[1].recv_tag);
}

static void flow_chain_with_steps(void **state)
{
    (void)state;
    /* Delivered track by track, so not in time order. */
    otf2_flow f[] = {F(1, 300, 3, E), F(1, 100, 1, S), F(1, 200, 2, T)};
    otf2_link l[3];
    uint64_t unmatched;
    assert_int_equal(otf2_flows_link(f, 3, l, &unmatched), 2);
    assert_int_equal(unmatched, 0);
    assert_int_equal(l[1].send_to, 2);   /* s -> t */
    assert_int_equal(l[2].recv_from, 1); /* t <- s */
    assert_int_equal(l[2].send_to, 3);   /* t -> f */
    assert_int_equal(l[0].recv_from, 2); /* f <- t */
    assert_int_not_equal(l[1].send_tag, l[2].send_tag);
}

static void flow_end_stamped_before_start_still_pairs(void **state)
{
    (void)state;
    otf2_flow f[] = {F(9, 500, 1, S), F(9, 400, 2, E)};
    otf2_link l[2];
    uint64_t unmatched;
    assert_int_equal(otf2_flows_link(f, 2, l, &unmatched), 1);
    assert_int_equal(unmatched, 0);
    assert_int_equal(l[0].send_to, 2);
    assert_int_equal(l[1].recv_from, 1);
}

static void flow_lone_ends_and_reused_ids(void **state)
{
    (void)state;
    otf2_flow f[] = {
        F(4, 10, 1, E),                 /* an end with no start (Kineto's runtime calls) */
        F(5, 10, 1, S), F(5, 20, 2, E), /* a first flow with id 5 */
        F(5, 30, 1, S), F(5, 40, 2, E), /* the id used again */
        F(6, 50, 1, S),                 /* a start never ended */
    };
    otf2_link l[6];
    uint64_t unmatched;
    assert_int_equal(otf2_flows_link(f, 6, l, &unmatched), 2);
    assert_int_equal(unmatched, 2);
    assert_int_equal(l[0].recv_from, OTF2W_NO_PEER);
    assert_int_equal(l[5].send_to, OTF2W_NO_PEER);
    assert_int_equal(l[1].send_tag, 2);
    assert_int_equal(l[3].send_tag, 4);
}

static void flow_classes_do_not_mix(void **state)
{
    (void)state;
    otf2_flow f[] = {F(1, 10, 1, S), F(1, 20, 2, E)};
    f[1].cls |= 1u << 2;
    otf2_link l[2];
    uint64_t unmatched;
    assert_int_equal(otf2_flows_link(f, 2, l, &unmatched), 0);
    assert_int_equal(unmatched, 2);
}

static void varints_round_trip(void **state)
{
    (void)state;
    const int64_t sv[] = {0, 1, -1, 63, -64, 1712195495519689047LL, INT64_MIN, INT64_MAX};
    const uint64_t uv[] = {0, 127, 128, 16383, 16384, UINT64_MAX};
    otf2_bytes b = {0};
    otf2_bytes_reserve(&b, 200);
    for (size_t i = 0; i < sizeof(sv) / sizeof(sv[0]); i++)
        otf2_put_sv(&b, sv[i]);
    for (size_t i = 0; i < sizeof(uv) / sizeof(uv[0]); i++)
        otf2_put_uv(&b, uv[i]);
    otf2_put_f64(&b, 0.1);
    otf2_cursor c = {b.p, b.p + b.len};
    for (size_t i = 0; i < sizeof(sv) / sizeof(sv[0]); i++)
        assert_true(otf2_get_sv(&c) == sv[i]);
    for (size_t i = 0; i < sizeof(uv) / sizeof(uv[0]); i++)
        assert_true(otf2_get_uv(&c) == uv[i]);
    assert_true(otf2_get_f64(&c) == 0.1);
    assert_ptr_equal(c.p, c.end);
    /* A 1 µs gap and a region index under 128 take one byte each... almost: 1000 needs two. */
    b.len = 0;
    otf2_put_uv(&b, 1000);
    assert_int_equal(b.len, 2);
    otf2_bytes_free(&b);
}

static void map_holds_many_keys(void **state)
{
    (void)state;
    tconv_map m = {0};
    /* the writer's keys: a 64-bit part (two ids packed) and a 32-bit one */
    for (uint32_t i = 0; i < 10000; i++)
        tconv_map_set(&m, (uint64_t)i << 40, i, i * 3);
    for (uint32_t i = 0; i < 10000; i++)
        assert_int_equal(tconv_map_get(&m, (uint64_t)i << 40, i), i * 3);
    assert_int_equal(tconv_map_get(&m, 0, 1), UINT32_MAX);
    /* set replaces: later metadata wins */
    tconv_map_set(&m, (uint64_t)5 << 40, 5, 1);
    assert_int_equal(tconv_map_get(&m, (uint64_t)5 << 40, 5), 1);
    assert_int_equal(m.n, 10000);
    tconv_map_free(&m);
}

static void args_as_json_text(void **state)
{
    (void)state;
    tconv_harness *h = tconv_harness_new();
    tconv_ctx *ctx = tconv_harness_ctx(h);
    tconv_arg args[5] = {
        {.key = tconv_string_intern_cstr(ctx, "Bytes"), .type = TCONV_ARG_INT, .v.i = -256},
        {.key = tconv_string_intern_cstr(ctx, "q\"k"),
         .type = TCONV_ARG_STRING,
         .v.s = tconv_string_intern_cstr(ctx, "a\\b\n")},
        {.key = tconv_string_intern_cstr(ctx, "ok"), .type = TCONV_ARG_BOOL, .v.i = 1},
        {.key = tconv_string_intern_cstr(ctx, "dims"),
         .type = TCONV_ARG_JSON,
         .v.s = tconv_string_intern_cstr(ctx, "[[1,2],[3]]")},
        {.key = tconv_string_intern_cstr(ctx, "f"), .type = TCONV_ARG_DOUBLE, .v.d = 0.5},
    };
    otf2_bytes b = {0};
    otf2_argtext(ctx, args, 5, &b);
    otf2_bytes_reserve(&b, 1);
    b.p[b.len] = 0;
    assert_string_equal((char *)b.p, "{\"Bytes\":-256,\"q\\\"k\":\"a\\\\b\\n\",\"ok\":true,"
                                     "\"dims\":[[1,2],[3]],\"f\":0.5}");
    otf2_bytes_free(&b);
    tconv_harness_free(h);
}

/* OTF2's complaints land in the run's error (or a warning), not on stderr. */
static void library_errors_become_tconv_errors(void **state)
{
    (void)state;
    tconv_harness *h = tconv_harness_new();
    tconv_ctx *ctx = tconv_harness_ctx(h);
    otf2_state st = {.ctx = ctx};
    fflush(stderr);
    int saved = dup(2);
    FILE *capture = tmpfile();
    assert_non_null(capture);
    dup2(fileno(capture), 2);
    otf2_error_install(&st);
    OTF2_Archive *ar = OTF2_Archive_Open(NULL, "traces", OTF2_FILEMODE_WRITE, 1 << 20, 4 << 20,
                                         OTF2_SUBSTRATE_POSIX, OTF2_COMPRESSION_NONE);
    assert_null(ar);
    assert_int_equal(otf2_error_fail(&st, "creating the archive", OTF2_ERROR_INVALID), TCONV_FATAL);
    /* A report on a call that still succeeded becomes a counted warning. */
    OTF2_Archive_Open(NULL, "traces", OTF2_FILEMODE_WRITE, 1 << 20, 4 << 20, OTF2_SUBSTRATE_POSIX,
                      OTF2_COMPRESSION_NONE);
    otf2_error_flush_warnings(&st);
    otf2_error_uninstall();
    fflush(stderr);
    dup2(saved, 2);
    close(saved);
    assert_int_equal(lseek(fileno(capture), 0, SEEK_END), 0);
    fclose(capture);
    size_t n;
    const char *const *chain = tconv_error_chain(ctx, &n);
    assert_int_equal(n, 1);
    assert_non_null(strstr(chain[0], "otf2: creating the archive failed: "));
    assert_non_null(strstr(chain[0], "INVALID_ARGUMENT"));
    assert_int_equal(tconv_warning_count(ctx, "otf2.library"), 1);
    tconv_harness_free(h);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(flow_start_end_across_tracks),
        cmocka_unit_test(flow_chain_with_steps),
        cmocka_unit_test(flow_end_stamped_before_start_still_pairs),
        cmocka_unit_test(flow_lone_ends_and_reused_ids),
        cmocka_unit_test(flow_classes_do_not_mix),
        cmocka_unit_test(varints_round_trip),
        cmocka_unit_test(map_holds_many_keys),
        cmocka_unit_test(args_as_json_text),
        cmocka_unit_test(library_errors_become_tconv_errors),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
