/* The inputs, each the rank of a job: each one's step-time breakdown alone (the summary's
 * analysis keeps them apart: summary_steps.h), every step's time, which rank has the longest
 * mean step, and what the input says of its job and devices. The page compares them, and
 * shows the steps of a single input the same way. */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "html_writer.h"

/* Kineto writes both as trace-level metadata whose text is JSON; the page parses it (with
 * textContent only, like every name of the trace). */
void html_ranks_meta(html_writer *w, const tconv_event *ev)
{
    const char *what = tconv_string_get(w->ctx, ev->name);
    int dist = strcmp(what, "distributedInfo") == 0;
    if (!dist && strcmp(what, "deviceProperties") != 0) return;
    if (ev->input >= w->ninfo) {
        TCONV_ARRAY_GROW(w->info, w->info_cap, (size_t)ev->input + 1);
        memset(w->info + w->ninfo, 0, ((size_t)ev->input + 1 - w->ninfo) * sizeof *w->info);
        w->ninfo = (size_t)ev->input + 1;
    }
    if (dist)
        w->info[ev->input].dist = ev->text;
    else
        w->info[ev->input].devices = ev->text;
}

static void html_ranks_text(html_writer *w, csv_buf *b, const char *key, tconv_str text)
{
    csv_buf_printf(b, ",\"%s\":", key);
    if (text)
        html_json_str(b, w->ctx, text);
    else
        csv_buf_cstr(b, "null");
}

void html_ranks(html_writer *w, csv_buf *b)
{
    const summary_steps *all = &w->steps;
    csv_buf_cstr(b, "\"ranks\":[");
    uint32_t n = tconv_ctx_input_count(w->ctx);
    for (uint32_t i = 0; i < n; i++) {
        const summary_steps_input *st = summary_steps_of(all, i);
        if (i) csv_buf_putc(b, ',');
        csv_buf_printf(b, "{\"input\":%" PRIu32 ",\"name\":", i);
        const char *name = tconv_ctx_input_name(w->ctx, i);
        html_json_bytes(b, name ? name : "", name ? strlen(name) : 0);
        int64_t rank = 0;
        if (tconv_ctx_rank(w->ctx, i, &rank))
            csv_buf_printf(b, ",\"rank\":%" PRId64, rank);
        else
            csv_buf_cstr(b, ",\"rank\":null");
        html_ranks_text(w, b, "distributed", i < w->ninfo ? w->info[i].dist : 0);
        html_ranks_text(w, b, "devices", i < w->ninfo ? w->info[i].devices : 0);
        uint64_t found = st ? st->nfound : 0, used = st ? st->nsteps : 0;
        csv_buf_printf(b,
                       ",\"found\":%" PRIu64 ",\"used\":%" PRIu64 ",\"mean\":%" PRId64
                       ",\"slowest\":%s,\"roles\":[",
                       found, used, used ? st->avg_total : 0,
                       used && all->ninputs > 1 && i == all->slowest ? "true" : "false");
        for (int r = 0; r < SUMMARY_NROLES; r++)
            csv_buf_printf(b, "%s%" PRId64, r ? "," : "", used ? st->avg[r] : 0);
        /* every step the breakdown covers: name, start from the input's first step, time, and
         * the time of each role in it */
        csv_buf_cstr(b, "],\"steps\":[");
        for (uint64_t k = 0; k < used; k++) {
            const summary_step *s = &st->step[k];
            csv_buf_cstr(b, k ? ",[" : "[");
            html_json_str(b, w->ctx, s->name);
            csv_buf_printf(b, ",%" PRId64 ",%" PRId64, s->start - st->step[0].start,
                           s->end - s->start);
            for (int r = 0; r < SUMMARY_NROLES; r++)
                csv_buf_printf(b, ",%" PRId64, s->role[r]);
            csv_buf_putc(b, ']');
        }
        csv_buf_cstr(b, "]}");
    }
    csv_buf_cstr(b, "]");
}

void html_ranks_free(html_writer *w)
{
    free(w->info);
}
