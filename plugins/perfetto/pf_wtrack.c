/* Track descriptors: tconv's tracks as Perfetto's.
 *
 * A track is keyed by (input, pid text, tid text) and has a kind; Perfetto knows processes and
 * threads by number and any other track by its place under a parent. So:
 *   - a thread (kind thread, pid and tid base-10 int32) is a ThreadDescriptor under its process;
 *   - (pid, "") is the process itself: a ProcessDescriptor when the pid is a number that no other
 *     input wrote, else a named track at the top;
 *   - any other track is a named track under its process (or at the top without a pid), and a
 *     GPU stream's or async track's lanes ("stream 7 #2", made by the ordering stage) are named
 *     tracks under their stream;
 *   - a counter series (name, key, unit, id) is a counter track under its event track.
 * A process with no (pid, "") track of its own gets a descriptor all the same, for its threads.
 *
 * The reader derives an identity from each descriptor (pf_rtrack.c says how). Where that would
 * not give back tconv's (pid, tid, kind), or a series' (name, key, id), a record of the exact
 * values follows the descriptor: a legacy metadata event named "tconv.track" or
 * "tconv.counter", which trace viewers ignore. Names and sort orders go into the descriptors
 * for viewers; the metadata events that set them are written too, as they came. */
#include "pf_writer.h"

#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "pf_fields.h"

static const char *const pf_kind_names[] = {"thread", "gpu", "async", "process", "global"};

/* Is the text a base-10 int32 written as Perfetto would write it back? */
static int pf_w_is_i32(const tconv_ctx *ctx, tconv_str s, int has, int64_t v)
{
    if (!has || v < INT32_MIN || v > INT32_MAX) return 0;
    char tmp[24];
    int n = snprintf(tmp, sizeof tmp, "%" PRId64, v);
    return (size_t)n == tconv_string_length(ctx, s) &&
           memcmp(tmp, tconv_string_get(ctx, s), n) == 0;
}

static uint64_t pf_w_key(tconv_str pid, tconv_str tid)
{
    return (uint64_t)pid << 32 | tid;
}

static int pf_w_grow_tracks(pf_writer *w, uint32_t track)
{
    if (track < w->ntracks) return 0;
    size_t old = w->tracks_cap;
    if (track >= old) {
        TCONV_ARRAY_GROW(w->tracks, w->tracks_cap, (size_t)track + 1);
        memset(w->tracks + old, 0, (w->tracks_cap - old) * sizeof *w->tracks);
    }
    /* Every track up to this one is known by key, so processes and lanes find theirs. */
    for (uint32_t i = (uint32_t)w->ntracks; i <= track; i++) {
        const tconv_track *t = tconv_track_describe(w->ctx, i);
        tconv_map_put(&w->by_key, pf_w_key(t->pid, t->tid), t->input, i);
    }
    w->ntracks = (size_t)track + 1;
    return 0;
}

/* One annotation {name_iid, string_value}. */
static void pf_w_rec_str(pf_writer *w, tconv_str name, tconv_str value)
{
    pf_w_annot_str(w, pf_w_annot_name(w, name), value);
}

/* A legacy metadata event ('M') named `name` on a track, with what the caller put in w->ev. */
static tconv_status pf_w_meta_packet(pf_writer *w, uint64_t uuid, tconv_str name, int has_ts,
                                     int64_t ts)
{
    pf_put_uint(&w->ev, PF_TE_TRACK_UUID, uuid);
    pf_put_uint(&w->ev, PF_TE_NAME_IID, pf_w_event_name(w, name));
    size_t m = pf_open(&w->ev, PF_TE_LEGACY);
    pf_put_uint(&w->ev, PF_LE_PHASE, PF_PHASE_METADATA);
    pf_close(&w->ev, m);
    return pf_w_packet(w, has_ts, ts, PF_PKT_TRACK_EVENT);
}

static tconv_status pf_w_identity(pf_writer *w, uint64_t uuid, const tconv_track *t)
{
    pf_w_rec_str(w, w->s_pid, t->pid);
    pf_w_rec_str(w, w->s_tid, t->tid);
    tconv_str kind = tconv_string_intern_cstr(w->ctx, t->kind < 5 ? pf_kind_names[t->kind] : "");
    pf_w_rec_str(w, w->s_kind, kind);
    if (t->thread_name) pf_w_rec_str(w, w->s_ithread, t->thread_name);
    if (t->thread_sort) pf_w_annot_int(w, pf_w_annot_name(w, w->s_isort), t->thread_sort);
    return pf_w_meta_packet(w, uuid, w->s_track, 0, 0);
}

