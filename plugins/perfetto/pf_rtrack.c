/* Track descriptors as tconv tracks, and the names processes and threads are given.
 *
 * A descriptor becomes a tconv track (pid text, tid text, kind) when an event first lands on
 * it, not before: a trace describes many processes it has no events for. The identity:
 *   - a process: (pid, ""), kind process; a thread: (pid, tid), kind thread;
 *   - any other track: the pid of its nearest process or thread ancestor ("" without one), its
 *     name as tid (made unique with its uuid when another track took it), kind async under a
 *     process, global at the top;
 *   - a "tconv.track" record on the track (written by tconv) gives the exact identity instead.
 * Counter tracks are series of their parent's tconv track (pf_revent.c).
 *
 * Names come from descriptors (process_name, thread_name, legacy sort indices) and process
 * trees, and are pushed as metadata events just before the first event of a track of that
 * process or thread, unless the trace's own metadata events already named it: tconv's traces
 * carry both, so that viewers see names and tconv reads back exactly the events it wrote. */
#include "pf_reader.h"

#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "pf_fields.h"

static const char *const pf_r_kinds[] = {"thread", "gpu", "async", "process", "global"};

pf_rtrack *pf_r_track_find(pf_reader *r, uint64_t uuid)
{
    uint32_t i = tconv_map_get(&r->track_map, uuid, 0);
    return i == TCONV_MAP_NONE ? NULL : &r->tracks[i];
}

static pf_rtrack *pf_r_track_add(pf_reader *r, uint64_t uuid)
{
    pf_rtrack *t = pf_r_track_find(r, uuid);
    if (t) return t;
    if (r->ntracks == r->tracks_cap) TCONV_ARRAY_GROW(r->tracks, r->tracks_cap, r->ntracks + 1);
    t = &r->tracks[r->ntracks];
    memset(t, 0, sizeof *t);
    t->uuid = uuid;
    t->tconv = UINT32_MAX;
    t->multiplier = 1;
    tconv_map_put(&r->track_map, uuid, 0, (uint32_t)r->ntracks++);
    return t;
}

static pf_rnames *pf_r_names(pf_reader *r, tconv_map *m, uint64_t key, uint32_t b, int create)
{
    uint32_t i = tconv_map_get(m, key, b);
    if (i != TCONV_MAP_NONE) return &r->names[i];
    if (!create) return NULL;
    if (r->nnames == r->names_cap) TCONV_ARRAY_GROW(r->names, r->names_cap, r->nnames + 1);
    pf_rnames *n = &r->names[r->nnames];
    memset(n, 0, sizeof *n);
    tconv_map_put(m, key, b, (uint32_t)r->nnames++);
    return n;
}

static pf_rnames *pf_r_proc_names(pf_reader *r, int64_t pid, int create)
{
    return pf_r_names(r, &r->proc_names, (uint64_t)(uint32_t)pid, 0, create);
}

static pf_rnames *pf_r_thread_names(pf_reader *r, int64_t pid, int64_t tid, int create)
{
    return pf_r_names(r, &r->thread_names, (uint64_t)(uint32_t)pid << 32 | (uint32_t)tid, 1,
                      create);
}

static tconv_str pf_r_num(pf_reader *r, int64_t v)
{
    char tmp[24];
    int n = snprintf(tmp, sizeof tmp, "%" PRId64, v);
    return pf_r_intern(r, tmp, (size_t)n);
}

int pf_r_grow_tconv(pf_reader *r, uint32_t track)
{
    if (track < r->used_cap) return 0;
    size_t old = r->used_cap, cap = old;
    TCONV_ARRAY_GROW(r->used, cap, (size_t)track + 1);
    TCONV_ARRAY_GROW(r->owner, r->used_cap, (size_t)track + 1);
    memset(r->used + old, 0, r->used_cap - old);
    memset(r->owner + old, 0, (r->used_cap - old) * sizeof *r->owner);
    size_t oold = r->opens_cap;
    TCONV_ARRAY_GROW(r->opens, r->opens_cap, (size_t)track + 1);
    memset(r->opens + oold, 0, (r->opens_cap - oold) * sizeof *r->opens);
    return 0;
}

uint32_t pf_r_global_track(pf_reader *r)
{
    uint32_t t = tconv_track_get(r->ctx, 0, 0);
    tconv_track_set_kind(r->ctx, t, TCONV_TRACK_GLOBAL);
    pf_r_grow_tconv(r, t);
    return t;
}

