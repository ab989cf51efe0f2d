/* One archive from every rank of an MPI run (TCONV_WRITER_COLLECTIVE, tconv/collective.h).
 *
 * Each rank collected its own inputs' events into location buffers, as a single writer does.
 * At finish:
 *   1. every rank sends rank 0 its definitions: the tracks that hold something (with their
 *      pid, tid, names, sort keys, kind), each input's rank and host, process labels, regions,
 *      metric series and instances, attributes, marker definitions and markers, the strings
 *      its args use, flows per input, its time range;
 *   2. rank 0 merges them into the whole run's, in input order, with the single writer's rules,
 *      lays the locations out with otf2_layout.c, and sends each rank its ids as the run's:
 *      location ids, regions, attributes, strings, metrics, flow tags, the time shift;
 *   3. every rank writes its locations' event files and local definition files into the one
 *      archive (OTF2's collective open and close, through otf2_coll.c); rank 0 also the markers
 *      and the global definitions, with every location's event count from its rank.
 *
 * Why the ids are those of one writer: the ordered stream reaches a writer track after track in
 * track order, and tracks are made input after input (lanes, made while ordering, follow their
 * input's other tracks), so everything the writer defines on first use is defined input after
 * input. A definition's first input decides its place: merging the ranks' definitions by
 * first input (each rank's in its own order within an input) gives the single writer's order.
 * Within an input, track ids keep their order on the rank that read it, which is all the layout
 * compares them for. Flows pair within an input (their key holds it), and an input is read by
 * one rank: links stay local; their tags, indices of flow events in delivery order, are shifted
 * by the flows of the inputs before. The strings other than args' are defined at finish, by
 * rank 0 alone, as a single writer defines them. */
#include <stdlib.h>
#include <string.h>

#include "otf2_oom.h"
#include "otf2_writer.h"

/* ---- the wire ------------------------------------------------------------------------------ */

static void otf2_put_text(otf2_bytes *b, const char *s, size_t n)
{
    otf2_bytes_reserve(b, 10 + n);
    otf2_put_uv(b, n);
    otf2_put_raw(b, s, n);
}

static void otf2_put_str(otf2_state *st, otf2_bytes *b, tconv_str s)
{
    otf2_put_text(b, tconv_string_get(st->ctx, s), tconv_string_length(st->ctx, s));
}

static void otf2_put_v(otf2_bytes *b, uint64_t v)
{
    otf2_bytes_reserve(b, 10);
    otf2_put_uv(b, v);
}

static void otf2_put_s(otf2_bytes *b, int64_t v)
{
    otf2_bytes_reserve(b, 10);
    otf2_put_sv(b, v);
}

/* A string of the message, interned in rank 0's context. */
static tconv_str otf2_get_str(otf2_state *g, otf2_cursor *c)
{
    size_t n = (size_t)otf2_get_uv(c);
    if (n > (size_t)(c->end - c->p)) n = (size_t)(c->end - c->p);
    tconv_str s = tconv_string_intern(g->ctx, (const char *)c->p, n);
    c->p += n;
    return s;
}

unsigned char *otf2_gather(tconv_collective *c, const otf2_bytes *b, size_t **lens_out)
{
    unsigned char *all;
    tconv_collective_gather(c, b->p, b->len, 0, &all, lens_out);
    return all;
}

/* ---- a rank's definitions ------------------------------------------------------------------ */

/* Which tracks rank 0 hears of: those that hold anything (a location, a process marker). */
static int otf2_loc_sent(const otf2_loc *l)
{
    return l->nrec > 0 || l->flags != 0;
}

