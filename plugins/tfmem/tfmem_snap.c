/* The snapshots of one allocator. Each MemoryProfileSnapshot is the allocator's state right
 * after one memory activity: its aggregationStats become one value of each counter series, its
 * activityMetadata an instant (or a span until the next snapshot) carrying the metadata as args.
 *
 * Profiles since version 1 keep the timeline in sampledTimelineSnapshots and only the snapshots
 * that the peak's active allocations refer to in memoryProfileSnapshots; older ones keep the
 * (sampled) timeline in memoryProfileSnapshots. Both lists are read, merged in time order, and a
 * snapshot found in both is taken once. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tfmem_num.h"
#include "tfmem_reader.h"

const tfmem_stat_desc tfmem_stats[TFMEM_NSTATS] = {
    {"heapAllocatedBytes", "allocated bytes", 0}, {"stackReservedBytes", "reserved bytes", 0},
    {"freeMemoryBytes", "free bytes", 0},         {"fragmentation", "fragmentation", 1},
    {"peakBytesInUse", "peak bytes in use", 0},
};

const tfmem_meta_desc tfmem_meta[TFMEM_NMETA] = {
    {"requestedBytes", TCONV_ARG_INT}, {"allocationBytes", TCONV_ARG_INT},
    {"address", TCONV_ARG_UINT},       {"tfOpName", TCONV_ARG_STRING},
    {"stepId", TCONV_ARG_INT},         {"regionType", TCONV_ARG_STRING},
    {"dataType", TCONV_ARG_STRING},    {"tensorShape", TCONV_ARG_STRING},
};

static const char *const tfmem_lists[2] = {"memoryProfileSnapshots", "sampledTimelineSnapshots"};

/* MemoryActivity, by enum value. */
static const char *const tfmem_activities[] = {"UNKNOWN_ACTIVITY", "ALLOCATION", "DEALLOCATION",
                                               "RESERVATION", "EXPANSION"};
enum { TFMEM_NACTIVITIES = sizeof(tfmem_activities) / sizeof(tfmem_activities[0]) };

typedef struct tfmem_snap {
    json_t *obj;
    int64_t ts;
    size_t seq;   /* position among all collected snapshots: keeps equal times in file order */
    int list;     /* index into tfmem_lists */
    size_t index; /* position in that list, for messages */
} tfmem_snap;

static int tfmem_snap_cmp(const void *a, const void *b)
{
    const tfmem_snap *x = a, *y = b;
    if (x->ts != y->ts) return x->ts < y->ts ? -1 : 1;
    return x->seq < y->seq ? -1 : x->seq > y->seq;
}

/* One snapshot's time; TCONV_RECORD when it has none and is skipped. */
static tconv_status tfmem_snap_time(tfmem_reader *r, const tfmem_where *w, json_t *snap,
                                    int64_t *ts)
{
    char shown[64];
    json_t *t = json_object_get(snap, "timeOffsetPs");
    int64_t ps;
    switch (tfmem_num_int64(t, &ps)) {
    case TFMEM_NUM_OK:
        *ts = tfmem_ps_to_ns(ps, r->offset_ns);
        return TCONV_OK;
    case TFMEM_NUM_ABSENT:
        return tfmem_bad(r, "tfmem.no-time", w, "the snapshot has no timeOffsetPs; skipped");
    default:
        return tfmem_bad(r, "tfmem.bad-number", w,
                         "timeOffsetPs is %s, not a count of picoseconds; snapshot skipped",
                         tfmem_num_show(t, shown, sizeof(shown)));
    }
}

