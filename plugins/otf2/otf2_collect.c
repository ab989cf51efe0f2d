/* Collecting the ordered stream: each event becomes a compact record in the buffer of its
 * location, and the definitions it needs (region, metric, attribute, marker) are created on
 * first use. Bytes per buffered event: 1 tag + the time delta from the previous record of the
 * location (1-3 bytes at the usual µs gaps) + the region index (1-3 bytes), so 4-7 bytes for an
 * Enter or Leave, 12-15 for a counter value (the double is kept whole), and a flow event adds a
 * 24-byte pairing entry (otf2_flow), then 20 bytes while pairing at finish (otf2_link and a
 * sort index). Args add their encoded size when args=true. */
#include <stdlib.h>
#include <inttypes.h>
#include <string.h>

#include "otf2_argtext.h"
#include "otf2_writer.h"

otf2_loc *otf2_collect_loc(otf2_state *st, uint32_t track)
{
    if (track >= st->nlocs_cap) {
        size_t old = st->nlocs_cap;
        OTF2W_GROW(st->locs, st->nlocs_cap, (size_t)track + 1);
        memset(st->locs + old, 0, (st->nlocs_cap - old) * sizeof(*st->locs));
    }
    return &st->locs[track];
}

otf2_input *otf2_collect_input(otf2_state *st, uint32_t input)
{
    if (input >= st->ninputs) {
        OTF2W_GROW(st->inputs, st->inputs_cap, (size_t)input + 1);
        memset(st->inputs + st->ninputs, 0,
               ((size_t)input + 1 - st->ninputs) * sizeof(*st->inputs));
        st->ninputs = (size_t)input + 1;
    }
    return &st->inputs[input];
}

void otf2_state_strings(otf2_state *st)
{
    tconv_ctx *ctx = st->ctx;
    st->s_memory = tconv_string_intern_cstr(ctx, "memory");
    st->s_bytes = tconv_string_intern_cstr(ctx, "bytes");
    st->s_memory_instant = tconv_string_intern_cstr(ctx, "[memory]");
    st->s_flow_name = tconv_string_intern_cstr(ctx, "flow name");
    st->s_flow_cat = tconv_string_intern_cstr(ctx, "flow category");
    st->s_flow_binding = tconv_string_intern_cstr(ctx, "flow binding");
    st->s_next = tconv_string_intern_cstr(ctx, "next");
}

uint32_t otf2_proc(otf2_state *st, const tconv_track *k)
{
    uint32_t p = tconv_map_get(&st->proc_map, k->input, k->pid);
    if (p == UINT32_MAX) {
        p = st->nprocs++;
        tconv_map_set(&st->proc_map, k->input, k->pid, p);
    }
    return p;
}

static void otf2_note_time(otf2_state *st, int64_t ts)
{
    if (!st->have_time) {
        st->min_ts = st->max_ts = ts;
        st->have_time = 1;
    } else if (ts < st->min_ts) {
        st->min_ts = ts;
    } else if (ts > st->max_ts) {
        st->max_ts = ts;
    }
}

/* Start a record on l: tag byte and time delta. OTF2 refuses a time lower than the previous one
 * on the same location; the core's ordering makes that impossible, and should it happen anyway
 * the time is held at the previous one rather than failing the run. */
static void otf2_record_begin(otf2_state *st, otf2_loc *l, uint8_t tag, int64_t ts, size_t more)
{
    if (l->nrec == 0) {
        l->base_ts = l->last_ts = ts;
    } else if (ts < l->last_ts) {
        tconv_warning_add(st->ctx, "otf2.time-order",
                          "an event at %lld ns comes after one at %lld ns on the same track; "
                          "written at the later time",
                          (long long)ts, (long long)l->last_ts);
        ts = l->last_ts;
    }
    otf2_note_time(st, ts);
    otf2_bytes_reserve(&l->buf, 1 + 10 + more);
    otf2_put_u8(&l->buf, tag);
    otf2_put_uv(&l->buf, (uint64_t)ts - (uint64_t)l->last_ts);
    l->last_ts = ts;
    l->nrec++;
}

