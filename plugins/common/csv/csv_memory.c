/* The memory table: memory use over time, one row per point, in time order.
 *
 * Points come from PyTorch profiler "[memory]" instants (profile_memory=True: one allocation or
 * free on a device, with the allocator's totals after it) and from memory counters (category
 * "memory", unit "bytes": "allocated bytes", "reserved bytes", "free bytes", "peak bytes in
 * use"), the series readers such as tfmem give. The Chrome reader also turns each "[memory]"
 * instant into such counters; an input that has the instants gives its points from them alone,
 * so a point is never written twice. Counter values of one track, series and time make one
 * point. The points are held until the end, since they come track by track and the table is in
 * time order. */
#include <stdlib.h>
#include <string.h>

#include "csv_buf.h"
#include "csv_kineto.h"
#include "csv_memory.h"

struct csv_memory {
    tconv_ctx *ctx;
    csv_mem_point *p;
    size_t n, cap;
    tconv_map same_time; /* (time, track) -> first counter point */
    uint8_t *input_has_instants;
    size_t inputs_cap;
    tconv_str names[CSV_MEM_NVALUES]; /* counter names, by column */
    tconv_str memory, bytes;
    csv_buf dev;
};

/* c10::DeviceType by value, named as torch names devices ("cpu", "cuda:0"). */
static const char *const csv_device_types[] = {
    "cpu",  "cuda", "mkldnn", "opengl", "opencl", "ideep", "hip",
    "fpga", "maia", "xla",    "vulkan", "metal",  "xpu",   "mps",
    "meta", "hpu",  "ve",     "lazy",   "ipu",    "mtia",  "privateuseone"};

csv_memory *csv_memory_new(tconv_ctx *ctx)
{
    csv_memory *m = tconv_array_alloc(1, sizeof *m);
    m->ctx = ctx;
    static const char *const names[CSV_MEM_NVALUES] = {"", "allocated bytes", "reserved bytes",
                                                       "free bytes", "peak bytes in use"};
    for (int i = 1; i < CSV_MEM_NVALUES; i++)
        m->names[i] = tconv_string_intern_cstr(ctx, names[i]);
    m->memory = tconv_string_intern_cstr(ctx, "memory");
    m->bytes = tconv_string_intern_cstr(ctx, "bytes");
    return m;
}

void csv_memory_free(csv_memory *m)
{
    if (!m) return;
    free(m->p);
    tconv_map_free(&m->same_time);
    free(m->input_has_instants);
    csv_buf_free(&m->dev);
    free(m);
}

static csv_mem_point *csv_memory_point(csv_memory *m, const tconv_event *ev)
{
    TCONV_ARRAY_GROW(m->p, m->cap, m->n + 1);
    csv_mem_point *p = &m->p[m->n++];
    memset(p, 0, sizeof *p);
    p->ts = ev->ts;
    p->seq = ev->seq;
    p->track = ev->track;
    p->input = ev->input;
    p->next = TCONV_MAP_NONE;
    return p;
}

static void csv_memory_instant(csv_memory *m, const tconv_event *ev)
{
    const tconv_ctx *ctx = m->ctx;
    if (ev->input >= m->inputs_cap) {
        size_t old = m->inputs_cap;
        TCONV_ARRAY_GROW(m->input_has_instants, m->inputs_cap, (size_t)ev->input + 1);
        memset(m->input_has_instants + old, 0, m->inputs_cap - old);
    }
    m->input_has_instants[ev->input] = 1;
    csv_mem_point *p = csv_memory_point(m, ev);
    p->has_type = (uint8_t)csv_arg_int(ctx, ev->args, ev->nargs, "Device Type", &p->type);
    p->has_id = (uint8_t)csv_arg_int(ctx, ev->args, ev->nargs, "Device Id", &p->id);
    if (p->has_type) {
        csv_buf *d = &m->dev;
        d->len = 0;
        size_t ntypes = sizeof csv_device_types / sizeof *csv_device_types;
        if (p->type >= 0 && (uint64_t)p->type < ntypes)
            csv_buf_cstr(d, csv_device_types[p->type]);
        else
            csv_buf_printf(d, "device%lld", (long long)p->type);
        /* The CPU has no index; torch leaves out -1. */
        if (p->type != 0 && p->has_id && p->id >= 0) csv_buf_printf(d, ":%lld", (long long)p->id);
        p->device = tconv_string_intern(m->ctx, d->p, d->len);
    }
    static const char *const keys[] = {"Bytes", "Total Allocated", "Total Reserved"};
    for (int i = 0; i < 3; i++)
        p->has[i] = (uint8_t)csv_arg_double(ctx, ev->args, ev->nargs, keys[i], &p->v[i]);
    const tconv_arg *a = csv_arg_find(ctx, ev->args, ev->nargs, "Addr");
    if (a) p->addr = *a;
}