static tconv_status tfmem_snap_collect(tfmem_reader *r, const char *allocator, json_t *profile,
                                       tfmem_snap **out, size_t *count)
{
    size_t n = 0, cap = 0;
    tfmem_snap *v = NULL;
    for (int l = 0; l < 2; l++) {
        json_t *arr = json_object_get(profile, tfmem_lists[l]);
        if (!arr || json_is_null(arr)) continue;
        if (!json_is_array(arr)) {
            tfmem_where w = {allocator, NULL, 0, tfmem_lists[l]};
            if (tfmem_bad(r, "tfmem.bad-member", &w,
                          "expected an array of snapshots, found %s; left out",
                          tfmem_num_kind(arr)) == TCONV_FATAL)
                goto fatal;
            continue;
        }
        for (size_t i = 0; i < json_array_size(arr); i++) {
            json_t *snap = json_array_get(arr, i);
            tfmem_where w = {allocator, tfmem_lists[l], i, NULL};
            tconv_status st;
            int64_t ts = 0;
            if (!json_is_object(snap))
                st = tfmem_bad(r, "tfmem.bad-snapshot", &w,
                               "a snapshot is an object, found %s; skipped", tfmem_num_kind(snap));
            else
                st = tfmem_snap_time(r, &w, snap, &ts);
            if (st == TCONV_FATAL) goto fatal;
            if (st != TCONV_OK) continue;
            if (n == cap) {
                cap = cap ? cap * 2 : 64;
                tfmem_snap *more = realloc(v, cap * sizeof(*v));
                if (!more) {
                    tconv_error_set(r->ctx, "%s: out of memory", r->name);
                    goto fatal;
                }
                v = more;
            }
            v[n] = (tfmem_snap){snap, ts, n, l, i};
            n++;
        }
    }
    if (n) qsort(v, n, sizeof(*v), tfmem_snap_cmp);
    /* A snapshot of the timeline that is also one of the peak's allocations appears in both
     * lists: keep the first. Within one list, equal snapshots are distinct activities. */
    size_t kept = 0;
    for (size_t i = 0; i < n; i++) {
        int dup = 0;
        for (size_t j = kept; j-- > 0 && v[j].ts == v[i].ts && !dup;)
            dup = v[j].list != v[i].list && json_equal(v[j].obj, v[i].obj);
        if (!dup) v[kept++] = v[i];
    }
    *out = v;
    *count = kept;
    return TCONV_OK;
fatal:
    free(v);
    return TCONV_FATAL;
}

static tconv_str tfmem_activity(tfmem_reader *r, const tfmem_where *w, json_t *v, tconv_status *st)
{
    char shown[64];
    *st = TCONV_OK;
    if (!v || json_is_null(v)) return tconv_string_intern_cstr(r->ctx, tfmem_activities[0]);
    if (json_is_string(v)) {
        const char *s = json_string_value(v);
        int known = 0;
        for (size_t i = 0; i < TFMEM_NACTIVITIES; i++)
            known |= strcmp(s, tfmem_activities[i]) == 0;
        if (!known)
            *st = tfmem_bad(r, "tfmem.bad-activity", w,
                            "\"%s\" is not a MemoryActivity (ALLOCATION, "
                            "DEALLOCATION, RESERVATION, EXPANSION); kept as it is",
                            s);
        return tconv_string_intern(r->ctx, s, json_string_length(v));
    }
    if (json_is_integer(v) && json_integer_value(v) >= 0 &&
        json_integer_value(v) < (json_int_t)TFMEM_NACTIVITIES)
        return tconv_string_intern_cstr(r->ctx, tfmem_activities[json_integer_value(v)]);
    *st = tfmem_bad(r, "tfmem.bad-activity", w,
                    "memoryActivity is %s, not a MemoryActivity; read as UNKNOWN_ACTIVITY",
                    tfmem_num_show(v, shown, sizeof(shown)));
    return tconv_string_intern_cstr(r->ctx, tfmem_activities[0]);
}

/* The metadata's members as args; a member that is absent gives no arg. */
static tconv_status tfmem_meta_args(tfmem_reader *r, const tfmem_where *at, json_t *meta,
                                    tconv_arg *args, uint32_t *nargs)
{
    char shown[64];
    *nargs = 0;
    for (size_t i = 0; i < TFMEM_NMETA; i++) {
        json_t *v = json_object_get(meta, tfmem_meta[i].field);
        tfmem_where w = *at;
        w.member = tfmem_meta[i].field;
        tconv_arg *a = &args[*nargs];
        a->key = r->n.meta_key[i];
        a->type = (uint32_t)tfmem_meta[i].type;
        tfmem_num_status ns = TFMEM_NUM_OK;
        if (!v || json_is_null(v)) continue;
        switch (tfmem_meta[i].type) {
        case TCONV_ARG_INT:
            ns = tfmem_num_int64(v, &a->v.i);
            break;
        case TCONV_ARG_UINT:
            ns = tfmem_num_uint64(v, &a->v.u);
            break;
        default:
            if (!json_is_string(v)) {
                if (tfmem_bad(r, "tfmem.bad-member", &w, "expected a string, found %s; left out",
                              tfmem_num_kind(v)) == TCONV_FATAL)
                    return TCONV_FATAL;
                continue;
            }
            a->v.s = tconv_string_intern(r->ctx, json_string_value(v), json_string_length(v));
        }
        if (ns == TFMEM_NUM_BAD) {
            if (tfmem_bad(r, "tfmem.bad-number", &w, "%s is not a number; left out",
                          tfmem_num_show(v, shown, sizeof(shown))) == TCONV_FATAL)
                return TCONV_FATAL;
            continue;
        }
        (*nargs)++;
    }
    return TCONV_OK;
}

