/* The memory table: the memory analysis's points (csv_memory.h), one row each. */
#include "csv_field.h"
#include "csv_memory.h"
#include "csv_writer.h"

static const char *const csv_memory_columns[] = {"ts_ns",
                                                 "pid",
                                                 "tid",
                                                 "process",
                                                 "thread",
                                                 "device",
                                                 "device_type",
                                                 "device_id",
                                                 "addr",
                                                 "bytes",
                                                 "total_allocated",
                                                 "total_reserved",
                                                 "free_bytes",
                                                 "peak_bytes_in_use",
                                                 NULL};

tconv_status csv_memory_write(csv_writer *w)
{
    csv_header(&w->row, csv_memory_columns, w->eol);
    size_t n;
    const csv_mem_point *points = csv_memory_points(w->memory, &n);
    csv_buf *b = &w->row;
    for (size_t i = 0; i < n; i++) {
        const csv_mem_point *p = &points[i];
        csv_buf_i64(b, p->ts);
        csv_buf_putc(b, ',');
        csv_track_fields(w, p->track, b);
        csv_buf_putc(b, ',');
        csv_field_str(b, w->ctx, p->device);
        csv_buf_putc(b, ',');
        if (p->has_type) csv_buf_i64(b, p->type);
        csv_buf_putc(b, ',');
        if (p->has_id) csv_buf_i64(b, p->id);
        csv_buf_putc(b, ',');
        csv_field_arg(b, w->ctx, p->addr.key ? &p->addr : NULL);
        for (int c = 0; c < CSV_MEM_NVALUES; c++) {
            csv_buf_putc(b, ',');
            if (p->has[c]) csv_buf_double(b, p->v[c]);
        }
        csv_buf_cstr(b, w->eol);
        if (b->len >= 1u << 16 && csv_buf_flush(b, w->out) != TCONV_OK) return TCONV_FATAL;
    }
    return csv_buf_flush(b, w->out);
}
