#include "pprof_groups.h"

#include <fnmatch.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "folded_root.h"

void pprof_groups_init(pprof_groups *g)
{
    memset(g, 0, sizeof *g);
    pprof_index_init(&g->ix);
}

void pprof_groups_free(pprof_groups *g)
{
    free(g->items);
    free(g->of_track);
    free(g->inputs);
    pprof_index_free(&g->ix);
    pprof_groups_init(g);
}

/* Does any comma-separated glob of the filter match one of the track's names? */
static int pprof_track_selected(const char *filter, const char *const *names, size_t nnames)
{
    char pat[512];
    const char *p = filter;
    while (*p) {
        const char *comma = strchr(p, ',');
        size_t n = comma ? (size_t)(comma - p) : strlen(p);
        if (n < sizeof pat) {
            memcpy(pat, p, n);
            pat[n] = '\0';
            for (size_t i = 0; i < nnames; i++) {
                if (names[i] && *names[i] && fnmatch(pat, names[i], 0) == 0) return 1;
            }
        }
        p += n;
        if (*p == ',') p++;
    }
    return 0;
}

static int pprof_group_equal(const pprof_group *a, const pprof_group *b)
{
    return a->root_frame == b->root_frame && a->pid_kind == b->pid_kind &&
           a->tid_kind == b->tid_kind && a->pid_num == b->pid_num && a->tid_num == b->tid_num &&
           a->pid_str == b->pid_str && a->tid_str == b->tid_str && a->thread == b->thread &&
           a->process == b->process && a->has_rank == b->has_rank && a->rank == b->rank &&
           a->has_input == b->has_input && a->input == b->input &&
           a->device_kind == b->device_kind && a->device_num == b->device_num &&
           a->device_str == b->device_str;
}

static uint32_t pprof_group_hash(const pprof_group *k)
{
    uint32_t h = pprof_hash_mix(0x27d4eb2fu, (uint64_t)k->root_frame << 32 | k->pid_kind << 4 |
                                                 k->tid_kind << 1 | (uint32_t)k->has_input);
    h = pprof_hash_mix(h, (uint64_t)k->pid_num);
    h = pprof_hash_mix(h, (uint64_t)k->tid_num);
    h = pprof_hash_mix(h, (uint64_t)k->pid_str << 32 | k->tid_str);
    h = pprof_hash_mix(h, (uint64_t)k->thread << 32 | k->process);
    h = pprof_hash_mix(h, (uint64_t)k->rank << 1 | (uint32_t)k->has_rank);
    h = pprof_hash_mix(h, (uint64_t)k->device_num << 2 | k->device_kind);
    h = pprof_hash_mix(h, k->device_str);
    return pprof_hash_mix(h, k->input);
}

static uint32_t pprof_group_intern(pprof_groups *g, const pprof_group *k)
{
    pprof_index_cursor cur;
    pprof_index_start(&g->ix, &cur, pprof_group_hash(k));
    uint32_t id;
    while ((id = pprof_index_probe(&g->ix, &cur)) != PPROF_INDEX_NONE) {
        if (pprof_group_equal(&g->items[id], k)) return id;
    }
    if (g->count == g->cap) {
        uint32_t ncap = g->cap ? g->cap * 2 : 16;
        pprof_group *items = realloc(g->items, (size_t)ncap * sizeof *items);
        if (!items) return PPROF_INDEX_NONE;
        g->items = items;
        g->cap = ncap;
    }
    id = g->count;
    if (pprof_index_insert_at(&g->ix, &cur, id) != 0) return PPROF_INDEX_NONE;
    g->items[id] = *k;
    g->count++;
    return id;
}

/* The thread's name for its label: Kineto names a thread "thread 25772 (python)", which
 * pprof's -tagfocus cannot match whole (it reads "thread=25772" as a number range, and the
 * parentheses of the name as a regexp's group), and whose number the tid label already holds:
 * the label is the name inside, "python". Other names stay as they are. */
static tconv_str pprof_thread_label(tconv_ctx *ctx, const tconv_track *tr)
{
    const char *name = tconv_string_get(ctx, tr->thread_name);
    const char *tid = tconv_string_get(ctx, tr->tid);
    size_t len = tconv_string_length(ctx, tr->thread_name), tlen = strlen(tid);
    if (len < 7 + tlen + 3 || strncmp(name, "thread ", 7) != 0 ||
        strncmp(name + 7, tid, tlen) != 0 || strncmp(name + 7 + tlen, " (", 2) != 0 ||
        name[len - 1] != ')')
        return tr->thread_name;
    size_t from = 7 + tlen + 2;
    return tconv_string_intern(ctx, name + from, len - 1 - from);
}

