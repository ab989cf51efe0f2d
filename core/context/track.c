/* Tracks: where events live, keyed by (input, pid, tid). pid and tid are kept as the text the
 * input used, so "CPU functions" and 7 are both fine and two processes that reuse a tid stay
 * apart. */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "context.h"

static uint32_t track_hash(uint32_t input, tconv_str pid, tconv_str tid)
{
    uint64_t h = ((uint64_t)pid * 0x9E3779B97F4A7C15ull) ^ ((uint64_t)tid * 0xC2B2AE3D27D4EB4Full) ^
                 ((uint64_t)input * 0x165667B19E3779F9ull);
    return (uint32_t)(h ^ (h >> 29));
}

static void track_rehash(tconv_tracktab *t)
{
    size_t ns = t->nslots ? t->nslots * 2 : 64;
    uint32_t *slots = tconv_xcalloc(ns, sizeof(*slots));
    for (size_t id = 0; id < t->n; id++) {
        const tconv_track *k = &t->tracks[id];
        tconv_slots_put(slots, ns, track_hash(k->input, k->pid, k->tid), (uint32_t)id + 1);
    }
    free(t->slots);
    t->slots = slots;
    t->nslots = ns;
}

static uint32_t track_proc_hash(uint32_t input, tconv_str pid)
{
    uint64_t h =
        ((uint64_t)pid * 0x9E3779B97F4A7C15ull) ^ ((uint64_t)input * 0x165667B19E3779F9ull);
    return (uint32_t)(h ^ (h >> 29));
}

static void track_proc_rehash(tconv_tracktab *t)
{
    size_t ns = t->nproc_slots ? t->nproc_slots * 2 : 64;
    uint32_t *slots = tconv_xcalloc(ns, sizeof(*slots));
    for (size_t j = 0; j < t->nproc_slots; j++) {
        uint32_t first = t->proc_slots[j];
        if (!first) continue;
        const tconv_track *k = &t->tracks[first - 1];
        tconv_slots_put(slots, ns, track_proc_hash(k->input, k->pid), first);
    }
    free(t->proc_slots);
    t->proc_slots = slots;
    t->nproc_slots = ns;
}

/* The slot of (input, pid): its first track's id+1, or the empty slot where it would go. */
static uint32_t *track_proc_slot(tconv_tracktab *t, uint32_t input, tconv_str pid)
{
    if (!t->nproc_slots) track_proc_rehash(t);
    size_t mask = t->nproc_slots - 1;
    size_t i = track_proc_hash(input, pid) & mask;
    for (; t->proc_slots[i]; i = (i + 1) & mask) {
        const tconv_track *k = &t->tracks[t->proc_slots[i] - 1];
        if (k->pid == pid && k->input == input) break;
    }
    return &t->proc_slots[i];
}

/* Links the new track id into its process's list; returns the process's first track, or
 * UINT32_MAX when id is the first. */
static uint32_t track_proc_link(tconv_tracktab *t, uint32_t id)
{
    const tconv_track *k = &t->tracks[id];
    TCONV_GROW(t->proc_next, t->proc_next_cap, (size_t)id + 1);
    uint32_t *slot = track_proc_slot(t, k->input, k->pid);
    if (*slot) {
        /* After the first: the list's order does not matter, and this keeps linking O(1). */
        uint32_t first = *slot - 1;
        t->proc_next[id] = t->proc_next[first];
        t->proc_next[first] = id;
        return first;
    }
    *slot = id + 1;
    t->proc_next[id] = UINT32_MAX;
    if (++t->nprocs * 2 > t->nproc_slots) track_proc_rehash(t);
    return UINT32_MAX;
}

static int track_parse_int(const char *s, int64_t *out)
{
    if (!*s) return 0;
    char *end;
    errno = 0;
    long long v = strtoll(s, &end, 10);
    if (errno || *end) return 0;
    *out = v;
    return 1;
}