static tconv_status pf_r_push_meta(pf_reader *r, uint32_t track, tconv_str what, tconv_str text)
{
    tconv_event ev = TCONV_EVENT_INIT;
    ev.kind = TCONV_EV_METADATA;
    ev.track = track;
    ev.name = what;
    ev.text = text;
    return pf_r_push(r, &ev);
}

static tconv_status pf_r_push_sort(pf_reader *r, uint32_t track, tconv_str what, int64_t v)
{
    return pf_r_push_meta(r, track, what, pf_r_num(r, v));
}

/* The names of what the track belongs to, where the trace's metadata did not give them. */
tconv_status pf_r_names_for(pf_reader *r, uint32_t track)
{
    pf_r_grow_tconv(r, track);
    if (r->used[track]) return TCONV_OK;
    r->used[track] = 1;
    tconv_track k = *tconv_track_describe(r->ctx, track);
    if (k.has_pid_num && k.pid_num >= INT32_MIN && k.pid_num <= INT32_MAX) {
        pf_rnames *p = pf_r_proc_names(r, k.pid_num, 0);
        if (p && ((p->name && !p->name_explicit && p->name_pushed != p->name) ||
                  (p->has_sort && !p->sort_explicit && !p->sort_pushed))) {
            uint32_t pt = k.tid ? tconv_track_get(r->ctx, k.pid, 0) : track;
            pf_r_grow_tconv(r, pt);
            if (p->name && !p->name_explicit && p->name_pushed != p->name) {
                p->name_pushed = p->name;
                if (pf_r_push_meta(r, pt, r->s_process_name, p->name) != TCONV_OK)
                    return TCONV_FATAL;
            }
            if (p->has_sort && !p->sort_explicit && !p->sort_pushed) {
                p->sort_pushed = 1;
                if (pf_r_push_sort(r, pt, r->s_process_sort, p->sort) != TCONV_OK)
                    return TCONV_FATAL;
            }
        }
        pf_rnames *t = k.tid && k.has_tid_num && k.tid_num >= INT32_MIN && k.tid_num <= INT32_MAX
                           ? pf_r_thread_names(r, k.pid_num, k.tid_num, 0)
                           : NULL;
        if (t && t->name && !t->name_explicit && t->name_pushed != t->name) {
            t->name_pushed = t->name;
            if (pf_r_push_meta(r, track, r->s_thread_name, t->name) != TCONV_OK) return TCONV_FATAL;
        }
        if (t && t->has_sort && !t->sort_explicit && !t->sort_pushed) {
            t->sort_pushed = 1;
            if (pf_r_push_sort(r, track, r->s_thread_sort, t->sort) != TCONV_OK) return TCONV_FATAL;
        }
    }
    /* A named track: its record's thread name, or its name when that is not its tid. */
    uint32_t o = r->owner[track];
    if (o) {
        pf_rtrack *d = &r->tracks[o - 1];
        tconv_str name = d->has_ident                                 ? d->ithread
                         : d->type == PF_RT_NAMED && d->name != k.tid ? d->name
                                                                      : 0;
        if (name && !d->name_explicit && d->name_pushed != name) {
            d->name_pushed = name;
            if (pf_r_push_meta(r, track, r->s_thread_name, name) != TCONV_OK) return TCONV_FATAL;
        }
        if (d->has_ident && d->isort && !d->sort_explicit && !d->sort_pushed) {
            d->sort_pushed = 1;
            if (pf_r_push_sort(r, track, r->s_thread_sort, d->isort) != TCONV_OK)
                return TCONV_FATAL;
        }
    }
    return TCONV_OK;
}

uint32_t pf_r_thread_track(pf_reader *r, int32_t pid, int32_t tid, int for_event)
{
    uint32_t t = tconv_track_get(r->ctx, pf_r_num(r, pid), tid < 0 ? 0 : pf_r_num(r, tid));
    pf_r_grow_tconv(r, t);
    if (for_event && pf_r_names_for(r, t) != TCONV_OK) return UINT32_MAX;
    return t;
}

