/* The report: what the trace holds, where the time goes, and what to look at first. */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "csv_sat.h"
#include "summary.h"
#include "summary_advice.h"
#include "summary_fmt.h"

typedef char summary_cell[48];

static const char *const summary_kind_names[] = {"thread", "GPU stream", "async", "process",
                                                 "global"};

/* An interned string cut to the report's width (stacks get twice as much). */
static void summary_str(summary *s, tconv_str id, int keep_end)
{
    size_t max = s->width ? (keep_end ? 2 * s->width : s->width) : SIZE_MAX;
    summary_name(&s->buf, tconv_string_get(s->ctx, id), tconv_string_length(s->ctx, id), max,
                 keep_end);
}

/* A pid or tid, or "-" when the input gave none. */
static void summary_id(summary *s, tconv_str id)
{
    if (tconv_string_length(s->ctx, id))
        summary_str(s, id, 0);
    else
        csv_buf_putc(&s->buf, '-');
}

static void summary_trace(summary *s)
{
    csv_buf *b = &s->buf;
    summary_cell c;
    int64_t first = 0, last = 0;
    int have = tconv_ctx_bounds(s->ctx, &first, &last);
    csv_buf_cstr(b, "Trace\n");
    if (have && (first || last))
        csv_buf_printf(b, "  span     %s (%" PRId64 " .. %" PRId64 " ns)\n",
                       summary_dur(last - first, c, sizeof c), first, last);
    else
        csv_buf_cstr(b, "  span     - (no timestamps)\n");
    uint64_t flows =
        s->kinds[TCONV_EV_FLOW_START] + s->kinds[TCONV_EV_FLOW_STEP] + s->kinds[TCONV_EV_FLOW_END];
    uint64_t total = s->kinds[TCONV_EV_COMPLETE] + s->kinds[TCONV_EV_INSTANT] +
                     s->kinds[TCONV_EV_COUNTER] + flows + s->kinds[TCONV_EV_METADATA] +
                     s->kinds[TCONV_EV_SAMPLE];
    csv_buf_printf(
        b,
        "  events   %" PRIu64 ": %" PRIu64 " spans, %" PRIu64 " instants, %" PRIu64
        " counter values, %" PRIu64 " flow events, %" PRIu64 " samples, %" PRIu64 " metadata\n",
        total, s->kinds[TCONV_EV_COMPLETE], s->kinds[TCONV_EV_INSTANT], s->kinds[TCONV_EV_COUNTER],
        flows, s->kinds[TCONV_EV_SAMPLE], s->kinds[TCONV_EV_METADATA]);
    uint64_t per_kind[5] = {0}, with_events = 0;
    uint32_t ntracks = tconv_track_count(s->ctx);
    for (uint32_t i = 0; i < ntracks && i < s->tracks_cap; i++) {
        if (!s->tracks[i].events) continue;
        const tconv_track *t = tconv_track_describe(s->ctx, i);
        with_events++;
        if (t && t->kind < 5) per_kind[t->kind]++;
    }
    csv_buf_printf(b, "  tracks   %" PRIu64 " with events", with_events);
    const char *sep = " (";
    for (int k = 0; k < 5; k++) {
        if (!per_kind[k]) continue;
        csv_buf_printf(b, "%s%s %" PRIu64, sep, summary_kind_names[k], per_kind[k]);
        sep = ", ";
    }
    csv_buf_cstr(b, with_events ? ")\n" : "\n");
    /* Said in the report itself: whoever reads it must know its totals leave these out. */
    uint64_t hidden = 0;
    for (unsigned r = 0; r < TCONV_ROLE_MAX; r++)
        hidden += s->not_work[r];
    if (!hidden) return;
    csv_buf_printf(b, "  not work %" PRIu64 " span%s left out of busy and self times (", hidden,
                   hidden == 1 ? "" : "s");
    sep = "";
    for (unsigned r = 0; r < TCONV_ROLE_MAX; r++) {
        if (!s->not_work[r]) continue;
        csv_buf_printf(b, "%s%" PRIu64 " %s", sep, s->not_work[r], tconv_role_name(r));
        sep = ", ";
    }
    csv_buf_printf(b, "); --all-spans counts %s\n", hidden == 1 ? "it" : "them");
}

