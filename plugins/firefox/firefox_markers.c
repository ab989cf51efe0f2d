/* A thread's markers. Since Gecko version 14 and in the processed format, a marker has a phase:
 * 0 an instant at startTime, 1 an interval [startTime, endTime], 2 the start and 3 the end of
 * an interval given in two markers. Older Gecko markers have one time, and their data says
 * {"interval": "start"} or "end" (tracing markers) or carries startTime and endTime itself.
 * Intervals become spans, instants instants. Markers of one thread may overlap, which a
 * thread's calls may not: they go on tracks of their own, one per thread and marker name (tid
 * "<tid>/<name>", named "<thread>: <name>"), as async spans that are no work of the thread, so
 * that profile writers leave them out and trace writers draw them. The data object becomes the
 * args (its "stack", a whole profile in old Gecko markers, left out). */
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <tconv/map.h>

#include "firefox_reader.h"

enum { FIREFOX_INSTANT, FIREFOX_INTERVAL, FIREFOX_START, FIREFOX_END };

typedef struct firefox_mtracks {
    tconv_map ix; /* marker name -> track */
    tconv_str pid, tid, thread;
} firefox_mtracks;

static uint32_t firefox_markers_track(firefox_reader *r, firefox_mtracks *m, tconv_str name,
                                      tconv_status *st)
{
    uint32_t t = tconv_map_get(&m->ix, name, 0);
    if (t != TCONV_MAP_NONE) return t;
    char buf[1024];
    snprintf(buf, sizeof buf, "%s/%s", tconv_string_get(r->ctx, m->tid),
             tconv_string_get(r->ctx, name));
    t = tconv_track_get(r->ctx, m->pid, tconv_string_intern_cstr(r->ctx, buf));
    tconv_track_set_kind(r->ctx, t, TCONV_TRACK_ASYNC);
    tconv_map_put(&m->ix, name, 0, t);
    snprintf(buf, sizeof buf, "%s: %s", m->thread ? tconv_string_get(r->ctx, m->thread) : "markers",
             tconv_string_get(r->ctx, name));
    tconv_event ev = TCONV_EVENT_INIT;
    ev.kind = TCONV_EV_METADATA;
    ev.track = t;
    ev.name = r->s_thread_name;
    ev.text = tconv_string_intern_cstr(r->ctx, buf);
    if (tconv_sink_push(r->sink, &ev) == TCONV_FATAL) *st = TCONV_FATAL;
    return t;
}

/* The data object's members as args, in r->args. */
static uint32_t firefox_markers_args(firefox_reader *r, json_t *data)
{
    if (!r->want_args || !json_is_object(data)) return 0;
    uint32_t n = 0;
    const char *key;
    json_t *v;
    json_object_foreach(data, key, v)
    {
        if (strcmp(key, "stack") == 0 || json_is_null(v)) continue;
        TCONV_ARRAY_GROW(r->args, r->args_cap, (size_t)n + 1);
        tconv_arg *a = &r->args[n++];
        a->key = tconv_string_intern_cstr(r->ctx, key);
        if (json_is_string(v)) {
            a->type = TCONV_ARG_STRING;
            a->v.s = tconv_string_intern(r->ctx, json_string_value(v), json_string_length(v));
        } else if (json_is_integer(v)) {
            a->type = TCONV_ARG_INT;
            a->v.i = json_integer_value(v);
        } else if (json_is_real(v)) {
            a->type = TCONV_ARG_DOUBLE;
            a->v.d = json_real_value(v);
        } else if (json_is_boolean(v)) {
            a->type = TCONV_ARG_BOOL;
            a->v.i = json_is_true(v);
        } else {
            char *text = json_dumps(v, JSON_COMPACT | JSON_ENCODE_ANY);
            a->type = TCONV_ARG_JSON;
            a->v.s = tconv_string_intern_cstr(r->ctx, text ? text : "null");
            free(text);
        }
    }
    return n;
}

static int64_t firefox_markers_ns(double ms)
{
    double ns = ms * 1e6;
    return fabs(ns) < 4.6e18 ? llround(ns) : 0;
}

