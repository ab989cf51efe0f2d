/* What rocprofv3 JSON and rpd share: tracks, names and pushes.
 *
 * Tracks read as those of the other readers: a CPU thread is (pid, tid) in decimal; a GPU
 * queue or stream is pid "GPU <n>", tid "queue <q>" / "stream <s>", on a track of kind GPU,
 * and the device's process name carries the agent's product name. Categories and roles follow
 * Kineto's for ROCm (kernel, gpu_memcpy, gpu_memset, cuda_runtime for HIP), so the kernel
 * tables, the summary and GPU attribution treat both vendors alike. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "rocprof_reader.h"

void rp_common_init(rp_common *c, tconv_ctx *ctx, tconv_sink *sink, const rp_opts *opt,
                    const char *name)
{
    memset(c, 0, sizeof(*c));
    c->ctx = ctx;
    c->sink = sink;
    c->opt = *opt;
    c->name = name;
    c->args = tconv_args_wanted(ctx);
    struct {
        tconv_str *id;
        const char *s;
    } k[] = {
        {&c->s.process_name, "process_name"},
        {&c->s.thread_name, "thread_name"},
        {&c->s.host, "host"},
        {&c->s.kernel, "kernel"},
        {&c->s.memcpy, "gpu_memcpy"},
        {&c->s.memset, "gpu_memset"},
        {&c->s.sync, "gpu_sync"},
        {&c->s.hip, "cuda_runtime"},
        {&c->s.hsa, "hsa_api"},
        {&c->s.rccl, "rccl_api"},
        {&c->s.roctx, "roctx"},
        {&c->s.overhead, "overhead"},
        {&c->s.api, "api"},
        {&c->s.device, "device"},
        {&c->s.queue, "queue"},
        {&c->s.stream, "stream"},
        {&c->s.correlation, "correlation"},
        {&c->s.grid, "grid"},
        {&c->s.block, "block"},
        {&c->s.smem, "shared memory"},
        {&c->s.scratch, "private segment size"},
        {&c->s.bytes, "bytes"},
        {&c->s.args, "args"},
        {&c->s.kind, "kind"},
        {&c->s.src, "source agent"},
        {&c->s.dst, "destination agent"},
        {&c->s.memory, "memory"},
        {&c->s.thread, "thread"},
    };
    for (size_t i = 0; i < sizeof(k) / sizeof(k[0]); i++)
        *k[i].id = tconv_string_intern_cstr(ctx, k[i].s);
}

void rp_common_free(rp_common *c)
{
    tconv_map_free(&c->threads);
    tconv_map_free(&c->gpus);
    tconv_map_free(&c->gpu_seen);
    tconv_map_free(&c->gpu_names);
    tconv_map_free(&c->async);
}

tconv_status rp_push(rp_common *c, const tconv_event *ev)
{
    if (tconv_sink_push(c->sink, ev) == TCONV_FATAL) return TCONV_FATAL;
    if (!c->pushed++) c->first_track = ev->track;
    return TCONV_OK;
}

tconv_str rp_intern(rp_common *c, const char *s, size_t len)
{
    return tconv_string_intern(c->ctx, s, len);
}

static tconv_str rp_num(rp_common *c, const char *fmt, int64_t v)
{
    int n = snprintf(c->buf, sizeof(c->buf), fmt, (long long)v);
    return rp_intern(c, c->buf, (size_t)n);
}

uint32_t rp_thread(rp_common *c, int64_t pid, int64_t tid)
{
    uint64_t key = (uint64_t)(uint32_t)pid << 32 | (uint32_t)tid;
    uint32_t t = tconv_map_get(&c->threads, key, 0);
    if (t != TCONV_MAP_NONE) return t;
    t = tconv_track_get(c->ctx, rp_num(c, "%lld", pid), rp_num(c, "%lld", tid));
    tconv_map_set(&c->threads, key, 0, t);
    return t;
}

uint32_t rp_async(rp_common *c, int64_t pid)
{
    uint32_t t = tconv_map_get(&c->async, (uint64_t)(uint32_t)pid, 0);
    if (t != TCONV_MAP_NONE) return t;
    t = tconv_track_get(c->ctx, rp_num(c, "%lld", pid), tconv_string_intern_cstr(c->ctx, "roctx"));
    tconv_track_set_kind(c->ctx, t, TCONV_TRACK_ASYNC);
    tconv_map_set(&c->async, (uint64_t)(uint32_t)pid, 0, t);
    return t;
}

static int rp_device_named(rp_common *c, int64_t device, uint32_t track)
{
    if (tconv_map_get(&c->gpu_seen, (uint64_t)device, 0) != TCONV_MAP_NONE) return 0;
    tconv_map_set(&c->gpu_seen, (uint64_t)device, 0, 1);
    uint32_t name = tconv_map_get(&c->gpu_names, (uint64_t)device, 0);
    int n = snprintf(c->buf, sizeof(c->buf), "GPU %lld", (long long)device);
    if (name != TCONV_MAP_NONE && name)
        n += snprintf(c->buf + n, sizeof(c->buf) - (size_t)n, " (%s)",
                      tconv_string_get(c->ctx, name));
    tconv_event ev = TCONV_EVENT_INIT;
    ev.kind = TCONV_EV_METADATA;
    ev.track = track;
    ev.name = c->s.process_name;
    ev.text = rp_intern(c, c->buf, strlen(c->buf));
    return rp_push(c, &ev) == TCONV_FATAL ? -1 : 0;
}

uint32_t rp_gpu(rp_common *c, int64_t device, tconv_str what)
{
    uint32_t t = tconv_map_get(&c->gpus, (uint64_t)device, what);
    if (t != TCONV_MAP_NONE) return t;
    t = tconv_track_get(c->ctx, rp_num(c, "GPU %lld", device), what);
    tconv_track_set_kind(c->ctx, t, TCONV_TRACK_GPU);
    tconv_map_set(&c->gpus, (uint64_t)device, what, t);
    return rp_device_named(c, device, t) == 0 ? t : TCONV_MAP_NONE;
}

uint32_t rp_gpu_counters(rp_common *c, int64_t device)
{
    uint32_t t = tconv_track_get(c->ctx, rp_num(c, "GPU %lld", device), c->s.empty);
    tconv_track_set_kind(c->ctx, t, TCONV_TRACK_PROCESS);
    return rp_device_named(c, device, t) == 0 ? t : TCONV_MAP_NONE;
}

/* The short form of a demangled name: "void ns::k<T>(int)" -> "k". Template arguments and
 * parameters are skipped by bracket depth, so "operator()" and lambdas inside them do not cut
 * the name short. */