/* Sort keys for the process listing: a track's (input, pid), then its group's first track. */
static const tconv_ctx *summary_proc_ctx;
static const uint32_t *summary_proc_first;

static int summary_by_process(const void *pa, const void *pb)
{
    uint32_t i = *(const uint32_t *)pa, j = *(const uint32_t *)pb;
    const tconv_track *a = tconv_track_describe(summary_proc_ctx, i);
    const tconv_track *b = tconv_track_describe(summary_proc_ctx, j);
    if (a->input != b->input) return a->input < b->input ? -1 : 1;
    if (a->pid != b->pid) return a->pid < b->pid ? -1 : 1;
    return i < j ? -1 : i > j;
}

static int summary_by_group(const void *pa, const void *pb)
{
    uint32_t i = *(const uint32_t *)pa, j = *(const uint32_t *)pb;
    uint32_t gi = summary_proc_first[i], gj = summary_proc_first[j];
    if (gi != gj) return gi < gj ? -1 : 1;
    return i < j ? -1 : i > j;
}

/* Tracks with events, grouped by (input, process) in order of first appearance. Two sorts, not
 * a scan per process: a trace of a million processes lists in seconds. */
static void summary_processes(summary *s)
{
    csv_buf *b = &s->buf;
    summary_cell c;
    uint32_t ntracks = tconv_track_count(s->ctx);
    if (ntracks > s->tracks_cap) ntracks = (uint32_t)s->tracks_cap;
    uint32_t *idx = tconv_array_alloc(ntracks ? ntracks : 1, sizeof(*idx));
    uint32_t *first = tconv_array_alloc(ntracks ? ntracks : 1, sizeof(*first));
    size_t n = 0;
    for (uint32_t i = 0; i < ntracks; i++)
        if (s->tracks[i].events) idx[n++] = i;
    summary_proc_ctx = s->ctx;
    summary_proc_first = first;
    qsort(idx, n, sizeof(*idx), summary_by_process);
    for (size_t k = 0; k < n; k++) {
        const tconv_track *t = tconv_track_describe(s->ctx, idx[k]);
        const tconv_track *prev = k ? tconv_track_describe(s->ctx, idx[k - 1]) : NULL;
        first[idx[k]] =
            prev && prev->input == t->input && prev->pid == t->pid ? first[idx[k - 1]] : idx[k];
    }
    qsort(idx, n, sizeof(*idx), summary_by_group);
    csv_buf_cstr(b, "\nProcesses and threads\n");
    for (size_t k = 0; k < n; k++) {
        uint32_t j = idx[k];
        const tconv_track *t = tconv_track_describe(s->ctx, j);
        if (first[j] == j) {
            csv_buf_cstr(b, "  pid ");
            summary_id(s, t->pid);
            if (t->process_name) {
                csv_buf_cstr(b, "  ");
                summary_str(s, t->process_name, 0);
            }
            if (t->input) csv_buf_printf(b, "  (input %u)", t->input);
            csv_buf_putc(b, '\n');
        }
        size_t at = b->len;
        csv_buf_cstr(b, "    tid ");
        summary_id(s, t->tid);
        if (t->thread_name && t->thread_name != t->tid) {
            csv_buf_cstr(b, "  ");
            summary_str(s, t->thread_name, 0);
        }
        if (t->kind != TCONV_TRACK_THREAD && t->kind < 5)
            csv_buf_printf(b, "  [%s]", summary_kind_names[t->kind]);
        size_t w = b->len - at;
        csv_buf_printf(b, "%*s%9" PRIu64 " event%s", w < 52 ? (int)(52 - w) : 1, "",
                       s->tracks[j].events, s->tracks[j].events == 1 ? "" : "s");
        if (s->tracks[j].busy)
            csv_buf_printf(b, ", busy %s", summary_dur(s->tracks[j].busy, c, sizeof c));
        csv_buf_putc(b, '\n');
    }
    if (!n) csv_buf_cstr(b, "  (no events)\n");
    free(first);
    free(idx);
}

static const csv_op_row *summary_sort_rows;
static const tconv_ctx *summary_sort_ctx;

