/* The checks of an input against the inputs before it (core/pipeline/inputcheck.c), made as one
 * process makes them and as an MPI run whose writer runs on every rank makes them: each rank over
 * its own inputs, with a log, and rank 0 again over every rank's log in input order. For every way
 * of giving the inputs to 1, 2 or 3 ranks, the run fails or not as one process does, with the
 * same message and hint: sample types that differ, a profile writer's spans against samples
 * (in either order within an input), sample types an input inherits from an earlier one, the
 * hint of launch stacks, and a rank whose own inputs fail otherwise than the run's. */
#include "testutil.h"

#include "inputcheck.h"

static const tconv_sample_type TYPES_A[] = {{"samples", "count"}};
static const tconv_sample_type TYPES_B[] = {{"samples", "count"}, {"cycles", "count"}};

/* An input: what its reader does, in order. A, B: declares sample types A or B; C: the stack
 * stage's types (what spans become); L: declares launch stacks; s: a sample; p: a span; x:
 * fails to read (the input is malformed). */
typedef struct scenario {
    const char *what;
    int stacks;
    const char *inputs[5];
} scenario;

static const scenario SCENARIOS[] = {
    {"types differ", 1, {"As", "Bs"}},
    {"types differ, otf2", 0, {"As", "Bs", "As"}},
    {"a rank's own conflict is not the run's", 0, {"As", "Bs", "As", "Bs"}},
    {"spans, then samples", 1, {"p", "As"}},
    {"samples, then spans", 1, {"As", "", "p"}},
    {"spans and samples in one input, spans first", 1, {"As", "pBs"}},
    {"spans and samples in one input, samples first", 1, {"As", "Bsp"}},
    {"spans and samples in one input, alone", 1, {"pAs", "p", "ps"}},
    {"spans and samples of the stack types", 1, {"p", "Cs", "p"}},
    {"spans and samples, otf2", 0, {"p", "As", "p"}},
    {"inherited types", 0, {"A", "s", "Bs"}},
    {"inherited types, same", 0, {"B", "s", "Bs", "s"}},
    {"no declared types", 0, {"s", "As"}},
    {"types declared after the first sample", 0, {"As", "sB", "s", "Bs"}},
    {"launch stacks hint", 1, {"LAs", "p"}},
    {"launch stacks declared late", 1, {"AsL", "", "p"}},
    {"all agree", 1, {"p", "Cs", "Cs", "p"}},
    {"types differ, then a read fails", 0, {"As", "Bsx", "x"}},
    {"a read fails, then types differ", 0, {"As", "xBs", "Bs"}},
    {"a read fails before another rank's conflict", 1, {"Asx", "p", "Bs"}},
};

typedef struct outcome {
    int failed;
    char msg[2048];
} outcome;

static void outcome_take(outcome *o, const tconv_ctx *ctx)
{
    size_t n;
    const char *const *chain = tconv_error_chain(ctx, &n);
    const char *hint = tconv_error_hint_get(ctx);
    o->failed = 1;
    snprintf(o->msg, sizeof(o->msg), "%s | %s", n ? chain[n - 1] : "?", hint ? hint : "");
}

/* One input's reader; -1 when a check failed (its error on ctx). */
static int read_input(tconv_inputcheck *c, tconv_ctx *ctx, uint32_t index, const char *name,
                      const char *ops)
{
    tconv_ctx_set_input(ctx, index);
    for (const char *op = ops; *op; op++) {
        tconv_status st = TCONV_OK;
        switch (*op) {
        case 'A':
            tconv_sampletypes_set(ctx, 1, TYPES_A, 0);
            break;
        case 'B':
            tconv_sampletypes_set(ctx, 2, TYPES_B, 1);
            break;
        case 'C':
            tconv_sampletypes_set(ctx, 2, tconv_stack_sample_types, 1);
            break;
        case 'L':
            tconv_launchstacks_declare(ctx, 0);
            break;
        case 'x':
            tconv_error_set(ctx, "%s: cut off", name);
            return -1;
        case 's':
            /* as the sink asks */
            if (tconv_inputcheck_wants_sample(c, index))
                st = tconv_inputcheck_sample(c, ctx, index, name,
                                             ctx->nstypes && ctx->stypes_input == index);
            break;
        case 'p':
            if (tconv_inputcheck_wants_span(c)) st = tconv_inputcheck_span(c, ctx, index, name);
            break;
        }
        if (st != TCONV_OK) return -1;
    }
    return 0;
}

