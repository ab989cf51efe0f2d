/* GPU attribution: the stack table, the matching of launch stacks to launches, and the stage
 * itself driven the way the sink drives it (notes at push time, then order, stack, flush). */
#include "stage_util.h"

static uint32_t T(tconv_ctx *ctx, const char *pid, const char *tid)
{
    return tconv_track_get(ctx, tconv_string_intern_cstr(ctx, pid),
                           tconv_string_intern_cstr(ctx, tid));
}

static tconv_frame F(tconv_ctx *ctx, const char *name)
{
    return (tconv_frame){.name = tconv_string_intern_cstr(ctx, name)};
}

static void stacks_share_prefixes(void **state)
{
    (void)state;
    tconv_ctx *ctx = tconv_ctx_new();
    tconv_stacktab t;
    tconv_stacktab_init(&t);
    tconv_frame a[] = {F(ctx, "main"), F(ctx, "f"), F(ctx, "g")};
    tconv_frame b[] = {F(ctx, "main"), F(ctx, "h")};
    uint32_t na = tconv_stacktab_intern(&t, a, 3);
    uint32_t nb = tconv_stacktab_intern(&t, b, 2);
    assert_int_equal(tconv_stacktab_intern(&t, a, 3), na);
    assert_int_equal(tconv_stacktab_intern(&t, a, 2), tconv_stacktab_intern(&t, a, 2));
    assert_int_equal(t.n, 4); /* main, f, g, h */
    assert_int_equal(tconv_stacktab_intern(&t, a, 0), TCONV_STACK_ROOT);
    tconv_frame out[3];
    assert_int_equal(tconv_stacktab_depth(&t, nb), 2);
    tconv_stacktab_frames(&t, nb, out);
    assert_int_equal(out[0].name, a[0].name);
    assert_int_equal(out[1].name, b[1].name);
    tconv_stacktab_frames(&t, na, out);
    assert_int_equal(out[2].name, a[2].name);
    tconv_stacktab_free(&t);
    tconv_ctx_free(ctx);
}

static tconv_match_item M(tconv_ctx *ctx, int64_t ts, const char *pid, const char *tid)
{
    return (tconv_match_item){ts, tconv_string_intern_cstr(ctx, pid),
                              tconv_string_intern_cstr(ctx, tid), 0};
}

static void match_by_order_per_thread(void **state)
{
    (void)state;
    tconv_ctx *ctx = tconv_ctx_new();
    /* Thread 2's launch comes first on the launch clock: pairing the whole process by order
     * would give it thread 1's first stack. */
    tconv_match_item s[] = {M(ctx, 100, "7", "1"), M(ctx, 300, "7", "1"), M(ctx, 200, "7", "2")};
    tconv_match_item l[] = {M(ctx, 1050, "7", "2"), M(ctx, 1100, "7", "1"), M(ctx, 1300, "7", "1")};
    tconv_match_stats st;
    tconv_match_launches(s, 3, l, 3, 0, &st);
    assert_int_equal(s[0].partner, 1);
    assert_int_equal(s[1].partner, 2);
    assert_int_equal(s[2].partner, 0);
    assert_int_equal(l[0].partner, 2);
    assert_int_equal(st.by_order, 3);
    assert_int_equal(st.by_time, 0);
    assert_true(st.have_offset);
    assert_int_equal(st.offset, 1000); /* the median of 850, 1000, 1000 */
    tconv_ctx_free(ctx);
}

static void match_falls_back_to_the_process(void **state)
{
    (void)state;
    tconv_ctx *ctx = tconv_ctx_new();
    /* CUPTI's thread id is the pthread handle: no tid matches, the pid does. */
    tconv_match_item s[] = {M(ctx, 10, "42", "42"), M(ctx, 20, "42", "42")};
    tconv_match_item l[] = {M(ctx, 5010, "42", "1402309"), M(ctx, 5020, "42", "1402309"),
                            M(ctx, 10, "43", "43")};
    tconv_match_stats st;
    tconv_match_launches(s, 2, l, 3, 0, &st);
    assert_int_equal(s[0].partner, 0);
    assert_int_equal(s[1].partner, 1);
    assert_int_equal(l[2].partner, UINT32_MAX); /* another process: never a partner */
    assert_int_equal(st.by_order, 2);
    tconv_ctx_free(ctx);
}

