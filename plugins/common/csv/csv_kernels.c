/* The kernels table's aggregation: per name, and per (name, launch configuration) for the
 * configuration columns. Memory grows with distinct kernels and configurations. */
#include <stdlib.h>
#include <string.h>

#include "csv_buf.h"
#include "csv_kernels.h"
#include "csv_sat.h"

typedef struct csv_kernel_config {
    uint32_t kernel;
    int64_t total;
    tconv_str grid, block;
    int64_t regs, smem;
    int has_regs, has_smem;
} csv_kernel_config;

struct csv_kernels {
    tconv_ctx *ctx;
    csv_kineto *k;
    csv_kernel_row *rows, *sorted;
    size_t n, cap;
    tconv_map index;
    csv_kernel_config *configs;
    size_t nconfigs, configs_cap;
    tconv_map config_index;
    csv_buf key;
};

csv_kernels *csv_kernels_new(tconv_ctx *ctx, csv_kineto *k)
{
    csv_kernels *kt = tconv_array_alloc(1, sizeof *kt);
    kt->ctx = ctx;
    kt->k = k;
    return kt;
}

void csv_kernels_free(csv_kernels *kt)
{
    if (!kt) return;
    free(kt->rows);
    free(kt->sorted);
    tconv_map_free(&kt->index);
    free(kt->configs);
    tconv_map_free(&kt->config_index);
    csv_buf_free(&kt->key);
    free(kt);
}

/* The text of an arg as written in the trace ("[128,1,1]" for a JSON array). */
static tconv_str csv_kernels_arg_text(csv_kernels *kt, const tconv_span *s, const char *key)
{
    const tconv_arg *a = csv_arg_find(kt->ctx, s->args, s->nargs, key);
    if (!a) return 0;
    if (a->type == TCONV_ARG_JSON || a->type == TCONV_ARG_STRING) return a->v.s;
    csv_buf *b = &kt->key;
    b->len = 0;
    if (a->type == TCONV_ARG_INT)
        csv_buf_i64(b, a->v.i);
    else if (a->type == TCONV_ARG_UINT)
        csv_buf_u64(b, a->v.u);
    else if (a->type == TCONV_ARG_DOUBLE)
        csv_buf_double(b, a->v.d);
    else
        return 0;
    return tconv_string_intern(kt->ctx, b->p, b->len);
}

static int csv_kernel_mean(const csv_kernel_row *r, double weighted, int has, double *mean)
{
    *mean = r->total > 0 ? weighted / (double)r->total : 0.0;
    return has;
}

int csv_kernel_blocks(const csv_kernel_row *r, double *mean)
{
    return csv_kernel_mean(r, r->blocks_weighted, r->has_blocks, mean);
}

int csv_kernel_occupancy(const csv_kernel_row *r, double *mean)
{
    return csv_kernel_mean(r, r->occupancy_weighted, r->has_occupancy, mean);
}

void csv_kernels_end(csv_kernels *kt, const tconv_span *s)
{
    if (csv_kineto_role(kt->k, s->role, s->cat) != CSV_ROLE_KERNEL) return;
    uint32_t i = tconv_map_put(&kt->index, s->name, 0, (uint32_t)kt->n);
    if (i == kt->n) {
        TCONV_ARRAY_GROW(kt->rows, kt->cap, kt->n + 1);
        kt->rows[i] = (csv_kernel_row){.name = s->name, .min = INT64_MAX};
        kt->rows[i].tensor_core = csv_kineto_tensor_core(tconv_string_get(kt->ctx, s->name));
        kt->n++;
    }
    csv_kernel_row *r = &kt->rows[i];
    r->calls++;
    r->total = csv_sat_add(r->total, s->dur);
    if (s->dur < r->min) r->min = s->dur;
    if (s->dur > r->max) r->max = s->dur;
    double v;
    if (csv_arg_double(kt->ctx, s->args, s->nargs, "blocks per SM", &v)) {
        r->blocks_weighted += v * (double)s->dur;
        r->has_blocks = 1;
    }
    if (csv_arg_double(kt->ctx, s->args, s->nargs, "est. achieved occupancy %", &v)) {
        r->occupancy_weighted += v * (double)s->dur;
        r->has_occupancy = 1;
    }

    csv_kernel_config c = {.kernel = i};
    c.grid = csv_kernels_arg_text(kt, s, "grid");
    c.block = csv_kernels_arg_text(kt, s, "block");
    c.has_regs = csv_arg_int(kt->ctx, s->args, s->nargs, "registers per thread", &c.regs);
    c.has_smem = csv_arg_int(kt->ctx, s->args, s->nargs, "shared memory", &c.smem);
    /* Configurations are keyed by their text, interned. */
    csv_buf *b = &kt->key;
    b->len = 0;
    csv_buf_printf(b, "%u|%u|", c.grid, c.block);
    if (c.has_regs) csv_buf_i64(b, c.regs);
    csv_buf_putc(b, '|');
    if (c.has_smem) csv_buf_i64(b, c.smem);
    tconv_str key = tconv_string_intern(kt->ctx, b->p, b->len);
    uint32_t ci = tconv_map_put(&kt->config_index, key, i, (uint32_t)kt->nconfigs);
    if (ci == kt->nconfigs) {
        TCONV_ARRAY_GROW(kt->configs, kt->configs_cap, kt->nconfigs + 1);
        kt->configs[kt->nconfigs++] = c;
        r->configs++;
    }
    kt->configs[ci].total = csv_sat_add(kt->configs[ci].total, s->dur);
}

static const tconv_ctx *csv_kernels_sort_ctx;

static int csv_kernels_cmp(const void *pa, const void *pb)
{
    const csv_kernel_row *a = pa, *b = pb;
    if (a->total != b->total) return a->total > b->total ? -1 : 1;
    return strcmp(tconv_string_get(csv_kernels_sort_ctx, a->name),
                  tconv_string_get(csv_kernels_sort_ctx, b->name));
}

const csv_kernel_row *csv_kernels_rows(csv_kernels *kt, size_t *n)
{
    /* Configurations in first-seen order: the strict > keeps the first among equals. */
    int64_t *best = tconv_array_alloc(kt->n, sizeof *best);
    for (size_t i = 0; i < kt->n; i++)
        best[i] = -1;
    for (size_t j = 0; j < kt->nconfigs; j++) {
        const csv_kernel_config *c = &kt->configs[j];
        csv_kernel_row *r = &kt->rows[c->kernel];
        if (c->total <= best[c->kernel]) continue;
        best[c->kernel] = c->total;
        r->grid = c->grid;
        r->block = c->block;
        r->regs = c->regs;
        r->smem = c->smem;
        r->has_regs = c->has_regs;
        r->has_smem = c->has_smem;
    }
    free(best);
    free(kt->sorted);
    kt->sorted = tconv_array_alloc(kt->n, sizeof *kt->sorted);
    if (kt->n) memcpy(kt->sorted, kt->rows, kt->n * sizeof *kt->rows);
    csv_kernels_sort_ctx = kt->ctx;
    qsort(kt->sorted, kt->n, sizeof *kt->sorted, csv_kernels_cmp);
    *n = kt->n;
    return kt->sorted;
}