static size_t count_inputs(const scenario *sc)
{
    size_t n = 0;
    while (n < 5 && sc->inputs[n])
        n++;
    return n;
}

static outcome one_process(const scenario *sc)
{
    outcome o = {0};
    tconv_ctx *ctx = tconv_ctx_new();
    tconv_inputcheck *c = tconv_inputcheck_new("folded", sc->stacks, 0);
    for (size_t k = 0; k < count_inputs(sc); k++) {
        char name[16];
        snprintf(name, sizeof(name), "in%zu", k);
        if (read_input(c, ctx, (uint32_t)k, name, sc->inputs[k]) < 0) {
            outcome_take(&o, ctx);
            break;
        }
    }
    tconv_inputcheck_free(c);
    tconv_ctx_free(ctx);
    return o;
}

/* Input k on rank owner[k]: each rank reads its own in order, logging, stopping at its first
 * failed read; rank 0 replays the logs up to the earliest failure, which is the run's unless
 * the replay fails first (as core/run/run.c decides). */
static outcome ranks(const scenario *sc, int nranks, const int *owner)
{
    outcome o = {0};
    size_t n = count_inputs(sc);
    tconv_ctx *ctx[3];
    tconv_wire w[3] = {{0}};
    uint64_t fail_pos[3];
    for (int q = 0; q < nranks; q++) {
        ctx[q] = tconv_ctx_new();
        tconv_inputcheck *c = tconv_inputcheck_new("folded", sc->stacks, 0);
        tconv_inputcheck_log_start(c);
        uint32_t pos[5], local = 0;
        fail_pos[q] = UINT64_MAX;
        for (size_t k = 0; k < n; k++) {
            if (owner[k] != q) continue;
            char name[16];
            snprintf(name, sizeof(name), "in%zu", k);
            pos[local] = (uint32_t)k;
            if (read_input(c, ctx[q], local, name, sc->inputs[k]) < 0) {
                fail_pos[q] = k;
                local++;
                break;
            }
            tconv_inputcheck_input_end(c, ctx[q], local++);
        }
        tconv_inputcheck_log_encode(c, pos, local, &w[q]);
        tconv_inputcheck_free(c);
    }
    int first = -1;
    for (int q = 0; q < nranks; q++)
        if (fail_pos[q] != UINT64_MAX && (first < 0 || fail_pos[q] < fail_pos[first])) first = q;
    tconv_inputcheck_log *log = tconv_inputcheck_log_new();
    for (int q = 0; q < nranks; q++) {
        tconv_inputcheck_log_decode(log, &w[q]);
        assert_false(w[q].bad);
        assert_int_equal(w[q].pos, w[q].len);
    }
    tconv_ctx *scratch = tconv_ctx_new();
    tconv_inputcheck *like = tconv_inputcheck_new("folded", sc->stacks, 0);
    uint64_t at = 0;
    if (tconv_inputcheck_replay(like, scratch, log, first >= 0 ? fail_pos[first] : UINT64_MAX,
                                &at) != TCONV_OK) {
        outcome_take(&o, scratch);
        assert_true(first < 0 || at <= fail_pos[first]);
    } else if (first >= 0) {
        outcome_take(&o, ctx[first]);
    }
    tconv_inputcheck_free(like);
    tconv_inputcheck_log_free(log);
    tconv_ctx_free(scratch);
    for (int q = 0; q < nranks; q++) {
        free(w[q].p);
        tconv_ctx_free(ctx[q]);
    }
    return o;
}