static void otf2_encode_local(otf2_state *st, tconv_collective *c, const uint64_t *flows_per_input,
                              uint32_t ninputs, uint32_t touched, otf2_bytes *b)
{
    /* Every input this rank read, with its rank and host; then how many the layout counts
     * (those with a track or metadata, otf2_layout_build). */
    otf2_put_v(b, ninputs);
    for (uint32_t i = 0; i < ninputs; i++) {
        int64_t rank = 0;
        int has = tconv_ctx_rank(st->ctx, i, &rank);
        otf2_put_v(b, tconv_collective_input(c, i));
        otf2_put_v(b, (uint64_t)has);
        otf2_put_s(b, rank);
        tconv_str host = i < st->ninputs ? st->inputs[i].host : 0;
        otf2_put_v(b, host != 0);
        if (host) otf2_put_str(st, b, host);
        otf2_put_v(b, flows_per_input[i]);
    }
    otf2_put_v(b, touched);
    otf2_cursor lc = {st->labels_log.p, st->labels_log.p + st->labels_log.len};
    uint64_t nlabels = 0;
    while (lc.p < lc.end) {
        otf2_get_uv(&lc);
        otf2_get_uv(&lc);
        otf2_get_uv(&lc);
        nlabels++;
    }
    otf2_put_v(b, nlabels);
    lc.p = st->labels_log.p;
    while (lc.p < lc.end) {
        otf2_put_v(b, otf2_get_uv(&lc));
        otf2_put_str(st, b, (tconv_str)otf2_get_uv(&lc));
        otf2_put_str(st, b, (tconv_str)otf2_get_uv(&lc));
    }
    uint64_t ntracks = 0;
    for (size_t t = 0; t < st->nlocs_cap; t++)
        ntracks += otf2_loc_sent(&st->locs[t]);
    otf2_put_v(b, ntracks);
    for (size_t t = 0; t < st->nlocs_cap; t++) {
        const otf2_loc *l = &st->locs[t];
        if (!otf2_loc_sent(l)) continue;
        const tconv_track *k = tconv_track_describe(st->ctx, (uint32_t)t);
        otf2_put_v(b, t);
        otf2_put_v(b, k->input);
        otf2_put_str(st, b, k->pid);
        otf2_put_str(st, b, k->tid);
        otf2_put_v(b, k->process_name != 0);
        if (k->process_name) otf2_put_str(st, b, k->process_name);
        otf2_put_v(b, k->thread_name != 0);
        if (k->thread_name) otf2_put_str(st, b, k->thread_name);
        otf2_put_s(b, k->process_sort);
        otf2_put_s(b, k->thread_sort);
        otf2_put_v(b, k->kind);
        otf2_put_v(b, l->flags);
        otf2_put_v(b, l->nrec);
    }
    otf2_put_v(b, st->nregions);
    for (size_t i = 0; i < st->nregions; i++) {
        otf2_put_str(st, b, st->regions[i].name);
        otf2_put_str(st, b, st->regions[i].cat);
        otf2_put_v(b, st->regions[i].role);
        otf2_put_v(b, st->regions[i].input);
    }
    otf2_put_v(b, st->nseries);
    for (size_t i = 0; i < st->nseries; i++) {
        otf2_put_str(st, b, st->series[i].name);
        otf2_put_str(st, b, st->series[i].key);
        otf2_put_str(st, b, st->series[i].unit);
        otf2_put_v(b, st->series[i].input);
        otf2_put_v(b, st->series[i].fraction);
    }
    otf2_put_v(b, st->ninstances);
    for (size_t i = 0; i < st->ninstances; i++) {
        otf2_put_v(b, st->instances[i].series);
        otf2_put_v(b, st->instances[i].track);
    }
    otf2_put_v(b, st->nattrs);
    for (size_t i = 0; i < st->nattrs; i++) {
        otf2_put_str(st, b, st->attrs[i].key);
        otf2_put_v(b, st->attrs[i].type);
        otf2_put_v(b, st->attrs[i].input);
    }
    otf2_put_v(b, st->nmarkdefs);
    for (size_t i = 0; i < st->nmarkdefs; i++) {
        otf2_put_str(st, b, st->markdefs[i].name);
        otf2_put_str(st, b, st->markdefs[i].cat);
        otf2_put_v(b, st->markdefs[i].input);
    }
    otf2_put_v(b, st->nstrings);
    for (size_t i = 0; i < st->nstrings; i++) {
        otf2_put_str(st, b, st->strings[i]);
        otf2_put_v(b, st->string_input[i]);
    }
    otf2_put_v(b, st->nmarkers);
    otf2_put_text(b, (const char *)st->markers.p, st->markers.len);
    otf2_put_v(b, st->nlinks);
    otf2_put_v(b, st->nflows);
    otf2_put_v(b, (uint64_t)st->have_time);
    otf2_put_s(b, st->min_ts);
    otf2_put_s(b, st->max_ts);
    otf2_put_v(b, (uint64_t)st->hip);
}

/* ---- rank 0: the whole run's definitions ---------------------------------------------------- */

/* A definition of some rank, to be placed by its first input. */
typedef struct otf2_udef {
    uint32_t ginput, rank, local;
    tconv_str a, b, c;
    uint32_t x;
} otf2_udef;

typedef struct otf2_urank {
    uint32_t ninputs, touched;
    uint32_t *ginput;  /* by local input */
    uint64_t *nflows;  /* by local input */
    uint32_t *track;   /* local track -> global, UINT32_MAX: none */
    size_t ntrack_map; /* entries of track */
    uint32_t *region, *attr, *string, *series, *markdef;
    size_t nregions, nattrs, nstrings, nseries, nmarkdefs, ninstances;
    uint32_t *inst_series, *inst_track; /* local instances (local series, local track) */
    uint64_t *metric;
    uint64_t nmarkers;
    const unsigned char *markers;
    size_t markers_len;
    int64_t *flow_delta; /* by local input */
} otf2_urank;

typedef struct otf2_utrack {
    uint32_t rank, local, ginput;
    tconv_track k;
    uint32_t flags;
    uint64_t nrec;
} otf2_utrack;

/* The single writer's order of what ranks define: by first input, then rank, then the rank's
 * own order (an input is read by one rank, so rank only keeps the sort total). */