void tconv_tracktab_free(tconv_tracktab *t)
{
    free(t->tracks);
    free(t->slots);
    free(t->proc_slots);
    free(t->proc_next);
    memset(t, 0, sizeof(*t));
}

void tconv_track_truncate(tconv_ctx *ctx, uint32_t n)
{
    tconv_tracktab *t = &ctx->tracks;
    if (n >= t->n) return;
    t->n = n;
    /* Open addressing cannot delete in place: both tables are built again from what stays. */
    memset(t->slots, 0, t->nslots * sizeof(*t->slots));
    for (uint32_t id = 0; id < n; id++) {
        const tconv_track *k = &t->tracks[id];
        tconv_slots_put(t->slots, t->nslots, track_hash(k->input, k->pid, k->tid), id + 1);
    }
    if (t->nproc_slots) memset(t->proc_slots, 0, t->nproc_slots * sizeof(*t->proc_slots));
    t->nprocs = 0;
    for (uint32_t id = 0; id < n; id++)
        track_proc_link(t, id);
}

void tconv_track_forget_names(tconv_ctx *ctx, uint32_t from)
{
    for (size_t id = from; id < ctx->tracks.n; id++) {
        tconv_track *k = &ctx->tracks.tracks[id];
        k->process_name = k->thread_name = 0;
        k->process_sort = k->thread_sort = 0;
    }
}

TCONV_API uint32_t tconv_track_get(tconv_ctx *ctx, tconv_str pid, tconv_str tid)
{
    tconv_tracktab *t = &ctx->tracks;
    uint32_t input = ctx->input;
    if (!t->nslots) track_rehash(t);
    size_t mask = t->nslots - 1;
    uint32_t h = track_hash(input, pid, tid);
    for (size_t i = h & mask; t->slots[i]; i = (i + 1) & mask) {
        const tconv_track *k = &t->tracks[t->slots[i] - 1];
        if (k->pid == pid && k->tid == tid && k->input == input) return t->slots[i] - 1;
    }
    TCONV_GROW(t->tracks, t->cap, t->n + 1);
    tconv_track *k = &t->tracks[t->n];
    memset(k, 0, sizeof(*k));
    k->pid = pid;
    k->tid = tid;
    k->input = input;
    k->has_pid_num = track_parse_int(tconv_string_get(ctx, pid), &k->pid_num);
    k->has_tid_num = track_parse_int(tconv_string_get(ctx, tid), &k->tid_num);
    uint32_t id = (uint32_t)t->n++;
    /* A process may be named before this thread of it shows up; its tracks all share the name. */
    uint32_t first = track_proc_link(t, id);
    if (first != UINT32_MAX) {
        k->process_name = t->tracks[first].process_name;
        k->process_sort = t->tracks[first].process_sort;
    }
    if (t->n * 2 > t->nslots) {
        track_rehash(t);
    } else {
        tconv_slots_put(t->slots, t->nslots, h, id + 1);
    }
    return id;
}

TCONV_API uint32_t tconv_track_count(const tconv_ctx *ctx)
{
    return (uint32_t)ctx->tracks.n;
}

TCONV_API const tconv_track *tconv_track_describe(const tconv_ctx *ctx, uint32_t track)
{
    return track < ctx->tracks.n ? &ctx->tracks.tracks[track] : NULL;
}

TCONV_API void tconv_track_set_kind(tconv_ctx *ctx, uint32_t track, tconv_track_kind kind)
{
    if (track >= ctx->tracks.n) return;
    ctx->tracks.tracks[track].kind = kind;
    if (ctx->obs) ctx->obs->track_kind(ctx->obs_user, track, kind);
}