static size_t rp_short(const char *s, size_t n, size_t *start)
{
    /* The parameters: the last top-level "(...)" at the end. */
    size_t end = n;
    int depth = 0;
    for (size_t i = n; i > 0; i--) {
        char ch = s[i - 1];
        if (ch == ')') depth++;
        if (ch == '(' && --depth == 0) {
            end = i - 1;
            break;
        }
        if (depth == 0 && ch != ' ' && ch != ')') break;
    }
    /* Back from there over template arguments to the last "::" or blank. */
    size_t i = end, b = end;
    depth = 0;
    while (i > 0) {
        char ch = s[i - 1];
        if (ch == '>')
            depth++;
        else if (ch == '<') {
            depth--;
            if (depth == 0) b = i - 1;
        } else if (depth == 0 && (ch == ' ' || ch == ':'))
            break;
        i--;
    }
    *start = i;
    return b > i ? b - i : end - i;
}

tconv_str rp_kernel_name(rp_common *c, const char *demangled, size_t len)
{
    if (c->opt.names != RP_NAMES_SHORT) return rp_intern(c, demangled, len);
    size_t start, n = rp_short(demangled, len, &start);
    if (!n) return rp_intern(c, demangled, len);
    return rp_intern(c, demangled + start, n);
}

static int rp_has(const char *s, size_t n, const char *lit)
{
    size_t m = strlen(lit);
    for (size_t i = 0; i + m <= n; i++)
        if (strncmp(s + i, lit, m) == 0) return 1;
    return 0;
}

unsigned rp_op_role(const char *type, size_t n)
{
    if (rp_has(type, n, "Kernel") || rp_has(type, n, "KERNEL")) return TCONV_ROLE_KERNEL;
    if (rp_has(type, n, "Copy") || rp_has(type, n, "COPY")) return TCONV_ROLE_MEMCPY;
    if (rp_has(type, n, "Fill") || rp_has(type, n, "FILL")) return TCONV_ROLE_MEMSET;
    return TCONV_ROLE_SYNC; /* barrier and marker packets: the queue waits */
}