static int otf2_first_use_cmp(uint32_t xin, uint32_t xrank, uint32_t xseq, uint32_t yin,
                              uint32_t yrank, uint32_t yseq)
{
    if (xin != yin) return xin < yin ? -1 : 1;
    if (xrank != yrank) return xrank < yrank ? -1 : 1;
    return xseq < yseq ? -1 : xseq > yseq;
}

static int otf2_udef_cmp(const void *a, const void *b)
{
    const otf2_udef *x = a, *y = b;
    return otf2_first_use_cmp(x->ginput, x->rank, x->local, y->ginput, y->rank, y->local);
}

static int otf2_utrack_cmp(const void *a, const void *b)
{
    const otf2_utrack *x = a, *y = b;
    return otf2_first_use_cmp(x->ginput, x->rank, x->local, y->ginput, y->rank, y->local);
}

typedef struct otf2_ulist {
    otf2_udef *d;
    size_t n, cap;
} otf2_ulist;

static void otf2_ulist_add(otf2_ulist *l, otf2_udef d)
{
    OTF2W_GROW(l->d, l->cap, l->n + 1);
    l->d[l->n++] = d;
}

static uint32_t *otf2_u32s(size_t n)
{
    uint32_t *p = calloc(n ? n : 1, sizeof(*p));
    if (!p) otf2_oom();
    return p;
}

static uint32_t otf2_ginput(const otf2_urank *r, uint64_t local)
{
    return local < r->ninputs ? r->ginput[local] : 0;
}

/* Room for cap inputs' rank, whether known, and host (new entries unknown, no host). */
static void otf2_granks_grow(int64_t **grank, unsigned char **grank_has, tconv_str **hosts,
                             size_t *granks_cap, size_t cap)
{
    if (cap <= *granks_cap) return;
    size_t old = *granks_cap;
    *grank = realloc(*grank, cap * sizeof(**grank));
    *grank_has = realloc(*grank_has, cap);
    *hosts = realloc(*hosts, cap * sizeof(**hosts));
    if (!*grank || !*grank_has || !*hosts) otf2_oom();
    memset(*grank_has + old, 0, cap - old);
    memset(*hosts + old, 0, (cap - old) * sizeof(**hosts));
    *granks_cap = cap;
}

