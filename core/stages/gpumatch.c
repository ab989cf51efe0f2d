/* Matching CPU stacks sampled at launch calls (a uprobe on cudaLaunchKernel records one per call)
 * to the launch records of a GPU trace (CUPTI's runtime calls). Neither side names the other:
 * the stacks carry the probe's clock, the records the tracer's, so they are paired per thread.
 *
 * Threads pair by (pid, tid) first; what is left pairs by pid (CUPTI writes the pthread handle
 * as its thread id, not the kernel's tid), then everything left pairs as one group. Within a
 * pair, equal counts mean the probe saw exactly the calls the tracer recorded, so the n-th
 * stack is the n-th launch; otherwise each stack takes the nearest launch in time, after the
 * clocks are aligned, within the tolerance. The clock offset comes from the pairs matched by
 * order when there are any (their median), else from the offset that lines up the most stacks
 * with a launch. */
#include <string.h>

#include "stages.h"

#define MATCH_NONE UINT32_MAX

typedef struct match_ref {
    uint64_t key;
    int64_t ts;
    uint32_t i;
} match_ref;

typedef struct match_group {
    size_t s, ns; /* into the sorted stack indexes */
    size_t l, nl; /* into the sorted launch indexes */
} match_group;

typedef struct match_run {
    tconv_match_item *stacks, *launches;
    size_t nstacks, nlaunches;
    uint8_t *sdone, *ldone; /* already in a group */
    uint32_t *sidx, *lidx;  /* group members, each group sorted by time */
    size_t nsidx, nlidx;
    match_group *groups;
    size_t ngroups, capgroups;
} match_run;

static int match_cmp_ref(const void *a, const void *b)
{
    const match_ref *x = a, *y = b;
    if (x->key != y->key) return x->key < y->key ? -1 : 1;
    if (x->ts != y->ts) return x->ts < y->ts ? -1 : 1;
    return x->i < y->i ? -1 : x->i > y->i;
}

static uint64_t match_key(const tconv_match_item *it, int level)
{
    if (level == 0) return (uint64_t)it->pid << 32 | it->tid;
    return level == 1 ? it->pid : 0;
}

static match_ref *match_refs(const tconv_match_item *items, size_t n, const uint8_t *done,
                             int level, size_t *count)
{
    match_ref *r = tconv_xmalloc((n ? n : 1) * sizeof(*r));
    size_t k = 0;
    for (size_t i = 0; i < n; i++)
        if (!done[i]) r[k++] = (match_ref){match_key(&items[i], level), items[i].ts, (uint32_t)i};
    qsort(r, k, sizeof(*r), match_cmp_ref);
    *count = k;
    return r;
}

/* Every key present on both sides becomes a group; its members leave the pool. */
static void match_level(match_run *m, int level)
{
    size_t ns, nl;
    match_ref *s = match_refs(m->stacks, m->nstacks, m->sdone, level, &ns);
    match_ref *l = match_refs(m->launches, m->nlaunches, m->ldone, level, &nl);
    size_t i = 0, j = 0;
    while (i < ns && j < nl) {
        if (s[i].key != l[j].key) {
            if (s[i].key < l[j].key)
                i++;
            else
                j++;
            continue;
        }
        uint64_t key = s[i].key;
        TCONV_GROW(m->groups, m->capgroups, m->ngroups + 1);
        match_group *g = &m->groups[m->ngroups++];
        g->s = m->nsidx;
        g->l = m->nlidx;
        for (; i < ns && s[i].key == key; i++) {
            m->sidx[m->nsidx++] = s[i].i;
            m->sdone[s[i].i] = 1;
        }
        for (; j < nl && l[j].key == key; j++) {
            m->lidx[m->nlidx++] = l[j].i;
            m->ldone[l[j].i] = 1;
        }
        g->ns = m->nsidx - g->s;
        g->nl = m->nlidx - g->l;
    }
    free(s);
    free(l);
}

static int match_cmp_i64(const void *a, const void *b)
{
    int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;
    return x < y ? -1 : x > y;
}

