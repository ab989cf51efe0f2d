/* The aggregate tables (ops, kernels, stacks), written once every event has been seen. */
#include <string.h>

#include "csv_field.h"
#include "csv_writer.h"

static void csv_comma(csv_buf *b)
{
    csv_buf_putc(b, ',');
}

static tconv_status csv_row_end(csv_writer *w)
{
    csv_buf_cstr(&w->row, w->eol);
    if (w->row.len < 1u << 16) return TCONV_OK;
    return csv_buf_flush(&w->row, w->out);
}

static tconv_status csv_write_ops(csv_writer *w)
{
    static const char *const cols[] = {"name",
                                       "category",
                                       "calls",
                                       "host_total_ns",
                                       "host_self_ns",
                                       "host_mean_ns",
                                       "host_min_ns",
                                       "host_max_ns",
                                       "device_total_ns",
                                       "device_self_ns",
                                       NULL};
    csv_header(&w->row, cols, w->eol);
    size_t n;
    csv_ops_mode used;
    const csv_op_row *rows = csv_ops_rows(w->ops, w->ops_mode, &n, &used);
    csv_buf *b = &w->row;
    for (size_t i = 0; i < n; i++) {
        const csv_op_row *r = &rows[i];
        csv_field_str(b, w->ctx, r->name);
        csv_comma(b);
        csv_field_str(b, w->ctx, r->cat);
        csv_comma(b);
        csv_buf_u64(b, r->calls);
        csv_comma(b);
        csv_buf_i64(b, r->total);
        csv_comma(b);
        csv_buf_i64(b, r->self);
        csv_comma(b);
        csv_buf_double(b, (double)r->total / (double)r->calls);
        csv_comma(b);
        csv_buf_i64(b, r->min);
        csv_comma(b);
        csv_buf_i64(b, r->max);
        csv_comma(b);
        /* Without operators there is no launch-to-op relation: no device columns. */
        if (used == CSV_OPS_PYTORCH) csv_buf_i64(b, r->dev_total);
        csv_comma(b);
        if (used == CSV_OPS_PYTORCH) csv_buf_i64(b, r->dev_self);
        if (csv_row_end(w) != TCONV_OK) return TCONV_FATAL;
    }
    return TCONV_OK;
}

static tconv_status csv_write_kernels(csv_writer *w)
{
    static const char *const cols[] = {"name",          "calls",          "total_ns",
                                       "mean_ns",       "min_ns",         "max_ns",
                                       "grid",          "block",          "registers_per_thread",
                                       "shared_memory", "blocks_per_sm",  "est_occupancy_pct",
                                       "tensor_core",   "launch_configs", NULL};
    csv_header(&w->row, cols, w->eol);
    size_t n;
    const csv_kernel_row *rows = csv_kernels_rows(w->kernels, &n);
    csv_buf *b = &w->row;
    for (size_t i = 0; i < n; i++) {
        const csv_kernel_row *r = &rows[i];
        csv_field_str(b, w->ctx, r->name);
        csv_comma(b);
        csv_buf_u64(b, r->calls);
        csv_comma(b);
        csv_buf_i64(b, r->total);
        csv_comma(b);
        csv_buf_double(b, (double)r->total / (double)r->calls);
        csv_comma(b);
        csv_buf_i64(b, r->min);
        csv_comma(b);
        csv_buf_i64(b, r->max);
        csv_comma(b);
        csv_field_str(b, w->ctx, r->grid);
        csv_comma(b);
        csv_field_str(b, w->ctx, r->block);
        csv_comma(b);
        if (r->has_regs) csv_buf_i64(b, r->regs);
        csv_comma(b);
        if (r->has_smem) csv_buf_i64(b, r->smem);
        csv_comma(b);
        double mean; /* empty when no call had the value */
        if (csv_kernel_blocks(r, &mean)) csv_buf_double(b, mean);
        csv_comma(b);
        if (csv_kernel_occupancy(r, &mean)) csv_buf_double(b, mean);
        csv_comma(b);
        csv_buf_cstr(b, r->tensor_core ? "yes" : "no");
        csv_comma(b);
        csv_buf_u64(b, r->configs);
        if (csv_row_end(w) != TCONV_OK) return TCONV_FATAL;
    }
    return TCONV_OK;
}

static tconv_status csv_write_stacks(csv_writer *w)
{
    csv_stack_set set;
    csv_stacks_rows(&w->stacks, &set);
    csv_buf *b = &w->row;
    csv_field_cstr(b, "stack");
    csv_comma(b);
    csv_field_cstr(b, "depth");
    for (size_t i = 0; i < set.trie->nvalues; i++) {
        csv_comma(b);
        csv_buf *s = &w->scratch;
        s->len = 0;
        if (i < set.ntypes)
            csv_buf_printf(s, "%s_%s", set.types[i].type, set.types[i].unit);
        else
            csv_buf_printf(s, "value%zu", i + 1);
        csv_field(b, s->p, s->len);
    }
    csv_buf_cstr(b, w->eol);
    const csv_trie *t = set.trie;
    for (size_t r = 0; r < set.nrows; r++) {
        uint32_t node = set.rows[r];
        csv_buf *s = &w->scratch;
        s->len = 0;
        csv_stacks_path(&w->stacks, t, node, s);
        csv_field(b, s->p ? s->p : "", s->len);
        csv_comma(b);
        csv_buf_u64(b, csv_trie_depth(t, node));
        for (size_t i = 0; i < t->nvalues; i++) {
            csv_comma(b);
            csv_buf_i64(b, t->values[node * t->nvalues + i]);
        }
        if (csv_row_end(w) != TCONV_OK) return TCONV_FATAL;
    }
    return TCONV_OK;
}

tconv_status csv_tables_write(csv_writer *w)
{
    tconv_status st = TCONV_OK;
    switch (w->table) {
    case CSV_TABLE_OPS:
        st = csv_write_ops(w);
        break;
    case CSV_TABLE_KERNELS:
        st = csv_write_kernels(w);
        break;
    case CSV_TABLE_STACKS:
        st = csv_write_stacks(w);
        break;
    default:
        break;
    }
    if (st != TCONV_OK) return st;
    return csv_buf_flush(&w->row, w->out);
}