/* The role is the first span's: spans of one (name, category) share it. */
static uint32_t otf2_region_get(otf2_state *st, tconv_str name, tconv_str cat, unsigned role)
{
    uint32_t r = tconv_map_get(&st->region_map, name, cat);
    if (r != UINT32_MAX) return r;
    OTF2W_GROW(st->regions, st->regions_cap, st->nregions + 1);
    r = (uint32_t)st->nregions++;
    st->regions[r].name = name;
    st->regions[r].cat = cat;
    st->regions[r].role = role;
    st->regions[r].input = st->cur_input;
    tconv_map_set(&st->region_map, name, cat, r);
    return r;
}

static OTF2_Type otf2_arg_otf2_type(uint32_t type)
{
    switch (type) {
    case TCONV_ARG_BOOL:
        return OTF2_TYPE_UINT8;
    case TCONV_ARG_INT:
        return OTF2_TYPE_INT64;
    case TCONV_ARG_UINT:
        return OTF2_TYPE_UINT64;
    case TCONV_ARG_DOUBLE:
        return OTF2_TYPE_DOUBLE;
    default:
        return OTF2_TYPE_STRING;
    }
}

static uint32_t otf2_attr_get(otf2_state *st, tconv_str key, OTF2_Type type)
{
    if (key < st->attr_last_cap && st->attr_last[key] &&
        st->attrs[st->attr_last[key] - 1].type == type)
        return st->attr_last[key] - 1;
    uint32_t a = tconv_map_get(&st->attr_map, key, type);
    if (a == UINT32_MAX) {
        OTF2W_GROW(st->attrs, st->attrs_cap, st->nattrs + 1);
        a = (uint32_t)st->nattrs++;
        st->attrs[a].key = key;
        st->attrs[a].type = type;
        st->attrs[a].input = st->cur_input;
        tconv_map_set(&st->attr_map, key, type, a);
    }
    if (key >= st->attr_last_cap) {
        size_t old = st->attr_last_cap;
        OTF2W_GROW(st->attr_last, st->attr_last_cap, (size_t)key + 1);
        memset(st->attr_last + old, 0, (st->attr_last_cap - old) * sizeof(*st->attr_last));
    }
    st->attr_last[key] = a + 1;
    return a;
}

/* Whether a later arg has the same key and type: an attribute list holds each attribute once,
 * and as in Chrome (where an end event's args override its begin's) the last one wins. */
static int otf2_arg_overridden(const tconv_arg *args, uint32_t n, uint32_t i)
{
    OTF2_Type type = otf2_arg_otf2_type(args[i].type);
    for (uint32_t j = i + 1; j < n; j++)
        if (args[j].key == args[i].key && otf2_arg_otf2_type(args[j].type) == type) return 1;
    return 0;
}

/* An event record must fit in one event chunk (256 KiB), at up to 15 bytes an attribute; libotf2
 * fails a larger one ("Chunk handling failed") and the run with it. Far past what a trace
 * carries, and small enough that the pairwise check of keys below stays cheap. */
enum { OTF2W_MAX_ARGS = 4096 };

/* Args as an attribute list: count, then (attribute, value) pairs typed by the attribute; the
 * nextra string attributes (keys[i], texts[i]) first. */