static void csv_memory_counter(csv_memory *m, const tconv_event *ev)
{
    if (ev->cat != m->memory || ev->unit != m->bytes) return;
    int col = 0;
    for (int i = 1; i < CSV_MEM_NVALUES && !col; i++)
        if (ev->name == m->names[i]) col = i;
    if (!col) return;
    uint32_t head = tconv_map_get(&m->same_time, (uint64_t)ev->ts, ev->track);
    for (uint32_t i = head; i != TCONV_MAP_NONE; i = m->p[i].next) {
        if (m->p[i].device == ev->key) {
            m->p[i].has[col] = 1;
            m->p[i].v[col] = ev->value;
            return;
        }
    }
    uint32_t idx = (uint32_t)m->n;
    csv_mem_point *p = csv_memory_point(m, ev);
    p->from_counter = 1;
    p->device = ev->key;
    p->has[col] = 1;
    p->v[col] = ev->value;
    if (head == TCONV_MAP_NONE) {
        tconv_map_put(&m->same_time, (uint64_t)ev->ts, ev->track, idx);
    } else {
        p->next = m->p[head].next;
        m->p[head].next = idx;
    }
}

void csv_memory_event(csv_memory *m, const tconv_event *ev)
{
    if (ev->kind == TCONV_EV_COUNTER) {
        csv_memory_counter(m, ev);
    } else if (ev->kind == TCONV_EV_INSTANT && tconv_string_length(m->ctx, ev->name) == 8 &&
               memcmp(tconv_string_get(m->ctx, ev->name), "[memory]", 8) == 0) {
        csv_memory_instant(m, ev);
    }
}

static int csv_memory_cmp(const void *pa, const void *pb)
{
    const csv_mem_point *a = pa, *b = pb;
    if (a->ts != b->ts) return a->ts < b->ts ? -1 : 1;
    if (a->input != b->input) return a->input < b->input ? -1 : 1;
    if (a->track != b->track) return a->track < b->track ? -1 : 1;
    return (a->seq > b->seq) - (a->seq < b->seq);
}

/* Traces without "Total Allocated" (older PyTorch) get the running sum of Bytes per process
 * and device, in time order, as the Chrome reader's counters do. */
static void csv_memory_sums(csv_memory *m)
{
    tconv_map index = {0};
    double *sum = NULL;
    size_t nsum = 0, cap = 0;
    for (size_t i = 0; i < m->n; i++) {
        csv_mem_point *p = &m->p[i];
        if (p->from_counter || !p->has_type) continue;
        const tconv_track *t = tconv_track_describe(m->ctx, p->track);
        uint64_t key = ((uint64_t)(t ? t->pid : 0) << 32) | p->device;
        uint32_t k = tconv_map_put(&index, key, p->input, (uint32_t)nsum);
        if (k == nsum) {
            TCONV_ARRAY_GROW(sum, cap, nsum + 1);
            sum[nsum++] = 0;
        }
        if (p->has[CSV_MEM_BYTES]) sum[k] += p->v[CSV_MEM_BYTES];
        if (!p->has[CSV_MEM_ALLOCATED]) {
            p->has[CSV_MEM_ALLOCATED] = 1;
            p->v[CSV_MEM_ALLOCATED] = sum[k];
        }
    }
    free(sum);
    tconv_map_free(&index);
}

/* Counter points of inputs that have the instants repeat them; the rest go in time order. */
const csv_mem_point *csv_memory_points(csv_memory *m, size_t *n)
{
    size_t k = 0;
    for (size_t i = 0; i < m->n; i++) {
        const csv_mem_point *p = &m->p[i];
        if (p->from_counter && p->input < m->inputs_cap && m->input_has_instants[p->input])
            continue;
        m->p[k++] = *p;
    }
    m->n = k;
    if (m->n > 1) qsort(m->p, m->n, sizeof *m->p, csv_memory_cmp);
    csv_memory_sums(m);
    *n = m->n;
    return m->p;
}