/* The nearest process or thread ancestor's pid: 1 and *pid, or 0. */
static int pf_r_ancestor_pid(pf_reader *r, const pf_rtrack *t, int32_t *pid)
{
    for (int depth = 0; t && depth < 64; depth++) {
        if (t->type == PF_RT_PROCESS || t->type == PF_RT_THREAD) {
            *pid = t->pid;
            return 1;
        }
        t = t->parent ? pf_r_track_find(r, t->parent) : NULL;
    }
    return 0;
}

uint32_t pf_r_track_use(pf_reader *r, pf_rtrack *t, int for_event)
{
    if (t->tconv == UINT32_MAX) {
        tconv_str pid, tid;
        unsigned kind;
        if (t->has_ident) {
            pid = t->ipid;
            tid = t->itid;
            kind = t->ikind;
        } else if (t->type == PF_RT_PROCESS) {
            pid = pf_r_num(r, t->pid);
            tid = 0;
            kind = TCONV_TRACK_PROCESS;
        } else if (t->type == PF_RT_THREAD) {
            pid = pf_r_num(r, t->pid);
            tid = pf_r_num(r, t->tid);
            kind = TCONV_TRACK_THREAD;
        } else {
            int32_t p;
            int has = pf_r_ancestor_pid(r, t, &p);
            pid = has ? pf_r_num(r, p) : 0;
            kind = has ? TCONV_TRACK_ASYNC : TCONV_TRACK_GLOBAL;
            tid = t->name;
            if (!tid) {
                char tmp[40];
                int n = snprintf(tmp, sizeof tmp, "track %" PRIu64, t->uuid);
                tid = pf_r_intern(r, tmp, (size_t)n);
            }
            /* Two tracks of one name under one process stay two. */
            uint32_t idx = (uint32_t)(t - r->tracks);
            uint32_t had = tconv_map_put(&r->key_map, (uint64_t)pid << 32 | tid, 0, idx);
            if (had != idx) {
                char tmp[64];
                int n = snprintf(tmp, sizeof tmp, " [%" PRIu64 "]", t->uuid);
                size_t len = tconv_string_length(r->ctx, tid);
                char buf[512];
                if (len + (size_t)n < sizeof buf) {
                    memcpy(buf, tconv_string_get(r->ctx, tid), len);
                    memcpy(buf + len, tmp, (size_t)n);
                    tid = pf_r_intern(r, buf, len + (size_t)n);
                }
            }
        }
        uint32_t id = tconv_track_get(r->ctx, pid, tid);
        tconv_track_set_kind(r->ctx, id, (tconv_track_kind)kind);
        pf_r_grow_tconv(r, id);
        if (!r->owner[id]) r->owner[id] = (uint32_t)(t - r->tracks) + 1;
        t->tconv = id;
    }
    if (for_event && pf_r_names_for(r, t->tconv) != TCONV_OK) return UINT32_MAX;
    return t->tconv;
}

void pf_r_meta_explicit(pf_reader *r, uint32_t track, pf_rtrack *t, tconv_str what)
{
    int tname = what == r->s_thread_name, tsort = what == r->s_thread_sort;
    int pname = what == r->s_process_name, psort = what == r->s_process_sort;
    if (!tname && !tsort && !pname && !psort) return;
    if (t && tname) t->name_explicit = 1;
    if (t && tsort) t->sort_explicit = 1;
    tconv_track k = *tconv_track_describe(r->ctx, track);
    if (!k.has_pid_num || k.pid_num < INT32_MIN || k.pid_num > INT32_MAX) return;
    if (pname || psort) {
        pf_rnames *p = pf_r_proc_names(r, k.pid_num, 1);
        if (pname) p->name_explicit = 1;
        if (psort) p->sort_explicit = 1;
        return;
    }
    if (!k.has_tid_num || k.tid_num < INT32_MIN || k.tid_num > INT32_MAX) return;
    pf_rnames *n = pf_r_thread_names(r, k.pid_num, k.tid_num, 1);
    if (tname) n->name_explicit = 1;
    if (tsort) n->sort_explicit = 1;
}

/* ---- descriptors ------------------------------------------------------------------------- */

tconv_status pf_r_replay(pf_reader *r, uint64_t uuid);