static int summary_by_total(const void *pa, const void *pb)
{
    const csv_op_row *a = &summary_sort_rows[*(const size_t *)pa];
    const csv_op_row *b = &summary_sort_rows[*(const size_t *)pb];
    if (a->total != b->total) return a->total > b->total ? -1 : 1;
    int c = strcmp(tconv_string_get(summary_sort_ctx, a->name),
                   tconv_string_get(summary_sort_ctx, b->name));
    if (c) return c;
    return strcmp(tconv_string_get(summary_sort_ctx, a->cat),
                  tconv_string_get(summary_sort_ctx, b->cat));
}

static void summary_op_table(summary *s, const csv_op_row *rows, const size_t *order, size_t n,
                             int64_t self_sum, int device)
{
    csv_buf *b = &s->buf;
    summary_cell c1, c2, c3, c4;
    if (device)
        csv_buf_printf(b, "  %12s %7s %12s %9s %12s  %s\n", "self", "self%", "total", "calls",
                       "device self", "name");
    else
        csv_buf_printf(b, "  %12s %7s %12s %9s  %s\n", "self", "self%", "total", "calls", "name");
    for (size_t k = 0; k < n && k < s->top; k++) {
        const csv_op_row *r = &rows[order ? order[k] : k];
        csv_buf_printf(b, "  %12s %7s %12s %9" PRIu64, summary_dur(r->self, c1, sizeof c1),
                       summary_pct((double)r->self, (double)self_sum, c2, sizeof c2),
                       summary_dur(r->total, c3, sizeof c3), r->calls);
        if (device) csv_buf_printf(b, " %12s", summary_dur(r->dev_self, c4, sizeof c4));
        csv_buf_cstr(b, "  ");
        summary_str(s, r->name, 0);
        csv_buf_putc(b, '\n');
    }
}

static void summary_ops(summary *s)
{
    size_t n;
    csv_ops_mode used;
    const csv_op_row *rows = csv_ops_rows(s->ops, CSV_OPS_AUTO, &n, &used);
    if (!n) return;
    int64_t self_sum = 0;
    for (size_t i = 0; i < n; i++)
        self_sum = csv_sat_add(self_sum, rows[i].self);
    int py = used == CSV_OPS_PYTORCH;
    const char *what =
        py ? "PyTorch operators, host time; device self: kernels they launched" : "spans by name";
    csv_buf_printf(&s->buf, "\nTop %zu operations by self time (%s)\n", s->top, what);
    summary_op_table(s, rows, NULL, n, self_sum, py);
    size_t *order = tconv_array_alloc(n, sizeof *order);
    for (size_t i = 0; i < n; i++)
        order[i] = i;
    summary_sort_rows = rows;
    summary_sort_ctx = s->ctx;
    qsort(order, n, sizeof *order, summary_by_total);
    csv_buf_printf(&s->buf, "\nTop %zu operations by total time\n", s->top);
    summary_op_table(s, rows, order, n, self_sum, py);
    free(order);
}

static const tconv_ctx *summary_cat_ctx;

static int summary_cat_cmp(const void *pa, const void *pb)
{
    const summary_cat *a = pa, *b = pb;
    if (a->self != b->self) return a->self > b->self ? -1 : 1;
    return strcmp(tconv_string_get(summary_cat_ctx, a->cat),
                  tconv_string_get(summary_cat_ctx, b->cat));
}

static void summary_categories(summary *s)
{
    if (!s->ncats) return;
    csv_buf *b = &s->buf;
    summary_cell c1, c2;
    summary_cat_ctx = s->ctx;
    qsort(s->cats, s->ncats, sizeof *s->cats, summary_cat_cmp);
    int64_t sum = 0;
    for (size_t i = 0; i < s->ncats; i++)
        sum = csv_sat_add(sum, s->cats[i].self);
    csv_buf_cstr(b, "\nTime by category (self time of spans, all tracks)\n");
    csv_buf_printf(b, "  %12s %7s %9s  %s\n", "self", "%", "spans", "category");
    for (size_t i = 0; i < s->ncats; i++) {
        const summary_cat *k = &s->cats[i];
        csv_buf_printf(b, "  %12s %7s %9" PRIu64 "  ", summary_dur(k->self, c1, sizeof c1),
                       summary_pct((double)k->self, (double)sum, c2, sizeof c2), k->spans);
        if (k->cat)
            summary_str(s, k->cat, 0);
        else
            csv_buf_cstr(b, "(none)");
        csv_buf_putc(b, '\n');
    }
}