/* Decodes rank q's message; its definitions join the lists, its tracks the track list. */
static void otf2_decode_rank(otf2_state *g, otf2_urank *r, uint32_t q, otf2_cursor *c,
                             otf2_utrack **tracks, size_t *ntracks, size_t *tracks_cap,
                             otf2_ulist *lists, size_t *ninputs, int64_t **grank,
                             unsigned char **grank_has, tconv_str **hosts, size_t *granks_cap)
{
    r->ninputs = (uint32_t)otf2_get_uv(c);
    r->ginput = otf2_u32s(r->ninputs);
    r->nflows = calloc(r->ninputs ? r->ninputs : 1, sizeof(*r->nflows));
    r->flow_delta = calloc(r->ninputs ? r->ninputs : 1, sizeof(*r->flow_delta));
    if (!r->nflows || !r->flow_delta) otf2_oom();
    for (uint32_t i = 0; i < r->ninputs; i++) {
        uint32_t gi = r->ginput[i] = (uint32_t)otf2_get_uv(c);
        int has = (int)otf2_get_uv(c);
        int64_t rank = otf2_get_sv(c);
        tconv_str host = otf2_get_uv(c) ? otf2_get_str(g, c) : 0;
        r->nflows[i] = otf2_get_uv(c);
        if (gi == UINT32_MAX) continue;
        otf2_granks_grow(grank, grank_has, hosts, granks_cap, (size_t)gi + 1);
        (*grank)[gi] = rank;
        (*grank_has)[gi] = (unsigned char)has;
        (*hosts)[gi] = host;
    }
    r->touched = (uint32_t)otf2_get_uv(c);
    if (r->touched && otf2_ginput(r, r->touched - 1) + 1u > *ninputs)
        *ninputs = otf2_ginput(r, r->touched - 1) + 1u;
    uint64_t nlabels = otf2_get_uv(c);
    for (uint64_t i = 0; i < nlabels; i++) {
        uint32_t gi = otf2_ginput(r, otf2_get_uv(c));
        tconv_str pid = otf2_get_str(g, c), text = otf2_get_str(g, c);
        tconv_map_set(&g->labels_map, gi, pid, text);
    }
    uint64_t nt = otf2_get_uv(c);
    for (uint64_t i = 0; i < nt; i++) {
        otf2_utrack u = {.rank = q};
        u.local = (uint32_t)otf2_get_uv(c);
        u.ginput = otf2_ginput(r, otf2_get_uv(c));
        u.k.input = u.ginput;
        u.k.pid = otf2_get_str(g, c);
        u.k.tid = otf2_get_str(g, c);
        u.k.process_name = otf2_get_uv(c) ? otf2_get_str(g, c) : 0;
        u.k.thread_name = otf2_get_uv(c) ? otf2_get_str(g, c) : 0;
        u.k.process_sort = otf2_get_sv(c);
        u.k.thread_sort = otf2_get_sv(c);
        u.k.kind = (uint32_t)otf2_get_uv(c);
        u.flags = (uint32_t)otf2_get_uv(c);
        u.nrec = otf2_get_uv(c);
        OTF2W_GROW(*tracks, *tracks_cap, *ntracks + 1);
        (*tracks)[(*ntracks)++] = u;
        if (u.local + 1u > r->ntrack_map) r->ntrack_map = u.local + 1u;
    }
    r->nregions = (size_t)otf2_get_uv(c);
    r->region = otf2_u32s(r->nregions);
    for (size_t i = 0; i < r->nregions; i++) {
        otf2_udef d = {.rank = q, .local = (uint32_t)i};
        d.a = otf2_get_str(g, c);
        d.b = otf2_get_str(g, c);
        d.x = (uint32_t)otf2_get_uv(c);
        d.ginput = otf2_ginput(r, otf2_get_uv(c));
        otf2_ulist_add(&lists[0], d);
    }
    r->nseries = (size_t)otf2_get_uv(c);
    r->series = otf2_u32s(r->nseries);
    for (size_t i = 0; i < r->nseries; i++) {
        otf2_udef d = {.rank = q, .local = (uint32_t)i};
        d.a = otf2_get_str(g, c);
        d.b = otf2_get_str(g, c);
        d.c = otf2_get_str(g, c);
        d.ginput = otf2_ginput(r, otf2_get_uv(c));
        d.x = (uint32_t)otf2_get_uv(c); /* a value that is not a whole number */
        otf2_ulist_add(&lists[1], d);
    }
    r->ninstances = (size_t)otf2_get_uv(c);
    r->inst_series = otf2_u32s(r->ninstances);
    r->inst_track = otf2_u32s(r->ninstances);
    r->metric = calloc(r->ninstances ? r->ninstances : 1, sizeof(*r->metric));
    if (!r->metric) otf2_oom();
    for (size_t i = 0; i < r->ninstances; i++) {
        r->inst_series[i] = (uint32_t)otf2_get_uv(c);
        r->inst_track[i] = (uint32_t)otf2_get_uv(c);
    }
    r->nattrs = (size_t)otf2_get_uv(c);
    r->attr = otf2_u32s(r->nattrs);
    for (size_t i = 0; i < r->nattrs; i++) {
        otf2_udef d = {.rank = q, .local = (uint32_t)i};
        d.a = otf2_get_str(g, c);
        d.x = (uint32_t)otf2_get_uv(c);
        d.ginput = otf2_ginput(r, otf2_get_uv(c));
        otf2_ulist_add(&lists[2], d);
    }
    r->nmarkdefs = (size_t)otf2_get_uv(c);
    r->markdef = otf2_u32s(r->nmarkdefs);
    for (size_t i = 0; i < r->nmarkdefs; i++) {
        otf2_udef d = {.rank = q, .local = (uint32_t)i};
        d.a = otf2_get_str(g, c);
        d.b = otf2_get_str(g, c);
        d.ginput = otf2_ginput(r, otf2_get_uv(c));
        otf2_ulist_add(&lists[3], d);
    }
    r->nstrings = (size_t)otf2_get_uv(c);
    r->string = otf2_u32s(r->nstrings);
    for (size_t i = 0; i < r->nstrings; i++) {
        otf2_udef d = {.rank = q, .local = (uint32_t)i};
        d.a = otf2_get_str(g, c);
        d.ginput = otf2_ginput(r, otf2_get_uv(c));
        otf2_ulist_add(&lists[4], d);
    }
    r->nmarkers = otf2_get_uv(c);
    r->markers_len = (size_t)otf2_get_uv(c);
    if (r->markers_len > (size_t)(c->end - c->p)) r->markers_len = (size_t)(c->end - c->p);
    r->markers = c->p;
    c->p += r->markers_len;
    g->nlinks += otf2_get_uv(c);
    g->nflows += (size_t)otf2_get_uv(c);
    int have = (int)otf2_get_uv(c);
    int64_t lo = otf2_get_sv(c), hi = otf2_get_sv(c);
    if (have && (!g->have_time || lo < g->min_ts)) g->min_ts = lo;
    if (have && (!g->have_time || hi > g->max_ts)) g->max_ts = hi;
    g->have_time |= have;
    g->hip |= (int)otf2_get_uv(c);
}

static void otf2_ulist_sort(otf2_ulist *l)
{
    qsort(l->d, l->n, sizeof(*l->d), otf2_udef_cmp);
}

/* Marker records of every rank, in input order, with the run's tracks and definitions. */
typedef struct otf2_umark {
    uint32_t ginput, rank, seq;
    uint32_t track, def;
    uint8_t scope;
    int64_t ts;
    const unsigned char *text;
    size_t len;
} otf2_umark;

static int otf2_umark_cmp(const void *a, const void *b)
{
    const otf2_umark *x = a, *y = b;
    return otf2_first_use_cmp(x->ginput, x->rank, x->seq, y->ginput, y->rank, y->seq);
}

