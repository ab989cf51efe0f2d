/* Unit tests of the pprof writer's building blocks: Python frame names, the hash index, stack
 * interning and value sums. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "pprof_agg.h"
#include "pprof_pyframe.h"
#include "pprof_stacks.h"

static void pprof_test_pyframe_parts(void **state)
{
    (void)state;
    const char *n = "torch/nn/modules/module.py(1194): _call_impl";
    pprof_pyframe py;
    assert_int_equal(pprof_pyframe_parse(n, strlen(n), &py), 1);
    assert_int_equal(py.path_len, strlen("torch/nn/modules/module.py"));
    assert_int_equal(py.line, 1194);
    assert_string_equal(n + py.func_off, "_call_impl");
    assert_int_equal(py.func_len, strlen("_call_impl"));
}

static void pprof_test_pyframe_first_match_wins(void **state)
{
    (void)state;
    /* A function name containing the pattern again keeps it. */
    const char *n = "a.py(3): f(4): g";
    pprof_pyframe py;
    assert_int_equal(pprof_pyframe_parse(n, strlen(n), &py), 1);
    assert_int_equal(py.path_len, 4);
    assert_int_equal(py.line, 3);
    assert_string_equal(n + py.func_off, "f(4): g");
}

static void pprof_test_pyframe_rejects(void **state)
{
    (void)state;
    static const char *const bad[] = {
        "aten::mm",
        "(12): f",             /* no path */
        "a.py(12): ",          /* no function */
        "a.py(): f",           /* no line */
        "a.py(12) f",          /* no colon */
        "a.py(12x): f",        /* not a number */
        "a.py(1234567890): f", /* too long for a line number */
        "nn.Module: Linear_0",
        "<built-in method add of type object at 0x7f>",
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        pprof_pyframe py;
        assert_int_equal(pprof_pyframe_parse(bad[i], strlen(bad[i]), &py), 0);
    }
}

static void pprof_test_index_many(void **state)
{
    (void)state;
    /* Colliding hashes and growth: every id stays findable. */
    pprof_index ix;
    pprof_index_init(&ix);
    for (uint32_t i = 0; i < 5000; i++) {
        pprof_index_cursor cur;
        pprof_index_start(&ix, &cur, i % 7);
        uint32_t id;
        while ((id = pprof_index_probe(&ix, &cur)) != PPROF_INDEX_NONE)
            assert_int_not_equal(id, i);
        assert_int_equal(pprof_index_insert_at(&ix, &cur, i), 0);
    }
    assert_int_equal(ix.count, 5000);
    for (uint32_t i = 0; i < 5000; i += 37) {
        pprof_index_cursor cur;
        pprof_index_start(&ix, &cur, i % 7);
        uint32_t id, found = 0;
        while ((id = pprof_index_probe(&ix, &cur)) != PPROF_INDEX_NONE)
            found += id == i;
        assert_int_equal(found, 1);
    }
    pprof_index_free(&ix);
}

static tconv_frame pprof_test_frame(tconv_str name, tconv_str module)
{
    tconv_frame f;
    memset(&f, 0, sizeof f);
    f.name = name;
    f.module = module;
    return f;
}

static void pprof_test_stacks_share_prefixes(void **state)
{
    (void)state;
    pprof_stacks st;
    pprof_stacks_init(&st);
    tconv_frame a[3] = {pprof_test_frame(1, 0), pprof_test_frame(2, 0), pprof_test_frame(3, 0)};
    tconv_frame b[2] = {pprof_test_frame(1, 0), pprof_test_frame(4, 0)};
    uint32_t n1 = pprof_stacks_intern(&st, a, 3);
    uint32_t n2 = pprof_stacks_intern(&st, b, 2);
    uint32_t n3 = pprof_stacks_intern(&st, a, 2);
    uint32_t n4 = pprof_stacks_intern(&st, a, 3);
    assert_int_equal(st.nframes, 4);
    assert_int_equal(st.nnodes, 4); /* 1, 1;2, 1;2;3, 1;4 */
    assert_int_equal(n4, n1);
    assert_int_equal(pprof_stacks_parent(&st, n1), n3);
    assert_int_equal(pprof_stacks_parent(&st, pprof_stacks_parent(&st, n2)), PPROF_NODE_ROOT);
    assert_int_equal(pprof_stacks_parent(&st, n3), pprof_stacks_parent(&st, n2));
    assert_int_equal(pprof_stacks_intern(&st, a, 0), PPROF_NODE_ROOT);
    pprof_stacks_free(&st);
}

static void pprof_test_stacks_frames_differ_by_every_field(void **state)
{
    (void)state;
    pprof_stacks st;
    pprof_stacks_init(&st);
    tconv_frame f[6];
    for (int i = 0; i < 6; i++)
        f[i] = pprof_test_frame(1, 2);
    f[1].module = 3;
    f[2].file = 4;
    f[3].line = 5;
    f[4].flags = TCONV_FRAME_KERNEL;
    f[5].addr = 0x1000;
    for (int i = 0; i < 6; i++)
        assert_int_equal(pprof_stacks_frame(&st, &f[i]), (uint32_t)i);
    for (int i = 0; i < 6; i++)
        assert_int_equal(pprof_stacks_frame(&st, &f[i]), (uint32_t)i);
    /* The prefix cache compares the same fields: a changed module below an equal name is a
     * new stack. */
    tconv_frame s1[2] = {f[0], f[0]}, s2[2] = {f[0], f[1]};
    uint32_t a = pprof_stacks_intern(&st, s1, 2);
    uint32_t b = pprof_stacks_intern(&st, s2, 2);
    assert_int_not_equal(a, b);
    assert_int_equal(pprof_stacks_parent(&st, a), pprof_stacks_parent(&st, b));
    pprof_stacks_free(&st);
}

static void pprof_test_agg_sums_in_first_seen_order(void **state)
{
    (void)state;
    pprof_agg ag;
    pprof_agg_init(&ag, 2);
    const int64_t v1[2] = {1, 100}, v2[2] = {1, 50};
    for (uint32_t i = 0; i < 1000; i++) {
        assert_int_equal(pprof_agg_add(&ag, i % 10, i % 3, v1), 0);
        assert_int_equal(pprof_agg_add(&ag, PPROF_NODE_ROOT, 0, v2), 0);
    }
    assert_int_equal(ag.count, 31); /* 30 (node, group) pairs plus the empty stack */
    assert_int_equal(ag.keys[0].node, 0);
    assert_int_equal(ag.keys[1].node, PPROF_NODE_ROOT);
    assert_int_equal(ag.values[1 * 2 + 0], 1000);
    assert_int_equal(ag.values[1 * 2 + 1], 50000);
    int64_t total = 0;
    for (uint32_t i = 0; i < ag.count; i++)
        total += ag.values[i * 2 + 1];
    assert_int_equal(total, 1000 * 150);
    pprof_agg_free(&ag);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(pprof_test_pyframe_parts),
        cmocka_unit_test(pprof_test_pyframe_first_match_wins),
        cmocka_unit_test(pprof_test_pyframe_rejects),
        cmocka_unit_test(pprof_test_index_many),
        cmocka_unit_test(pprof_test_stacks_share_prefixes),
        cmocka_unit_test(pprof_test_stacks_frames_differ_by_every_field),
        cmocka_unit_test(pprof_test_agg_sums_in_first_seen_order),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
