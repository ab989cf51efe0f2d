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
    for (size_t i = 0; i < s->nin; i++) {
        summary_steps_input *in = &s->in[i];
        for (int r = 0; r < SUMMARY_NROLES - 1; r++)
            summary_ranges_free(&in->roles[r]);
        free(in->step);
        free(in->launches);
        free(in->plain);
    }
    free(s->in);
    free(s->dev_end);
    free(s->dev_count);
    tconv_map_free(&s->dev_index);
}

static summary_steps_input *summary_steps_input_at(summary_steps *s, uint32_t input)
{
    if (input >= s->nin) {
        TCONV_ARRAY_GROW(s->in, s->in_cap, (size_t)input + 1);
        memset(s->in + s->nin, 0, ((size_t)input + 1 - s->nin) * sizeof *s->in);
        s->nin = (size_t)input + 1;
    }
    return &s->in[input];
}

const summary_steps_input *summary_steps_of(const summary_steps *s, uint32_t i)
{
    return i < s->nin ? &s->in[i] : NULL;
}

void summary_steps_span(summary_steps *s, const tconv_span *span)
{
    int64_t start = span->ts, end = span->ts + span->dur, corr;
    summary_steps_input *in = summary_steps_input_at(s, span->input);
    if (span->role == TCONV_ROLE_STEP) {
        TCONV_ARRAY_GROW(in->step, in->step_cap, in->nstep + 1);
        in->step[in->nstep++] = (summary_step){.start = start, .end = end, .name = span->name};
        return;
    }
    csv_role role = csv_kineto_role(s->k, span->role, span->cat);
    unsigned nf = 0;
    switch (role) {
    case CSV_ROLE_KERNEL:
        nf = csv_kineto_name(s->k, span->name);
        summary_ranges_add(&in->roles[nf & CSV_NAME_COMM_KERNEL ? SUMMARY_COMM : SUMMARY_KERNEL],
                           start, end);
        break;
    case CSV_ROLE_MEMCPY:
        summary_ranges_add(&in->roles[SUMMARY_MEMCPY], start, end);
        break;
    case CSV_ROLE_MEMSET:
        summary_ranges_add(&in->roles[SUMMARY_MEMSET], start, end);
        break;
    case CSV_ROLE_RUNTIME:
        summary_ranges_add(&in->roles[SUMMARY_RUNTIME], start, end);
        if ((corr = (int64_t)span->corr) != 0) {
            TCONV_ARRAY_GROW(in->launches, in->launches_cap, in->nlaunches + 1);
            in->launches[in->nlaunches++] = (summary_launch){start, end, corr};
        }
        return;
    case CSV_ROLE_OTHER:
        /* CPU work without an operator category: PyTorch's exporter without Kineto names no
         * category at all, and its spans are the operators of a CPU-only trace. Counted only
         * in an input that names no operators (summary_steps_input_finish). */
        if (span->role != TCONV_ROLE_CPU) return;
        /* fall through */
    case CSV_ROLE_OP:
    case CSV_ROLE_ANNOTATION:
    case CSV_ROLE_PYTHON: {
        nf = csv_kineto_name(s->k, span->name);
        /* ProfilerStep#N that --step-name made an annotation: around the steps, no work */
        if (nf & CSV_NAME_STEP) return;
        int to = SUMMARY_CPU;
        if ((nf & CSV_NAME_DATALOADER) && role != CSV_ROLE_PYTHON)
            to = SUMMARY_DATALOADER;
        else if (nf & CSV_NAME_COMM)
            to = SUMMARY_COMM;
        if (role == CSV_ROLE_OP) in->has_ops = 1;
        if (role != CSV_ROLE_OTHER) {
            summary_ranges_add(&in->roles[to], start, end);
        } else if (end > start) {
            TCONV_ARRAY_GROW(in->plain, in->plain_cap, in->nplain + 1);
            in->plain[in->nplain++] = (summary_plain){start, end, to};
        }
        return;
    }
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
static void summary_steps_extend(summary_steps *s, summary_steps_input *in)
{
    summary_step *st = in->step;
    size_t n = in->nstep;
    if (in->nlaunches > 1)
        qsort(in->launches, in->nlaunches, sizeof *in->launches, summary_launch_cmp);
    int any = 0;
    int64_t *dev_end = tconv_array_alloc(n, sizeof *dev_end);
    uint64_t *matched = tconv_array_alloc(n, sizeof *matched);
    uint32_t input = (uint32_t)(in - s->in);
    for (size_t i = 0; i < n; i++) {
        dev_end[i] = INT64_MIN;
        for (size_t j = 0; j < in->nlaunches; j++) {
            const summary_launch *l = &in->launches[j];
            if (l->start >= st[i].end) break;
            if (l->start < st[i].start || l->end > st[i].end) continue;
            uint32_t d = tconv_map_get(&s->dev_index, (uint64_t)l->corr, input);
            if (d == TCONV_MAP_NONE) continue;
            any = 1;
            matched[i] += s->dev_count[d];
            if (s->dev_end[d] > dev_end[i]) dev_end[i] = s->dev_end[d];
        }
    }
    if (any) {
        int64_t prev = st[0].start;
        for (size_t i = 0; i < n; i++) {
            int64_t start = st[i].start > prev ? st[i].start : prev;
            int64_t end = st[i].end > dev_end[i] ? st[i].end : dev_end[i];
            if (end < start) end = start;
            st[i].start = start;
            st[i].end = end;
            prev = end;
        }
        /* Keep up to the last step with device work, and drop that one too when it has under
         * 80 % of the device events of the step before. */
        size_t last = n;
        while (last > 0 && !matched[last - 1])
            last--;
        if (n > 1 && last > 0) {
            size_t keep = last;
            if (last > 1 && (double)matched[last - 2] * 0.8 > (double)matched[last - 1])
                keep = last - 1;
            n = keep;
        }
    }
    in->nsteps = n;
    free(dev_end);
    free(matched);
}

static int summary_step_cmp(const void *pa, const void *pb)
{
    const summary_step *a = pa, *b = pb;
    if (a->start != b->start) return (a->start > b->start) - (a->start < b->start);
    return (a->end < b->end) - (a->end > b->end);
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

static void summary_steps_input_finish(summary_steps *s, summary_steps_input *in)
{
    if (!in->nstep) return;
    if (!in->has_ops)
        for (size_t i = 0; i < in->nplain; i++)
            summary_ranges_add(&in->roles[in->plain[i].role], in->plain[i].start, in->plain[i].end);
    qsort(in->step, in->nstep, sizeof *in->step, summary_step_cmp);
    in->nfound = in->nstep;
    summary_steps_extend(s, in);
    size_t n = in->nsteps;

    summary_ranges slots = {0}, cost = {0}, rest = {0};
    for (size_t i = 0; i < n; i++)
        summary_ranges_add(&slots, in->step[i].start, in->step[i].end);
    summary_ranges_merge(&slots);
    summary_mean sums[SUMMARY_NROLES];
    for (int role = 0; role < SUMMARY_NROLES; role++)
        sums[role] = (summary_mean){.n = (int64_t)n};
    for (int role = 0; role < SUMMARY_NROLES; role++) {
        if (role < SUMMARY_OTHER) {
            summary_ranges_merge(&in->roles[role]);
            summary_ranges_intersect(&slots, &in->roles[role], &cost);
        } else {
            summary_ranges_intersect(&slots, &slots, &cost);
        }
        /* Per step, then averaged, as the overview shows it. */
        for (size_t i = 0; i < n; i++) {
            summary_step *st = &in->step[i];
            st->role[role] = summary_ranges_overlap(&cost, st->start, st->end);
            summary_mean_add(&sums[role], st->role[role]);
        }
        summary_ranges_subtract(&slots, &cost, &rest);
        summary_range *tmp = slots.r;
        size_t tcap = slots.cap;
        slots = rest;
        rest.r = tmp;
        rest.cap = tcap;
        rest.n = 0;
    }
    summary_mean total = {.n = (int64_t)n};
    for (size_t i = 0; i < n; i++)
        summary_mean_add(&total, in->step[i].end - in->step[i].start);
    for (int role = 0; role < SUMMARY_NROLES; role++)
        in->avg[role] = sums[role].q;
    in->avg_total = total.q;
    summary_ranges_free(&slots);
    summary_ranges_free(&cost);
    summary_ranges_free(&rest);
}

void summary_steps_finish(summary_steps *s)
{
    for (size_t i = 0; i < s->nin; i++) {
        summary_steps_input *in = &s->in[i];
        summary_steps_input_finish(s, in);
        for (size_t j = 0; j < in->nstep && !s->other_names; j++)
            s->other_names = !(csv_kineto_name(s->k, in->step[j].name) & CSV_NAME_STEP);
        s->nfound += in->nfound;
        s->nsteps += in->nsteps;
        if (!in->nsteps) continue;
        if (!s->ninputs || in->avg_total > s->in[s->slowest].avg_total) s->slowest = (uint32_t)i;
        s->ninputs++;
    }
    if (!s->ninputs) return;
    summary_mean sums[SUMMARY_NROLES], total = {.n = s->ninputs};
    for (int role = 0; role < SUMMARY_NROLES; role++)
        sums[role] = (summary_mean){.n = s->ninputs};
    for (size_t i = 0; i < s->nin; i++) {
        const summary_steps_input *in = &s->in[i];
        if (!in->nsteps) continue;
        for (int role = 0; role < SUMMARY_NROLES; role++)
            summary_mean_add(&sums[role], in->avg[role]);
        summary_mean_add(&total, in->avg_total);
    }
    for (int role = 0; role < SUMMARY_NROLES; role++)
        s->avg[role] = sums[role].q;
    s->avg_total = total.q;
}