tconv_status firefox_markers_read(firefox_reader *r, const firefox_thread *th, tconv_str pid,
                                  tconv_str tid)
{
    firefox_table t;
    firefox_table_open(json_object_get(th->obj, "markers"), &t);
    firefox_col c_name = firefox_table_col(&t, "name"),
                c_start = firefox_table_col(&t, "startTime"),
                c_end = firefox_table_col(&t, "endTime"), c_phase = firefox_table_col(&t, "phase"),
                c_time = firefox_table_col(&t, "time"), c_cat = firefox_table_col(&t, "category"),
                c_data = firefox_table_col(&t, "data");
    firefox_mtracks m = {.pid = pid, .tid = tid};
    json_t *tn = json_object_get(th->obj, "name");
    m.thread = json_is_string(tn) ? tconv_string_intern_cstr(r->ctx, json_string_value(tn)) : 0;
    tconv_status st = TCONV_OK;
    for (size_t i = 0; i < t.length && st == TCONV_OK; i++) {
        tconv_str name = firefox_string(r, th, firefox_cell_index(&c_name, i));
        if (!name) name = tconv_string_intern_cstr(r->ctx, "(unnamed marker)");
        json_t *data = firefox_cell(&c_data, i);
        double start = 0, end = 0;
        int phase;
        if (c_phase.present || !c_time.present) {
            double ph = 0;
            firefox_cell_number(&c_phase, i, &ph);
            phase = (int)ph;
            int hs = firefox_cell_number(&c_start, i, &start);
            int he = firefox_cell_number(&c_end, i, &end);
            if (phase == FIREFOX_END && !he) end = start;
            if (phase == FIREFOX_INTERVAL && (!hs || !he)) phase = hs ? FIREFOX_START : FIREFOX_END;
            if (phase < FIREFOX_INSTANT || phase > FIREFOX_END) phase = FIREFOX_INSTANT;
        } else {
            firefox_cell_number(&c_time, i, &start);
            json_t *iv = json_object_get(data, "interval");
            json_t *ds = json_object_get(data, "startTime"), *de = json_object_get(data, "endTime");
            phase = FIREFOX_INSTANT;
            if (json_is_string(iv) && strcmp(json_string_value(iv), "start") == 0) {
                phase = FIREFOX_START;
            } else if (json_is_string(iv) && strcmp(json_string_value(iv), "end") == 0) {
                phase = FIREFOX_END;
                end = start;
            } else if (json_is_number(ds) && json_is_number(de)) {
                phase = FIREFOX_INTERVAL;
                start = json_number_value(ds);
                end = json_number_value(de);
            }
        }
        if (!isfinite(start) || !isfinite(end)) continue;
        tconv_event ev = TCONV_EVENT_INIT;
        ev.track = firefox_markers_track(r, &m, name, &st);
        ev.name = name;
        ev.flags = TCONV_EVF_ASYNC;
        ev.role = TCONV_ROLE_MARKER;
        int64_t cat = firefox_cell_index(&c_cat, i);
        json_t *cn = cat >= 0 ? json_object_get(json_array_get(th->categories, (size_t)cat), "name")
                              : json_object_get(data, "category");
        if (json_is_string(cn)) ev.cat = tconv_string_intern_cstr(r->ctx, json_string_value(cn));
        switch (phase) {
        case FIREFOX_INSTANT:
            ev.kind = TCONV_EV_INSTANT;
            ev.ts = firefox_markers_ns(start);
            break;
        case FIREFOX_INTERVAL:
            ev.kind = TCONV_EV_COMPLETE;
            ev.ts = firefox_markers_ns(start);
            ev.dur = firefox_markers_ns(end) - ev.ts;
            if (ev.dur < 0) ev.dur = 0;
            break;
        case FIREFOX_START:
            ev.kind = TCONV_EV_BEGIN;
            ev.ts = firefox_markers_ns(start);
            break;
        default:
            ev.kind = TCONV_EV_END;
            ev.ts = firefox_markers_ns(end);
            break;
        }
        ev.ts += th->offset_ns;
        if (ev.kind != TCONV_EV_END) {
            ev.nargs = firefox_markers_args(r, data);
            ev.args = ev.nargs ? r->args : NULL;
        }
        if (st == TCONV_OK && tconv_sink_push(r->sink, &ev) == TCONV_FATAL) st = TCONV_FATAL;
    }
    tconv_map_free(&m.ix);
    return st;
}
