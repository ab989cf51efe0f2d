/* One thread: its track, its samples with their stacks, then its markers. A sample's stack is
 * an index into the stack table, whose rows are (prefix, frame): the chain of prefixes is the
 * stack from the leaf up, so it is walked and reversed. The Firefox Profiler's tables give
 * every prefix a smaller index than its row; the reader insists on it, which also rules out
 * cycles. Times are milliseconds (doubles) from the profile's start; the processed format from
 * version 50 may give the differences of successive times instead (timeDeltas). */
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "firefox_reader.h"

json_t *firefox_thread_table(const firefox_reader *r, const firefox_thread *th, const char *name)
{
    json_t *t = json_object_get(th->obj, name);
    return t ? t : json_object_get(r->shared, name);
}

tconv_str firefox_string(firefox_reader *r, const firefox_thread *th, int64_t idx)
{
    json_t *table = th->strings ? th->strings : r->shared_strings;
    json_t *s = idx >= 0 ? json_array_get(table, (size_t)idx) : NULL;
    return json_is_string(s)
               ? tconv_string_intern(r->ctx, json_string_value(s), json_string_length(s))
               : 0;
}

/* A pid or tid, a number or a string in the file, as text. */
static tconv_str firefox_thread_id(firefox_reader *r, json_t *v, size_t fallback)
{
    char buf[32];
    if (json_is_string(v))
        return tconv_string_intern(r->ctx, json_string_value(v), json_string_length(v));
    if (json_is_integer(v))
        snprintf(buf, sizeof buf, "%" JSON_INTEGER_FORMAT, json_integer_value(v));
    else if (json_is_real(v))
        snprintf(buf, sizeof buf, "%.0f", json_real_value(v));
    else if (fallback != SIZE_MAX)
        snprintf(buf, sizeof buf, "%zu", fallback);
    else
        return r->s_empty;
    return tconv_string_intern_cstr(r->ctx, buf);
}

static tconv_status firefox_thread_meta(firefox_reader *r, uint32_t track, tconv_str what,
                                        tconv_str text)
{
    tconv_event ev = TCONV_EVENT_INIT;
    ev.kind = TCONV_EV_METADATA;
    ev.track = track;
    ev.name = what;
    ev.text = text;
    return tconv_sink_push(r->sink, &ev) == TCONV_FATAL ? TCONV_FATAL : TCONV_OK;
}

static int firefox_thread_stacks(firefox_reader *r, const firefox_thread *th)
{
    firefox_table st;
    firefox_table_open(firefox_thread_table(r, th, "stackTable"), &st);
    firefox_col prefix = firefox_table_col(&st, "prefix"), frame = firefox_table_col(&st, "frame");
    r->nstacks = st.length;
    if (st.length > INT32_MAX) {
        tconv_error_set(r->ctx, "%s: thread %zu has more than 2^31 stacks", r->name, th->index);
        return -1;
    }
    size_t cap = r->stacks_cap;
    TCONV_ARRAY_GROW(r->prefix, cap, st.length ? st.length : 1);
    TCONV_ARRAY_GROW(r->stack_frame, r->stacks_cap, st.length ? st.length : 1);
    for (size_t i = 0; i < st.length; i++) {
        int64_t p = firefox_cell_index(&prefix, i), f = firefox_cell_index(&frame, i);
        if (p < -1 || (p >= 0 && (size_t)p >= i) || f < 0 || (size_t)f >= r->nframes) {
            tconv_error_set(r->ctx,
                            "%s: thread %zu: stack %zu has prefix %" PRId64 " and frame %" PRId64
                            "; a prefix must be an earlier stack and a frame one of the %zu",
                            r->name, th->index, i, p, f, r->nframes);
            return -1;
        }
        r->prefix[i] = (int32_t)p;
        r->stack_frame[i] = (int32_t)f;
    }
    return 0;
}

/* The frames of stack s, root first, in r->stack; their count. */
static size_t firefox_thread_stack(firefox_reader *r, int64_t s)
{
    size_t n = 0;
    for (int64_t k = s; k >= 0; k = r->prefix[k]) {
        TCONV_ARRAY_GROW(r->stack, r->stack_cap, n + 1);
        r->stack[n++] = r->frames[r->stack_frame[k]];
    }
    for (size_t i = 0; i < n / 2; i++) {
        tconv_frame t = r->stack[i];
        r->stack[i] = r->stack[n - 1 - i];
        r->stack[n - 1 - i] = t;
    }
    return n;
}

