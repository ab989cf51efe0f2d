/* Who is who in the archive: every (input, pid) that holds something becomes a location group,
 * every track that holds something a location, and the inputs' hosts the system tree.
 *
 * Processes of different inputs stay apart even when their pids collide, because tracks are
 * keyed by input. With several inputs each group name starts with "rank R: ", R being the rank
 * from the input's metadata when every input has a distinct one, else the input's position. A
 * pid whose tracks are all GPU streams is an accelerator group created by the first CPU process
 * of the same input, as Score-P records a device's streams. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "otf2_oom.h"
#include "otf2_writer.h"

const tconv_track *otf2_track(const otf2_state *st, uint32_t track)
{
    if (!st->gtracks) return tconv_track_describe(st->ctx, track);
    return track < st->ngtracks ? &st->gtracks[track] : NULL;
}

uint32_t otf2_track_count(const otf2_state *st)
{
    return st->gtracks ? (uint32_t)st->ngtracks : tconv_track_count(st->ctx);
}

static int otf2_rank_of(const otf2_state *st, uint32_t input, int64_t *rank)
{
    if (!st->gtracks) return tconv_ctx_rank(st->ctx, input, rank);
    if (!st->grank_has[input]) return 0;
    *rank = st->grank[input];
    return 1;
}

/* The text of s as an OTF2 string can hold it: names are built with C string functions, which
 * would stop at a NUL byte inside one. */
static const char *otf2_layout_text(otf2_state *st, tconv_str s)
{
    return tconv_string_get(st->ctx, otf2_str_nul_free(st, s));
}

/* tconv_track_label, on otf2_track's tracks. */
static const char *otf2_track_label(otf2_state *st, uint32_t track, char *buf, size_t cap)
{
    const tconv_track *k = otf2_track(st, track);
    if (k->thread_name)
        snprintf(buf, cap, "%s", otf2_layout_text(st, k->thread_name));
    else
        snprintf(buf, cap, "%s/%s", otf2_layout_text(st, k->pid), otf2_layout_text(st, k->tid));
    return buf;
}

static int otf2_loc_used(const otf2_loc *l)
{
    return l->nrec > 0 || (l->flags & OTF2W_LOCF_MARKERS);
}

static OTF2_LocationType otf2_loc_type(const tconv_track *t, const otf2_loc *l)
{
    if (t->kind == TCONV_TRACK_GPU || (l->flags & OTF2W_LOCF_GPU_SPANS))
        return OTF2_LOCATION_TYPE_ACCELERATOR_STREAM;
    if ((l->flags & OTF2W_LOCF_METRICS) && !(l->flags & (OTF2W_LOCF_SPANS | OTF2W_LOCF_FLOWS)))
        return OTF2_LOCATION_TYPE_METRIC;
    return OTF2_LOCATION_TYPE_CPU_THREAD;
}

/* The rank each input is shown as: the one it says it is, the same the core gives every writer
 * (pprof's rank label, --rank), when every input says a different one; else its position. */
static int64_t *otf2_layout_ranks(otf2_state *st)
{
    int64_t *ranks = malloc((st->ninputs ? st->ninputs : 1) * sizeof(*ranks));
    if (!ranks) otf2_oom();
    int use_meta = 1;
    for (size_t i = 0; i < st->ninputs && use_meta; i++) {
        if (!otf2_rank_of(st, (uint32_t)i, &ranks[i])) use_meta = 0;
        for (size_t j = 0; j < i && use_meta; j++)
            if (ranks[j] == ranks[i]) use_meta = 0;
    }
    for (size_t i = 0; i < st->ninputs && !use_meta; i++)
        ranks[i] = (int64_t)i;
    return ranks;
}

static const otf2_state *otf2_layout_sorting;
static const int64_t *otf2_layout_sort_ranks;

static int otf2_group_cmp(const void *a, const void *b)
{
    const otf2_group *x = &otf2_layout_sorting->groups[*(const uint32_t *)a];
    const otf2_group *y = &otf2_layout_sorting->groups[*(const uint32_t *)b];
    int64_t rx = otf2_layout_sort_ranks[x->input], ry = otf2_layout_sort_ranks[y->input];
    if (rx != ry) return rx < ry ? -1 : 1;
    if (x->input != y->input) return x->input < y->input ? -1 : 1;
    if (x->sort != y->sort) return x->sort < y->sort ? -1 : 1;
    return x->first_track < y->first_track ? -1 : x->first_track > y->first_track;
}