static void otf2_merge_markers(otf2_state *g, otf2_urank *ranks, int size,
                               const otf2_utrack *tracks)
{
    otf2_umark *m = NULL;
    size_t n = 0, cap = 0;
    for (int q = 0; q < size; q++) {
        otf2_urank *r = &ranks[q];
        otf2_cursor c = {r->markers, r->markers + r->markers_len};
        for (uint32_t seq = 0; c.p < c.end; seq++) {
            otf2_umark u = {.rank = (uint32_t)q, .seq = seq};
            u.scope = otf2_get_u8(&c);
            uint64_t lt = otf2_get_uv(&c);
            u.def = (uint32_t)otf2_get_uv(&c);
            u.ts = otf2_get_sv(&c);
            u.len = (size_t)otf2_get_uv(&c);
            u.text = c.p;
            c.p += u.len;
            u.track = lt < r->ntrack_map ? r->track[lt] : UINT32_MAX;
            if (u.track == UINT32_MAX) continue; /* every marker's track is sent */
            u.ginput = tracks ? g->gtracks[u.track].input : 0;
            u.def = u.def < r->nmarkdefs ? r->markdef[u.def] : 0;
            OTF2W_GROW(m, cap, n + 1);
            m[n++] = u;
        }
    }
    qsort(m, n, sizeof(*m), otf2_umark_cmp);
    for (size_t i = 0; i < n; i++) {
        otf2_bytes *b = &g->markers;
        otf2_bytes_reserve(b, 1 + 10 + 10 + 10 + 10 + m[i].len);
        otf2_put_u8(b, m[i].scope);
        otf2_put_uv(b, m[i].track);
        otf2_put_uv(b, m[i].def);
        otf2_put_sv(b, m[i].ts);
        otf2_put_uv(b, m[i].len);
        otf2_put_raw(b, m[i].text, m[i].len);
    }
    g->nmarkers = n;
    free(m);
}

