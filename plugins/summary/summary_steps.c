/* The step-time breakdown. */
#include <stdlib.h>
#include <string.h>

#include "summary_steps.h"

const char *const summary_role_names[SUMMARY_NROLES] = {"kernel",        "memcpy",  "memset",
                                                        "communication", "runtime", "data loader",
                                                        "CPU execution", "other"};

void summary_steps_init(summary_steps *s, tconv_ctx *ctx, csv_kineto *k)
{
    memset(s, 0, sizeof *s);
    s->ctx = ctx;
    s->k = k;
}

void summary_steps_free(summary_steps *s)
{
    for (int i = 0; i < SUMMARY_NROLES - 1; i++)
        summary_ranges_free(&s->roles[i]);
    summary_ranges_free(&s->steps);
    free(s->launches);
    free(s->dev_end);
    free(s->dev_count);
    tconv_map_free(&s->dev_index);
}

void summary_steps_span(summary_steps *s, const tconv_span *span)
{
    int64_t start = span->ts, end = span->ts + span->dur, corr;
    csv_role role = csv_kineto_role(s->k, span->role, span->cat);
    unsigned nf = 0;
    switch (role) {
    case CSV_ROLE_KERNEL:
        nf = csv_kineto_name(s->k, span->name);
        summary_ranges_add(&s->roles[nf & CSV_NAME_COMM_KERNEL ? SUMMARY_COMM : SUMMARY_KERNEL],
                           start, end);
        break;
    case CSV_ROLE_MEMCPY:
        summary_ranges_add(&s->roles[SUMMARY_MEMCPY], start, end);
        break;
    case CSV_ROLE_MEMSET:
        summary_ranges_add(&s->roles[SUMMARY_MEMSET], start, end);
        break;
    case CSV_ROLE_RUNTIME:
        summary_ranges_add(&s->roles[SUMMARY_RUNTIME], start, end);
        if ((corr = (int64_t)span->corr) != 0) {
            TCONV_ARRAY_GROW(s->launches, s->launches_cap, s->nlaunches + 1);
            s->launches[s->nlaunches++] = (summary_launch){start, end, corr, span->input};
        }
        return;
    case CSV_ROLE_OP:
    case CSV_ROLE_ANNOTATION:
    case CSV_ROLE_PYTHON:
        nf = csv_kineto_name(s->k, span->name);
        if ((nf & CSV_NAME_STEP) && role != CSV_ROLE_PYTHON)
            summary_ranges_add(&s->steps, start, end);
        else if ((nf & CSV_NAME_DATALOADER) && role != CSV_ROLE_PYTHON)
            summary_ranges_add(&s->roles[SUMMARY_DATALOADER], start, end);
        else if (nf & CSV_NAME_COMM)
            summary_ranges_add(&s->roles[SUMMARY_COMM], start, end);
        else
            summary_ranges_add(&s->roles[SUMMARY_CPU], start, end);
        return;
    default:
        return;
    }
    /* Device work: remember how late the work of each launch ends. */
    if (!(corr = (int64_t)span->corr)) return;
    uint32_t i = tconv_map_put(&s->dev_index, (uint64_t)corr, span->input, (uint32_t)s->ndev);
    if (i == s->ndev) {
        TCONV_ARRAY_GROW(s->dev_end, s->dev_cap, s->ndev + 1);
        TCONV_ARRAY_GROW(s->dev_count, s->count_cap, s->ndev + 1);
        s->dev_end[s->ndev] = end;
        s->dev_count[s->ndev++] = 0;
    } else if (end > s->dev_end[i]) {
        s->dev_end[i] = end;
    }
    s->dev_count[i]++;
}

static int summary_launch_cmp(const void *pa, const void *pb)
{
    const summary_launch *a = pa, *b = pb;
    return (a->start > b->start) - (a->start < b->start);
}

/* As the plugin does: a step ends when the device work launched inside it ends, and starts no
 * earlier than the previous step ended. */
