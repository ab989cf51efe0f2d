/* What to look at first: the recommendations of the summary, from the GPUs' busy times and the
 * step-time breakdown. One text, shared by the summary and the HTML report. */
#ifndef SUMMARY_ADVICE_H
#define SUMMARY_ADVICE_H

#include <stddef.h>
#include <stdint.h>

#include "csv_buf.h"
#include "summary_gpu.h"
#include "summary_steps.h"

/* "GPU 0", "pid NAME", with " (input N)" after inputs other than the first; the process name
 * cut to width bytes (0: never). */
void summary_device_label(csv_buf *b, const tconv_ctx *ctx, const summary_device *d, size_t width);

/* The recommendations one at a time: appends the next one after *cursor (0 at first) to b,
 * without a line end, and returns 1; 0 when there are no more. span is the trace span, ns. */
int summary_advice_next(csv_buf *b, size_t *cursor, const tconv_ctx *ctx, const summary_gpu *g,
                        const summary_steps *st, int64_t span, size_t width);

#endif
