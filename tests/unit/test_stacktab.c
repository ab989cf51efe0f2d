/* The public stack table: shared prefixes, dense ids, the joined text, and the text order that
 * folded output depends on, checked against strcmp over the joined stacks. */
#include "testutil.h"

static tconv_frame F(tconv_ctx *ctx, const char *name)
{
    return (tconv_frame){.name = tconv_string_intern_cstr(ctx, name)};
}

static void prefixes_are_shared(void **state)
{
    (void)state;
    tconv_ctx *ctx = tconv_ctx_new();
    tconv_stacktab *t = tconv_stacktab_new();
    enum { DEPTH = 30000 };
    tconv_frame *fr = calloc(DEPTH, sizeof(*fr));
    uint32_t last = TCONV_STACK_ROOT;
    /* Every prefix of one deep stack, as the stack stage hands them over: a node per level. */
    for (size_t d = 1; d <= DEPTH; d++) {
        char name[16];
        snprintf(name, sizeof(name), "f%zu", d);
        fr[d - 1] = F(ctx, name);
        uint32_t node = tconv_stacktab_intern(t, fr, d);
        assert_int_equal(tconv_stacktab_parent(t, node), last);
        assert_int_equal(tconv_stacktab_depth(t, node), d);
        last = node;
    }
    assert_int_equal(tconv_stacktab_count(t), DEPTH);
    assert_int_equal(tconv_stacktab_intern(t, fr, 0), TCONV_STACK_ROOT);
    assert_int_equal(tconv_stacktab_intern(t, fr, DEPTH), last);
    assert_int_equal(tconv_stacktab_child(t, tconv_stacktab_parent(t, last), &fr[DEPTH - 1]), last);
    tconv_frame *back = calloc(DEPTH, sizeof(*back));
    tconv_stacktab_frames(t, last, back);
    assert_memory_equal(back, fr, DEPTH * sizeof(*fr));
    /* A frame that differs in any field is another node. */
    tconv_frame other = fr[0];
    other.line = 7;
    assert_int_not_equal(tconv_stacktab_intern(t, &other, 1), tconv_stacktab_intern(t, fr, 1));
    free(back);
    free(fr);
    tconv_stacktab_destroy(t);
    tconv_ctx_free(ctx);
}

static void join_reports_the_length(void **state)
{
    (void)state;
    tconv_ctx *ctx = tconv_ctx_new();
    tconv_stacktab *t = tconv_stacktab_new();
    tconv_frame fr[3] = {F(ctx, "main"), F(ctx, ""), F(ctx, "leaf")};
    uint32_t node = tconv_stacktab_intern(t, fr, 3);
    char buf[32];
    assert_int_equal(tconv_stacktab_join(t, ctx, node, ';', buf, sizeof(buf)), 10);
    assert_string_equal(buf, "main;;leaf");
    assert_int_equal(tconv_stacktab_join(t, ctx, node, ';', buf, 10), 10);
    assert_string_equal(buf, "");
    assert_int_equal(tconv_stacktab_join(t, ctx, node, ';', NULL, 0), 10);
    assert_int_equal(tconv_stacktab_join(t, ctx, TCONV_STACK_ROOT, ';', buf, sizeof(buf)), 0);
    assert_string_equal(buf, "");
    tconv_stacktab_destroy(t);
    tconv_ctx_free(ctx);
}

static char **sort_texts;

static int by_text(const void *a, const void *b)
{
    return strcmp(sort_texts[*(const uint32_t *)a], sort_texts[*(const uint32_t *)b]);
}

/* Random stacks over names that are prefixes of one another and hold bytes on both sides of
 * ';' (':' and '!' below it, letters above): the cases where sorting sibling names alone goes
 * wrong. */
static void sort_is_the_joined_text_order(void **state)
{
    (void)state;
    static const char *const names[] = {"a", "a:", "a!", "ab", "b", "", "a:b", "~", "a b"};
    enum { NNAMES = sizeof(names) / sizeof(names[0]), ROUNDS = 20, STACKS = 400 };
    uint64_t seed = 0x2545F4914F6CDD1Dull;
    for (int round = 0; round < ROUNDS; round++) {
        tconv_ctx *ctx = tconv_ctx_new();
        tconv_stacktab *t = tconv_stacktab_new();
        for (int s = 0; s < STACKS; s++) {
            tconv_frame fr[6];
            seed = seed * 6364136223846793005ull + 1442695040888963407ull;
            size_t depth = 1 + (size_t)(seed >> 60) % 6;
            for (size_t d = 0; d < depth; d++) {
                seed = seed * 6364136223846793005ull + 1442695040888963407ull;
                fr[d] = F(ctx, names[(seed >> 40) % NNAMES]);
            }
            tconv_stacktab_intern(t, fr, depth);
        }
        uint32_t n = tconv_stacktab_count(t);
        sort_texts = calloc(n, sizeof(*sort_texts));
        uint32_t *want = calloc(n, sizeof(*want)), *got = calloc(n, sizeof(*got));
        for (uint32_t x = 0; x < n; x++) {
            size_t len = tconv_stacktab_join(t, ctx, x, ';', NULL, 0);
            sort_texts[x] = malloc(len + 1);
            tconv_stacktab_join(t, ctx, x, ';', sort_texts[x], len + 1);
            want[x] = x;
        }
        qsort(want, n, sizeof(*want), by_text);
        tconv_stacktab_sort(t, ctx, ';', got);
        for (uint32_t i = 0; i < n; i++)
            if (got[i] != want[i])
                fail_msg("round %d, position %u: got '%s', want '%s'", round, i, sort_texts[got[i]],
                         sort_texts[want[i]]);
        for (uint32_t x = 0; x < n; x++)
            free(sort_texts[x]);
        free(sort_texts);
        free(want);
        free(got);
        tconv_stacktab_destroy(t);
        tconv_ctx_free(ctx);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(prefixes_are_shared),
        cmocka_unit_test(join_reports_the_length),
        cmocka_unit_test(sort_is_the_joined_text_order),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