static void summary_gpus(summary *s, int64_t span)
{
    summary_gpu *g = &s->gpu;
    if (!g->n) return;
    csv_buf *b = &s->buf;
    summary_cell c1, c2, c3, c4, c5;
    csv_buf_printf(b, "\nGPUs (utilisation: kernel busy time over the trace span of %s)\n",
                   summary_dur(span, c1, sizeof c1));
    for (size_t i = 0; i < g->n; i++) {
        const summary_device *d = &g->dev[i];
        csv_buf_cstr(b, "  ");
        summary_device_label(b, s->ctx, d, s->width);
        csv_buf_printf(b,
                       ": kernel busy %s (%s); %" PRIu64 " kernels %s; %" PRIu64
                       " memcpy %s; %" PRIu64 " memset %s\n",
                       summary_dur(d->busy, c1, sizeof c1),
                       summary_pct((double)d->busy, (double)span, c2, sizeof c2), d->nkernels,
                       summary_dur(d->kernel_time, c3, sizeof c3), d->nmemcpy,
                       summary_dur(d->memcpy_time, c4, sizeof c4), d->nmemset,
                       summary_dur(d->memset_time, c5, sizeof c5));
    }
    size_t n;
    const csv_kernel_row *k = csv_kernels_rows(s->kernels, &n);
    if (!n) return;
    int64_t sum = 0;
    for (size_t i = 0; i < n; i++)
        sum = csv_sat_add(sum, k[i].total);
    csv_buf_printf(b, "\nTop %zu kernels by total time\n", s->top);
    csv_buf_printf(b, "  %12s %7s %9s %12s  %s\n", "total", "%", "calls", "mean", "name");
    for (size_t i = 0; i < n && i < s->top; i++) {
        csv_buf_printf(b, "  %12s %7s %9" PRIu64 " %12s  ", summary_dur(k[i].total, c1, sizeof c1),
                       summary_pct((double)k[i].total, (double)sum, c2, sizeof c2), k[i].calls,
                       summary_dur(k[i].total / (int64_t)k[i].calls, c3, sizeof c3));
        summary_str(s, k[i].name, 0);
        csv_buf_putc(b, '\n');
    }
}

/* Several inputs: the ranks of a job, each broken down alone. */
static void summary_breakdown_inputs(summary *s)
{
    const summary_steps *st = &s->steps;
    csv_buf *b = &s->buf;
    summary_cell c1, c2;
    static const char *const heads[SUMMARY_NROLES] = {"kernel",  "memcpy", "memset", "comm",
                                                      "runtime", "loader", "CPU",    "other"};
    csv_buf_cstr(b, "\nSteps per input (each input alone, as its own report gives them)\n");
    csv_buf_printf(b, "  %5s %5s %9s %12s", "input", "rank", "steps", "mean step");
    for (int r = 0; r < SUMMARY_NROLES; r++)
        csv_buf_printf(b, " %7s", heads[r]);
    csv_buf_cstr(b, "  name\n");
    uint32_t n = tconv_ctx_input_count(s->ctx);
    for (uint32_t i = 0; i < n; i++) {
        const summary_steps_input *in = summary_steps_of(st, i);
        int64_t rank;
        if (tconv_ctx_rank(s->ctx, i, &rank))
            snprintf(c1, sizeof c1, "%" PRId64, rank);
        else
            snprintf(c1, sizeof c1, "-");
        csv_buf_printf(b, "  %5" PRIu32 " %5s", i, c1);
        if (!in || !in->nsteps) {
            csv_buf_printf(b, " %9s %12s", in && in->nfound ? "0" : "-", "-");
            for (int r = 0; r < SUMMARY_NROLES; r++)
                csv_buf_printf(b, " %7s", "-");
        } else {
            if (in->nfound != in->nsteps)
                snprintf(c2, sizeof c2, "%" PRIu64 " of %" PRIu64, in->nsteps, in->nfound);
            else
                snprintf(c2, sizeof c2, "%" PRIu64, in->nsteps);
            csv_buf_printf(b, " %9s %12s", c2, summary_dur(in->avg_total, c1, sizeof c1));
            for (int r = 0; r < SUMMARY_NROLES; r++)
                csv_buf_printf(
                    b, " %7s",
                    summary_pct((double)in->avg[r], (double)in->avg_total, c2, sizeof c2));
        }
        const char *name = tconv_ctx_input_name(s->ctx, i);
        csv_buf_cstr(b, "  ");
        summary_name(b, name ? name : "", name ? strlen(name) : 0,
                     s->width ? 2 * s->width : SIZE_MAX, 1);
        if (st->ninputs > 1 && i == st->slowest) csv_buf_cstr(b, "  (slowest)");
        csv_buf_putc(b, '\n');
    }
}