static void otf2_put_attrs(otf2_state *st, otf2_bytes *b, const tconv_str *keys,
                           const tconv_str *texts, uint32_t nextra, const tconv_arg *args,
                           uint32_t n)
{
    if (n > OTF2W_MAX_ARGS) {
        tconv_warning_add(st->ctx, "otf2.args-limit",
                          "an event has %" PRIu32 " args; an OTF2 event holds at most %d "
                          "attributes, so the first %d are written",
                          n, OTF2W_MAX_ARGS, OTF2W_MAX_ARGS);
        n = OTF2W_MAX_ARGS;
    }
    uint32_t kept = nextra;
    for (uint32_t i = 0; i < n; i++)
        kept += !otf2_arg_overridden(args, n, i);
    otf2_bytes_reserve(b, 10 + ((size_t)n + nextra) * 20);
    otf2_put_uv(b, kept);
    for (uint32_t i = 0; i < nextra; i++) {
        otf2_put_uv(b, otf2_attr_get(st, keys[i], OTF2_TYPE_STRING));
        otf2_put_uv(b, otf2_strref(st, texts[i]));
    }
    for (uint32_t i = 0; i < n; i++) {
        const tconv_arg *a = &args[i];
        if (otf2_arg_overridden(args, n, i)) continue;
        OTF2_Type type = otf2_arg_otf2_type(a->type);
        otf2_put_uv(b, otf2_attr_get(st, a->key, type));
        switch (a->type) {
        case TCONV_ARG_BOOL:
            otf2_put_u8(b, a->v.i != 0);
            break;
        case TCONV_ARG_INT:
            otf2_put_sv(b, a->v.i);
            break;
        case TCONV_ARG_UINT:
            otf2_put_uv(b, a->v.u);
            break;
        case TCONV_ARG_DOUBLE:
            otf2_put_f64(b, a->v.d);
            break;
        case TCONV_ARG_STRING:
        case TCONV_ARG_JSON:
            otf2_put_uv(b, otf2_strref(st, a->v.s));
            break;
        default:
            otf2_put_uv(b, otf2_strref(st, st->str_null));
        }
    }
}

static void otf2_put_args(otf2_state *st, otf2_bytes *b, const tconv_arg *args, uint32_t n)
{
    otf2_put_attrs(st, b, NULL, NULL, 0, args, n);
}

static int otf2_want_args(const otf2_state *st, const tconv_event *ev)
{
    return st->opt_args && ev->nargs > 0;
}

static tconv_status otf2_on_begin(otf2_state *st, const tconv_event *ev)
{
    otf2_loc *l = otf2_collect_loc(st, ev->track);
    uint32_t region = otf2_region_get(st, ev->name, ev->cat, ev->role);
    int attrs = otf2_want_args(st, ev);
    otf2_record_begin(st, l, OTF2W_REC_ENTER | (attrs ? OTF2W_REC_ATTRS : 0), ev->ts, 5);
    otf2_put_uv(&l->buf, region);
    if (attrs) otf2_put_args(st, &l->buf, ev->args, ev->nargs);
    OTF2W_GROW(l->stack, l->stack_cap, (size_t)l->depth + 1);
    l->stack[l->depth++] = region;
    l->flags |=
        OTF2W_LOCF_SPANS | (tconv_role_is_gpu(st->regions[region].role) ? OTF2W_LOCF_GPU_SPANS : 0);
    return TCONV_OK;
}

static tconv_status otf2_on_end(otf2_state *st, const tconv_event *ev)
{
    otf2_loc *l = otf2_collect_loc(st, ev->track);
    if (!l->depth) {
        tconv_warning_add(st->ctx, "otf2.end-without-begin",
                          "an end event at %lld ns on track %u closes no span; dropped",
                          (long long)ev->ts, ev->track);
        return TCONV_OK;
    }
    otf2_record_begin(st, l, OTF2W_REC_LEAVE, ev->ts, 5);
    otf2_put_uv(&l->buf, l->stack[--l->depth]);
    return TCONV_OK;
}

void otf2_collect_close_open(otf2_state *st)
{
    for (size_t t = 0; t < st->nlocs_cap; t++) {
        otf2_loc *l = &st->locs[t];
        while (l->depth) {
            tconv_warning_add(st->ctx, "otf2.unclosed-span",
                              "a span on track %zu is still open at the end; closed at the "
                              "track's last time",
                              t);
            otf2_record_begin(st, l, OTF2W_REC_LEAVE, l->last_ts, 5);
            otf2_put_uv(&l->buf, l->stack[--l->depth]);
        }
        free(l->stack);
        l->stack = NULL;
        l->stack_cap = 0;
    }
}