static void match_by_time_aligns_the_clocks(void **state)
{
    (void)state;
    tconv_ctx *ctx = tconv_ctx_new();
    /* Five stacks, four launches, clocks 3 s apart, the probe up to 150 ns early. Stack 2 is
     * 10 µs from the nearest launch and stack 4 far from any. */
    const int64_t off = 3000000000;
    tconv_match_item s[] = {M(ctx, 2000000150, "9", "9"), M(ctx, 2000040600, "9", "9"),
                            M(ctx, 2000070000, "9", "9"), M(ctx, 2000090300, "9", "9"),
                            M(ctx, 2000200000, "9", "9")};
    tconv_match_item l[] = {M(ctx, 2000000000 + off, "9", "9"), M(ctx, 2000040500 + off, "9", "9"),
                            M(ctx, 2000060000 + off, "9", "9"), M(ctx, 2000090250 + off, "9", "9")};
    tconv_match_stats st;
    tconv_match_launches(s, 5, l, 4, 2000, &st);
    assert_int_equal(st.by_order, 0);
    assert_int_equal(st.by_time, 3);
    assert_int_equal(s[0].partner, 0);
    assert_int_equal(s[1].partner, 1);
    assert_int_equal(s[2].partner, UINT32_MAX);
    assert_int_equal(s[3].partner, 3);
    assert_int_equal(s[4].partner, UINT32_MAX);
    assert_int_equal(l[2].partner, UINT32_MAX);
    assert_true(st.offset > off - 200 && st.offset < off);
    /* A wider tolerance lets stack 2 take the launch 10 µs away, never one another stack is
     * nearer to. */
    tconv_match_launches(s, 5, l, 4, 1000000, &st);
    assert_int_equal(st.by_time, 4);
    assert_int_equal(s[2].partner, 2);
    assert_int_equal(s[3].partner, 3);
    assert_int_equal(s[4].partner, UINT32_MAX);
    tconv_ctx_free(ctx);
}

static void match_nothing_to_match(void **state)
{
    (void)state;
    tconv_ctx *ctx = tconv_ctx_new();
    tconv_match_item s[] = {M(ctx, 1, "1", "1")};
    tconv_match_stats st;
    tconv_match_launches(s, 1, NULL, 0, 1000, &st);
    assert_int_equal(s[0].partner, UINT32_MAX);
    assert_int_equal(st.by_order + st.by_time, 0);
    tconv_ctx_free(ctx);
}

/* ---- the stage -------------------------------------------------------------------------- */

typedef struct gpu_run {
    tconv_ctx *ctx;
    tconv_gpu *gpu;
    tconv_order *order;
    tconv_arg args[16];
    size_t nargs;
} gpu_run;

/* Push as the sink does: role and correlation id filled in and noted, then the ordering stage
 * keeps no args. */
static void push(gpu_run *r, tconv_event e, const char *cat, int64_t corr)
{
    e.cat = tconv_string_intern_cstr(r->ctx, cat);
    if (corr) {
        tconv_arg *a = &r->args[r->nargs++];
        *a = (tconv_arg){
            tconv_string_intern_cstr(r->ctx, "correlation"), TCONV_ARG_INT, {.i = corr}};
        e.args = a;
        e.nargs = 1;
    }
    tconv_role_fill(r->ctx, &e);
    tconv_gpu_note_span(r->gpu, &e);
    tconv_order_add(r->order, &e);
}

static tconv_event flow(tconv_ctx *ctx, uint32_t track, int kind, int64_t ts, uint64_t id,
                        int enclosing)
{
    tconv_event e = mk(ctx, track, kind, ts, 0, "ac2g");
    e.id = id;
    e.flags = enclosing ? TCONV_EVF_BIND_ENCLOSING : TCONV_EVF_BIND_NEXT;
    return e;
}

/* rec_emit prints values[1] (0 for GPU samples); the GPU time is values[2]. */
typedef struct gpu_rec {
    rec r;
    int64_t gpu_total;
    int bad_nvalues;
} gpu_rec;

static tconv_status gpu_rec_emit(void *user, const tconv_event *ev)
{
    gpu_rec *g = user;
    if (ev->kind == TCONV_EV_SAMPLE) {
        if (ev->nvalues != 3) g->bad_nvalues = 1;
        g->gpu_total += ev->values[2];
    }
    return rec_emit(&g->r, ev);
}