static tconv_status pf_w_descriptor(pf_writer *w)
{
    return pf_w_packet(w, 0, 0, PF_PKT_TRACK_DESCRIPTOR);
}

static void pf_w_name_field(pf_writer *w, uint32_t field, tconv_str s)
{
    pf_put_bytes(&w->ev, field, tconv_string_get(w->ctx, s), tconv_string_length(w->ctx, s));
}

/* The process (input, pid) of a track: its uuid, writing its descriptor first. *numeric says
 * whether it is a ProcessDescriptor (the reader then derives pids from it). 0 on error. */
static uint64_t pf_w_process(pf_writer *w, const tconv_track *t, int *numeric)
{
    uint32_t own = tconv_map_get(&w->by_key, pf_w_key(t->pid, 0), t->input);
    *numeric = pf_w_is_i32(w->ctx, t->pid, t->has_pid_num, t->pid_num);
    if (*numeric) {
        uint32_t user = tconv_map_put(&w->pid_user, (uint64_t)t->pid_num, 0, t->input);
        *numeric = user == t->input;
    }
    if (own != TCONV_MAP_NONE) return pf_w_track(w, own);
    uint32_t idx = tconv_map_get(&w->procs, t->pid, t->input);
    if (idx != TCONV_MAP_NONE) return w->procv[idx].uuid;
    /* A process known only by its threads. */
    if (w->nprocs == w->procs_cap) TCONV_ARRAY_GROW(w->procv, w->procs_cap, w->nprocs + 1);
    uint64_t uuid = w->next_uuid++;
    w->procv[w->nprocs].uuid = uuid;
    tconv_map_put(&w->procs, t->pid, t->input, (uint32_t)w->nprocs++);
    pf_put_uint(&w->ev, PF_TD_UUID, uuid);
    if (*numeric) {
        size_t m = pf_open(&w->ev, PF_TD_PROCESS);
        pf_put_int(&w->ev, PF_PD_PID, t->pid_num);
        if (t->process_name) pf_w_name_field(w, PF_PD_NAME, t->process_name);
        if (t->process_sort) pf_put_int(&w->ev, PF_PD_SORT, (int32_t)t->process_sort);
        pf_close(&w->ev, m);
    } else {
        pf_w_name_field(w, PF_TD_NAME, t->process_name ? t->process_name : t->pid);
    }
    return pf_w_descriptor(w) == TCONV_OK ? uuid : 0;
}

/* "stream 7 #2" is a lane of "stream 7" when that track exists: its track id, or
 * TCONV_MAP_NONE. */
static uint32_t pf_w_lane_base(pf_writer *w, const tconv_track *t)
{
    if (t->kind != TCONV_TRACK_GPU && t->kind != TCONV_TRACK_ASYNC) return TCONV_MAP_NONE;
    const char *s = tconv_string_get(w->ctx, t->tid);
    size_t n = tconv_string_length(w->ctx, t->tid), i = n;
    while (i > 0 && s[i - 1] >= '0' && s[i - 1] <= '9')
        i--;
    if (i == n || i < 2 || s[i - 1] != '#' || s[i - 2] != ' ') return TCONV_MAP_NONE;
    tconv_str base = tconv_string_intern(w->ctx, s, i - 2);
    return tconv_map_get(&w->by_key, pf_w_key(t->pid, base), t->input);
}