static void summary_steps_extend(summary_steps *s)
{
    summary_ranges *st = &s->steps;
    if (s->nlaunches > 1) qsort(s->launches, s->nlaunches, sizeof *s->launches, summary_launch_cmp);
    int any = 0;
    int64_t *dev_end = tconv_array_alloc(st->n, sizeof *dev_end);
    uint64_t *matched = tconv_array_alloc(st->n, sizeof *matched);
    for (size_t i = 0; i < st->n; i++) {
        dev_end[i] = INT64_MIN;
        for (size_t j = 0; j < s->nlaunches; j++) {
            const summary_launch *l = &s->launches[j];
            if (l->start >= st->r[i].end) break;
            if (l->start < st->r[i].start || l->end > st->r[i].end) continue;
            uint32_t d = tconv_map_get(&s->dev_index, (uint64_t)l->corr, l->input);
            if (d == TCONV_MAP_NONE) continue;
            any = 1;
            matched[i] += s->dev_count[d];
            if (s->dev_end[d] > dev_end[i]) dev_end[i] = s->dev_end[d];
        }
    }
    if (any) {
        int64_t prev = st->r[0].start;
        for (size_t i = 0; i < st->n; i++) {
            int64_t start = st->r[i].start > prev ? st->r[i].start : prev;
            int64_t end = st->r[i].end > dev_end[i] ? st->r[i].end : dev_end[i];
            if (end < start) end = start;
            st->r[i] = (summary_range){start, end};
            prev = end;
        }
        /* Keep up to the last step with device work, and drop that one too when it has under
         * 80 % of the device events of the step before. */
        size_t last = st->n;
        while (last > 0 && !matched[last - 1])
            last--;
        if (st->n > 1 && last > 0) {
            size_t keep = last;
            if (last > 1 && (double)matched[last - 2] * 0.8 > (double)matched[last - 1])
                keep = last - 1;
            st->n = keep;
        }
    }
    free(dev_end);
    free(matched);
}

static int summary_step_cmp(const void *pa, const void *pb)
{
    const summary_range *a = pa, *b = pb;
    return (a->start > b->start) - (a->start < b->start);
}

/* The mean of n durations (each within int64, none negative), rounded down as their sum over n
 * would be, without their sum, which may not fit: quotients and remainders are summed apart. */
typedef struct summary_mean {
    int64_t q, r, n;
} summary_mean;

static void summary_mean_add(summary_mean *m, int64_t x)
{
    m->q += x / m->n;
    m->r += x % m->n;
    if (m->r >= m->n) {
        m->q++;
        m->r -= m->n;
    }
}

void summary_steps_finish(summary_steps *s)
{
    summary_ranges *st = &s->steps;
    if (!st->n) return;
    qsort(st->r, st->n, sizeof *st->r, summary_step_cmp);
    s->nfound = st->n;
    summary_steps_extend(s);
    s->nsteps = st->n;

    summary_ranges slots = {0}, cost = {0}, rest = {0};
    for (size_t i = 0; i < st->n; i++)
        summary_ranges_add(&slots, st->r[i].start, st->r[i].end);
    summary_ranges_merge(&slots);
    summary_mean sums[SUMMARY_NROLES];
    for (int role = 0; role < SUMMARY_NROLES; role++)
        sums[role] = (summary_mean){.n = (int64_t)st->n};
    for (int role = 0; role < SUMMARY_NROLES; role++) {
        if (role < SUMMARY_OTHER) {
            summary_ranges_merge(&s->roles[role]);
            summary_ranges_intersect(&slots, &s->roles[role], &cost);
        } else {
            summary_ranges_intersect(&slots, &slots, &cost);
        }
        /* Per step, then averaged, as the overview shows it. */
        for (size_t i = 0; i < st->n; i++)
            summary_mean_add(&sums[role],
                             summary_ranges_overlap(&cost, st->r[i].start, st->r[i].end));
        summary_ranges_subtract(&slots, &cost, &rest);
        summary_range *tmp = slots.r;
        size_t tcap = slots.cap;
        slots = rest;
        rest.r = tmp;
        rest.cap = tcap;
        rest.n = 0;
    }
    summary_mean total = {.n = (int64_t)st->n};
    for (size_t i = 0; i < st->n; i++)
        summary_mean_add(&total, st->r[i].end - st->r[i].start);
    for (int role = 0; role < SUMMARY_NROLES; role++)
        s->avg[role] = sums[role].q;
    s->avg_total = total.q;
    summary_ranges_free(&slots);
    summary_ranges_free(&cost);
    summary_ranges_free(&rest);
}
