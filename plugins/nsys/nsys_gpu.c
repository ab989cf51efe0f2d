/* GPU work: CUPTI's kernel, memcpy, memset, synchronisation and graph records as spans on the
 * streams' tracks, and GPU memory use as counters.
 *
 * Every record carries the correlation id of the API call that started it, unique per process,
 * so the span's corr is (pid, id): the core finds the launch by it and charges the device time
 * to the stack of the call (event-model.md, "GPU attribution"). Args use the names of Kineto's
 * (device, stream, grid, block, registers per thread, shared memory, bytes), which the kernel
 * and memory tables read whatever the reader. Names: kernels as the options chose, copies and
 * sets as nsys names them ("[CUDA memcpy Host-to-Device]", "[CUDA memset]"). */
#include <stdio.h>
#include <string.h>

#include "nsys_cols.h"
#include "nsys_reader.h"

typedef struct nsys_args {
    tconv_arg *a;
    uint32_t n;
} nsys_args;

static void nsys_arg_int(nsys_args *g, tconv_str key, int64_t v)
{
    g->a[g->n++] = (tconv_arg){.key = key, .type = TCONV_ARG_INT, .v.i = v};
}

/* The column as an int arg, when the row has a value there. */
static void nsys_arg_col(nsys_args *g, sqlite3_stmt *st, int col, tconv_str key)
{
    int ok;
    int64_t v = sqlin_int(st, col, &ok);
    if (ok) nsys_arg_int(g, key, v);
}

static void nsys_arg_str(nsys_args *g, tconv_str key, tconv_str v, uint32_t type)
{
    if (v) g->a[g->n++] = (tconv_arg){.key = key, .type = type, .v.s = v};
}

/* "[x,y,z]" of three columns, as Kineto writes grid and block. */
static tconv_str nsys_dim3(nsys_reader *r, sqlite3_stmt *st, int col)
{
    int ok[3];
    int64_t v[3];
    for (int i = 0; i < 3; i++)
        v[i] = sqlin_int(st, col + i, &ok[i]);
    if (!ok[0] || !ok[1] || !ok[2]) return 0;
    snprintf(r->buf, sizeof(r->buf), "[%lld,%lld,%lld]", (long long)v[0], (long long)v[1],
             (long long)v[2]);
    return nsys_intern(r, r->buf);
}

static tconv_str nsys_label(nsys_reader *r, const tconv_str *labels, size_t n, sqlite3_stmt *st,
                            int col)
{
    int ok;
    int64_t v = sqlin_int(st, col, &ok);
    if (!ok) return 0;
    if (v >= 0 && (uint64_t)v < n && labels[v]) return labels[v];
    snprintf(r->buf, sizeof(r->buf), "%lld", (long long)v);
    return nsys_intern(r, r->buf);
}

#define NSYS_LABEL(r, arr, st, col)                                                                \
    nsys_label((r), (arr), sizeof(arr) / sizeof((arr)[0]), (st), (col))

static tconv_status nsys_memory_row(nsys_reader *r, nsys_cursor *c)
{
    sqlite3_stmt *st = c->st;
    int ok[5];
    int64_t gpid = sqlin_int(st, NSYS_M_PID, &ok[0]), dev = sqlin_int(st, NSYS_M_DEVICE, &ok[1]),
            bytes = sqlin_int(st, NSYS_M_BYTES, &ok[2]), op = sqlin_int(st, NSYS_M_OPER, &ok[3]);
    if (c->start == INT64_MIN || !ok[0] || !ok[1] || !ok[2] || !ok[3] || dev < 0 ||
        dev > UINT32_MAX) {
        nsys_bad_row(r, c, "a memory event without its time, process, device or size");
        return TCONV_OK;
    }
    uint32_t pid = nsys_pid_of(gpid);
    uint32_t i = tconv_map_put(&r->mem_index, (uint64_t)dev, pid, (uint32_t)r->nmem);
    if (i == r->nmem) {
        TCONV_ARRAY_GROW(r->mem_sum, r->mem_cap, r->nmem + 1);
        r->mem_sum[r->nmem++] = 0;
    }
    r->mem_sum[i] += op == 0 ? (double)bytes : -(double)bytes;
    tconv_event ev = TCONV_EVENT_INIT;
    ev.kind = TCONV_EV_COUNTER;
    ev.track = nsys_process(r, gpid);
    if (ev.track == TCONV_MAP_NONE) return TCONV_FATAL;
    ev.ts = c->start;
    ev.name = r->s.allocated;
    ev.cat = r->s.memory;
    snprintf(r->buf, sizeof(r->buf), "cuda:%lld", (long long)dev);
    ev.key = nsys_intern(r, r->buf);
    ev.unit = r->s.bytes;
    ev.value = r->mem_sum[i];
    return nsys_push(r, &ev);
}