uint64_t pf_w_track(pf_writer *w, uint32_t track)
{
    pf_w_grow_tracks(w, track);
    if (w->tracks[track].uuid) return w->tracks[track].uuid;
    /* A copy: writing parents may create no track, but the pointer is only promised until
     * then. */
    tconv_track t = *tconv_track_describe(w->ctx, track);
    int proc_numeric = 0;
    uint64_t parent = 0;
    int is_process = t.tid == 0 && t.pid != 0;
    if (is_process) {
        proc_numeric = pf_w_is_i32(w->ctx, t.pid, t.has_pid_num, t.pid_num);
        if (proc_numeric)
            proc_numeric = tconv_map_put(&w->pid_user, (uint64_t)t.pid_num, 0, t.input) == t.input;
    } else if (t.pid) {
        parent = pf_w_process(w, &t, &proc_numeric);
        if (!parent) return 0;
    }
    uint32_t base = pf_w_lane_base(w, &t);
    if (base != TCONV_MAP_NONE && base != track) {
        parent = pf_w_track(w, base);
        if (!parent) return 0;
    }
    /* Uuids in order of first use: small numbers, short varints on every event. */
    uint64_t uuid = w->next_uuid++;
    w->tracks[track].uuid = uuid;

    /* What the reader will make of the descriptor: (pid, tid, kind). */
    tconv_str dpid = 0, dtid = 0;
    unsigned dkind = TCONV_TRACK_THREAD;
    pf_put_uint(&w->ev, PF_TD_UUID, uuid);
    if (parent) pf_put_uint(&w->ev, PF_TD_PARENT, parent);
    if (is_process && proc_numeric) {
        size_t m = pf_open(&w->ev, PF_TD_PROCESS);
        pf_put_int(&w->ev, PF_PD_PID, t.pid_num);
        if (t.process_name) pf_w_name_field(w, PF_PD_NAME, t.process_name);
        if (t.process_sort) pf_put_int(&w->ev, PF_PD_SORT, (int32_t)t.process_sort);
        pf_close(&w->ev, m);
        dpid = t.pid;
        dkind = TCONV_TRACK_PROCESS;
    } else if (!is_process && proc_numeric && t.kind == TCONV_TRACK_THREAD &&
               pf_w_is_i32(w->ctx, t.tid, t.has_tid_num, t.tid_num)) {
        size_t m = pf_open(&w->ev, PF_TD_THREAD);
        pf_put_int(&w->ev, PF_THD_PID, t.pid_num);
        pf_put_int(&w->ev, PF_THD_TID, t.tid_num);
        if (t.thread_name) pf_w_name_field(w, PF_THD_NAME, t.thread_name);
        if (t.thread_sort) pf_put_int(&w->ev, PF_THD_SORT, (int32_t)t.thread_sort);
        pf_close(&w->ev, m);
        dpid = t.pid;
        dtid = t.tid;
    } else {
        tconv_str name = t.thread_name ? t.thread_name
                         : t.tid       ? t.tid
                         : is_process  ? (t.process_name ? t.process_name : t.pid)
                                       : tconv_string_intern_cstr(w->ctx, "trace");
        pf_w_name_field(w, PF_TD_NAME, name);
        dpid = proc_numeric ? t.pid : 0;
        dtid = name;
        dkind = proc_numeric ? TCONV_TRACK_ASYNC : TCONV_TRACK_GLOBAL;
    }
    if (pf_w_descriptor(w) != TCONV_OK) return 0;
    /* A named track's thread name, when it has one, goes with the record too: its descriptor's
     * name may be its tid. */
    if ((dpid != t.pid || dtid != t.tid || dkind != t.kind ||
         ((t.thread_name || t.thread_sort) && dkind != TCONV_TRACK_THREAD)) &&
        pf_w_identity(w, uuid, &t) != TCONV_OK)
        return 0;
    return uuid;
}

tconv_status pf_w_track_idle(pf_writer *w, uint32_t track)
{
    uint64_t uuid = pf_w_track(w, track);
    if (!uuid) return TCONV_FATAL;
    tconv_track t = *tconv_track_describe(w->ctx, track);
    return pf_w_identity(w, uuid, &t);
}