TCONV_API const char *tconv_track_label(const tconv_ctx *ctx, uint32_t track, char *buf, size_t cap)
{
    const tconv_track *k = tconv_track_describe(ctx, track);
    if (!k) {
        snprintf(buf, cap, "?");
    } else if (k->thread_name) {
        snprintf(buf, cap, "%s", tconv_string_get(ctx, k->thread_name));
    } else {
        snprintf(buf, cap, "%s/%s", tconv_string_get(ctx, k->pid), tconv_string_get(ctx, k->tid));
    }
    return buf;
}

/* process_* metadata names a process: every track of that (input, pid) takes it; tracks created
 * later copy it from their siblings in tconv_track_get. */
enum { TRACK_META_NONE, TRACK_META_THREAD_NAME, TRACK_META_THREAD_SORT, TRACK_META_PROCESS };

/* What a metadata name sets; answers are kept by id. */
static int track_meta_kind(tconv_ctx *ctx, tconv_tracktab *t, tconv_str name)
{
    unsigned slot = name % 16;
    if (name == t->meta_name[slot]) return t->meta_kind[slot];
    const char *what = tconv_string_get(ctx, name);
    int kind = strcmp(what, "thread_name") == 0         ? TRACK_META_THREAD_NAME
               : strcmp(what, "thread_sort_index") == 0 ? TRACK_META_THREAD_SORT
               : strcmp(what, "process_name") == 0 || strcmp(what, "process_sort_index") == 0
                   ? TRACK_META_PROCESS
                   : TRACK_META_NONE;
    t->meta_name[slot] = name;
    t->meta_kind[slot] = (uint8_t)kind;
    return kind;
}

void tconv_track_apply_metadata(tconv_ctx *ctx, const tconv_event *ev)
{
    tconv_tracktab *t = &ctx->tracks;
    if (ev->track >= t->n) return;
    int kind = track_meta_kind(ctx, t, ev->name);
    tconv_track *k = &t->tracks[ev->track];
    int64_t num = 0;
    if (kind == TRACK_META_THREAD_NAME) {
        k->thread_name = ev->text;
    } else if (kind == TRACK_META_THREAD_SORT) {
        if (track_parse_int(tconv_string_get(ctx, ev->text), &num)) k->thread_sort = num;
    } else if (kind == TRACK_META_PROCESS) {
        const char *what = tconv_string_get(ctx, ev->name);
        int is_name = what[8] == 'n';
        if (!is_name && !track_parse_int(tconv_string_get(ctx, ev->text), &num)) return;
        for (uint32_t i = *track_proc_slot(t, k->input, k->pid) - 1; i != UINT32_MAX;
             i = t->proc_next[i]) {
            tconv_track *o = &t->tracks[i];
            if (is_name)
                o->process_name = ev->text;
            else
                o->process_sort = num;
        }
    }
}

uint32_t tconv_track_lane(tconv_ctx *ctx, uint32_t track, unsigned n)
{
    tconv_track base = ctx->tracks.tracks[track]; /* a copy: the table may move */
    char *buf = NULL;
    size_t cap = 0;
    const char *tid = tconv_string_get(ctx, base.tid);
    size_t len = strlen(tid) + 16;
    TCONV_GROW(buf, cap, len);
    snprintf(buf, cap, "%s #%u", tid, n + 1);
    uint32_t saved = ctx->input;
    ctx->input = base.input;
    uint32_t lane = tconv_track_get(ctx, base.pid, tconv_string_intern_cstr(ctx, buf));
    ctx->input = saved;
    tconv_track *k = &ctx->tracks.tracks[lane];
    k->kind = base.kind;
    k->thread_sort = base.thread_sort;
    if (base.thread_name) {
        const char *name = tconv_string_get(ctx, base.thread_name);
        TCONV_GROW(buf, cap, strlen(name) + 16);
        snprintf(buf, cap, "%s #%u", name, n + 1);
        k->thread_name = tconv_string_intern_cstr(ctx, buf);
    }
    free(buf);
    if (ctx->obs) ctx->obs->lane(ctx->obs_user, track, n);
    return lane;
}
