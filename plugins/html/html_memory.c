/* The memory chart's data: the memory analysis's points (csv_memory.h, the csv writer's memory
 * table), one series per (input, device) and measure (allocated, reserved). A long series is
 * cut down to its lowest and highest point in each of HTML_MEMORY_BUCKETS equal slices of the
 * trace span, in time order, so a series holds at most 2 * HTML_MEMORY_BUCKETS points whatever
 * the trace's length, and its peaks stay. Times are counted from the trace's first event. */
#include <stdlib.h>
#include <string.h>

#include "html_writer.h"

typedef struct html_series {
    uint32_t input;
    tconv_str device;
    size_t first; /* index of its first point in the order below */
    size_t n;
} html_series;

static const tconv_ctx *html_mem_ctx;
static const csv_mem_point *html_mem_points;

/* Points grouped by input, device name (bytewise), then time order (their index). */
static int html_mem_cmp(const void *pa, const void *pb)
{
    uint32_t i = *(const uint32_t *)pa, j = *(const uint32_t *)pb;
    const csv_mem_point *a = &html_mem_points[i], *b = &html_mem_points[j];
    if (a->input != b->input) return a->input < b->input ? -1 : 1;
    if (a->device != b->device) {
        size_t la = tconv_string_length(html_mem_ctx, a->device);
        size_t lb = tconv_string_length(html_mem_ctx, b->device);
        int c = memcmp(tconv_string_get(html_mem_ctx, a->device),
                       tconv_string_get(html_mem_ctx, b->device), la < lb ? la : lb);
        if (c) return c;
        if (la != lb) return la < lb ? -1 : 1;
    }
    return (i > j) - (i < j);
}

static void html_mem_point(csv_buf *b, int *any, int64_t t, double v)
{
    if (*any) csv_buf_putc(b, ',');
    *any = 1;
    csv_buf_printf(b, "[%lld,", (long long)t);
    size_t at = b->len;
    csv_buf_double(b, v);
    if (b->len == at) csv_buf_putc(b, '0');
    csv_buf_putc(b, ']');
}

/* One measure of one series, cut down by buckets. */
static void html_mem_measure(html_writer *w, csv_buf *b, const csv_mem_point *p,
                             const uint32_t *order, const html_series *s, int col, const char *name,
                             int *first_series)
{
    size_t have = 0;
    for (size_t k = 0; k < s->n; k++)
        have += p[order[s->first + k]].has[col];
    if (!have) return;
    int64_t start = 0, last = 0;
    tconv_ctx_bounds(w->ctx, &start, &last);
    int64_t span = last > start ? last - start : 1;
    if (!*first_series) csv_buf_putc(b, ',');
    *first_series = 0;
    csv_buf_cstr(b, "{\"label\":");
    w->tmp.len = 0;
    csv_buf_put(&w->tmp, tconv_string_get(w->ctx, s->device),
                tconv_string_length(w->ctx, s->device));
    if (!w->tmp.len) csv_buf_cstr(&w->tmp, "memory");
    if (s->input) csv_buf_printf(&w->tmp, " (input %u)", s->input);
    html_json_bytes(b, w->tmp.p, w->tmp.len);
    csv_buf_printf(b, ",\"measure\":\"%s\",\"count\":%zu,\"points\":[", name, have);
    int any = 0;
    size_t k = 0;
    while (k < s->n) {
        /* the points of one bucket: its lowest and highest, in time order */
        const csv_mem_point *q = &p[order[s->first + k]];
        int64_t bucket = (int64_t)(((__int128)(q->ts - start) * HTML_MEMORY_BUCKETS) / span);
        size_t lo = SIZE_MAX, hi = SIZE_MAX;
        for (; k < s->n; k++) {
            q = &p[order[s->first + k]];
            if ((int64_t)(((__int128)(q->ts - start) * HTML_MEMORY_BUCKETS) / span) != bucket)
                break;
            if (!q->has[col]) continue;
            if (lo == SIZE_MAX || q->v[col] < p[order[s->first + lo]].v[col]) lo = k;
            if (hi == SIZE_MAX || q->v[col] > p[order[s->first + hi]].v[col]) hi = k;
        }
        if (lo == SIZE_MAX) continue;
        size_t a = lo < hi ? lo : hi, z = lo < hi ? hi : lo;
        const csv_mem_point *pa = &p[order[s->first + a]], *pz = &p[order[s->first + z]];
        html_mem_point(b, &any, pa->ts - start, pa->v[col]);
        if (z != a) html_mem_point(b, &any, pz->ts - start, pz->v[col]);
    }
    csv_buf_cstr(b, "]}");
}

void html_memory(html_writer *w, csv_buf *b)
{
    size_t n;
    const csv_mem_point *p = csv_memory_points(w->memory, &n);
    uint32_t *order = tconv_array_alloc(n ? n : 1, sizeof *order);
    for (size_t i = 0; i < n; i++)
        order[i] = (uint32_t)i;
    html_mem_ctx = w->ctx;
    html_mem_points = p;
    qsort(order, n, sizeof *order, html_mem_cmp);
    csv_buf_printf(b, "\"memory\":{\"buckets\":%d,\"series\":[", HTML_MEMORY_BUCKETS);
    int first_series = 1;
    for (size_t i = 0; i < n;) {
        html_series s = {.input = p[order[i]].input, .device = p[order[i]].device, .first = i};
        while (i < n && p[order[i]].input == s.input && p[order[i]].device == s.device)
            i++;
        s.n = i - s.first;
        html_mem_measure(w, b, p, order, &s, CSV_MEM_ALLOCATED, "allocated", &first_series);
        html_mem_measure(w, b, p, order, &s, CSV_MEM_RESERVED, "reserved", &first_series);
    }
    csv_buf_cstr(b, "]}");
    free(order);
}

int html_memory_any(html_writer *w)
{
    size_t n;
    csv_memory_points(w->memory, &n);
    return n > 0;
}
