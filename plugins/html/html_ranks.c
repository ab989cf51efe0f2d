/* The per-rank comparison: with several inputs (the ranks of a distributed job), the step-time
 * breakdown of each input alone, computed by the summary's analysis as it would be for that
 * input by itself, and which rank has the longest mean step. */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "html_writer.h"

void html_ranks_span(html_writer *w, const tconv_span *s)
{
    /* Inputs are all read before ordered events arrive: their number is final. */
    if (!w->per_rank) w->per_rank = tconv_ctx_input_count(w->ctx) > 1 ? 2 : 1;
    if (w->per_rank != 2) return;
    if (s->input >= w->nranks) {
        TCONV_ARRAY_GROW(w->rank_steps, w->ranks_cap, (size_t)s->input + 1);
        for (size_t i = w->nranks; i <= s->input; i++)
            summary_steps_init(&w->rank_steps[i], w->ctx, &w->kineto);
        w->nranks = (size_t)s->input + 1;
    }
    summary_steps_span(&w->rank_steps[s->input], s);
}

void html_ranks(html_writer *w, csv_buf *b)
{
    csv_buf_cstr(b, "\"ranks\":[");
    size_t slowest = SIZE_MAX;
    for (size_t i = 0; i < w->nranks; i++) {
        summary_steps *st = &w->rank_steps[i];
        summary_steps_finish(st);
        if (st->nsteps && (slowest == SIZE_MAX || st->avg_total > w->rank_steps[slowest].avg_total))
            slowest = i;
    }
    for (size_t i = 0; i < w->nranks; i++) {
        const summary_steps *st = &w->rank_steps[i];
        if (i) csv_buf_putc(b, ',');
        csv_buf_printf(b, "{\"input\":%zu,\"name\":", i);
        const char *name = tconv_ctx_input_name(w->ctx, (uint32_t)i);
        html_json_bytes(b, name ? name : "", name ? strlen(name) : 0);
        int64_t rank = 0;
        if (tconv_ctx_rank(w->ctx, (uint32_t)i, &rank))
            csv_buf_printf(b, ",\"rank\":%" PRId64, rank);
        else
            csv_buf_cstr(b, ",\"rank\":null");
        csv_buf_printf(b,
                       ",\"found\":%" PRIu64 ",\"used\":%" PRIu64 ",\"mean\":%" PRId64
                       ",\"slowest\":%s,\"roles\":[",
                       st->nfound, st->nsteps, st->avg_total, i == slowest ? "true" : "false");
        for (int r = 0; r < SUMMARY_NROLES; r++)
            csv_buf_printf(b, "%s%" PRId64, r ? "," : "", st->nsteps ? st->avg[r] : 0);
        csv_buf_cstr(b, "]}");
    }
    csv_buf_cstr(b, "]");
}

void html_ranks_free(html_writer *w)
{
    for (size_t i = 0; i < w->nranks; i++)
        summary_steps_free(&w->rank_steps[i]);
    free(w->rank_steps);
}
