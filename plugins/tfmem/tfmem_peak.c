/* The peak of one allocator: profileSummary (the stats at peak use within the profiling window,
 * its time, the lifetime peak, the capacity) and the table of allocations alive at that peak
 * (activeAllocations, whose rows point into memoryProfileSnapshots or specialAllocations).
 * They become one "peak" instant at peakStatsTimePs; the table is a JSON arg with each row
 * resolved to its op, shape and sizes, the numbers as JSON numbers. */
#include <stdlib.h>
#include <string.h>

#include "tfmem_num.h"
#include "tfmem_reader.h"

/* MemoryActivityMetadata members copied into a row of the table, in this order. */
static const char *const tfmem_peak_text[] = {"tfOpName", "regionType", "dataType", "tensorShape"};
static const char *const tfmem_peak_ints[] = {"allocationBytes", "requestedBytes", "stepId"};

static tconv_status tfmem_peak_bad_type(tfmem_reader *r, const tfmem_where *w, const char *want,
                                        const json_t *v)
{
    return tfmem_bad(r, "tfmem.bad-member", w, "expected %s, found %s; left out", want,
                     tfmem_num_kind(v));
}

/* The metadata a row of activeAllocations stands for, or NULL (with a warning). */
static json_t *tfmem_peak_target(tfmem_reader *r, const tfmem_where *w, json_t *profile,
                                 json_t *row, tconv_status *st)
{
    int64_t snap = 0, special = 0;
    *st = TCONV_OK;
    if (tfmem_num_int64(json_object_get(row, "snapshotIndex"), &snap) == TFMEM_NUM_BAD ||
        tfmem_num_int64(json_object_get(row, "specialIndex"), &special) == TFMEM_NUM_BAD) {
        *st = tfmem_bad(r, "tfmem.bad-number", w,
                        "snapshotIndex or specialIndex is not a number; row left out");
        return NULL;
    }
    /* As the profiler's own front end reads it: a row is a snapshot when snapshotIndex is not
     * negative, else one of the special allocations (unused preallocated memory, stack). */
    json_t *list =
        json_object_get(profile, snap >= 0 ? "memoryProfileSnapshots" : "specialAllocations");
    int64_t index = snap >= 0 ? snap : special;
    json_t *item = json_is_array(list) && index >= 0 && (uint64_t)index < json_array_size(list)
                       ? json_array_get(list, (size_t)index)
                       : NULL;
    if (item && snap >= 0) item = json_object_get(item, "activityMetadata");
    if (!json_is_object(item)) {
        *st = tfmem_bad(r, "tfmem.bad-index", w,
                        "snapshotIndex %lld, specialIndex %lld point to no allocation; row left "
                        "out",
                        (long long)snap, (long long)special);
        return NULL;
    }
    return item;
}

/* activeAllocations as a JSON array of resolved rows; NULL when there are none. */
static tconv_status tfmem_peak_table(tfmem_reader *r, const char *allocator, json_t *profile,
                                     char **json)
{
    *json = NULL;
    json_t *rows_in = json_object_get(profile, "activeAllocations");
    tfmem_where w = {allocator, NULL, 0, "activeAllocations"};
    if (!rows_in || json_is_null(rows_in)) return TCONV_OK;
    if (!json_is_array(rows_in))
        return tfmem_peak_bad_type(r, &w, "an array", rows_in) == TCONV_FATAL ? TCONV_FATAL
                                                                              : TCONV_OK;
    json_t *rows = json_array();
    if (!rows) goto oom;
    for (size_t i = 0; i < json_array_size(rows_in); i++) {
        json_t *row = json_array_get(rows_in, i);
        tfmem_where rw = {allocator, "activeAllocations", i, NULL};
        tconv_status st = TCONV_OK;
        json_t *meta = NULL;
        if (!json_is_object(row))
            st = tfmem_peak_bad_type(r, &rw, "an object", row);
        else
            meta = tfmem_peak_target(r, &rw, profile, row, &st);
        if (st == TCONV_FATAL) {
            json_decref(rows);
            return TCONV_FATAL;
        }
        if (!meta) continue;
        json_t *out = json_object();
        if (!out || json_array_append_new(rows, out)) goto oom;
        for (size_t k = 0; k < sizeof(tfmem_peak_text) / sizeof(tfmem_peak_text[0]); k++) {
            json_t *v = json_object_get(meta, tfmem_peak_text[k]);
            /* jansson copies keys and makes numbers on the heap: a failure is out of memory. */
            if (json_is_string(v) && json_object_set(out, tfmem_peak_text[k], v)) goto oom;
        }
        for (size_t k = 0; k < sizeof(tfmem_peak_ints) / sizeof(tfmem_peak_ints[0]); k++) {
            int64_t x;
            if (tfmem_num_int64(json_object_get(meta, tfmem_peak_ints[k]), &x) == TFMEM_NUM_OK &&
                json_object_set_new(out, tfmem_peak_ints[k], json_integer((json_int_t)x)))
                goto oom;
        }
        int64_t times = 1;
        if (tfmem_num_int64(json_object_get(row, "numOccurrences"), &times) == TFMEM_NUM_OK &&
            json_object_set_new(out, "numOccurrences", json_integer((json_int_t)times)))
            goto oom;
    }
    if (json_array_size(rows)) {
        *json = json_dumps(rows, JSON_COMPACT);
        if (!*json) goto oom;
    }
    json_decref(rows);
    return TCONV_OK;
oom:
    json_decref(rows);
    tconv_error_set(r->ctx, "%s: out of memory", r->name);
    return TCONV_FATAL;
}