static void summary_breakdown(summary *s)
{
    const summary_steps *st = &s->steps;
    if (!st->nsteps) return;
    csv_buf *b = &s->buf;
    summary_cell c1, c2;
    int several = tconv_ctx_input_count(s->ctx) > 1;
    csv_buf_printf(b, "\nStep time breakdown (%" PRIu64, st->nsteps);
    if (st->nfound != st->nsteps) csv_buf_printf(b, " of %" PRIu64, st->nfound);
    csv_buf_cstr(b, st->other_names ? (st->nfound == 1 ? " step" : " steps") : " ProfilerStep#");
    if (st->nfound != st->nsteps)
        csv_buf_cstr(b, ", trailing steps with too little device work left out");
    if (several) {
        int64_t rank;
        csv_buf_printf(b, " in %" PRIu32 " input%s; mean over them of each one's mean step %s",
                       st->ninputs, st->ninputs == 1 ? "" : "s",
                       summary_dur(st->avg_total, c1, sizeof c1));
        if (st->ninputs > 1) {
            csv_buf_cstr(b, "; slowest ");
            if (tconv_ctx_rank(s->ctx, st->slowest, &rank))
                csv_buf_printf(b, "rank %" PRId64 " (input %" PRIu32 ")", rank, st->slowest);
            else
                csv_buf_printf(b, "input %" PRIu32, st->slowest);
            csv_buf_printf(
                b, ", %s",
                summary_dur(summary_steps_of(st, st->slowest)->avg_total, c1, sizeof c1));
        }
        csv_buf_cstr(b, ")\n");
    } else {
        csv_buf_printf(b, "; mean step %s)\n", summary_dur(st->avg_total, c1, sizeof c1));
    }
    for (int r = 0; r < SUMMARY_NROLES; r++)
        csv_buf_printf(b, "  %-14s %12s %7s\n", summary_role_names[r],
                       summary_dur(st->avg[r], c1, sizeof c1),
                       summary_pct((double)st->avg[r], (double)st->avg_total, c2, sizeof c2));
    if (several) summary_breakdown_inputs(s);
}

/* The recommendations, each under a bullet; no heading when there is none. */
static void summary_advice(summary *s, int64_t span)
{
    csv_buf *b = &s->buf;
    size_t start = b->len, cursor = 0;
    csv_buf_cstr(b, "\nRecommendations\n");
    size_t header = b->len;
    for (;;) {
        size_t at = b->len;
        csv_buf_cstr(b, "  - ");
        if (!summary_advice_next(b, &cursor, s->ctx, &s->gpu, &s->steps, span, s->width)) {
            b->len = at;
            break;
        }
        csv_buf_putc(b, '\n');
    }
    if (b->len == header) b->len = start;
}

/* Stack samples: top stacks and top frames by self and total value. */
typedef struct summary_frame {
    tconv_str name;
    int64_t self, total;
    size_t stamp;
} summary_frame;

static const tconv_ctx *summary_frame_ctx;
static int summary_frame_by_total;

static int summary_frame_cmp(const void *pa, const void *pb)
{
    const summary_frame *a = pa, *b = pb;
    int64_t va = summary_frame_by_total ? a->total : a->self;
    int64_t vb = summary_frame_by_total ? b->total : b->self;
    if (va != vb) return va > vb ? -1 : 1;
    return strcmp(tconv_string_get(summary_frame_ctx, a->name),
                  tconv_string_get(summary_frame_ctx, b->name));
}