/* ts + off without overflow: a time past the clock's range matches nothing anyway. */
static int64_t match_shift(int64_t ts, int64_t off)
{
    int64_t r;
    if (__builtin_add_overflow(ts, off, &r)) return off > 0 ? INT64_MAX : INT64_MIN;
    return r;
}

static uint64_t match_dist(int64_t a, int64_t b)
{
    return a > b ? (uint64_t)a - (uint64_t)b : (uint64_t)b - (uint64_t)a;
}

/* The first launch of the group at or after time t. */
static size_t match_lower(const match_run *m, const match_group *g, int64_t t)
{
    size_t lo = 0, hi = g->nl;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (m->launches[m->lidx[g->l + mid]].ts < t)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo;
}

/* The launch nearest to t, or MATCH_NONE when none is within the tolerance. */
static size_t match_nearest(const match_run *m, const match_group *g, int64_t t, uint64_t tol,
                            uint64_t *dist)
{
    size_t j = match_lower(m, g, t), best = MATCH_NONE;
    for (size_t k = j ? j - 1 : 0; k < g->nl && k <= j; k++) {
        uint64_t d = match_dist(m->launches[m->lidx[g->l + k]].ts, t);
        if (d <= tol && (best == MATCH_NONE || d < *dist)) {
            best = k;
            *dist = d;
        }
    }
    return best;
}

typedef struct match_score {
    size_t hits;
    uint64_t spread; /* summed distance of the hits */
} match_score;

/* How well an offset lines up a sample of the group's stacks with launches. */
static match_score match_try(const match_run *m, const match_group *g, int64_t off, uint64_t tol)
{
    enum { MATCH_SAMPLE = 512 };
    match_score sc = {0, 0};
    size_t step = g->ns > MATCH_SAMPLE ? g->ns / MATCH_SAMPLE : 1;
    for (size_t k = 0; k < g->ns; k += step) {
        uint64_t d = 0;
        int64_t t = match_shift(m->stacks[m->sidx[g->s + k]].ts, off);
        if (match_nearest(m, g, t, tol, &d) != MATCH_NONE) {
            sc.hits++;
            sc.spread += d;
        }
    }
    return sc;
}

/* Launch clock minus stack clock, guessed from the first and last few of each side: when the
 * probe and the tracer saw the same calls, one of these differences is the true offset. */
static int64_t match_guess_offset(const match_run *m, const match_group *g, uint64_t tol)
{
    enum { MATCH_EDGE = 8 };
    int64_t best = 0;
    match_score bs = match_try(m, g, 0, tol);
    for (int end = 0; end < 2; end++) {
        for (size_t a = 0; a < MATCH_EDGE && a < g->ns; a++) {
            for (size_t b = 0; b < MATCH_EDGE && b < g->nl; b++) {
                size_t si = end ? g->ns - 1 - a : a, li = end ? g->nl - 1 - b : b;
                int64_t off;
                if (__builtin_sub_overflow(m->launches[m->lidx[g->l + li]].ts,
                                           m->stacks[m->sidx[g->s + si]].ts, &off))
                    continue;
                match_score sc = match_try(m, g, off, tol);
                if (sc.hits > bs.hits || (sc.hits == bs.hits && sc.spread < bs.spread)) {
                    bs = sc;
                    best = off;
                }
            }
        }
    }
    return best;
}

typedef struct match_cand {
    uint64_t dist;
    uint32_t s, l;
} match_cand;

static int match_cmp_cand(const void *a, const void *b)
{
    const match_cand *x = a, *y = b;
    if (x->dist != y->dist) return x->dist < y->dist ? -1 : 1;
    if (x->s != y->s) return x->s < y->s ? -1 : 1;
    return x->l < y->l ? -1 : x->l > y->l;
}

/* Nearest first over the whole group: each stack considers the launches around its time, and
 * the closest pairs are taken first, so a stack never takes a launch another stack is nearer. */