int pprof_groups_build(pprof_groups *g, pprof_writer *w)
{
    tconv_ctx *ctx = w->ctx;
    uint32_t ntracks = tconv_track_count(ctx);
    g->of_track = calloc(ntracks ? ntracks : 1, sizeof *g->of_track);
    if (!g->of_track) goto oom;
    g->ntracks = ntracks;

    /* Which input a sample came from: its rank when the input names one (Kineto's
     * distributedInfo), also in a profile of one input, so that profiles of several ranks
     * merged by pprof stay apart; else, when tracks of several inputs could look alike, the
     * input's position. Inputs that claim the same rank get both. */
    uint32_t ninputs = tconv_ctx_input_count(ctx);
    for (uint32_t t = 0; t < ntracks; t++) {
        uint32_t in = tconv_track_describe(ctx, t)->input;
        if (in >= ninputs) ninputs = in + 1;
    }
    g->inputs = calloc(ninputs ? ninputs : 1, sizeof *g->inputs);
    if (!g->inputs) goto oom;
    for (uint32_t i = 0; i < ninputs; i++) {
        pprof_input *in = &g->inputs[i];
        in->has_rank = tconv_ctx_rank(ctx, i, &in->rank);
        in->has_input = ninputs > 1 && !in->has_rank;
        for (uint32_t j = 0; j < i && in->has_rank; j++) {
            if (g->inputs[j].has_rank && g->inputs[j].rank == in->rank)
                in->has_input = g->inputs[j].has_input = 1;
        }
    }

    for (uint32_t t = 0; t < ntracks; t++) {
        const tconv_track *tr = tconv_track_describe(ctx, t);
        char label[512];
        tconv_track_label(ctx, t, label, sizeof label);
        const char *pid_text = tconv_string_get(ctx, tr->pid);
        const char *tid_text = tconv_string_get(ctx, tr->tid);

        tconv_str thread = tr->thread_name, process = tr->process_name;

        if (w->track_filter) {
            char pidtid[512];
            snprintf(pidtid, sizeof pidtid, "%s/%s", pid_text, tid_text);
            const char *names[3] = {pidtid, tconv_string_get(ctx, thread),
                                    tconv_string_get(ctx, process)};
            if (!pprof_track_selected(w->track_filter, names, 3)) {
                g->of_track[t] = PPROF_GROUP_SKIP;
                continue;
            }
        }

        pprof_group k;
        memset(&k, 0, sizeof k);
        k.root_frame = PPROF_INDEX_NONE;
        int rooted =
            w->root == PPROF_ROOT_ALL || (w->root == PPROF_ROOT_GPU && tr->kind == TCONV_TRACK_GPU);
        if (rooted) {
            tconv_frame f;
            memset(&f, 0, sizeof f);
            /* A stream by its device too, as the flame graph names it: streams of two devices
             * with one number are two roots. */
            f.name = tr->kind == TCONV_TRACK_GPU ? folded_stream_root(ctx, t)
                                                 : tconv_string_intern_cstr(ctx, label);
            k.root_frame = pprof_stacks_frame(&w->stacks, &f);
            if (k.root_frame == PPROF_INDEX_NONE) goto oom;
        }
        if (w->labels != PPROF_LABELS_NONE) {
            if (tr->has_pid_num) {
                k.pid_kind = PPROF_ID_NUM;
                k.pid_num = tr->pid_num;
            } else if (*pid_text) {
                k.pid_kind = PPROF_ID_STR;
                k.pid_str = tr->pid;
            }
            k.process = process;
            if (tr->kind == TCONV_TRACK_GPU) {
                /* Kineto's GPU streams sit in a process numbered after the device. */
                k.device_kind = k.pid_kind;
                k.device_num = k.pid_num;
                k.device_str = k.pid_str;
            }
            const pprof_input *in = &g->inputs[tr->input];
            k.has_rank = in->has_rank;
            k.rank = in->has_rank ? in->rank : 0;
            k.has_input = in->has_input;
            k.input = in->has_input ? tr->input : 0;
        }
        if (w->labels == PPROF_LABELS_ALL) {
            if (tr->has_tid_num) {
                k.tid_kind = PPROF_ID_NUM;
                k.tid_num = tr->tid_num;
            } else if (*tid_text) {
                k.tid_kind = PPROF_ID_STR;
                k.tid_str = tr->tid;
            }
            k.thread = thread ? pprof_thread_label(ctx, tr) : 0;
        }
        uint32_t id = pprof_group_intern(g, &k);
        if (id == PPROF_INDEX_NONE) goto oom;
        g->of_track[t] = id;
    }
    return 0;
oom:
    tconv_error_set(ctx, "pprof: out of memory");
    return -1;
}