/* The definitions of every rank, merged into g; each rank's ids as the run's in ranks. */
static void otf2_merge(otf2_state *g, otf2_urank *ranks, int size, otf2_utrack *tracks,
                       size_t ntracks, otf2_ulist *lists)
{
    /* Tracks: input after input, each input's in its rank's order. */
    qsort(tracks, ntracks, sizeof(*tracks), otf2_utrack_cmp);
    for (int q = 0; q < size; q++) {
        ranks[q].track = otf2_u32s(ranks[q].ntrack_map);
        memset(ranks[q].track, 0xff, ranks[q].ntrack_map * sizeof(uint32_t));
    }
    g->gtracks = calloc(ntracks ? ntracks : 1, sizeof(*g->gtracks));
    if (!g->gtracks) otf2_oom();
    g->ngtracks = ntracks;
    if (ntracks) otf2_collect_loc(g, (uint32_t)ntracks - 1);
    for (size_t t = 0; t < ntracks; t++) {
        g->gtracks[t] = tracks[t].k;
        g->locs[t].flags = tracks[t].flags;
        g->locs[t].nrec = tracks[t].nrec;
        ranks[tracks[t].rank].track[tracks[t].local] = (uint32_t)t;
    }
    for (int i = 0; i < 5; i++)
        otf2_ulist_sort(&lists[i]);
    for (size_t i = 0; i < lists[0].n; i++) { /* regions */
        const otf2_udef *d = &lists[0].d[i];
        uint32_t r = tconv_map_get(&g->region_map, d->a, d->b);
        if (r == UINT32_MAX) {
            OTF2W_GROW(g->regions, g->regions_cap, g->nregions + 1);
            r = (uint32_t)g->nregions++;
            g->regions[r] = (otf2_region){d->a, d->b, d->x, d->ginput};
            tconv_map_set(&g->region_map, d->a, d->b, r);
        }
        ranks[d->rank].region[d->local] = r;
    }
    for (size_t i = 0; i < lists[1].n; i++) { /* series */
        const otf2_udef *d = &lists[1].d[i];
        uint64_t key = ((uint64_t)d->b << 32) | d->c;
        uint32_t s = tconv_map_get(&g->series_map, key, d->a);
        if (s == UINT32_MAX) {
            OTF2W_GROW(g->series, g->series_cap, g->nseries + 1);
            s = (uint32_t)g->nseries++;
            g->series[s] = (otf2_series){d->a, d->b, d->c, d->ginput, 0};
            tconv_map_set(&g->series_map, key, d->a, s);
        }
        g->series[s].fraction |= d->x;
        ranks[d->rank].series[d->local] = s;
    }
    for (size_t i = 0; i < lists[2].n; i++) { /* attributes */
        const otf2_udef *d = &lists[2].d[i];
        uint32_t a = tconv_map_get(&g->attr_map, d->a, d->x);
        if (a == UINT32_MAX) {
            OTF2W_GROW(g->attrs, g->attrs_cap, g->nattrs + 1);
            a = (uint32_t)g->nattrs++;
            g->attrs[a] = (otf2_attr){d->a, (OTF2_Type)d->x, d->ginput};
            tconv_map_set(&g->attr_map, d->a, d->x, a);
        }
        ranks[d->rank].attr[d->local] = a;
    }
    for (size_t i = 0; i < lists[3].n; i++) { /* marker definitions */
        const otf2_udef *d = &lists[3].d[i];
        uint32_t m = tconv_map_get(&g->markdef_map, d->a, d->b);
        if (m == UINT32_MAX) {
            OTF2W_GROW(g->markdefs, g->markdefs_cap, g->nmarkdefs + 1);
            m = (uint32_t)g->nmarkdefs++;
            g->markdefs[m] = (otf2_markdef){d->a, d->b, d->ginput};
            tconv_map_set(&g->markdef_map, d->a, d->b, m);
        }
        ranks[d->rank].markdef[d->local] = m;
    }
    for (size_t i = 0; i < lists[4].n; i++) { /* the strings args use, before all others */
        const otf2_udef *d = &lists[4].d[i];
        ranks[d->rank].string[d->local] = otf2_strref(g, d->a);
    }
    /* Metric instances: one per (series, track), tracks being an input's, in input order. */
    otf2_ulist inst = {0};
    for (int q = 0; q < size; q++) {
        otf2_urank *r = &ranks[q];
        for (size_t i = 0; i < r->ninstances; i++) {
            uint32_t t = r->inst_track[i] < r->ntrack_map ? r->track[r->inst_track[i]] : 0;
            otf2_ulist_add(&inst, (otf2_udef){.ginput = g->gtracks[t].input,
                                              .rank = (uint32_t)q,
                                              .local = (uint32_t)i,
                                              .x = t});
        }
    }
    otf2_ulist_sort(&inst);
    for (size_t i = 0; i < inst.n; i++) {
        const otf2_udef *d = &inst.d[i];
        otf2_urank *r = &ranks[d->rank];
        OTF2W_GROW(g->instances, g->instances_cap, g->ninstances + 1);
        uint32_t s = r->inst_series[d->local];
        g->instances[g->ninstances] = (otf2_instance){s < r->nseries ? r->series[s] : 0, d->x};
        r->metric[d->local] = g->ninstances++;
    }
    free(inst.d);
    for (int q = 0; q < size; q++)
        for (size_t i = 0; i < ranks[q].ninstances; i++)
            ranks[q].metric[i] += g->nseries;
    otf2_merge_markers(g, ranks, size, tracks);
    /* Flow tags: the flows of every earlier input come first. */
    uint64_t *before = calloc(g->ninputs + 1, sizeof(*before));
    if (!before) otf2_oom();
    for (int q = 0; q < size; q++)
        for (uint32_t i = 0; i < ranks[q].ninputs; i++)
            if (ranks[q].ginput[i] < g->ninputs)
                before[ranks[q].ginput[i] + 1] = ranks[q].nflows[i];
    for (size_t i = 0; i < g->ninputs; i++)
        before[i + 1] += before[i];
    for (int q = 0; q < size; q++) {
        uint64_t local = 0;
        for (uint32_t i = 0; i < ranks[q].ninputs; i++) {
            uint32_t gi = ranks[q].ginput[i];
            ranks[q].flow_delta[i] = (gi < g->ninputs ? (int64_t)before[gi] : 0) - (int64_t)local;
            local += ranks[q].nflows[i];
        }
    }
    free(before);
}

/* Rank 0's reply to one rank: its ids as the run's. */
static void otf2_encode_reply(const otf2_state *g, const otf2_urank *r, otf2_bytes *b)
{
    otf2_put_v(b, r->ntrack_map);
    for (size_t t = 0; t < r->ntrack_map; t++) {
        uint32_t gt = r->track[t];
        int used =
            gt != UINT32_MAX && (g->locs[gt].nrec > 0 || (g->locs[gt].flags & OTF2W_LOCF_MARKERS));
        otf2_put_v(b, used ? g->locs[gt].id + 1 : 0);
    }
    for (size_t i = 0; i < r->nregions; i++)
        otf2_put_v(b, r->region[i]);
    for (size_t i = 0; i < r->nattrs; i++)
        otf2_put_v(b, r->attr[i]);
    for (size_t i = 0; i < r->nstrings; i++)
        otf2_put_v(b, r->string[i]);
    for (size_t i = 0; i < r->ninstances; i++) {
        otf2_put_v(b, r->metric[i]);
        const otf2_instance *in = &g->instances[r->metric[i] - g->nseries];
        otf2_put_v(b, !g->series[in->series].fraction);
    }
    for (uint32_t i = 0; i < r->ninputs; i++)
        otf2_put_s(b, r->flow_delta[i]);
    otf2_put_v(b, g->nseries);
}

