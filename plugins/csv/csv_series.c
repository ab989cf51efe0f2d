/* The counters table: every counter value (Chrome "C" events, memory counters, ...), one row
 * per point, written as they come (per track, in time order). A series is (process, name,
 * key). */
#include "csv_field.h"
#include "csv_writer.h"

static const char *const csv_counter_columns[] = {"ts_ns",  "pid",   "process", "name",
                                                  "series", "value", "unit",    NULL};

tconv_status csv_series_header(csv_writer *w)
{
    w->track_cached = UINT32_MAX;
    csv_header(&w->row, csv_counter_columns, w->eol);
    return csv_buf_flush(&w->row, w->out);
}

static void csv_counter_row(csv_writer *w, const tconv_event *ev)
{
    csv_buf *b = &w->row;
    csv_buf_i64(b, ev->ts);
    csv_buf_putc(b, ',');
    const tconv_track *t = tconv_track_describe(w->ctx, ev->track);
    if (t) csv_field_str(b, w->ctx, t->pid);
    csv_buf_putc(b, ',');
    if (t) csv_field_str(b, w->ctx, t->process_name);
    csv_buf_putc(b, ',');
    csv_field_str(b, w->ctx, ev->name);
    csv_buf_putc(b, ',');
    csv_field_str(b, w->ctx, ev->key);
    csv_buf_putc(b, ',');
    csv_buf_double(b, ev->value);
    csv_buf_putc(b, ',');
    csv_field_str(b, w->ctx, ev->unit);
    csv_buf_cstr(b, w->eol);
}

tconv_status csv_series_event(csv_writer *w, const tconv_event *ev)
{
    if (ev->kind != TCONV_EV_COUNTER) return TCONV_OK;
    csv_counter_row(w, ev);
    if (w->row.len < 1u << 16) return TCONV_OK;
    return csv_buf_flush(&w->row, w->out);
}