static tconv_status otf2_on_counter(otf2_state *st, const tconv_event *ev)
{
    otf2_loc *l = otf2_collect_loc(st, ev->track);
    uint32_t s = tconv_map_get(&st->series_map, ((uint64_t)ev->key << 32) | ev->unit, ev->name);
    if (s == UINT32_MAX) {
        OTF2W_GROW(st->series, st->series_cap, st->nseries + 1);
        s = (uint32_t)st->nseries++;
        st->series[s] = (otf2_series){ev->name, ev->key, ev->unit, st->cur_input, 0};
        tconv_map_set(&st->series_map, ((uint64_t)ev->key << 32) | ev->unit, ev->name, s);
    }
    uint32_t inst = tconv_map_get(&st->instance_map, s, ev->track);
    if (inst == UINT32_MAX) {
        OTF2W_GROW(st->instances, st->instances_cap, st->ninstances + 1);
        inst = (uint32_t)st->ninstances++;
        st->instances[inst] = (otf2_instance){s, ev->track};
        tconv_map_set(&st->instance_map, s, ev->track, inst);
    }
    /* Whole numbers within int64 (bytes, counts) keep an integer type; -2^63 <= v < 2^63. */
    if (!(ev->value == ev->value && ev->value >= -9223372036854775808.0 &&
          ev->value < 9223372036854775808.0 && ev->value == (double)(int64_t)ev->value))
        st->series[s].fraction = 1;
    if (ev->cat == st->s_memory && ev->unit == st->s_bytes) {
        const tconv_track *k = tconv_track_describe(st->ctx, ev->track);
        if (k) tconv_map_set(&st->memts_map, (uint64_t)ev->ts, otf2_proc(st, k), 1);
    }
    otf2_record_begin(st, l, OTF2W_REC_METRIC, ev->ts, 5 + 8);
    otf2_put_uv(&l->buf, inst);
    otf2_put_f64(&l->buf, ev->value);
    l->flags |= OTF2W_LOCF_METRICS;
    return TCONV_OK;
}

static tconv_status otf2_on_flow(otf2_state *st, const tconv_event *ev)
{
    if (st->opt_flows == OTF2W_FLOWS_NONE) return TCONV_OK;
    otf2_loc *l = otf2_collect_loc(st, ev->track);
    if (st->nflows >= UINT32_MAX - 1) {
        tconv_warning_add(st->ctx, "otf2.too-many-flows",
                          "more than 2^32 flow events; the rest are not written");
        return TCONV_OK;
    }
    uint64_t clskey = ((uint64_t)ev->input << 32) | ev->cat;
    uint32_t cls = tconv_map_get(&st->flow_class_map, clskey, ev->name);
    if (cls == UINT32_MAX) {
        if (st->nflow_classes >= (1u << 30)) {
            tconv_warning_add(st->ctx, "otf2.too-many-flows",
                              "more than 2^30 kinds of flows; the rest are not written");
            return TCONV_OK;
        }
        cls = st->nflow_classes++;
        tconv_map_set(&st->flow_class_map, clskey, ev->name, cls);
    }
    uint32_t phase = ev->kind == TCONV_EV_FLOW_START  ? OTF2W_FLOW_START
                     : ev->kind == TCONV_EV_FLOW_STEP ? OTF2W_FLOW_STEP
                                                      : OTF2W_FLOW_END;
    /* A Parameter record names its flow (name, category, and a binding to the next slice
     * rather than the enclosing one) in attributes; a message has no room for them. */
    int params = st->opt_flows == OTF2W_FLOWS_PARAMETERS;
    int attrs = params || otf2_want_args(st, ev);
    otf2_record_begin(st, l, OTF2W_REC_FLOW | (attrs ? OTF2W_REC_ATTRS : 0), ev->ts, 5);
    OTF2W_GROW(st->flows, st->flows_cap, st->nflows + 1);
    otf2_flow *f = &st->flows[st->nflows];
    /* The record's time, which otf2_record_begin may have held at the previous one. */
    *f = (otf2_flow){ev->id, l->last_ts, cls << 2 | phase, ev->track};
    otf2_put_uv(&l->buf, st->nflows++);
    if (params) {
        tconv_str keys[3], texts[3];
        uint32_t nextra = 0;
        if (ev->name) keys[nextra] = st->s_flow_name, texts[nextra++] = ev->name;
        if (ev->cat) keys[nextra] = st->s_flow_cat, texts[nextra++] = ev->cat;
        if (!(ev->flags & TCONV_EVF_BIND_ENCLOSING))
            keys[nextra] = st->s_flow_binding, texts[nextra++] = st->s_next;
        otf2_put_attrs(st, &l->buf, keys, texts, nextra, ev->args,
                       otf2_want_args(st, ev) ? ev->nargs : 0);
    } else if (attrs) {
        otf2_put_args(st, &l->buf, ev->args, ev->nargs);
    }
    l->flags |= OTF2W_LOCF_FLOWS;
    return TCONV_OK;
}