static void otf2_urank_free(otf2_urank *r)
{
    free(r->ginput);
    free(r->nflows);
    free(r->track);
    free(r->region);
    free(r->attr);
    free(r->string);
    free(r->series);
    free(r->markdef);
    free(r->inst_series);
    free(r->inst_track);
    free(r->metric);
    free(r->flow_delta);
}

/* Rank 0: every rank's message in, the run's definitions and layout in g, a reply per rank. */
static int otf2_unify_root(otf2_state *g, tconv_collective *c, const unsigned char *all,
                           const size_t *lens, otf2_bytes *replies, size_t *reply_lens)
{
    int size = tconv_collective_size(c);
    otf2_urank *ranks = calloc((size_t)size, sizeof(*ranks));
    if (!ranks) otf2_oom();
    otf2_utrack *tracks = NULL;
    size_t ntracks = 0, tracks_cap = 0, ninputs = 0, granks_cap = 0;
    otf2_ulist lists[5] = {{0}};
    tconv_str *hosts = NULL;
    size_t off = 0;
    for (int q = 0; q < size; q++) {
        otf2_cursor cur = {all + off, all + off + lens[q]};
        otf2_decode_rank(g, &ranks[q], (uint32_t)q, &cur, &tracks, &ntracks, &tracks_cap, lists,
                         &ninputs, &g->grank, &g->grank_has, &hosts, &granks_cap);
        off += lens[q];
    }
    /* Every input below the last the layout counts has its rank known (or not) here. */
    otf2_granks_grow(&g->grank, &g->grank_has, &hosts, &granks_cap, ninputs);
    if (ninputs) otf2_collect_input(g, (uint32_t)ninputs - 1);
    for (size_t i = 0; i < ninputs; i++)
        g->inputs[i].host = hosts[i];
    free(hosts);
    otf2_merge(g, ranks, size, tracks, ntracks, lists);
    otf2_regions_detect_hip(g);
    otf2_layout_build(g);
    for (int q = 0; q < size; q++) {
        replies[q] = (otf2_bytes){0};
        otf2_encode_reply(g, &ranks[q], &replies[q]);
        reply_lens[q] = replies[q].len;
    }
    for (int q = 0; q < size; q++)
        otf2_urank_free(&ranks[q]);
    free(ranks);
    free(tracks);
    for (int i = 0; i < 5; i++)
        free(lists[i].d);
    return g->nlocations > 0;
}

/* ---- every rank ----------------------------------------------------------------------------- */

static void otf2_apply_reply(otf2_state *st, otf2_cursor *c, uint32_t ninputs,
                             const uint32_t *flow_input, size_t nflows)
{
    size_t nt = (size_t)otf2_get_uv(c);
    st->order = malloc((nt ? nt : 1) * sizeof(*st->order));
    if (!st->order) otf2_oom();
    st->nlocations = 0;
    for (size_t t = 0; t < nt; t++) {
        uint64_t id = otf2_get_uv(c);
        if (!id || t >= st->nlocs_cap) continue;
        st->locs[t].id = id - 1;
        st->order[st->nlocations++] = (uint32_t)t;
    }
    /* In location order, as one writer writes them (the order of the trace hash). */
    for (size_t i = 1; i < st->nlocations; i++)
        for (size_t j = i; j > 0 && st->locs[st->order[j - 1]].id > st->locs[st->order[j]].id;
             j--) {
            uint32_t x = st->order[j];
            st->order[j] = st->order[j - 1];
            st->order[j - 1] = x;
        }
    otf2_xlate *xl = calloc(1, sizeof(*xl));
    if (!xl) otf2_oom();
    xl->region = otf2_u32s(st->nregions);
    for (size_t i = 0; i < st->nregions; i++)
        xl->region[i] = (uint32_t)otf2_get_uv(c);
    xl->attr = otf2_u32s(st->nattrs);
    for (size_t i = 0; i < st->nattrs; i++)
        xl->attr[i] = (uint32_t)otf2_get_uv(c);
    xl->string = otf2_u32s(st->nstrings);
    for (size_t i = 0; i < st->nstrings; i++)
        xl->string[i] = (uint32_t)otf2_get_uv(c);
    xl->metric = calloc(st->ninstances ? st->ninstances : 1, sizeof(*xl->metric));
    xl->metric_int = calloc(st->ninstances ? st->ninstances : 1, 1);
    if (!xl->metric || !xl->metric_int) otf2_oom();
    for (size_t i = 0; i < st->ninstances; i++) {
        xl->metric[i] = otf2_get_uv(c);
        xl->metric_int[i] = (uint8_t)otf2_get_uv(c);
    }
    int64_t *delta = calloc(ninputs ? ninputs : 1, sizeof(*delta));
    if (!delta) otf2_oom();
    for (size_t i = 0; i < ninputs; i++)
        delta[i] = otf2_get_sv(c);
    xl->flow_tag = otf2_u32s(nflows);
    for (size_t f = 0; f < nflows; f++)
        xl->flow_tag[f] = (uint32_t)((int64_t)f + delta[flow_input[f]]);
    free(delta);
    xl->nseries = otf2_get_uv(c);
    st->xl = xl;
}