static int64_t firefox_thread_ns(double ms)
{
    double ns = ms * 1e6;
    return fabs(ns) < 4.6e18 ? llround(ns) : 0;
}

static tconv_status firefox_thread_samples(firefox_reader *r, const firefox_thread *th,
                                           uint32_t track)
{
    json_t *obj = json_object_get(th->obj, "samples");
    firefox_table t;
    firefox_table_open(obj, &t);
    firefox_col stack = firefox_table_col(&t, "stack"), time = firefox_table_col(&t, "time"),
                deltas = firefox_table_col(&t, "timeDeltas"),
                weight = firefox_table_col(&t, "weight"),
                cpu = firefox_table_col(&t, "threadCPUDelta");
    json_t *wt = json_object_get(obj, "weightType");
    const char *type = json_is_string(wt) ? json_string_value(wt) : "samples";
    int tracing = strcmp(type, "tracing-ms") == 0, bytes = strcmp(type, "bytes") == 0;
    double at = 0;
    int64_t values[4];
    for (size_t i = 0; i < t.length; i++) {
        double d;
        if (deltas.present) {
            if (firefox_cell_number(&deltas, i, &d)) at += d;
        } else if (firefox_cell_number(&time, i, &d)) {
            at = d;
        }
        int64_t s = firefox_cell_index(&stack, i);
        if (s == -1) {
            r->no_stack++;
            continue;
        }
        if (s < 0 || (size_t)s >= r->nstacks) {
            tconv_error_set(r->ctx,
                            "%s: thread %zu: sample %zu names stack %" PRId64
                            ", which the stack table (%zu) does not have",
                            r->name, th->index, i, s, r->nstacks);
            return TCONV_FATAL;
        }
        double w = 1;
        if (weight.present && !firefox_cell_number(&weight, i, &w)) w = 1;
        memset(values, 0, sizeof values);
        values[r->v_samples] = tracing || bytes ? 1 : llround(w);
        if (tracing) values[r->v_time] = firefox_thread_ns(w);
        if (bytes) values[r->v_bytes] = llround(w);
        if (r->v_cpu >= 0 && firefox_cell_number(&cpu, i, &d) && d > 0)
            values[r->v_cpu] = llround(d * r->cpu_scale);
        size_t n = firefox_thread_stack(r, s);
        tconv_event ev = TCONV_EVENT_INIT;
        ev.kind = TCONV_EV_SAMPLE;
        ev.track = track;
        ev.ts = firefox_thread_ns(at) + th->offset_ns;
        ev.frames = r->stack;
        ev.nframes = (uint32_t)n;
        ev.values = values;
        ev.nvalues = (uint32_t)r->nvalues;
        if (tconv_sink_push(r->sink, &ev) == TCONV_FATAL) return TCONV_FATAL;
    }
    return TCONV_OK;
}

tconv_status firefox_thread_read(firefox_reader *r, const firefox_thread *th)
{
    json_t *o = th->obj;
    tconv_str pid = firefox_thread_id(r, json_object_get(o, "pid"), SIZE_MAX);
    tconv_str tid = firefox_thread_id(r, json_object_get(o, "tid"), th->index);
    uint32_t track = tconv_track_get(r->ctx, pid, tid);
    json_t *name = json_object_get(o, "name"), *proc = json_object_get(o, "processName");
    if (json_is_string(proc) && json_string_length(proc) &&
        firefox_thread_meta(r, track, r->s_process_name,
                            tconv_string_intern_cstr(r->ctx, json_string_value(proc))) != TCONV_OK)
        return TCONV_FATAL;
    if (json_is_string(name) && json_string_length(name) &&
        firefox_thread_meta(r, track, r->s_thread_name,
                            tconv_string_intern_cstr(r->ctx, json_string_value(name))) != TCONV_OK)
        return TCONV_FATAL;
    if (firefox_frames_build(r, th) != 0 || firefox_thread_stacks(r, th) != 0) return TCONV_FATAL;
    if (firefox_thread_samples(r, th, track) != TCONV_OK) return TCONV_FATAL;
    return firefox_markers_read(r, th, pid, tid);
}
