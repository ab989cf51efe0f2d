/* The events table: one row per event, spans as one row each with duration, self time and
 * depth. Rows come track by track in time order (spans by start); the rows inside an outermost
 * span wait until it ends, since only then are its and its children's durations known. */
#include <stdlib.h>
#include <string.h>

#include "csv_field.h"
#include "csv_json.h"
#include "csv_writer.h"

static const char *const csv_events_columns[] = {
    "kind",    "pid",   "tid",  "process",  "thread", "ts_ns", "dur_ns",
    "self_ns", "depth", "name", "category", "args",   NULL};

tconv_status csv_events_header(csv_writer *w)
{
    w->track_cached = UINT32_MAX;
    csv_header(&w->row, csv_events_columns, w->eol);
    return csv_buf_flush(&w->row, w->out);
}

void csv_track_fields(csv_writer *w, uint32_t track, csv_buf *out)
{
    if (track != w->track_cached) {
        csv_buf *b = &w->track_fields;
        b->len = 0;
        const tconv_track *t = tconv_track_describe(w->ctx, track);
        if (t) {
            csv_field_str(b, w->ctx, t->pid);
            csv_buf_putc(b, ',');
            csv_field_str(b, w->ctx, t->tid);
            csv_buf_putc(b, ',');
            csv_field_str(b, w->ctx, t->process_name);
            csv_buf_putc(b, ',');
            csv_field_str(b, w->ctx, t->thread_name);
        } else {
            csv_buf_cstr(b, ",,,");
        }
        w->track_cached = track;
    }
    csv_buf_put(out, w->track_fields.p, w->track_fields.len);
}

/* The args column's JSON: the kind's own fields first, then the event's args. */
static void csv_events_args(csv_writer *w, const tconv_event *ev, csv_buf *out)
{
    csv_json j;
    csv_json_open(&j, out, w->ctx);
    switch (ev->kind) {
    case TCONV_EV_COUNTER:
        csv_json_key(&j, "series");
        csv_json_str(&j, ev->key);
        csv_json_key(&j, "value");
        {
            size_t before = out->len;
            csv_buf_double(out, ev->value);
            if (out->len == before) csv_buf_cstr(out, "null");
        }
        if (ev->unit) {
            csv_json_key(&j, "unit");
            csv_json_str(&j, ev->unit);
        }
        break;
    case TCONV_EV_FLOW_START:
    case TCONV_EV_FLOW_STEP:
    case TCONV_EV_FLOW_END: {
        /* The producer's own id, when the reader kept it as an arg (Chrome's "id"), is the
         * one users join on; the model's id is then left out rather than written twice. */
        int own = 0;
        for (uint32_t i = 0; i < ev->nargs && !own; i++)
            own = strcmp(tconv_string_get(w->ctx, ev->args[i].key), "id") == 0;
        if (!own) {
            csv_json_key(&j, "id");
            csv_buf_u64(out, ev->id);
        }
        break;
    }
    case TCONV_EV_METADATA:
        csv_json_key(&j, "value");
        csv_json_str(&j, ev->text);
        if (ev->key) {
            csv_json_key(&j, "key");
            csv_json_str(&j, ev->key);
        }
        break;
    case TCONV_EV_SAMPLE: {
        csv_buf *s = &w->scratch;
        s->len = 0;
        for (uint32_t i = 0; i < ev->nframes; i++) {
            if (i) csv_buf_putc(s, ';');
            tconv_str f = ev->frames[i].name;
            csv_buf_put(s, tconv_string_get(w->ctx, f), tconv_string_length(w->ctx, f));
        }
        csv_json_key(&j, "stack");
        csv_json_string(out, s->p ? s->p : "", s->len);
        csv_json_key(&j, "values");
        csv_buf_putc(out, '[');
        for (uint32_t i = 0; i < ev->nvalues; i++) {
            if (i) csv_buf_putc(out, ',');
            csv_buf_i64(out, ev->values[i]);
        }
        csv_buf_putc(out, ']');
        break;
    }
    default:
        break;
    }
    csv_json_args(&j, ev->args, ev->nargs);
    csv_json_close(&j);
}