static tconv_status nsys_wddm_row(nsys_reader *r, nsys_cursor *c)
{
    sqlite3_stmt *st = c->st;
    int ok[4];
    int64_t gtid = sqlin_int(st, NSYS_W_TID, &ok[0]), gpu = sqlin_int(st, NSYS_W_GPU, &ok[1]),
            usage = sqlin_int(st, NSYS_W_USAGE, &ok[2]),
            seg = sqlin_int(st, NSYS_W_SEGMENT, &ok[3]);
    if (c->start == INT64_MIN || !ok[0] || !ok[1] || !ok[2]) {
        nsys_bad_row(r, c, "a memory usage event without its time, thread, GPU or usage");
        return TCONV_OK;
    }
    tconv_event ev = TCONV_EVENT_INIT;
    ev.kind = TCONV_EV_COUNTER;
    ev.track = nsys_process(r, gtid);
    if (ev.track == TCONV_MAP_NONE) return TCONV_FATAL;
    ev.ts = c->start;
    ev.name = r->s.wddm_usage;
    ev.cat = r->s.memory;
    int n = snprintf(r->buf, sizeof(r->buf), "gpu %lld", (long long)gpu);
    if (ok[3])
        snprintf(r->buf + n, sizeof(r->buf) - (size_t)n, " segment group %lld", (long long)seg);
    ev.key = nsys_intern(r, r->buf);
    ev.unit = r->s.bytes;
    ev.value = (double)usage;
    return nsys_push(r, &ev);
}