tconv_status pf_r_descriptor(pf_reader *r, const uint8_t *msg, size_t len)
{
    pf_cur c = pf_cur_make(msg, len);
    pf_field f;
    int rc;
    uint64_t uuid = 0, parent = 0;
    int has_parent = 0;
    tconv_str name = 0;
    pf_field proc = {0}, thr = {0}, cnt = {0};
    int has_proc = 0, has_thr = 0, has_cnt = 0;
    while ((rc = pf_next(&c, &f)) > 0) {
        switch (f.num) {
        case PF_TD_UUID:
            if (f.wt == PF_VARINT) uuid = f.v;
            break;
        case PF_TD_PARENT:
            if (f.wt == PF_VARINT) parent = f.v, has_parent = 1;
            break;
        case PF_TD_NAME:
            if (f.wt == PF_LEN) name = pf_r_intern(r, f.data, f.len);
            break;
        case PF_TD_PROCESS:
            if (f.wt == PF_LEN) proc = f, has_proc = 1;
            break;
        case PF_TD_THREAD:
            if (f.wt == PF_LEN) thr = f, has_thr = 1;
            break;
        case PF_TD_COUNTER:
            if (f.wt == PF_LEN) cnt = f, has_cnt = 1;
            break;
        default:
            break;
        }
    }
    if (rc < 0) return pf_r_error(r, "malformed track descriptor");
    pf_rtrack *t = pf_r_track_add(r, uuid);
    if (has_parent) t->parent = parent;
    if (name) t->name = name;
    tconv_str pname = 0, tname = 0;
    int64_t sort = 0;
    int has_sort = 0;
    const pf_field *sub = has_thr ? &thr : has_proc ? &proc : has_cnt ? &cnt : NULL;
    if (sub) {
        pf_cur d = pf_cur_make(sub->data, sub->len);
        pf_field g;
        int dr;
        while ((dr = pf_next(&d, &g)) > 0) {
            if (sub == &cnt) {
                if (g.num == PF_CD_UNIT && g.wt == PF_VARINT && !t->unit) {
                    const char *u = g.v == PF_UNIT_TIME_NS      ? "ns"
                                    : g.v == PF_UNIT_COUNT      ? "count"
                                    : g.v == PF_UNIT_SIZE_BYTES ? "bytes"
                                                                : "";
                    t->unit = tconv_string_intern_cstr(r->ctx, u);
                }
                if (g.num == PF_CD_UNIT_NAME && g.wt == PF_LEN)
                    t->unit = pf_r_intern(r, g.data, g.len);
                if (g.num == PF_CD_UNIT_MULTIPLIER && g.wt == PF_VARINT && g.v)
                    t->multiplier = (int64_t)g.v;
                if (g.num == PF_CD_INCREMENTAL && g.wt == PF_VARINT) t->incremental = g.v != 0;
                if (g.num == PF_CD_CATEGORIES && g.wt == PF_LEN && !t->cat)
                    t->cat = pf_r_intern(r, g.data, g.len);
                continue;
            }
            if (g.wt == PF_VARINT && g.num == (sub == &thr ? PF_THD_PID : PF_PD_PID))
                t->pid = (int32_t)g.v;
            if (sub == &thr && g.num == PF_THD_TID && g.wt == PF_VARINT) t->tid = (int32_t)g.v;
            if (g.wt == PF_VARINT && g.num == (sub == &thr ? PF_THD_SORT : PF_PD_SORT))
                sort = (int32_t)g.v, has_sort = 1;
            if (g.wt == PF_LEN && g.num == (sub == &thr ? PF_THD_NAME : PF_PD_NAME)) {
                if (sub == &thr)
                    tname = pf_r_intern(r, g.data, g.len);
                else
                    pname = pf_r_intern(r, g.data, g.len);
            }
            /* A process named only by its command line: its first word. */
            if (sub == &proc && g.num == PF_PD_CMDLINE && g.wt == PF_LEN && !pname && g.len)
                pname = pf_r_intern(r, g.data, g.len);
        }
        if (dr < 0) return pf_r_error(r, "malformed track descriptor");
    }
    t->type = has_thr    ? PF_RT_THREAD
              : has_proc ? PF_RT_PROCESS
              : has_cnt  ? PF_RT_COUNTER
                         : PF_RT_NAMED;
    if (has_thr) {
        if (!tname) tname = name;
        pf_rnames *n = pf_r_thread_names(r, t->pid, t->tid, 1);
        if (tname) n->name = tname;
        if (has_sort) n->sort = sort, n->has_sort = 1;
    } else if (has_proc) {
        if (!pname) pname = name;
        pf_rnames *n = pf_r_proc_names(r, t->pid, 1);
        if (pname) n->name = pname;
        if (has_sort) n->sort = sort, n->has_sort = 1;
    }
    /* A track already in use takes a new name now. */
    if (t->tconv != UINT32_MAX && t->tconv < r->used_cap && r->used[t->tconv]) {
        r->used[t->tconv] = 0;
        if (pf_r_names_for(r, t->tconv) != TCONV_OK) return TCONV_FATAL;
    }
    return pf_r_replay(r, uuid);
}

