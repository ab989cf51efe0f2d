/* The recommendations: thresholds on GPU busy time and on the step-time breakdown. */
#include "summary_advice.h"

#include <inttypes.h>

#include "summary_fmt.h"

void summary_device_label(csv_buf *b, const tconv_ctx *ctx, const summary_device *d, size_t width)
{
    if (d->by_arg) {
        csv_buf_printf(b, "GPU %" PRId64, d->number);
    } else {
        csv_buf_cstr(b, "pid ");
        summary_name(b, tconv_string_get(ctx, d->pid), tconv_string_length(ctx, d->pid),
                     width ? width : SIZE_MAX, 0);
    }
    if (d->input) csv_buf_printf(b, " (input %u)", d->input);
}

/* Cursor positions: one per device, then the data loader, then communication. */
int summary_advice_next(csv_buf *b, size_t *cursor, const tconv_ctx *ctx, const summary_gpu *g,
                        const summary_steps *st, int64_t span, size_t width)
{
    char c[48];
    for (; *cursor < g->n; ++*cursor) {
        const summary_device *d = &g->dev[*cursor];
        if (!d->nkernels || span <= 0 || d->busy >= span - span / 2) continue;
        summary_device_label(b, ctx, d, width);
        csv_buf_printf(b,
                       " runs kernels %s of the time (under 50%%): the GPU waits for the host. "
                       "Look for gaps between kernels; larger batches, fewer synchronisations "
                       "and CUDA graphs keep it busy.",
                       summary_pct((double)d->busy, (double)span, c, sizeof c));
        ++*cursor;
        return 1;
    }
    int steps = st->nsteps && st->avg_total > 0;
    if (*cursor == g->n) {
        ++*cursor;
        if (steps && st->avg[SUMMARY_DATALOADER] > st->avg_total / 10) {
            csv_buf_printf(b,
                           "Data loading takes %s of the step time (over 10%%): use more "
                           "DataLoader workers (num_workers), pin_memory and prefetching.",
                           summary_pct((double)st->avg[SUMMARY_DATALOADER], (double)st->avg_total,
                                       c, sizeof c));
            return 1;
        }
    }
    if (*cursor == g->n + 1) {
        ++*cursor;
        if (steps && st->avg[SUMMARY_COMM] > st->avg_total / 5) {
            csv_buf_printf(
                b,
                "Communication takes %s of the step time (over 20%%): overlap it "
                "with computation (gradient bucketing), or communicate less often "
                "(gradient accumulation).",
                summary_pct((double)st->avg[SUMMARY_COMM], (double)st->avg_total, c, sizeof c));
            return 1;
        }
    }
    return 0;
}