pf_wseries *pf_w_series(pf_writer *w, const tconv_event *ev)
{
    uint64_t k = (uint64_t)ev->name << 32 | ev->key;
    uint32_t i = tconv_map_get(&w->series_map, k, ev->track), last = TCONV_MAP_NONE;
    for (; i != TCONV_MAP_NONE; last = i, i = w->series[i].next)
        if (w->series[i].unit == ev->unit && w->series[i].id == ev->id) return &w->series[i];
    uint64_t parent = pf_w_track(w, ev->track);
    if (!parent) return NULL;
    if (w->nseries == w->series_cap) TCONV_ARRAY_GROW(w->series, w->series_cap, w->nseries + 1);
    uint32_t idx = (uint32_t)w->nseries++;
    pf_wseries *s = &w->series[idx];
    s->track = ev->track;
    s->name = ev->name;
    s->key = ev->key;
    s->unit = ev->unit;
    s->id = ev->id;
    s->uuid = w->next_uuid++;
    s->cat = ev->cat;
    s->next = TCONV_MAP_NONE;
    if (last == TCONV_MAP_NONE)
        tconv_map_put(&w->series_map, k, ev->track, idx);
    else
        w->series[last].next = idx;

    pf_put_uint(&w->ev, PF_TD_UUID, s->uuid);
    pf_put_uint(&w->ev, PF_TD_PARENT, parent);
    /* Named as Perfetto names a Chrome counter's series: "name key". */
    const char *name = tconv_string_get(w->ctx, ev->name);
    size_t nlen = tconv_string_length(w->ctx, ev->name);
    pf_put_tag(&w->ev, PF_TD_NAME, PF_LEN);
    if (ev->key) {
        size_t klen = tconv_string_length(w->ctx, ev->key);
        pf_put_varint(&w->ev, nlen + (nlen ? 1 : 0) + klen);
        if (pf_buf_reserve(&w->ev, nlen + 1 + klen)) {
            memcpy(w->ev.p + w->ev.len, name, nlen);
            w->ev.len += nlen;
            if (nlen) w->ev.p[w->ev.len++] = ' ';
            memcpy(w->ev.p + w->ev.len, tconv_string_get(w->ctx, ev->key), klen);
            w->ev.len += klen;
        }
    } else {
        pf_put_varint(&w->ev, nlen);
        if (pf_buf_reserve(&w->ev, nlen)) {
            memcpy(w->ev.p + w->ev.len, name, nlen);
            w->ev.len += nlen;
        }
    }
    size_t m = pf_open(&w->ev, PF_TD_COUNTER);
    /* The series' category, which its events then need not repeat. */
    if (ev->cat) pf_w_name_field(w, PF_CD_CATEGORIES, ev->cat);
    if (ev->unit) {
        const char *u = tconv_string_get(w->ctx, ev->unit);
        int unit = strcmp(u, "bytes") == 0   ? PF_UNIT_SIZE_BYTES
                   : strcmp(u, "ns") == 0    ? PF_UNIT_TIME_NS
                   : strcmp(u, "count") == 0 ? PF_UNIT_COUNT
                                             : 0;
        if (unit) pf_put_uint(&w->ev, PF_CD_UNIT, (uint64_t)unit);
        pf_w_name_field(w, PF_CD_UNIT_NAME, ev->unit);
    }
    pf_close(&w->ev, m);
    if (pf_w_descriptor(w) != TCONV_OK) return NULL;
    if (ev->key || ev->id) {
        pf_w_rec_str(w, w->s_name, ev->name);
        pf_w_rec_str(w, w->s_key, ev->key);
        pf_w_annot_int(w, pf_w_annot_name(w, w->s_id), (int64_t)ev->id);
        if (pf_w_meta_packet(w, s->uuid, w->s_counter, 0, 0) != TCONV_OK) return NULL;
    }
    return &w->series[idx];
}

/* The value a reader takes from a lone arg when the event does not say it (Chrome's metadata
 * events name a process with {"name": ...}, sort with {"sort_index": N}): its string, or its
 * integer in decimal. Keep in step with pf_r_meta_text (pf_reader.c). */
static int pf_w_text_derives(pf_writer *w, const tconv_event *ev)
{
    if (ev->nargs != 1 || !ev->text) return 0;
    const tconv_arg *a = &ev->args[0];
    if (a->type == TCONV_ARG_STRING) return a->v.s == ev->text;
    if (a->type != TCONV_ARG_INT && a->type != TCONV_ARG_UINT) return 0;
    char tmp[24];
    int n = a->type == TCONV_ARG_INT ? snprintf(tmp, sizeof tmp, "%" PRId64, a->v.i)
                                     : snprintf(tmp, sizeof tmp, "%" PRIu64, a->v.u);
    return (size_t)n == tconv_string_length(w->ctx, ev->text) &&
           memcmp(tmp, tconv_string_get(w->ctx, ev->text), (size_t)n) == 0;
}

tconv_status pf_w_metadata(pf_writer *w, const tconv_event *ev)
{
    uint64_t uuid = pf_w_track(w, ev->track);
    if (!uuid) return TCONV_FATAL;
    if (ev->cat) pf_put_uint(&w->ev, PF_TE_CATEGORY_IIDS, pf_w_category(w, ev->cat));
    pf_w_args(w, ev->args, ev->nargs);
    /* The value and sub-key have no field of their own: an annotation says them, unless the
     * value is what the lone arg gives. */
    if ((ev->text || ev->nargs == 1) && !pf_w_text_derives(w, ev))
        pf_w_rec_str(w, w->s_text, ev->text);
    if (ev->key) pf_w_rec_str(w, w->s_key, ev->key);
    return pf_w_meta_packet(w, uuid, ev->name, ev->ts != 0, ev->ts);
}