tconv_status nsys_gpu_row(nsys_reader *r, nsys_cursor *c)
{
    if (c->kind == NSYS_SRC_CUDA_MEMORY) return nsys_memory_row(r, c);
    if (c->kind == NSYS_SRC_WDDM_MEMORY) return nsys_wddm_row(r, c);
    sqlite3_stmt *st = c->st;
    int ok_end, ok_dev, ok_stream, ok_corr;
    int64_t end = sqlin_int(st, NSYS_G_END, &ok_end), dev = sqlin_int(st, NSYS_G_DEVICE, &ok_dev),
            stream = sqlin_int(st, NSYS_G_STREAM, &ok_stream),
            corr = sqlin_int(st, NSYS_G_CORR, &ok_corr), gpid = sqlin_int(st, NSYS_G_PID, NULL);
    if (c->start == INT64_MIN || !ok_end || !ok_dev || !ok_stream || dev < 0 || dev > UINT32_MAX) {
        nsys_bad_row(r, c, "a GPU activity without its start, end, device or stream");
        return TCONV_OK;
    }
    if (end < c->start) {
        nsys_bad_row(r, c, "a GPU activity that ends before it starts");
        return TCONV_OK;
    }
    tconv_event ev = TCONV_EVENT_INIT;
    ev.kind = TCONV_EV_COMPLETE;
    ev.ts = c->start;
    ev.dur = end - c->start;
    ev.corr = ok_corr ? nsys_corr(gpid, corr) : 0;
    nsys_args g = {r->argv, 0};
    if (r->args) {
        nsys_arg_int(&g, r->s.device, dev);
        nsys_arg_col(&g, st, NSYS_G_CONTEXT, r->s.context);
        nsys_arg_int(&g, r->s.stream, stream);
        if (ok_corr) nsys_arg_int(&g, r->s.correlation, corr);
    }
    switch (c->kind) {
    case NSYS_SRC_KERNEL: {
        ev.role = TCONV_ROLE_KERNEL;
        ev.cat = r->s.kernel;
        int ok;
        ev.name = nsys_string(r, sqlin_int(st, NSYS_K_NAME, &ok));
        if (!ok || !ev.name) ev.name = nsys_intern(r, "[unnamed kernel]");
        if (!r->args) break;
        nsys_arg_str(&g, r->s.grid, nsys_dim3(r, st, NSYS_K_GRID_X), TCONV_ARG_JSON);
        nsys_arg_str(&g, r->s.block, nsys_dim3(r, st, NSYS_K_BLOCK_X), TCONV_ARG_JSON);
        nsys_arg_col(&g, st, NSYS_K_REGS, r->s.regs);
        int ok_s, ok_d;
        int64_t s = sqlin_int(st, NSYS_K_SMEM_STATIC, &ok_s);
        int64_t d = sqlin_int(st, NSYS_K_SMEM_DYNAMIC, &ok_d);
        if (ok_s || ok_d) nsys_arg_int(&g, r->s.smem, s + d);
        if (ok_s) nsys_arg_int(&g, r->s.smem_static, s);
        if (ok_d) nsys_arg_int(&g, r->s.smem_dynamic, d);
        nsys_arg_col(&g, st, NSYS_K_LAUNCH_TYPE, r->s.launch_type);
        break;
    }
    case NSYS_SRC_MEMCPY: {
        ev.role = TCONV_ROLE_MEMCPY;
        ev.cat = r->s.memcpy;
        tconv_str kind = NSYS_LABEL(r, r->memcpy_kind, st, NSYS_MC_KIND);
        snprintf(r->buf, sizeof(r->buf), "[CUDA memcpy %s]",
                 kind ? tconv_string_get(r->ctx, kind) : "Unknown");
        ev.name = nsys_intern(r, r->buf);
        if (!r->args) break;
        int ok;
        int64_t bytes = sqlin_int(st, NSYS_MC_BYTES, &ok);
        if (ok) nsys_arg_int(&g, r->s.bytes, bytes);
        nsys_arg_str(&g, r->s.copy_kind, kind, TCONV_ARG_STRING);
        nsys_arg_str(&g, r->s.src_kind, NSYS_LABEL(r, r->mem_kind, st, NSYS_MC_SRC_KIND),
                     TCONV_ARG_STRING);
        nsys_arg_str(&g, r->s.dst_kind, NSYS_LABEL(r, r->mem_kind, st, NSYS_MC_DST_KIND),
                     TCONV_ARG_STRING);
        if (ok && ev.dur > 0)
            g.a[g.n++] = (tconv_arg){.key = r->s.bandwidth,
                                     .type = TCONV_ARG_DOUBLE,
                                     .v.d = (double)bytes / (double)ev.dur};
        break;
    }
    case NSYS_SRC_MEMSET:
        ev.role = TCONV_ROLE_MEMSET;
        ev.cat = r->s.memset;
        ev.name = r->s.memset_name;
        if (!r->args) break;
        nsys_arg_col(&g, st, NSYS_MS_BYTES, r->s.bytes);
        nsys_arg_col(&g, st, NSYS_MS_VALUE, r->s.value);
        break;
    case NSYS_SRC_SYNC:
        ev.role = TCONV_ROLE_SYNC;
        ev.cat = r->s.sync;
        ev.name = NSYS_LABEL(r, r->sync_kind, st, NSYS_SY_TYPE);
        if (!ev.name) ev.name = r->sync_kind[0];
        break;
    case NSYS_SRC_GRAPH: {
        ev.role = TCONV_ROLE_KERNEL;
        ev.cat = r->s.graph;
        int ok;
        int64_t graph = sqlin_int(st, NSYS_GR_GRAPH, &ok);
        snprintf(r->buf, sizeof(r->buf), ok ? "CUDA graph %lld" : "CUDA graph", (long long)graph);
        ev.name = nsys_intern(r, r->buf);
        if (!r->args) break;
        nsys_arg_col(&g, st, NSYS_GR_GRAPH, r->s.graph_id);
        nsys_arg_col(&g, st, NSYS_GR_EXEC, r->s.graph_exec);
        break;
    }
    default:
        return TCONV_OK;
    }
    /* A stream id of -1 (CUPTI's "none", a context or event sync) is the device's sync track. */
    ev.track = nsys_stream(r, dev, stream, gpid);
    if (ev.track == TCONV_MAP_NONE) return TCONV_FATAL;
    ev.args = g.n ? g.a : NULL;
    ev.nargs = g.n;
    return nsys_push(r, &ev);
}