tconv_status otf2_unify_finish(otf2_state *st, tconv_collective *c)
{
    int me = tconv_collective_rank(c), size = tconv_collective_size(c);
    otf2_collect_close_open(st);
    otf2_markers_drop_carried(st);
    /* The inputs this rank read (the service knows the run's index of each), and the layout's
     * count of them. */
    uint32_t ninputs = 0;
    while (tconv_collective_input(c, ninputs) != UINT32_MAX)
        ninputs++;
    uint32_t ntracks = tconv_track_count(st->ctx);
    for (uint32_t t = 0; t < ntracks; t++)
        otf2_collect_input(st, tconv_track_describe(st->ctx, t)->input);
    if (ntracks) otf2_collect_loc(st, ntracks - 1);
    uint32_t touched = (uint32_t)st->ninputs;
    if (touched > ninputs) ninputs = touched; /* never: tracks are of inputs read */
    if (ninputs) otf2_collect_input(st, ninputs - 1);
    /* Flows pair here: both ends of a flow are of one input, read by this rank. */
    uint64_t *per_input = calloc(ninputs ? ninputs : 1, sizeof(*per_input));
    uint32_t *flow_input = otf2_u32s(st->nflows);
    if (!per_input) otf2_oom();
    for (size_t f = 0; f < st->nflows; f++) {
        flow_input[f] = tconv_track_describe(st->ctx, st->flows[f].track)->input;
        per_input[flow_input[f]]++;
    }
    size_t nflows = st->nflows;
    otf2_flows_pair(st);

    otf2_bytes msg = {0};
    otf2_encode_local(st, c, per_input, ninputs, touched, &msg);
    free(per_input);
    size_t *lens;
    unsigned char *all = otf2_gather(c, &msg, &lens);
    otf2_bytes_free(&msg);

    otf2_state *g = NULL;
    otf2_bytes *replies = NULL;
    size_t *reply_lens = NULL;
    int32_t ok = 1;
    if (me == 0) {
        g = calloc(1, sizeof(*g));
        replies = calloc((size_t)size, sizeof(*replies));
        reply_lens = calloc((size_t)size, sizeof(*reply_lens));
        if (!g || !replies || !reply_lens) otf2_oom();
        g->ctx = st->ctx;
        g->out = st->out;
        g->opt_args = st->opt_args;
        g->opt_flows = st->opt_flows;
        g->str_null = st->str_null;
        otf2_state_strings(g);
        ok = otf2_unify_root(g, c, all, lens, replies, reply_lens);
    }
    free(all);
    free(lens);
    tconv_collective_bcast(c, &ok, sizeof(ok), 0);
    tconv_status s = TCONV_OK;
    if (!ok) {
        if (me == 0)
            tconv_error_set(st->ctx, "otf2: the input holds nothing an OTF2 location can show "
                                     "(no spans, counters, flows or thread instants)");
        else
            tconv_error_set(st->ctx, "otf2: rank 0 wrote no archive");
        s = TCONV_FATAL;
    } else {
        /* Each rank its reply: the length first, then the bytes. */
        uint64_t len = 0, *rl = NULL;
        size_t *eight = NULL;
        if (me == 0) {
            rl = malloc((size_t)size * sizeof(*rl));
            if (!rl) otf2_oom();
            for (int q = 0; q < size; q++)
                rl[q] = reply_lens[q];
        }
        eight = malloc((size_t)size * sizeof(*eight));
        if (!eight) otf2_oom();
        for (int q = 0; q < size; q++)
            eight[q] = sizeof(uint64_t);
        tconv_collective_scatterv(c, rl, eight, &len, sizeof(len), 0);
        otf2_bytes joined = {0};
        for (int q = 0; me == 0 && q < size; q++) {
            otf2_bytes_reserve(&joined, replies[q].len);
            otf2_put_raw(&joined, replies[q].p, replies[q].len);
        }
        unsigned char *mine = malloc(len ? (size_t)len : 1);
        if (!mine) otf2_oom();
        tconv_collective_scatterv(c, joined.p, reply_lens, mine, (size_t)len, 0);
        otf2_bytes_free(&joined);
        free(rl);
        free(eight);
        otf2_cursor cur = {mine, mine + len};
        otf2_apply_reply(st, &cur, ninputs, flow_input, nflows);
        free(mine);
        int64_t shift = me == 0 && g->have_time && g->min_ts < 0 ? g->min_ts : 0;
        tconv_collective_bcast(c, &shift, sizeof(shift), 0);
        st->shift = shift;
        if (g) g->shift = shift;
        s = otf2_archive_write_part(st, g, c);
    }
    free(flow_input);
    if (replies)
        for (int q = 0; q < size; q++)
            otf2_bytes_free(&replies[q]);
    free(replies);
    free(reply_lens);
    if (g) otf2_state_free(g);
    if (s == TCONV_OK) s = otf2_error_flush_warnings(st);
    return s;
}