static tconv_status tfmem_emit_activity(tfmem_reader *r, uint32_t track, const tfmem_where *w,
                                        const tfmem_snap *s, const tfmem_snap *next)
{
    json_t *meta = json_object_get(s->obj, "activityMetadata");
    if (!meta || json_is_null(meta)) return TCONV_OK;
    tfmem_where mw = *w;
    mw.member = "activityMetadata";
    if (!json_is_object(meta))
        return tfmem_bad(r, "tfmem.bad-member", &mw, "expected an object, found %s; left out",
                         tfmem_num_kind(meta)) == TCONV_FATAL
                   ? TCONV_FATAL
                   : TCONV_OK;
    tconv_arg args[TFMEM_NMETA];
    tconv_event ev = TCONV_EVENT_INIT;
    tconv_status st;
    tfmem_where aw = mw;
    aw.member = "activityMetadata.memoryActivity";
    ev.name = tfmem_activity(r, &aw, json_object_get(meta, "memoryActivity"), &st);
    if (st == TCONV_FATAL) return st;
    mw.member = NULL;
    if (tfmem_meta_args(r, &mw, meta, args, &ev.nargs) == TCONV_FATAL) return TCONV_FATAL;
    ev.args = ev.nargs ? args : NULL;
    ev.track = track;
    ev.cat = r->n.memory;
    ev.ts = s->ts;
    if (r->activities == TFMEM_ACT_SPAN) {
        ev.kind = TCONV_EV_COMPLETE;
        ev.dur = next ? next->ts - s->ts : 0;
    } else {
        ev.kind = TCONV_EV_INSTANT;
    }
    return tfmem_push(r, &ev);
}

static tconv_status tfmem_emit_counters(tfmem_reader *r, uint32_t track, const tfmem_where *w,
                                        const tfmem_snap *s)
{
    char shown[64];
    json_t *stats = json_object_get(s->obj, "aggregationStats");
    if (!stats || json_is_null(stats)) return TCONV_OK;
    tfmem_where sw = *w;
    sw.member = "aggregationStats";
    if (!json_is_object(stats))
        return tfmem_bad(r, "tfmem.bad-member", &sw, "expected an object, found %s; left out",
                         tfmem_num_kind(stats)) == TCONV_FATAL
                   ? TCONV_FATAL
                   : TCONV_OK;
    for (size_t i = 0; i < TFMEM_NSTATS; i++) {
        json_t *v = json_object_get(stats, tfmem_stats[i].field);
        tconv_event ev = TCONV_EVENT_INIT;
        int64_t iv = 0;
        tfmem_num_status ns;
        if (tfmem_stats[i].is_ratio) {
            ns = tfmem_num_double(v, &ev.value);
        } else {
            ns = tfmem_num_int64(v, &iv);
            ev.value = (double)iv;
        }
        if (ns == TFMEM_NUM_BAD) {
            char member[64];
            snprintf(member, sizeof(member), "aggregationStats.%s", tfmem_stats[i].field);
            sw.member = member;
            if (tfmem_bad(r, "tfmem.bad-number", &sw, "%s is not a number; this value is skipped",
                          tfmem_num_show(v, shown, sizeof(shown))) == TCONV_FATAL)
                return TCONV_FATAL;
            continue;
        }
        /* An absent member has the proto3 default, 0 (the JSON printer may omit defaults). */
        if (ns == TFMEM_NUM_ABSENT) ev.value = 0;
        ev.kind = TCONV_EV_COUNTER;
        ev.track = track;
        ev.ts = s->ts;
        ev.name = r->n.series[i];
        ev.cat = r->n.memory;
        ev.unit = tfmem_stats[i].is_ratio ? r->n.ratio : r->n.bytes;
        if (tfmem_push(r, &ev) == TCONV_FATAL) return TCONV_FATAL;
    }
    return TCONV_OK;
}

tconv_status tfmem_emit_snapshots(tfmem_reader *r, uint32_t track, const char *allocator,
                                  json_t *profile)
{
    tfmem_snap *snaps = NULL;
    size_t n = 0;
    if (tfmem_snap_collect(r, allocator, profile, &snaps, &n) == TCONV_FATAL) return TCONV_FATAL;
    tconv_status st = TCONV_OK;
    for (size_t i = 0; i < n && st != TCONV_FATAL; i++) {
        tfmem_where w = {allocator, tfmem_lists[snaps[i].list], snaps[i].index, NULL};
        if (r->activities != TFMEM_ACT_NONE)
            st = tfmem_emit_activity(r, track, &w, &snaps[i], i + 1 < n ? &snaps[i + 1] : NULL);
        if (st != TCONV_FATAL) st = tfmem_emit_counters(r, track, &w, &snaps[i]);
    }
    free(snaps);
    return st == TCONV_FATAL ? TCONV_FATAL : TCONV_OK;
}