static void stage_attributes_by_correlation_and_flow(void **state)
{
    (void)state;
    gpu_run r = {0};
    r.ctx = tconv_ctx_new();
    r.gpu = tconv_gpu_new(r.ctx);
    r.order = tconv_order_new(r.ctx, 0);
    /* The GPU stream is created first, so it is walked before the thread that feeds it. */
    uint32_t gpu = T(r.ctx, "0", "7"), cpu = T(r.ctx, "100", "100");
    tconv_track_set_kind(r.ctx, gpu, TCONV_TRACK_GPU);
    push(&r, mk(r.ctx, gpu, TCONV_EV_COMPLETE, 200, 100, "## fwd ##"), "gpu_user_annotation", 0);
    /* Outlives the annotation: on a GPU stream it goes to a second lane, whole (150). */
    push(&r, mk(r.ctx, gpu, TCONV_EV_COMPLETE, 210, 150, "sgemm"), "kernel", 1);
    push(&r, mk(r.ctx, gpu, TCONV_EV_COMPLETE, 400, 1, "tiny"), "kernel", 2);
    push(&r, mk(r.ctx, gpu, TCONV_EV_COMPLETE, 500, 7, "flowed"), "gpu_memcpy", 0);
    tconv_event f = flow(r.ctx, gpu, TCONV_EV_FLOW_END, 500, 77, 1);
    tconv_order_add(r.order, &f);
    push(&r, mk(r.ctx, gpu, TCONV_EV_COMPLETE, 600, 10, "orphan"), "kernel", 99);

    push(&r, mk(r.ctx, cpu, TCONV_EV_COMPLETE, 0, 1000, "main"), "python_function", 0);
    push(&r, mk(r.ctx, cpu, TCONV_EV_COMPLETE, 100, 50, "op"), "cpu_op", 0);
    push(&r, mk(r.ctx, cpu, TCONV_EV_COMPLETE, 110, 10, "cudaLaunchKernel"), "cuda_runtime", 1);
    push(&r, mk(r.ctx, cpu, TCONV_EV_COMPLETE, 160, 5, "cudaLaunchKernel"), "cuda_runtime", 2);
    push(&r, mk(r.ctx, cpu, TCONV_EV_COMPLETE, 170, 10, "cudaMemcpyAsync"), "cuda_runtime", 0);
    f = flow(r.ctx, cpu, TCONV_EV_FLOW_START, 170, 77, 1);
    tconv_order_add(r.order, &f);

    gpu_rec g;
    memset(&g, 0, sizeof(g));
    g.r.ctx = r.ctx;
    tconv_stack *s = tconv_stack_new(r.ctx, gpu_rec_emit, &g);
    tconv_stack_attach_gpu(s, r.gpu);
    assert_int_equal(tconv_order_flush(r.order, tconv_stack_event, s), TCONV_OK);
    tconv_stack_free(s);
    /* CPU self time is unchanged, with a third value of 0. */
    assert_int_equal(g.gpu_total, 0);
    assert_false(g.bad_nvalues);
    assert_int_equal(g.r.wall_sum, 100 + 150 + 1 + 7 + 10 + 1000);
    memset(&g, 0, sizeof(g));
    g.r.ctx = r.ctx;
    assert_int_equal(tconv_gpu_flush(r.gpu), TCONV_OK);
    /* sgemm's lane is walked after the stream itself. */
    assert_string_equal(g.r.text, "T1 P400 tiny [main;cudaLaunchKernel;[gpu] tiny] 0 | "
                                  "T1 P500 flowed [main;cudaMemcpyAsync;[gpu] flowed] 0 | "
                                  "T1 P210 sgemm [main;op;cudaLaunchKernel;[gpu] sgemm] 0");
    assert_int_equal(g.gpu_total, 150 + 1 + 7);
    assert_int_equal(tconv_warning_count(r.ctx, "gpu.uncorrelated"), 1);
    tconv_order_free(r.order);
    tconv_gpu_free(r.gpu);
    tconv_ctx_free(r.ctx);
}