/* One int64 or double member as an arg; absent members give none. */
static tconv_status tfmem_peak_arg(tfmem_reader *r, const tfmem_where *w, json_t *obj,
                                   const char *field, tconv_str key, int is_double, tconv_arg *args,
                                   uint32_t *n)
{
    char shown[64];
    json_t *v = json_object_get(obj, field);
    tconv_arg *a = &args[*n];
    tfmem_num_status ns = is_double ? tfmem_num_double(v, &a->v.d) : tfmem_num_int64(v, &a->v.i);
    if (ns == TFMEM_NUM_ABSENT) return TCONV_OK;
    if (ns == TFMEM_NUM_BAD) {
        tfmem_where fw = *w;
        fw.member = field;
        return tfmem_bad(r, "tfmem.bad-number", &fw, "%s is not a number; left out",
                         tfmem_num_show(v, shown, sizeof(shown))) == TCONV_FATAL
                   ? TCONV_FATAL
                   : TCONV_OK;
    }
    a->key = key;
    a->type = is_double ? TCONV_ARG_DOUBLE : TCONV_ARG_INT;
    (*n)++;
    return TCONV_OK;
}

tconv_status tfmem_emit_peak(tfmem_reader *r, uint32_t track, const char *allocator,
                             json_t *profile)
{
    char shown[64];
    json_t *sum = json_object_get(profile, "profileSummary");
    tfmem_where w = {allocator, NULL, 0, "profileSummary"};
    if (!sum || json_is_null(sum)) return TCONV_OK;
    if (!json_is_object(sum))
        return tfmem_peak_bad_type(r, &w, "an object", sum) == TCONV_FATAL ? TCONV_FATAL : TCONV_OK;
    json_t *t = json_object_get(sum, "peakStatsTimePs");
    int64_t ps;
    tfmem_num_status ns = tfmem_num_int64(t, &ps);
    /* Without its time the peak has no place on the timeline. */
    if (ns == TFMEM_NUM_ABSENT) return TCONV_OK;
    if (ns == TFMEM_NUM_BAD) {
        w.member = "profileSummary.peakStatsTimePs";
        return tfmem_bad(r, "tfmem.bad-number", &w,
                         "%s is not a count of picoseconds; the peak is left out",
                         tfmem_num_show(t, shown, sizeof(shown))) == TCONV_FATAL
                   ? TCONV_FATAL
                   : TCONV_OK;
    }
    tconv_arg args[TFMEM_NSTATS + 3];
    uint32_t n = 0;
    json_t *peak = json_object_get(sum, "peakStats");
    if (json_is_object(peak)) {
        tfmem_where pw = {allocator, NULL, 0, "profileSummary.peakStats"};
        for (size_t i = 0; i < TFMEM_NSTATS; i++)
            if (tfmem_peak_arg(r, &pw, peak, tfmem_stats[i].field, r->n.stat_key[i],
                               tfmem_stats[i].is_ratio, args, &n) == TCONV_FATAL)
                return TCONV_FATAL;
    } else if (peak && !json_is_null(peak)) {
        w.member = "profileSummary.peakStats";
        if (tfmem_peak_bad_type(r, &w, "an object", peak) == TCONV_FATAL) return TCONV_FATAL;
        w.member = "profileSummary";
    }
    if (tfmem_peak_arg(r, &w, sum, "peakBytesUsageLifetime", r->n.summary_lifetime, 0, args, &n) ==
            TCONV_FATAL ||
        tfmem_peak_arg(r, &w, sum, "memoryCapacity", r->n.summary_capacity, 0, args, &n) ==
            TCONV_FATAL)
        return TCONV_FATAL;
    char *table;
    if (tfmem_peak_table(r, allocator, profile, &table) == TCONV_FATAL) return TCONV_FATAL;
    if (table) {
        args[n].key = r->n.active_allocations;
        args[n].type = TCONV_ARG_JSON;
        args[n].v.s = tconv_string_intern_cstr(r->ctx, table);
        n++;
        free(table);
    }
    tconv_event ev = TCONV_EVENT_INIT;
    ev.kind = TCONV_EV_INSTANT;
    ev.track = track;
    ev.ts = tfmem_ps_to_ns(ps, r->offset_ns);
    ev.name = r->n.peak;
    ev.cat = r->n.memory;
    ev.args = n ? args : NULL;
    ev.nargs = n;
    return tfmem_push(r, &ev);
}