/* Marker records: scope, track, definition, time, text. */
static tconv_status otf2_on_instant(otf2_state *st, const tconv_event *ev)
{
    uint32_t def = tconv_map_get(&st->markdef_map, ev->name, ev->cat);
    if (def == UINT32_MAX) {
        OTF2W_GROW(st->markdefs, st->markdefs_cap, st->nmarkdefs + 1);
        def = (uint32_t)st->nmarkdefs++;
        st->markdefs[def] = (otf2_markdef){ev->name, ev->cat, st->cur_input};
        tconv_map_set(&st->markdef_map, ev->name, ev->cat, def);
    }
    OTF2_MarkerScope scope = OTF2_MARKER_SCOPE_LOCATION;
    otf2_loc *l = otf2_collect_loc(st, ev->track);
    if (ev->flags & TCONV_EVF_SCOPE_GLOBAL) {
        scope = OTF2_MARKER_SCOPE_GLOBAL;
        l->flags |= OTF2W_LOCF_GLOBAL_MARKERS;
    } else if (ev->flags & TCONV_EVF_SCOPE_PROCESS) {
        scope = OTF2_MARKER_SCOPE_LOCATION_GROUP;
        l->flags |= OTF2W_LOCF_GROUP_MARKERS;
    } else {
        l->flags |= OTF2W_LOCF_MARKERS;
    }
    otf2_note_time(st, ev->ts);
    otf2_bytes *m = &st->markers;
    otf2_bytes_reserve(m, 1 + 5 + 5 + 10 + 10);
    otf2_put_u8(m, (uint8_t)scope);
    otf2_put_uv(m, ev->track);
    otf2_put_uv(m, def);
    otf2_put_sv(m, ev->ts);
    if (otf2_want_args(st, ev)) {
        otf2_bytes text = {0};
        otf2_argtext(st->ctx, ev->args, ev->nargs, &text);
        otf2_bytes_reserve(m, 10 + text.len);
        otf2_put_uv(m, text.len);
        otf2_put_raw(m, text.p, text.len);
        otf2_bytes_free(&text);
    } else {
        otf2_put_uv(m, 0);
    }
    st->nmarkers++;
    return TCONV_OK;
}

tconv_status otf2_collect_event(otf2_state *st, const tconv_event *ev)
{
    const tconv_track *k = tconv_track_describe(st->ctx, ev->track);
    st->cur_input = k ? k->input : ev->input;
    switch (ev->kind) {
    case TCONV_EV_BEGIN:
        return otf2_on_begin(st, ev);
    case TCONV_EV_END:
        return otf2_on_end(st, ev);
    case TCONV_EV_COUNTER:
        return otf2_on_counter(st, ev);
    case TCONV_EV_FLOW_START:
    case TCONV_EV_FLOW_STEP:
    case TCONV_EV_FLOW_END:
        return otf2_on_flow(st, ev);
    case TCONV_EV_INSTANT:
        return otf2_on_instant(st, ev);
    case TCONV_EV_METADATA:
        return otf2_meta_event(st, ev);
    default:
        /* The ordering stage turns COMPLETE into BEGIN/END; anything else is not taken. */
        tconv_warning_add(st->ctx, "otf2.unexpected-kind",
                          "a %s event reached the writer and was not written",
                          tconv_event_kind_name(ev->kind));
        return TCONV_OK;
    }
}