static int otf2_location_cmp(const void *a, const void *b)
{
    const otf2_state *st = otf2_layout_sorting;
    uint32_t ta = *(const uint32_t *)a, tb = *(const uint32_t *)b;
    const otf2_loc *x = &st->locs[ta], *y = &st->locs[tb];
    if (x->group != y->group) return x->group < y->group ? -1 : 1;
    int64_t sx = otf2_track(st, ta)->thread_sort;
    int64_t sy = otf2_track(st, tb)->thread_sort;
    if (sx != sy) return sx < sy ? -1 : 1;
    return ta < tb ? -1 : ta > tb;
}

/* Collect the groups, unsorted: one per (input, pid) with a location or a process marker. */
static void otf2_layout_collect_groups(otf2_state *st)
{
    tconv_map map = {0};
    size_t cap = 0;
    for (size_t t = 0; t < st->nlocs_cap; t++) {
        otf2_loc *l = &st->locs[t];
        if (!otf2_loc_used(l) && !(l->flags & OTF2W_LOCF_GROUP_MARKERS)) continue;
        const tconv_track *k = otf2_track(st, (uint32_t)t);
        otf2_collect_input(st, k->input);
        uint32_t g = tconv_map_get(&map, k->input, k->pid);
        if (g == UINT32_MAX) {
            OTF2W_GROW(st->groups, cap, st->ngroups + 1);
            g = (uint32_t)st->ngroups++;
            st->groups[g] = (otf2_group){.input = k->input,
                                         .pid = k->pid,
                                         .first_track = (uint32_t)t,
                                         .sort = k->process_sort,
                                         .type = OTF2_LOCATION_GROUP_TYPE_PROCESS,
                                         .creator = UINT32_MAX};
            tconv_map_set(&map, k->input, k->pid, g);
        }
        l->group = g;
        if (otf2_loc_used(l)) {
            l->type = otf2_loc_type(k, l);
            st->nlocations++;
        }
    }
    tconv_map_free(&map);
}

static void otf2_layout_sort_groups(otf2_state *st, const int64_t *ranks)
{
    uint32_t *perm = malloc((st->ngroups ? st->ngroups : 1) * sizeof(*perm));
    uint32_t *pos = malloc((st->ngroups ? st->ngroups : 1) * sizeof(*pos));
    otf2_group *sorted = malloc((st->ngroups ? st->ngroups : 1) * sizeof(*sorted));
    if (!perm || !pos || !sorted) otf2_oom();
    for (size_t g = 0; g < st->ngroups; g++)
        perm[g] = (uint32_t)g;
    otf2_layout_sorting = st;
    otf2_layout_sort_ranks = ranks;
    qsort(perm, st->ngroups, sizeof(*perm), otf2_group_cmp);
    for (size_t i = 0; i < st->ngroups; i++) {
        sorted[i] = st->groups[perm[i]];
        pos[perm[i]] = (uint32_t)i;
    }
    for (size_t t = 0; t < st->nlocs_cap; t++) {
        otf2_loc *l = &st->locs[t];
        if (otf2_loc_used(l) || (l->flags & OTF2W_LOCF_GROUP_MARKERS)) l->group = pos[l->group];
    }
    free(st->groups);
    st->groups = sorted;
    free(perm);
    free(pos);
}

static void otf2_layout_order_locations(otf2_state *st)
{
    st->order = malloc((st->nlocations ? st->nlocations : 1) * sizeof(*st->order));
    if (!st->order) otf2_oom();
    size_t n = 0;
    for (size_t t = 0; t < st->nlocs_cap; t++)
        if (otf2_loc_used(&st->locs[t])) st->order[n++] = (uint32_t)t;
    otf2_layout_sorting = st;
    qsort(st->order, n, sizeof(*st->order), otf2_location_cmp);
    for (size_t i = 0; i < n; i++) {
        otf2_loc *l = &st->locs[st->order[i]];
        l->id = i;
        st->groups[l->group].nlocs++;
    }
}

/* Accelerator groups: every location a GPU stream. Their creator is the first process of the
 * same input with a CPU thread. */