static void every_split(void **state)
{
    (void)state;
    int conflicts = 0, local_differs = 0;
    for (size_t i = 0; i < sizeof(SCENARIOS) / sizeof(SCENARIOS[0]); i++) {
        const scenario *sc = &SCENARIOS[i];
        outcome want = one_process(sc);
        conflicts += want.failed;
        size_t n = count_inputs(sc);
        for (int nranks = 1; nranks <= 3; nranks++) {
            int splits = 1;
            for (size_t k = 0; k < n; k++)
                splits *= nranks;
            for (int split = 0; split < splits; split++) {
                int owner[5];
                for (size_t k = 0, v = (size_t)split; k < n; k++, v /= (size_t)nranks)
                    owner[k] = (int)(v % (size_t)nranks);
                outcome got = ranks(sc, nranks, owner);
                if (got.failed != want.failed || strcmp(got.msg, want.msg) != 0)
                    fail_msg("%s, %d ranks, split %d: got %s'%s', one process %s'%s'", sc->what,
                             nranks, split, got.failed ? "failure " : "success ", got.msg,
                             want.failed ? "failure " : "success ", want.msg);
            }
        }
        /* The scenario that a rank's own inputs fail otherwise is there: in0 on rank 0, the
         * rest on rank 1, rank 1 alone says in1 and in2 differ; the run, in0 and in1. */
        if (i == 2) {
            int owner[4] = {0, 1, 1, 1};
            tconv_ctx *ctx = tconv_ctx_new();
            tconv_inputcheck *c = tconv_inputcheck_new("otf2", 0, 0);
            assert_int_equal(read_input(c, ctx, 0, "in1", sc->inputs[1]), 0);
            size_t nchain;
            local_differs = read_input(c, ctx, 1, "in2", sc->inputs[2]) < 0 &&
                            strstr(tconv_error_chain(ctx, &nchain)[0], "'in1' and 'in2'") &&
                            strstr(ranks(sc, 2, owner).msg, "'in0' and 'in1'");
            tconv_inputcheck_free(c);
            tconv_ctx_free(ctx);
        }
    }
    assert_true(conflicts >= 13);
    assert_true(local_differs);
}

/* The messages themselves, as the sink has always made them. */
static void messages(void **state)
{
    (void)state;
    const scenario types = {"", 0, {"As", "Bs"}}, spans = {"", 1, {"LAs", "p"}};
    outcome o = one_process(&types);
    assert_string_equal(o.msg, "inputs 'in0' and 'in1' have different sample types "
                               "(samples/count; samples/count, cycles/count): one output cannot "
                               "hold both without mixing units | convert them separately");
    o = one_process(&spans);
    assert_non_null(strstr(o.msg, "input 'in1' has spans, which the folded writer gets as "
                                  "samples of samples/count, wall/nanoseconds, and input 'in0' "
                                  "has stack samples of samples/count: one output cannot hold "
                                  "both without mixing units | these are stacks sampled at GPU "
                                  "launch calls"));
}

/* A log cut short or altered is refused, never read past its end. */
static void malformed(void **state)
{
    (void)state;
    const scenario sc = {"", 1, {"pAs", "Bs"}};
    tconv_ctx *ctx = tconv_ctx_new();
    tconv_inputcheck *c = tconv_inputcheck_new("folded", 1, 0);
    tconv_inputcheck_log_start(c);
    read_input(c, ctx, 0, "in0", sc.inputs[0]);
    tconv_inputcheck_input_end(c, ctx, 0);
    uint32_t pos[1] = {0};
    tconv_wire w = {0};
    tconv_inputcheck_log_encode(c, pos, 1, &w);
    for (size_t cut = 0; cut < w.len; cut++) {
        tconv_wire x = {.p = w.p, .len = cut};
        tconv_inputcheck_log *log = tconv_inputcheck_log_new();
        tconv_inputcheck_log_decode(log, &x);
        assert_true(x.bad);
        tconv_inputcheck_log_free(log);
    }
    free(w.p);
    tconv_inputcheck_free(c);
    tconv_ctx_free(ctx);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(every_split),
        cmocka_unit_test(messages),
        cmocka_unit_test(malformed),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