static void summary_frames_table(summary *s, summary_frame *f, size_t n, int64_t sum, int by_total)
{
    csv_buf *b = &s->buf;
    summary_cell c1, c2, c3, c4;
    summary_frame_ctx = s->ctx;
    summary_frame_by_total = by_total;
    if (n > 1) qsort(f, n, sizeof *f, summary_frame_cmp);
    csv_buf_printf(b, "  %14s %7s %14s %7s  %s\n", "self", "%", "total", "%", "frame");
    for (size_t i = 0; i < n && i < s->top; i++) {
        snprintf(c1, sizeof c1, "%" PRId64, f[i].self);
        snprintf(c3, sizeof c3, "%" PRId64, f[i].total);
        csv_buf_printf(b, "  %14s %7s %14s %7s  ", c1,
                       summary_pct((double)f[i].self, (double)sum, c2, sizeof c2), c3,
                       summary_pct((double)f[i].total, (double)sum, c4, sizeof c4));
        summary_str(s, f[i].name, 0);
        csv_buf_putc(b, '\n');
    }
}

static void summary_samples(summary *s)
{
    if (!s->stacks.samples.n) return;
    csv_stack_set set;
    csv_stacks_rows(&s->stacks, &set);
    const csv_trie *t = set.trie;
    size_t v = set.default_value, nv = t->nvalues;
    csv_buf *b = &s->buf;
    char tname[64];
    if (v < set.ntypes)
        snprintf(tname, sizeof tname, "%s/%s", set.types[v].type, set.types[v].unit);
    else
        snprintf(tname, sizeof tname, "value %zu", v + 1);
    int64_t sum = 0;
    for (size_t r = 0; r < set.nrows; r++)
        sum = csv_sat_add(sum, t->values[set.rows[r] * nv + v]);
    csv_buf_printf(b, "\nStack samples: %" PRIu64 " samples, %zu distinct stacks, %s %" PRId64 "\n",
                   s->kinds[TCONV_EV_SAMPLE], set.nrows, tname, sum);
    csv_buf_printf(b, "\nTop %zu stacks by %s\n", s->top, tname);
    csv_buf_printf(b, "  %14s %7s  %s\n", "value", "%", "stack (root first)");
    summary_cell c1, c2;
    for (size_t r = 0; r < set.nrows && r < s->top; r++) {
        uint32_t node = set.rows[r];
        snprintf(c1, sizeof c1, "%" PRId64, t->values[node * nv + v]);
        csv_buf_printf(b, "  %14s %7s  ", c1,
                       summary_pct((double)t->values[node * nv + v], (double)sum, c2, sizeof c2));
        s->tmp.len = 0;
        csv_stacks_path(&s->stacks, t, node, &s->tmp);
        summary_name(b, s->tmp.p ? s->tmp.p : "", s->tmp.len, s->width ? 2 * s->width : SIZE_MAX,
                     1);
        csv_buf_putc(b, '\n');
    }

    /* Self: the value of stacks a frame ends; total: of stacks it is in (once per stack). */
    tconv_map index = {0};
    summary_frame *f = NULL;
    size_t nf = 0, cap = 0;
    for (size_t r = 0; r < set.nrows; r++) {
        uint32_t node = set.rows[r];
        int64_t val = t->values[node * nv + v];
        for (uint32_t x = node; x; x = csv_trie_parent(t, x)) {
            uint32_t i = tconv_map_put(&index, csv_trie_frame(t, x), 0, (uint32_t)nf);
            if (i == nf) {
                TCONV_ARRAY_GROW(f, cap, nf + 1);
                f[nf++] = (summary_frame){.name = csv_trie_frame(t, x), .stamp = SIZE_MAX};
            }
            if (x == node) f[i].self = csv_sat_add(f[i].self, val);
            if (f[i].stamp != r) f[i].total = csv_sat_add(f[i].total, val);
            f[i].stamp = r;
        }
    }
    csv_buf_printf(b, "\nTop %zu frames by self %s\n", s->top, tname);
    summary_frames_table(s, f, nf, sum, 0);
    csv_buf_printf(b, "\nTop %zu frames by total %s\n", s->top, tname);
    summary_frames_table(s, f, nf, sum, 1);
    free(f);
    tconv_map_free(&index);
}

tconv_status summary_report(summary *s)
{
    csv_ops_finish(s->ops);
    summary_steps_finish(&s->steps);
    summary_gpu_finish(&s->gpu);
    int64_t first = 0, last = 0;
    tconv_ctx_bounds(s->ctx, &first, &last);
    int64_t span = last - first;

    summary_trace(s);
    summary_processes(s);
    summary_ops(s);
    summary_categories(s);
    summary_gpus(s, span);
    summary_breakdown(s);
    summary_samples(s);
    summary_advice(s, span);
    return csv_buf_flush(&s->buf, s->out);
}