static void otf2_layout_group_types(otf2_state *st)
{
    uint32_t *cpu = calloc(st->ngroups ? st->ngroups : 1, sizeof(*cpu));
    uint32_t *gpu = calloc(st->ngroups ? st->ngroups : 1, sizeof(*gpu));
    if (!cpu || !gpu) otf2_oom();
    for (size_t i = 0; i < st->nlocations; i++) {
        const otf2_loc *l = &st->locs[st->order[i]];
        if (l->type == OTF2_LOCATION_TYPE_ACCELERATOR_STREAM) gpu[l->group]++;
        if (l->type == OTF2_LOCATION_TYPE_CPU_THREAD) cpu[l->group]++;
    }
    for (size_t g = 0; g < st->ngroups; g++) {
        otf2_group *grp = &st->groups[g];
        if (!gpu[g] || cpu[g]) continue;
        grp->type = OTF2_LOCATION_GROUP_TYPE_ACCELERATOR;
        for (size_t c = 0; c < st->ngroups; c++) {
            if (st->groups[c].input == grp->input && cpu[c]) {
                grp->creator = (uint32_t)c;
                break;
            }
        }
    }
    free(cpu);
    free(gpu);
}

static char *otf2_printf(const char *fmt, const char *a, const char *b)
{
    size_t n = strlen(fmt) + strlen(a) + strlen(b) + 1;
    char *s = malloc(n);
    if (!s) otf2_oom();
    snprintf(s, n, fmt, a, b);
    return s;
}

static void otf2_layout_group_names(otf2_state *st, const int64_t *ranks)
{
    tconv_ctx *ctx = st->ctx;
    tconv_str *names = malloc((st->ngroups ? st->ngroups : 1) * sizeof(*names));
    if (!names) otf2_oom();
    tconv_map count = {0};
    for (size_t g = 0; g < st->ngroups; g++) {
        const otf2_group *grp = &st->groups[g];
        const tconv_track *k = otf2_track(st, grp->first_track);
        const char *base = otf2_layout_text(st, k->process_name ? k->process_name : grp->pid);
        if (!*base) base = "global"; /* trace-wide items of a reader without a pid */
        uint32_t labels = tconv_map_get(&st->labels_map, grp->input, grp->pid);
        const char *lab = labels == UINT32_MAX ? "" : otf2_layout_text(st, labels);
        char *name = *lab && strcmp(lab, base) ? otf2_printf("%s (%s)", base, lab)
                                               : otf2_printf("%s%s", base, "");
        if (st->ninputs > 1) {
            char rank[32];
            snprintf(rank, sizeof(rank), "rank %lld", (long long)ranks[grp->input]);
            char *with = otf2_printf("%s: %s", rank, name);
            free(name);
            name = with;
        }
        names[g] = tconv_string_intern_cstr(ctx, name);
        free(name);
        uint32_t c = tconv_map_get(&count, names[g], 0);
        tconv_map_set(&count, names[g], 0, c == UINT32_MAX ? 1 : c + 1);
    }
    /* Processes that share a name (Kineto names the GPU "processes" after the host process
     * when they have no labels) are told apart by their pid. */
    for (size_t g = 0; g < st->ngroups; g++) {
        if (tconv_map_get(&count, names[g], 0) > 1) {
            char *name = otf2_printf("%s [pid %s]", tconv_string_get(ctx, names[g]),
                                     otf2_layout_text(st, st->groups[g].pid));
            names[g] = tconv_string_intern_cstr(ctx, name);
            free(name);
        }
        st->groups[g].name_ref = otf2_strref(st, names[g]);
    }
    tconv_map_free(&count);
    free(names);
}

/* Whether a tid is a number (a thread id) rather than a name of its own ("stream 7"). */
static int otf2_numeric(const char *s)
{
    if (*s == '-') s++;
    if (!*s) return 0;
    for (; *s; s++)
        if (*s < '0' || *s > '9') return 0;
    return 1;
}

/* A location is named by its thread_name; else a tid that is a name ("stream 7", Kineto's GPU
 * streams in traces without thread names) by that name, a GPU stream with a numeric tid
 * "stream <tid>" (a lane of it "stream <tid> #2"), and another thread "pid/tid"; a process-wide
 * track (no tid, as for Chrome counters) by its pid, with " counters" when it holds only counters.
 * So a stream has one name whether its trace names it or not, alone or with other inputs. The
 * location's tid, and its group's pid, as the input wrote them, are properties (otf2_archive.c). */
