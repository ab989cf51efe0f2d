/* The page's data as one JSON object: what the summary reports (trace span, steps, GPUs,
 * recommendations) and the csv writer's ops and kernels rows, column for column. Times are
 * integer nanoseconds; the page formats them. */
#include <inttypes.h>
#include <string.h>

#include "html_writer.h"
#include "summary_advice.h"

/* A number JSON can spell: NaN and infinities, which it cannot, as 0. */
static void html_double(csv_buf *b, double d)
{
    size_t at = b->len;
    csv_buf_double(b, d);
    if (b->len == at) csv_buf_putc(b, '0');
}

static void html_key(csv_buf *b, const char *key)
{
    csv_buf_printf(b, "\"%s\":", key);
}

static void html_overview(html_writer *w, csv_buf *b)
{
    int64_t first = 0, last = 0;
    int have = tconv_ctx_bounds(w->ctx, &first, &last);
    html_key(b, "span");
    if (have)
        csv_buf_printf(b, "[\"%" PRId64 "\",\"%" PRId64 "\",%" PRId64 "],", first, last,
                       last - first);
    else
        csv_buf_cstr(b, "null,");
    html_key(b, "inputs");
    csv_buf_putc(b, '[');
    uint32_t n = tconv_ctx_input_count(w->ctx);
    for (uint32_t i = 0; i < n; i++) {
        const char *name = tconv_ctx_input_name(w->ctx, i);
        if (i) csv_buf_putc(b, ',');
        html_json_bytes(b, name ? name : "", name ? strlen(name) : 0);
    }
    csv_buf_cstr(b, "],");

    /* combined over the inputs as the summary combines them (summary_steps.h) */
    const summary_steps *st = &w->steps;
    html_key(b, "steps");
    csv_buf_printf(b,
                   "{\"found\":%" PRIu64 ",\"used\":%" PRIu64 ",\"mean\":%" PRId64
                   ",\"inputs\":%" PRIu32 ",\"slowest\":",
                   st->nfound, st->nsteps, st->avg_total, st->ninputs);
    if (st->ninputs > 1)
        csv_buf_printf(b, "%" PRIu32, st->slowest);
    else
        csv_buf_cstr(b, "null");
    csv_buf_printf(b, ",\"what\":\"%s\",\"roles\":[", st->other_names ? "steps" : "ProfilerStep#");
    for (int r = 0; r < SUMMARY_NROLES; r++) {
        if (r) csv_buf_putc(b, ',');
        csv_buf_putc(b, '[');
        html_json_bytes(b, summary_role_names[r], strlen(summary_role_names[r]));
        csv_buf_printf(b, ",%" PRId64 "]", st->nsteps ? st->avg[r] : 0);
    }
    csv_buf_cstr(b, "]},");

    html_key(b, "gpus");
    csv_buf_putc(b, '[');
    for (size_t i = 0; i < w->gpu.n; i++) {
        const summary_device *d = &w->gpu.dev[i];
        if (i) csv_buf_putc(b, ',');
        csv_buf_cstr(b, "{\"label\":");
        w->tmp.len = 0;
        summary_device_label(&w->tmp, w->ctx, d, 0);
        html_json_bytes(b, w->tmp.p, w->tmp.len);
        /* the device's number (Kineto's "device" arg) finds it in its input's deviceProperties */
        if (d->by_arg)
            csv_buf_printf(b, ",\"input\":%" PRIu32 ",\"number\":%" PRId64, d->input, d->number);
        csv_buf_printf(b,
                       ",\"busy\":%" PRId64 ",\"kernels\":%" PRIu64 ",\"kernel_time\":%" PRId64
                       ",\"memcpy\":%" PRIu64 ",\"memcpy_time\":%" PRId64 ",\"memset\":%" PRIu64
                       ",\"memset_time\":%" PRId64 "}",
                       d->busy, d->nkernels, d->kernel_time, d->nmemcpy, d->memcpy_time, d->nmemset,
                       d->memset_time);
    }
    csv_buf_cstr(b, "],");

    html_key(b, "advice");
    csv_buf_putc(b, '[');
    size_t cursor = 0;
    for (int k = 0;; k++) {
        w->tmp.len = 0;
        if (!summary_advice_next(&w->tmp, &cursor, w->ctx, &w->gpu, &w->steps, last - first, 0))
            break;
        if (k) csv_buf_putc(b, ',');
        html_json_bytes(b, w->tmp.p, w->tmp.len);
    }
    csv_buf_cstr(b, "],");
}