static uint64_t match_by_time(match_run *m, const match_group *g, int64_t off, uint64_t tol)
{
    enum { MATCH_AROUND = 2 };
    match_cand *c = tconv_xmalloc((g->ns * 2 * MATCH_AROUND + 1) * sizeof(*c));
    size_t nc = 0;
    for (size_t k = 0; k < g->ns; k++) {
        uint32_t si = m->sidx[g->s + k];
        int64_t t = match_shift(m->stacks[si].ts, off);
        size_t j = match_lower(m, g, t);
        size_t lo = j > MATCH_AROUND ? j - MATCH_AROUND : 0;
        for (size_t x = lo; x < g->nl && x < j + MATCH_AROUND; x++) {
            uint32_t li = m->lidx[g->l + x];
            uint64_t d = match_dist(m->launches[li].ts, t);
            if (d <= tol) c[nc++] = (match_cand){d, si, li};
        }
    }
    qsort(c, nc, sizeof(*c), match_cmp_cand);
    uint64_t n = 0;
    for (size_t k = 0; k < nc; k++) {
        if (m->stacks[c[k].s].partner != MATCH_NONE || m->launches[c[k].l].partner != MATCH_NONE)
            continue;
        m->stacks[c[k].s].partner = c[k].l;
        m->launches[c[k].l].partner = c[k].s;
        n++;
    }
    free(c);
    return n;
}

void tconv_match_launches(tconv_match_item *stacks, size_t nstacks, tconv_match_item *launches,
                          size_t nlaunches, int64_t tolerance, tconv_match_stats *st)
{
    memset(st, 0, sizeof(*st));
    for (size_t i = 0; i < nstacks; i++)
        stacks[i].partner = MATCH_NONE;
    for (size_t i = 0; i < nlaunches; i++)
        launches[i].partner = MATCH_NONE;
    if (!nstacks || !nlaunches) return;
    match_run m;
    memset(&m, 0, sizeof(m));
    m.stacks = stacks;
    m.launches = launches;
    m.nstacks = nstacks;
    m.nlaunches = nlaunches;
    m.sdone = tconv_xcalloc(nstacks, 1);
    m.ldone = tconv_xcalloc(nlaunches, 1);
    m.sidx = tconv_xmalloc(nstacks * sizeof(*m.sidx));
    m.lidx = tconv_xmalloc(nlaunches * sizeof(*m.lidx));
    for (int level = 0; level < 3; level++)
        match_level(&m, level);
    uint64_t tol = tolerance > 0 ? (uint64_t)tolerance : 0;

    /* Same counts: the n-th stack is the n-th launch. */
    int64_t *offs = tconv_xmalloc(nstacks * sizeof(*offs));
    size_t noffs = 0;
    const match_group *widest = NULL;
    for (size_t k = 0; k < m.ngroups; k++) {
        const match_group *g = &m.groups[k];
        if (g->ns != g->nl) {
            if (!widest || g->ns + g->nl > widest->ns + widest->nl) widest = g;
            continue;
        }
        for (size_t x = 0; x < g->ns; x++) {
            uint32_t si = m.sidx[g->s + x], li = m.lidx[g->l + x];
            stacks[si].partner = li;
            launches[li].partner = si;
            int64_t off;
            if (!__builtin_sub_overflow(launches[li].ts, stacks[si].ts, &off)) offs[noffs++] = off;
        }
        st->by_order += g->ns;
    }
    if (noffs) {
        qsort(offs, noffs, sizeof(*offs), match_cmp_i64);
        st->offset = offs[noffs / 2];
        st->have_offset = 1;
    } else if (widest) {
        st->offset = match_guess_offset(&m, widest, tol);
        st->have_offset = 1;
    }
    free(offs);

    /* Different counts: nearest launch in time, on the aligned clock. */
    for (size_t k = 0; k < m.ngroups; k++) {
        const match_group *g = &m.groups[k];
        if (g->ns != g->nl) st->by_time += match_by_time(&m, g, st->offset, tol);
    }
    free(m.sdone);
    free(m.ldone);
    free(m.sidx);
    free(m.lidx);
    free(m.groups);
}