/* ---- tconv's identity records -------------------------------------------------------------- */

/* Called by pf_revent.c for a "tconv.track" or "tconv.counter" record: the annotations are
 * given as (name, string id, integer). */
void pf_r_identity(pf_reader *r, pf_rtrack *t, int counter, const tconv_arg *args, size_t n)
{
    /* A record names a track of tconv's, whether or not events come on it. */
    int track = !counter;
    for (size_t i = 0; i < n; i++) {
        const tconv_arg *a = &args[i];
        tconv_str s = a->type == TCONV_ARG_STRING ? a->v.s : 0;
        if (counter) {
            t->has_cident = 1;
            if (a->key == r->s_name) t->cname = s;
            if (a->key == r->s_key) t->ckey = s;
            if (a->key == r->s_id && (a->type == TCONV_ARG_INT || a->type == TCONV_ARG_UINT))
                t->cid = a->v.u;
            continue;
        }
        t->has_ident = 1;
        if (a->key == r->s_pid) t->ipid = s;
        if (a->key == r->s_tid) t->itid = s;
        if (a->key == r->s_ithread) t->ithread = s;
        if (a->key == r->s_isort && a->type == TCONV_ARG_INT) t->isort = a->v.i;
        if (a->key == r->s_kind) {
            const char *k = tconv_string_get(r->ctx, s);
            for (unsigned j = 0; j < 5; j++)
                if (strcmp(k, pf_r_kinds[j]) == 0) t->ikind = j;
        }
    }
    if (track && t->tconv == UINT32_MAX) pf_r_track_use(r, t, 0);
}

/* ---- process trees ----------------------------------------------------------------------- */

tconv_status pf_r_process_tree(pf_reader *r, const uint8_t *msg, size_t len)
{
    pf_cur c = pf_cur_make(msg, len);
    pf_field f;
    int rc;
    while ((rc = pf_next(&c, &f)) > 0) {
        if (f.wt != PF_LEN || (f.num != PF_PT_PROCESSES && f.num != PF_PT_THREADS)) continue;
        pf_cur d = pf_cur_make(f.data, f.len);
        pf_field g;
        int dr;
        int64_t id = 0, tgid = 0;
        tconv_str name = 0;
        while ((dr = pf_next(&d, &g)) > 0) {
            if (f.num == PF_PT_PROCESSES) {
                if (g.num == PF_PTP_PID && g.wt == PF_VARINT) id = (int32_t)g.v;
                /* The command's first word, without its folders. */
                if (g.num == PF_PTP_CMDLINE && g.wt == PF_LEN && !name && g.len) {
                    size_t start = 0;
                    for (size_t i = 0; i < g.len; i++)
                        if (g.data[i] == '/') start = i + 1;
                    name = start < g.len ? pf_r_intern(r, g.data + start, g.len - start)
                                         : pf_r_intern(r, g.data, g.len);
                }
            } else {
                if (g.num == PF_PTT_TID && g.wt == PF_VARINT) id = (int32_t)g.v;
                if (g.num == PF_PTT_TGID && g.wt == PF_VARINT) tgid = (int32_t)g.v;
                if (g.num == PF_PTT_NAME && g.wt == PF_LEN) name = pf_r_intern(r, g.data, g.len);
            }
        }
        if (dr < 0) return pf_r_error(r, "malformed process tree");
        if (!name) continue;
        pf_rnames *n = f.num == PF_PT_PROCESSES ? pf_r_proc_names(r, id, 1)
                                                : pf_r_thread_names(r, tgid, id, 1);
        /* A descriptor's name is the better one. */
        if (!n->name) n->name = name;
    }
    return rc < 0 ? pf_r_error(r, "malformed process tree") : TCONV_OK;
}
