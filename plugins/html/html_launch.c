/* Which operators launched each kernel: every kernel's correlation id, looked up at the end in
 * the ops analysis (csv_ops_launcher: the operator its device time is charged to), summed per
 * (kernel name, operator). The kernels table shows, per kernel name, the operator with the most
 * of its time and lists the others in the cell's title.
 *
 * The same lookup gives the GPU flame graph: each kernel, memcpy and memset whose launch is
 * known, with its duration, on the call path of operators around its launch (the ops table's
 * op tree, outermost first) and a "[gpu] name" leaf, as `-W value=gpu` names it. */
#include <stdlib.h>
#include <string.h>

#include "csv_sat.h"
#include "flamegraph_colour.h"
#include "flamegraph_tree.h"
#include "html_writer.h"

void html_launch_span(html_writer *w, const tconv_span *s)
{
    csv_role role = csv_kineto_role(&w->kineto, s->role, s->cat);
    if (!csv_role_is_device(role)) return;
    TCONV_ARRAY_GROW(w->calls, w->calls_cap, w->ncalls + 1);
    w->calls[w->ncalls++] =
        (html_kernel_call){(int64_t)s->corr, s->dur, s->input, s->name, (uint8_t)role};
}

static const tconv_ctx *html_launch_ctx;

static int html_launch_strcmp(tconv_str a, tconv_str b)
{
    if (a == b) return 0;
    size_t la = tconv_string_length(html_launch_ctx, a),
           lb = tconv_string_length(html_launch_ctx, b);
    int c = memcmp(tconv_string_get(html_launch_ctx, a), tconv_string_get(html_launch_ctx, b),
                   la < lb ? la : lb);
    return c ? c : (la > lb) - (la < lb);
}

/* By kernel, then time (most first), then operator name. */
static int html_launch_cmp(const void *pa, const void *pb)
{
    const html_kernel_op *a = pa, *b = pb;
    if (a->kernel != b->kernel) return a->kernel < b->kernel ? -1 : 1;
    if (a->total != b->total) return a->total > b->total ? -1 : 1;
    return html_launch_strcmp(a->op, b->op);
}

/* One piece of device work on the operators around its launch, outermost first. */
static void html_launch_gpu(html_writer *w, const html_kernel_call *c, uint32_t chain,
                            tconv_str **names, uint8_t **hues, size_t *cap, size_t *hcap)
{
    size_t depth = 1;
    for (uint32_t x = chain; x; depth++) {
        tconv_str name, cat;
        x = csv_ops_chain_step(w->ops, x, &name, &cat);
    }
    TCONV_ARRAY_GROW(*names, *cap, depth);
    TCONV_ARRAY_GROW(*hues, *hcap, depth);
    size_t k = depth - 1;
    for (uint32_t x = chain; x;) {
        tconv_str cat;
        x = csv_ops_chain_step(w->ops, x, &(*names)[--k], &cat);
        (*hues)[k] = FLAMEGRAPH_HUE_CPU;
        if (w->step_frames) tconv_steps_name(w->step_frames, (*names)[k], &(*names)[k], NULL);
    }
    w->tmp.len = 0;
    csv_buf_cstr(&w->tmp, "[gpu] ");
    csv_buf_put(&w->tmp, tconv_string_get(w->ctx, c->name), tconv_string_length(w->ctx, c->name));
    (*names)[depth - 1] = tconv_string_intern(w->ctx, w->tmp.p, w->tmp.len);
    (*hues)[depth - 1] = c->role == CSV_ROLE_KERNEL   ? FLAMEGRAPH_HUE_KERNEL
                         : c->role == CSV_ROLE_MEMCPY ? FLAMEGRAPH_HUE_MEMCPY
                                                      : FLAMEGRAPH_HUE_MEMSET;
    if (c->dur > 0) flamegraph_tree_add(w->gpu_tree, *names, *hues, depth, c->dur, 0);
}

void html_launch_finish(html_writer *w)
{
    const html_kernel_call *c = w->calls;
    tconv_map index = {0};
    html_kernel_op *ops = NULL;
    size_t n = 0, cap = 0, ncap = 0, hcap = 0;
    tconv_str *names = NULL;
    uint8_t *hues = NULL;
    w->gpu_tree = flamegraph_tree_new(tconv_string_intern_cstr(w->ctx, "all"), 0);
    for (size_t i = 0; i < w->ncalls; i++) {
        uint32_t chain = 0;
        if (c[i].corr && csv_ops_launch_chain(w->ops, c[i].input, c[i].corr, &chain))
            html_launch_gpu(w, &c[i], chain, &names, &hues, &ncap, &hcap);
        if (c[i].role != CSV_ROLE_KERNEL) continue;
        tconv_str op = 0, cat = 0;
        if (!c[i].corr || !csv_ops_launcher(w->ops, c[i].input, c[i].corr, &op, &cat)) op = 0;
        uint32_t k = tconv_map_put(&index, c[i].name, op, (uint32_t)n);
        if (k == n) {
            TCONV_ARRAY_GROW(ops, cap, n + 1);
            ops[n++] = (html_kernel_op){.kernel = c[i].name, .op = op};
        }
        ops[k].calls++;
        ops[k].total = csv_sat_add(ops[k].total, c[i].dur);
    }
    free(names);
    free(hues);
    tconv_map_free(&index);
    html_launch_ctx = w->ctx;
    if (n > 1) qsort(ops, n, sizeof *ops, html_launch_cmp);
    w->kernel_ops = ops;
    w->nkernel_ops = n;
    free(w->calls);
    w->calls = NULL;
    w->ncalls = 0;
}

/* ,[[op, calls, total], ...] for one kernel name, most time first; op null for none. */
void html_launch_json(html_writer *w, csv_buf *b, tconv_str kernel)
{
    const html_kernel_op *ops = w->kernel_ops;
    /* the kernel's group: kernels are sorted by name id */
    size_t lo = 0, hi = w->nkernel_ops;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (ops[mid].kernel < kernel)
            lo = mid + 1;
        else
            hi = mid;
    }
    csv_buf_cstr(b, ",[");
    for (size_t i = lo; i < w->nkernel_ops && ops[i].kernel == kernel; i++) {
        if (i > lo) csv_buf_putc(b, ',');
        csv_buf_putc(b, '[');
        if (ops[i].op)
            html_json_str(b, w->ctx, ops[i].op);
        else
            csv_buf_cstr(b, "null");
        csv_buf_printf(b, ",%llu,%lld]", (unsigned long long)ops[i].calls, (long long)ops[i].total);
    }
    csv_buf_putc(b, ']');
}