static void stage_puts_launch_stacks_in_front(void **state)
{
    (void)state;
    gpu_run r = {0};
    r.ctx = tconv_ctx_new();
    r.gpu = tconv_gpu_new(r.ctx);
    r.order = tconv_order_new(r.ctx, 0);
    /* Input 0: a stack sampled at the launch call, on the probe's clock. */
    tconv_launchstacks_declare(r.ctx, 1000);
    uint32_t probe = T(r.ctx, "5", "5");
    tconv_frame fr[] = {F(r.ctx, "main"), F(r.ctx, "step"), F(r.ctx, "cudaLaunchKernel")};
    tconv_event smp = mk(r.ctx, probe, TCONV_EV_SAMPLE, 1000, 0, "");
    smp.frames = fr;
    smp.nframes = 3;
    assert_true(tconv_gpu_take_stack(r.gpu, &smp));
    /* Input 1: the tracer's launch record and kernel, 1 ms later on its clock. */
    tconv_ctx_set_input(r.ctx, 1);
    uint32_t cpu = T(r.ctx, "5", "140230"), gpu = T(r.ctx, "Device_0", "Stream7");
    push(&r, mk(r.ctx, cpu, TCONV_EV_COMPLETE, 1001000, 4, "Runtime: cudaLaunchKernel"),
         "CUDA_Runtime", 3);
    tconv_event k = mk(r.ctx, gpu, TCONV_EV_COMPLETE, 1001010, 3, "Kernel: vadd");
    k.input = 1;
    push(&r, k, "GPU_Kernel", 3);
    smp.input = 1; /* samples of an input that declared nothing are ordinary samples */
    assert_false(tconv_gpu_take_stack(r.gpu, &smp));

    gpu_rec g;
    memset(&g, 0, sizeof(g));
    g.r.ctx = r.ctx;
    tconv_stack *s = tconv_stack_new(r.ctx, gpu_rec_emit, &g);
    tconv_stack_attach_gpu(s, r.gpu);
    assert_int_equal(tconv_order_flush(r.order, tconv_stack_event, s), TCONV_OK);
    tconv_stack_free(s);
    memset(&g, 0, sizeof(g));
    g.r.ctx = r.ctx;
    assert_int_equal(tconv_gpu_flush(r.gpu), TCONV_OK);
    /* On the probe's thread, the sampled stack, then the trace's own, then the kernel. */
    assert_string_equal(g.r.text, "T0 P1001010 Kernel: vadd "
                                  "[main;step;cudaLaunchKernel;Runtime: cudaLaunchKernel;"
                                  "[gpu] vadd] 0");
    assert_int_equal(g.gpu_total, 3);
    tconv_order_free(r.order);
    tconv_gpu_free(r.gpu);
    tconv_ctx_free(r.ctx);
}

static void stage_emits_once_the_launch_is_known(void **state)
{
    (void)state;
    gpu_run r = {0};
    r.ctx = tconv_ctx_new();
    r.gpu = tconv_gpu_new(r.ctx);
    r.order = tconv_order_new(r.ctx, 0);
    /* The thread comes first: its kernel is emitted as the stream is walked, not held. */
    uint32_t cpu = T(r.ctx, "1", "1"), gpu = T(r.ctx, "1", "stream 7");
    push(&r, mk(r.ctx, cpu, TCONV_EV_COMPLETE, 0, 10, "cudaLaunchKernel"), "cuda_runtime", 4);
    push(&r, mk(r.ctx, gpu, TCONV_EV_COMPLETE, 20, 5, "k1"), "kernel", 4);
    push(&r, mk(r.ctx, gpu, TCONV_EV_COMPLETE, 30, 5, "k2"), "kernel", 4);
    gpu_rec g;
    memset(&g, 0, sizeof(g));
    g.r.ctx = r.ctx;
    tconv_stack *s = tconv_stack_new(r.ctx, gpu_rec_emit, &g);
    tconv_stack_attach_gpu(s, r.gpu);
    assert_int_equal(tconv_order_flush(r.order, tconv_stack_event, s), TCONV_OK);
    tconv_stack_free(s);
    assert_string_equal(g.r.text, "T0 P0 cudaLaunchKernel [cudaLaunchKernel] 10 | "
                                  "T0 P20 k1 [cudaLaunchKernel;[gpu] k1] 0 | T1 P20 k1 [k1] 5 | "
                                  "T0 P30 k2 [cudaLaunchKernel;[gpu] k2] 0 | T1 P30 k2 [k2] 5");
    assert_int_equal(g.gpu_total, 10);
    memset(&g, 0, sizeof(g));
    g.r.ctx = r.ctx;
    assert_int_equal(tconv_gpu_flush(r.gpu), TCONV_OK);
    assert_int_equal(g.r.len, 0);
    assert_int_equal(tconv_warning_count(r.ctx, "gpu.none"), 0);
    tconv_order_free(r.order);
    tconv_gpu_free(r.gpu);
    tconv_ctx_free(r.ctx);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(stacks_share_prefixes),
        cmocka_unit_test(match_by_order_per_thread),
        cmocka_unit_test(match_falls_back_to_the_process),
        cmocka_unit_test(match_by_time_aligns_the_clocks),
        cmocka_unit_test(match_nothing_to_match),
        cmocka_unit_test(stage_attributes_by_correlation_and_flow),
        cmocka_unit_test(stage_puts_launch_stacks_in_front),
        cmocka_unit_test(stage_emits_once_the_launch_is_known),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