static void csv_events_row(csv_writer *w, const csv_pending *p, const char *args, size_t args_len)
{
    csv_buf *b = &w->row;
    int span = p->kind == TCONV_EV_BEGIN;
    csv_buf_cstr(b, span ? "span" : tconv_event_kind_name(p->kind));
    csv_buf_putc(b, ',');
    csv_track_fields(w, p->track, b);
    csv_buf_putc(b, ',');
    csv_buf_i64(b, p->ts);
    csv_buf_putc(b, ',');
    if (span) csv_buf_i64(b, p->dur);
    csv_buf_putc(b, ',');
    if (span) csv_buf_i64(b, p->self);
    csv_buf_putc(b, ',');
    if (p->kind != TCONV_EV_METADATA) csv_buf_u64(b, p->depth);
    csv_buf_putc(b, ',');
    csv_field_str(b, w->ctx, p->name);
    csv_buf_putc(b, ',');
    csv_field_str(b, w->ctx, p->cat);
    csv_buf_putc(b, ',');
    csv_field(b, args, args_len);
    csv_buf_cstr(b, w->eol);
}

static tconv_status csv_events_flush(csv_writer *w)
{
    for (size_t i = 0; i < w->npending; i++) {
        const csv_pending *p = &w->pending[i];
        csv_events_row(w, p, w->pending_args.p + p->args_at, p->args_len);
        if (w->row.len >= 1u << 16 && csv_buf_flush(&w->row, w->out) != TCONV_OK)
            return TCONV_FATAL;
    }
    w->npending = 0;
    w->pending_args.len = 0;
    return csv_buf_flush(&w->row, w->out);
}

static csv_pending *csv_events_push(csv_writer *w, const tconv_event *ev, uint16_t kind,
                                    uint32_t depth)
{
    TCONV_ARRAY_GROW(w->pending, w->pending_cap, w->npending + 1);
    csv_pending *p = &w->pending[w->npending++];
    p->kind = kind;
    p->track = ev->track;
    p->depth = depth;
    p->ts = ev->ts;
    p->dur = p->self = 0;
    p->name = ev->name;
    p->cat = ev->cat;
    p->args_at = w->pending_args.len;
    csv_events_args(w, ev, &w->pending_args);
    p->args_len = w->pending_args.len - p->args_at;
    return p;
}

/* A row with nothing open around it goes out at once. */
static tconv_status csv_events_direct(csv_writer *w, const tconv_event *ev, uint32_t depth)
{
    csv_pending p = {.kind = ev->kind,
                     .track = ev->track,
                     .depth = depth,
                     .ts = ev->ts,
                     .name = ev->name,
                     .cat = ev->cat};
    /* Nothing is pending, so its buffer is free to use. */
    w->pending_args.len = 0;
    csv_events_args(w, ev, &w->pending_args);
    csv_events_row(w, &p, w->pending_args.p, w->pending_args.len);
    w->pending_args.len = 0;
    if (w->row.len < 1u << 16) return TCONV_OK;
    return csv_buf_flush(&w->row, w->out);
}

tconv_status csv_events_event(csv_writer *w, const tconv_event *ev)
{
    if (w->npending && ev->kind != TCONV_EV_METADATA &&
        ev->track != tconv_spanwalk_track(w->walk) && csv_events_flush(w) != TCONV_OK)
        return TCONV_FATAL;
    tconv_walk_step step = tconv_spanwalk_event(w->walk, ev);
    switch (step) {
    case TCONV_WALK_BEGIN: {
        uint32_t d = tconv_spanwalk_depth(w->walk) - 1;
        TCONV_ARRAY_GROW(w->open_rows, w->open_cap, (size_t)d + 1);
        w->open_rows[d] = w->npending;
        csv_events_push(w, ev, TCONV_EV_BEGIN, d);
        return TCONV_OK;
    }
    case TCONV_WALK_END: {
        const tconv_span *s = tconv_spanwalk_span(w->walk);
        csv_pending *p = &w->pending[w->open_rows[s->depth]];
        p->dur = s->dur;
        p->self = s->self;
        return tconv_spanwalk_depth(w->walk) ? TCONV_OK : csv_events_flush(w);
    }
    case TCONV_WALK_POINT:
        if (tconv_spanwalk_depth(w->walk) || w->npending) {
            csv_events_push(w, ev, ev->kind, tconv_spanwalk_depth(w->walk));
            return TCONV_OK;
        }
        return csv_events_direct(w, ev, tconv_spanwalk_depth(w->walk));
    case TCONV_WALK_META:
        return csv_events_direct(w, ev, 0);
    case TCONV_WALK_SKIP:
    case TCONV_WALK_HIDDEN: /* the events table walks every span */
        break;
    }
    return TCONV_OK;
}

tconv_status csv_events_finish(csv_writer *w)
{
    if (csv_events_flush(w) != TCONV_OK) return TCONV_FATAL;
    return csv_buf_flush(&w->row, w->out);
}

void csv_events_free(csv_writer *w)
{
    free(w->pending);
    free(w->open_rows);
    csv_buf_free(&w->pending_args);
    csv_buf_free(&w->track_fields);
}
