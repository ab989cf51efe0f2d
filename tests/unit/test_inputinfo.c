/* What the core keeps per input: its name, and the rank and time origin its metadata gives. */
#include "testutil.h"

/* A metadata event of an input, as the sink hands it to the core. */
static void meta(tconv_ctx *ctx, uint32_t input, const char *name, const char *text)
{
    tconv_event ev = TCONV_EVENT_INIT;
    ev.kind = TCONV_EV_METADATA;
    ev.name = tconv_string_intern_cstr(ctx, name);
    ev.text = tconv_string_intern_cstr(ctx, text);
    ev.input = input;
    tconv_inputinfo_apply_metadata(ctx, &ev);
}

static void rank_from_distributed_info_or_rank(void **state)
{
    (void)state;
    tconv_ctx *ctx = tconv_ctx_new();
    int64_t r = -1;
    meta(ctx, 0, "distributedInfo", "{\"backend\":\"nccl\",\"rank\":3,\"world_size\":8}");
    meta(ctx, 1, "distributedInfo",
         "{\"pg_config\":[{\"rank\":9}],\"name\":\"rank\", \"rank\" : 12 }");
    meta(ctx, 2, "rank", " 7 ");
    meta(ctx, 3, "distributedInfo", "{\"backend\":\"nccl\"}");
    meta(ctx, 3, "rank", "seven");
    meta(ctx, 3, "rank", "99999999999999999999"); /* out of range: no rank */
    /* A string value or another member's name is no rank, nor an out-of-range one. */
    meta(ctx, 5, "distributedInfo", "{\"rank\":\"zero\",\"ranks\":2}");
    meta(ctx, 6, "distributedInfo", "{\"rank\":99999999999999999999}");
    assert_true(tconv_ctx_rank(ctx, 0, &r));
    assert_int_equal(r, 3);
    assert_true(tconv_ctx_rank(ctx, 1, &r)); /* the outer level's, not a nested one */
    assert_int_equal(r, 12);
    assert_true(tconv_ctx_rank(ctx, 2, &r));
    assert_int_equal(r, 7);
    assert_false(tconv_ctx_rank(ctx, 3, &r));
    assert_false(tconv_ctx_rank(ctx, 4, &r));
    assert_false(tconv_ctx_rank(ctx, 5, &r));
    assert_false(tconv_ctx_rank(ctx, 6, &r));
    tconv_ctx_free(ctx);
}

static void time_origin_and_names(void **state)
{
    (void)state;
    tconv_ctx *ctx = tconv_ctx_new();
    int64_t t = 0;
    assert_int_equal(tconv_ctx_input_count(ctx), 0);
    tconv_inputinfo_set_name(ctx, 0, "dir/rank0.json.gz");
    tconv_inputinfo_set_name(ctx, 1, "<stdin>");
    meta(ctx, 1, "baseTimeNanoseconds", "1727740800000000000");
    meta(ctx, 0, "baseTimeNanoseconds", "soon");
    meta(ctx, 0, "process_name", "1"); /* names a process, not the input */
    assert_int_equal(tconv_ctx_input_count(ctx), 2);
    assert_string_equal(tconv_ctx_input_name(ctx, 0), "dir/rank0.json.gz");
    assert_string_equal(tconv_ctx_input_name(ctx, 1), "<stdin>");
    assert_null(tconv_ctx_input_name(ctx, 2));
    assert_false(tconv_ctx_time_origin(ctx, 0, &t));
    assert_true(tconv_ctx_time_origin(ctx, 1, &t));
    assert_int_equal(t, INT64_C(1727740800000000000));
    assert_false(tconv_ctx_rank(ctx, 0, &t));
    tconv_ctx_free(ctx);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(rank_from_distributed_info_or_rank),
        cmocka_unit_test(time_origin_and_names),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