/* The csv writer's ops columns: name, category, calls, host total, self, min, max, device
 * total, device self (null without operators, where the csv cells are empty). */
static void html_ops(html_writer *w, csv_buf *b)
{
    size_t n;
    csv_ops_mode used;
    const csv_op_row *rows = csv_ops_rows(w->ops, CSV_OPS_AUTO, &n, &used);
    int dev = used == CSV_OPS_PYTORCH;
    html_key(b, "ops");
    csv_buf_printf(b, "{\"pytorch\":%s,\"rows\":[", dev ? "true" : "false");
    for (size_t i = 0; i < n; i++) {
        const csv_op_row *r = &rows[i];
        if (i) csv_buf_putc(b, ',');
        csv_buf_putc(b, '[');
        html_json_str(b, w->ctx, r->name);
        csv_buf_putc(b, ',');
        html_json_str(b, w->ctx, r->cat);
        csv_buf_printf(b, ",%" PRIu64 ",%" PRId64 ",%" PRId64 ",%" PRId64 ",%" PRId64, r->calls,
                       r->total, r->self, r->min, r->max);
        if (dev)
            csv_buf_printf(b, ",%" PRId64 ",%" PRId64 "]", r->dev_total, r->dev_self);
        else
            csv_buf_cstr(b, ",null,null]");
    }
    csv_buf_cstr(b, "]},");
}

/* The csv writer's kernels columns but the mean: name, calls, total, min, max, grid, block,
 * registers, shared memory, blocks per SM, occupancy, tensor core, launch configurations; then
 * the operators that launched the kernel, [[op, calls, total], ...], most time first. */
static void html_kernels(html_writer *w, csv_buf *b)
{
    size_t n;
    const csv_kernel_row *rows = csv_kernels_rows(w->kernels, &n);
    html_key(b, "kernels");
    csv_buf_putc(b, '[');
    for (size_t i = 0; i < n; i++) {
        const csv_kernel_row *r = &rows[i];
        if (i) csv_buf_putc(b, ',');
        csv_buf_putc(b, '[');
        html_json_str(b, w->ctx, r->name);
        csv_buf_printf(b, ",%" PRIu64 ",%" PRId64 ",%" PRId64 ",%" PRId64 ",", r->calls, r->total,
                       r->min, r->max);
        html_json_str(b, w->ctx, r->grid);
        csv_buf_putc(b, ',');
        html_json_str(b, w->ctx, r->block);
        if (r->has_regs)
            csv_buf_printf(b, ",%" PRId64, r->regs);
        else
            csv_buf_cstr(b, ",null");
        if (r->has_smem)
            csv_buf_printf(b, ",%" PRId64, r->smem);
        else
            csv_buf_cstr(b, ",null");
        /* the csv writer's means; null when no call had the value */
        double mean;
        csv_buf_putc(b, ',');
        if (csv_kernel_blocks(r, &mean))
            html_double(b, mean);
        else
            csv_buf_cstr(b, "null");
        csv_buf_putc(b, ',');
        if (csv_kernel_occupancy(r, &mean))
            html_double(b, mean);
        else
            csv_buf_cstr(b, "null");
        csv_buf_printf(b, ",%s,%" PRIu32, r->tensor_core ? "true" : "false", r->configs);
        html_launch_json(w, b, r->name);
        csv_buf_putc(b, ']');
    }
    csv_buf_cstr(b, "]");
}

void html_data(html_writer *w, csv_buf *b)
{
    csv_buf_putc(b, '{');
    html_key(b, "title");
    w->tmp.len = 0;
    html_page_title(w, &w->tmp);
    html_json_bytes(b, w->tmp.p ? w->tmp.p : "", w->tmp.len);
    csv_buf_putc(b, ',');
    html_overview(w, b);
    html_ops(w, b);
    html_kernels(w, b);
    csv_buf_putc(b, ',');
    html_memory(w, b);
    csv_buf_putc(b, ',');
    html_ranks(w, b);
    csv_buf_putc(b, ',');
    html_functions(w, b);
    csv_buf_putc(b, '}');
}