static void otf2_layout_location_names(otf2_state *st)
{
    char buf[1024];
    for (size_t g = 0; g < st->ngroups; g++)
        st->groups[g].pid_ref = otf2_strref(st, st->groups[g].pid);
    for (size_t i = 0; i < st->nlocations; i++) {
        uint32_t track = st->order[i];
        otf2_loc *l = &st->locs[track];
        const tconv_track *k = otf2_track(st, track);
        const char *label = buf;
        const char *tid = otf2_layout_text(st, k->tid);
        l->tid_ref = *tid ? otf2_strref(st, k->tid) + 1 : 0;
        if (!k->thread_name && l->type == OTF2_LOCATION_TYPE_ACCELERATOR_STREAM && *tid >= '0' &&
            *tid <= '9') {
            snprintf(buf, sizeof(buf), "stream %s", tid); /* also a lane's "7 #2" */
        } else if (!k->thread_name && *tid && !otf2_numeric(tid)) {
            label = tid;
        } else if (k->thread_name || *tid) {
            label = otf2_track_label(st, track, buf, sizeof(buf));
        } else {
            const char *pid =
                tconv_string_length(st->ctx, k->pid) ? otf2_layout_text(st, k->pid) : "global";
            snprintf(buf, sizeof(buf), "%s%s", pid,
                     l->type == OTF2_LOCATION_TYPE_METRIC ? " counters" : "");
        }
        l->name_ref = otf2_strref_cstr(st, label);
    }
}

/* The system tree: a root, and below it one node per host named in the inputs' metadata,
 * shared by the inputs of that host. Of several inputs, one that names no host gets a node of
 * its own, named and classed as its rank ("rank R", class "rank": no host, so a reader looking
 * for hosts among nodes of class "node" does not take it for one), so that Vampir's system tree
 * tells ranks apart; a single input without a host hangs from the root. */
static void otf2_layout_system_tree(otf2_state *st, const int64_t *ranks)
{
    tconv_map hosts = {0};
    st->nnodes = 1;
    st->node_name_refs = malloc((st->ninputs + 1) * sizeof(*st->node_name_refs));
    st->node_class_refs = malloc((st->ninputs + 1) * sizeof(*st->node_class_refs));
    if (!st->node_name_refs || !st->node_class_refs) otf2_oom();
    st->node_name_refs[0] = otf2_strref_cstr(st, "machine");
    st->node_class_refs[0] = otf2_strref_cstr(st, "machine");
    for (size_t i = 0; i < st->ninputs; i++) {
        otf2_input *in = &st->inputs[i];
        in->node = 0;
        if (!in->host && st->ninputs > 1) {
            char rank[40];
            snprintf(rank, sizeof(rank), "rank %lld", (long long)ranks[i]);
            in->node = st->nnodes++;
            st->node_name_refs[in->node] = otf2_strref_cstr(st, rank);
            st->node_class_refs[in->node] = otf2_strref_cstr(st, "rank");
            continue;
        }
        if (!in->host) continue;
        uint32_t n = tconv_map_get(&hosts, in->host, 0);
        if (n == UINT32_MAX) {
            n = st->nnodes++;
            st->node_name_refs[n] = otf2_strref(st, in->host);
            st->node_class_refs[n] = otf2_strref_cstr(st, "node");
            tconv_map_set(&hosts, in->host, 0, n);
        }
        in->node = n;
    }
    tconv_map_free(&hosts);
}

void otf2_layout_build(otf2_state *st)
{
    uint32_t ntracks = otf2_track_count(st);
    for (uint32_t t = 0; t < ntracks; t++)
        otf2_collect_input(st, otf2_track(st, t)->input);
    otf2_collect_loc(st, ntracks ? ntracks - 1 : 0);
    int64_t *ranks = otf2_layout_ranks(st);
    otf2_layout_collect_groups(st);
    otf2_layout_sort_groups(st, ranks);
    otf2_layout_order_locations(st);
    otf2_layout_group_types(st);
    otf2_layout_group_names(st, ranks);
    otf2_layout_location_names(st);
    otf2_layout_system_tree(st, ranks);
    free(ranks);
}
