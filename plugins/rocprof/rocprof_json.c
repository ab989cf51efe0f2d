/* rocprofv3's JSON output (`rocprofv3 --output-format json`, rocprofiler-sdk-tool), streamed.
 *
 * The document is {"rocprofiler-sdk-tool": [process, ...]}, each process an object whose
 * members come in the tool's order: metadata (pid, host), agents (CPUs and GPUs), strings (the
 * names of each record kind's operations, roctx messages), kernel_symbols, then the
 * buffer_records: kernel_dispatch, hip_api, hsa_api, marker_api, rccl_api, memory_copy, ...
 * Everything a record refers to is thus known before the records, and each record becomes its
 * events when its '}' arrives: memory holds the names (agents, operations, kernels, roctx
 * messages), never the records. A record whose kernel id or agent was not described before it
 * (a document written in another order) keeps a numbered name, counted in a warning.
 *
 * Mapping: kernel dispatches on the track of their agent's queue, or HIP stream (-R by=), with
 * the correlation id of the HIP call that launched them; memory copies likewise on the GPU
 * involved; HIP calls as runtime calls, HSA calls as driver calls, RCCL calls as CPU work, on
 * the thread that made them; roctx ranges as annotations (process-wide ranges on an async
 * track), marks as instants. Times are the tool's ns. Records of other kinds (memory
 * allocations, scratch memory, page migration, PC samples, counters) are counted in a note. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "rocprof_jfast.h"
#include "rocprof_jrec.h"
#include "rocprof_reader.h"

typedef enum rp_lv {
    RP_LV_ROOT = 0, /* before the document's value */
    RP_LV_TOP,      /* the top-level object */
    RP_LV_TOOLS,    /* "rocprofiler-sdk-tool": [ */
    RP_LV_PROC,     /* one process */
    RP_LV_STRINGS,  /* "strings": { */
    RP_LV_NAMES,    /* strings.buffer_records: [ {kind, operations}, ... ] */
    RP_LV_LIST,     /* an array of records of one kind */
    RP_LV_BUFFERS,  /* "buffer_records": { kind: [records] } */
    RP_LV_RECORD,   /* inside a record */
    RP_LV_SKIP      /* a container handed over as skipped */
} rp_lv;

typedef enum rp_rec {
    RP_REC_NONE = 0,
    RP_REC_META,
    RP_REC_AGENT,
    RP_REC_NAMES,
    RP_REC_MARKER,
    RP_REC_SYMBOL,
    RP_REC_DISPATCH,
    RP_REC_API, /* hip, hsa, rccl, rocdecode, rocjpeg: calls on a thread */
    RP_REC_ROCTX,
    RP_REC_COPY,
    RP_REC_OTHER /* counted, not read */
} rp_rec;

/* The fields each kind of record is read for, by their index in its path list. */
enum { RP_M_PID, RP_M_HOST, RP_M_COMMAND };
static const char *const rp_paths_meta[] = {"pid", "node.hostname", "command", NULL};
enum { RP_A_HANDLE, RP_A_TYPE, RP_A_GPU_INDEX, RP_A_NODE, RP_A_PRODUCT, RP_A_NAME };
static const char *const rp_paths_agent[] = {
    "id.handle", "type", "logical_node_type_id", "node_id", "product_name", "name", NULL};
enum { RP_N_OPS };
static const char *const rp_paths_names[] = {"operations", NULL};
enum { RP_MK_KEY, RP_MK_VALUE };
static const char *const rp_paths_marker[] = {"key", "value", NULL};
/* In the order of -R names=demangled|short|mangled's first choice. */
enum { RP_S_ID, RP_S_FORMATTED, RP_S_TRUNCATED, RP_S_MANGLED, RP_S_DEMANGLED };
static const char *const rp_paths_symbol[] = {
    "kernel_id",   "formatted_kernel_name", "truncated_kernel_name",
    "kernel_name", "demangled_kernel_name", NULL};
/* Buffer records share their first fields. */
enum { RP_F_START, RP_F_END, RP_F_CORR, RP_F_THREAD, RP_F_KIND, RP_F_OP, RP_F_OWN };
#define RP_RECORD_PATHS                                                                            \
    "start_timestamp", "end_timestamp", "correlation_id.internal", "thread_id", "kind", "operation"
enum {
    RP_D_AGENT = RP_F_OWN,
    RP_D_QUEUE,
    RP_D_KERNEL,
    RP_D_STREAM,
    RP_D_WG,
    RP_D_GRID = RP_D_WG + 3,
    RP_D_LDS = RP_D_GRID + 3,
    RP_D_SCRATCH
};
static const char *const rp_paths_dispatch[] = {RP_RECORD_PATHS,
                                                "dispatch_info.agent_id.handle",
                                                "dispatch_info.queue_id.handle",
                                                "dispatch_info.kernel_id",
                                                "stream_id.handle",
                                                "dispatch_info.workgroup_size.x",
                                                "dispatch_info.workgroup_size.y",
                                                "dispatch_info.workgroup_size.z",
                                                "dispatch_info.grid_size.x",
                                                "dispatch_info.grid_size.y",
                                                "dispatch_info.grid_size.z",
                                                "dispatch_info.group_segment_size",
                                                "dispatch_info.private_segment_size",
                                                NULL};
static const char *const rp_paths_api[] = {RP_RECORD_PATHS, NULL};
enum { RP_C_SRC = RP_F_OWN, RP_C_DST, RP_C_BYTES, RP_C_STREAM };
static const char *const rp_paths_copy[] = {RP_RECORD_PATHS,       "src_agent_id.handle",
                                            "dst_agent_id.handle", "bytes",
                                            "stream_id.handle",    NULL};
static const char *const rp_paths_none[] = {NULL};

enum { RP_MAX_LEVELS = 64 };

typedef struct rp_json {
    rp_common *c;
    tconv_input *in;
    tconv_json_lexer *lex;
    uint8_t lv[RP_MAX_LEVELS], rec[RP_MAX_LEVELS];
    size_t nlv;
    char key[64]; /* the last key read at a structural level */
    size_t key_len;
    uint64_t tok_offset;
    rp_jrec r;
    rp_rec rec_kind; /* of the record being collected */
    rp_jwant want[RP_REC_OTHER + 1];
    tconv_str api_cat;
    int failed;
    int seen_tool;

    /* one process's tables */
    int64_t pid;
    tconv_str host, command;
    tconv_map agents; /* agent handle -> index in agent[] */
    struct rp_agent {
        int gpu;
        int64_t index; /* the GPU's number */
    } * agent;
    size_t nagents, agents_cap;
    tconv_map ops;      /* (record kind, operation) -> tconv_str */
    tconv_map kernels;  /* kernel id -> tconv_str */
    tconv_map markers;  /* correlation id -> tconv_str */
    tconv_map work;     /* (queue or stream, GPU << 2 | which) -> track (rp_work_track) */
    tconv_map dims;     /* (x | y << 32, z) -> "[x,y,z]" (rp_dim3) */
    size_t names_index; /* position in strings.buffer_records */
    int64_t kind_dispatch_warned;

    /* The fast path (rocprof_jfast.c): a template per kind of record; the input offset just
     * past the last record's '}' the lexer gave, while no token came after it (synced). By
     * offset, not by place in the bytes fed: a '}' inside a kernel name ends a feed, and the
     * lexer then lexes the rest of that string and the record's '}' from its own copy. */
    rp_jfast *fast;
    uint64_t sync_end;
    int synced;
    int fast_off; /* TCONV_ROCPROF_FAST=0: the lexer reads everything */

    uint64_t other_records;
    int list_named; /* the current list of other records is in other_kinds */
    char other_kinds[160];
    tconv_arg argv[12];
} rp_json;

static int rp_fail(rp_json *j)
{
    j->failed = 1;
    return TCONV_JSON_STOP;
}

static int rp_oom(rp_json *j)
{
    tconv_error_set(j->c->ctx, "rocprof: out of memory");
    return rp_fail(j);
}

static int rp_key_is(const rp_json *j, const char *lit)
{
    size_t n = strlen(lit);
    return j->key_len == n && memcmp(j->key, lit, n) == 0;
}

static int rp_push_lv(rp_json *j, rp_lv lv, rp_rec rec)
{
    if (j->nlv == RP_MAX_LEVELS) {
        tconv_error_at(j->c->ctx, j->c->name, j->tok_offset,
                       "nested deeper than a rocprofv3 document ever is");
        return rp_fail(j);
    }
    j->lv[j->nlv] = (uint8_t)lv;
    j->rec[j->nlv] = (uint8_t)rec;
    j->nlv++;
    return TCONV_JSON_GO;
}

static void rp_proc_reset(rp_json *j)
{
    tconv_map_free(&j->agents);
    tconv_map_free(&j->ops);
    tconv_map_free(&j->kernels);
    tconv_map_free(&j->markers);
    tconv_map_free(&j->work);
    tconv_map_free(&j->dims);
    j->nagents = 0;
    j->names_index = 0;
    j->pid = 0;
    j->host = j->command = 0;
}

/* ---- record handlers --------------------------------------------------------------------- */

/* A malformed record: skipped with a warning, or the end of the read under strict. */
static tconv_status rp_bad(rp_json *j, const char *what)
{
    rp_common *c = j->c;
    if (c->opt.strict) {
        tconv_error_at(c->ctx, c->name, j->r.offset, "%s", what);
        return TCONV_FATAL;
    }
    c->skipped++;
    tconv_warning_add(c->ctx, "rocprof.bad-record", "%s:%llu: %s; skipped", c->name,
                      (unsigned long long)j->r.offset, what);
    return TCONV_OK;
}

static tconv_str rp_field_str(rp_json *j, uint32_t path)
{
    const rp_jfield *f = rp_jrec_get(&j->r, path);
    if (!f || f->kind != TCONV_JSON_STRING || !f->len) return 0;
    return rp_intern(j->c, rp_jrec_text(&j->r, f), f->len);
}

static tconv_status rp_meta(rp_json *j)
{
    int64_t pid;
    if (rp_jrec_int(&j->r, RP_M_PID, &pid)) j->pid = pid;
    /* Given once the process has a track (rp_proc_done): a metadata event needs one, and a
     * track made for it alone would show as an empty thread. */
    j->host = rp_field_str(j, RP_M_HOST);
    j->command = rp_field_str(j, RP_M_COMMAND);
    return TCONV_OK;
}

/* The end of a process's object: its host and command line on a track it has. */
static tconv_status rp_proc_done(rp_json *j)
{
    rp_common *c = j->c;
    uint32_t track = TCONV_MAP_NONE;
    for (size_t i = 0; i < c->threads.nslots; i++) {
        const tconv_map_slot *s = &c->threads.slots[i];
        if (s->value != TCONV_MAP_NONE && (uint32_t)(s->a >> 32) == (uint32_t)j->pid &&
            (track == TCONV_MAP_NONE || s->value < track))
            track = s->value;
    }
    if (track == TCONV_MAP_NONE && c->pushed) track = c->first_track;
    if (track == TCONV_MAP_NONE) return TCONV_OK;
    tconv_event ev = TCONV_EVENT_INIT;
    ev.kind = TCONV_EV_METADATA;
    ev.track = track;
    if (j->host) {
        ev.name = c->s.host;
        ev.text = j->host;
        if (rp_push(c, &ev) == TCONV_FATAL) return TCONV_FATAL;
    }
    const tconv_track *t = tconv_track_describe(c->ctx, track);
    if (j->command && t && t->kind == TCONV_TRACK_THREAD) {
        ev.name = c->s.process_name;
        ev.text = j->command;
        if (rp_push(c, &ev) == TCONV_FATAL) return TCONV_FATAL;
    }
    return TCONV_OK;
}

static tconv_status rp_agent(rp_json *j)
{
    int64_t handle, type, index = -1;
    if (!rp_jrec_int(&j->r, RP_A_HANDLE, &handle) || !rp_jrec_int(&j->r, RP_A_TYPE, &type))
        return rp_bad(j, "an agent without its id or type");
    if (!rp_jrec_int(&j->r, RP_A_GPU_INDEX, &index) && !rp_jrec_int(&j->r, RP_A_NODE, &index))
        index = (int64_t)j->nagents;
    TCONV_ARRAY_GROW(j->agent, j->agents_cap, j->nagents + 1);
    j->agent[j->nagents] = (struct rp_agent){.gpu = type == 2, .index = index};
    tconv_map_set(&j->agents, (uint64_t)handle, 0, (uint32_t)j->nagents);
    j->nagents++;
    if (type == 2) {
        tconv_str name = rp_field_str(j, RP_A_PRODUCT);
        if (!name) name = rp_field_str(j, RP_A_NAME);
        if (name) tconv_map_set(&j->c->gpu_names, (uint64_t)index, 0, name);
    }
    return TCONV_OK;
}

/* strings.buffer_records[i]: the names of the operations of record kind i. */
static tconv_status rp_names(rp_json *j)
{
    size_t kind = j->names_index++;
    uint32_t op = 0;
    for (size_t i = 0; i < j->r.n; i++) {
        const rp_jfield *f = &j->r.f[i];
        if (f->want != RP_N_OPS || f->kind != TCONV_JSON_STRING) continue;
        tconv_map_set(&j->ops, kind, op++, rp_intern(j->c, rp_jrec_text(&j->r, f), f->len));
    }
    return TCONV_OK;
}

static tconv_status rp_marker(rp_json *j)
{
    int64_t key;
    const rp_jfield *v = rp_jrec_get(&j->r, RP_MK_VALUE);
    if (!rp_jrec_int(&j->r, RP_MK_KEY, &key) || !v || v->kind != TCONV_JSON_STRING) return TCONV_OK;
    tconv_map_set(&j->markers, (uint64_t)key, 0, rp_intern(j->c, rp_jrec_text(&j->r, v), v->len));
    return TCONV_OK;
}

static tconv_status rp_symbol(rp_json *j)
{
    int64_t id;
    if (!rp_jrec_int(&j->r, RP_S_ID, &id)) return TCONV_OK;
    static const uint32_t pref[3][4] = {
        {RP_S_FORMATTED, RP_S_DEMANGLED, RP_S_MANGLED, RP_S_TRUNCATED},
        {RP_S_TRUNCATED, RP_S_FORMATTED, RP_S_DEMANGLED, RP_S_MANGLED},
        {RP_S_MANGLED, RP_S_FORMATTED, RP_S_DEMANGLED, RP_S_TRUNCATED},
    };
    for (int i = 0; i < 4; i++) {
        const rp_jfield *f = rp_jrec_get(&j->r, pref[j->c->opt.names][i]);
        if (f && f->kind == TCONV_JSON_STRING && f->len) {
            tconv_map_set(&j->kernels, (uint64_t)id, 0,
                          rp_intern(j->c, rp_jrec_text(&j->r, f), f->len));
            break;
        }
    }
    return TCONV_OK;
}

/* A record's operation name from strings.buffer_records. */
static tconv_str rp_op_name(rp_json *j, int64_t kind, int64_t op)
{
    if (kind < 0 || op < 0 || op > UINT32_MAX) return 0;
    uint32_t s = tconv_map_get(&j->ops, (uint64_t)kind, (uint32_t)op);
    return s == TCONV_MAP_NONE ? 0 : s;
}

static tconv_str rp_numbered(rp_json *j, const char *fmt, int64_t v)
{
    int n = snprintf(j->c->buf, sizeof(j->c->buf), fmt, (long long)v);
    return rp_intern(j->c, j->c->buf, (size_t)n);
}

/* The GPU's number of an agent handle, or -1 (a CPU, or an agent not described). */
static int64_t rp_gpu_of(rp_json *j, int64_t handle)
{
    uint32_t i = tconv_map_get(&j->agents, (uint64_t)handle, 0);
    if (i == TCONV_MAP_NONE || !j->agent[i].gpu) return -1;
    return j->agent[i].index;
}

static int rp_times(rp_json *j, int64_t *start, int64_t *end)
{
    return rp_jrec_int(&j->r, RP_F_START, start) && rp_jrec_int(&j->r, RP_F_END, end) &&
           *end >= *start;
}

/* Decimal digits of v at the end of buf[0 .. end): where they begin. */
static char *rp_digits(char *end, int64_t v)
{
    uint64_t u = v < 0 ? 0 - (uint64_t)v : (uint64_t)v;
    do {
        *--end = (char)('0' + u % 10);
        u /= 10;
    } while (u);
    if (v < 0) *--end = '-';
    return end;
}

/* "[x,y,z]" of three values from path first on, each divided by divide[i] rounding up; 0 when
 * one is absent. Two a kernel dispatch, of a few shapes: each formatted and interned once. */
static tconv_str rp_dim3(rp_json *j, uint32_t first, const int64_t *divide)
{
    int64_t v[3];
    for (uint32_t i = 0; i < 3; i++) {
        if (!rp_jrec_int(&j->r, first + i, &v[i])) return 0;
        if (divide && divide[i] > 0) v[i] = (v[i] + divide[i] - 1) / divide[i];
    }
    int small = v[0] >= 0 && v[0] <= UINT32_MAX && v[1] >= 0 && v[1] <= UINT32_MAX && v[2] >= 0 &&
                v[2] < UINT32_MAX;
    uint64_t key = (uint64_t)v[0] | (uint64_t)v[1] << 32;
    if (small) {
        uint32_t s = tconv_map_get(&j->dims, key, (uint32_t)v[2]);
        if (s != TCONV_MAP_NONE) return s;
    }
    char buf[3 * 21 + 4], *end = buf + sizeof(buf), *p = end;
    *--p = ']';
    for (int i = 2; i >= 0; i--) {
        p = rp_digits(p, v[i]);
        *--p = i ? ',' : '[';
    }
    tconv_str s = rp_intern(j->c, p, (size_t)(end - p));
    if (small) tconv_map_set(&j->dims, key, (uint32_t)v[2], s);
    return s;
}

/* The track of GPU work: the agent's queue, or its HIP stream when known and asked for. Found
 * again by its numbers, not its name, once made: every kernel dispatch asks. */
static uint32_t rp_work_track(rp_json *j, int64_t gpu, int64_t queue, int has_queue, int64_t stream,
                              int has_stream)
{
    uint32_t which = has_stream && (j->c->opt.by != RP_BY_QUEUE || !has_queue) ? 0
                     : has_queue                                               ? 1
                                                                               : 2;
    uint64_t id = which == 0 ? (uint64_t)stream : which == 1 ? (uint64_t)queue : 0;
    int cached = gpu >= 0 && gpu < (1 << 29);
    uint32_t key = cached ? (uint32_t)gpu << 2 | which : 0;
    if (cached) {
        uint32_t t = tconv_map_get(&j->work, id, key);
        if (t != TCONV_MAP_NONE) return t;
    }
    tconv_str what = which == 0   ? rp_numbered(j, "stream %lld", stream)
                     : which == 1 ? rp_numbered(j, "queue %lld", queue)
                                  : rp_intern(j->c, "copy", 4);
    uint32_t t = rp_gpu(j->c, gpu, what);
    if (cached && t != TCONV_MAP_NONE) tconv_map_set(&j->work, id, key, t);
    return t;
}

static tconv_status rp_dispatch(rp_json *j)
{
    rp_common *c = j->c;
    int64_t start, end, agent, kid, queue, stream, corr = 0, tid;
    if (!rp_times(j, &start, &end)) return rp_bad(j, "a kernel dispatch without its times");
    if (!rp_jrec_int(&j->r, RP_D_AGENT, &agent))
        return rp_bad(j, "a kernel dispatch without its agent");
    int64_t gpu = rp_gpu_of(j, agent);
    if (gpu < 0) {
        tconv_warning_add(c->ctx, "rocprof.unknown-agent",
                          "%s:%llu: a record names agent %lld, which the document's agents "
                          "do not describe as a GPU; shown as GPU %lld",
                          c->name, (unsigned long long)j->r.offset, (long long)agent,
                          (long long)agent);
        gpu = agent;
    }
    int has_queue = rp_jrec_int(&j->r, RP_D_QUEUE, &queue);
    int has_stream = rp_jrec_int(&j->r, RP_D_STREAM, &stream);
    rp_jrec_int(&j->r, RP_F_CORR, &corr);
    tconv_event ev = TCONV_EVENT_INIT;
    ev.kind = TCONV_EV_COMPLETE;
    ev.ts = start;
    ev.dur = end - start;
    ev.role = TCONV_ROLE_KERNEL;
    ev.cat = c->s.kernel;
    ev.corr = corr > 0 ? (uint64_t)corr : 0;
    if (rp_jrec_int(&j->r, RP_D_KERNEL, &kid)) {
        uint32_t s = tconv_map_get(&j->kernels, (uint64_t)kid, 0);
        if (s != TCONV_MAP_NONE && s) {
            ev.name =
                c->opt.names == RP_NAMES_SHORT
                    ? rp_kernel_name(c, tconv_string_get(c->ctx, s), tconv_string_length(c->ctx, s))
                    : s;
        } else {
            ev.name = rp_numbered(j, "kernel %lld", kid);
            tconv_warning_add(c->ctx, "rocprof.unknown-kernel",
                              "%s:%llu: kernel id %lld is not among the kernel symbols before "
                              "it; named by its id",
                              c->name, (unsigned long long)j->r.offset, (long long)kid);
        }
    } else {
        ev.name = rp_intern(c, "[unknown kernel]", 16);
    }
    ev.track = rp_work_track(j, gpu, queue, has_queue, stream, has_stream);
    if (ev.track == TCONV_MAP_NONE) return TCONV_FATAL;
    uint32_t n = 0;
    if (c->args) {
        tconv_arg *a = j->argv;
        a[n++] = (tconv_arg){.key = c->s.device, .type = TCONV_ARG_INT, .v.i = gpu};
        if (has_queue) a[n++] = (tconv_arg){.key = c->s.queue, .type = TCONV_ARG_INT, .v.i = queue};
        if (has_stream)
            a[n++] = (tconv_arg){.key = c->s.stream, .type = TCONV_ARG_INT, .v.i = stream};
        if (corr > 0)
            a[n++] = (tconv_arg){.key = c->s.correlation, .type = TCONV_ARG_INT, .v.i = corr};
        /* HSA's grid counts work-items; CUDA's and Kineto's, blocks: the grid is given in
         * workgroups, as the launch asked for it. */
        int64_t wg[3] = {0, 0, 0};
        rp_jrec_int(&j->r, RP_D_WG, &wg[0]);
        rp_jrec_int(&j->r, RP_D_WG + 1, &wg[1]);
        rp_jrec_int(&j->r, RP_D_WG + 2, &wg[2]);
        tconv_str grid = rp_dim3(j, RP_D_GRID, wg);
        tconv_str block = rp_dim3(j, RP_D_WG, NULL);
        if (grid) a[n++] = (tconv_arg){.key = c->s.grid, .type = TCONV_ARG_JSON, .v.s = grid};
        if (block) a[n++] = (tconv_arg){.key = c->s.block, .type = TCONV_ARG_JSON, .v.s = block};
        int64_t v;
        if (rp_jrec_int(&j->r, RP_D_LDS, &v))
            a[n++] = (tconv_arg){.key = c->s.smem, .type = TCONV_ARG_INT, .v.i = v};
        if (rp_jrec_int(&j->r, RP_D_SCRATCH, &v))
            a[n++] = (tconv_arg){.key = c->s.scratch, .type = TCONV_ARG_INT, .v.i = v};
        if (rp_jrec_int(&j->r, RP_F_THREAD, &tid))
            a[n++] = (tconv_arg){.key = c->s.thread, .type = TCONV_ARG_INT, .v.i = tid};
    }
    ev.args = n ? j->argv : NULL;
    ev.nargs = n;
    return rp_push(c, &ev);
}

static tconv_status rp_copy(rp_json *j)
{
    rp_common *c = j->c;
    int64_t start, end, kind = -1, op = -1, src = -1, dst = -1, corr = 0, bytes, stream;
    if (!rp_times(j, &start, &end)) return rp_bad(j, "a memory copy without its times");
    rp_jrec_int(&j->r, RP_F_KIND, &kind);
    rp_jrec_int(&j->r, RP_F_OP, &op);
    rp_jrec_int(&j->r, RP_C_SRC, &src);
    rp_jrec_int(&j->r, RP_C_DST, &dst);
    rp_jrec_int(&j->r, RP_F_CORR, &corr);
    int64_t gpu = rp_gpu_of(j, dst);
    if (gpu < 0) gpu = rp_gpu_of(j, src);
    if (gpu < 0) return rp_bad(j, "a memory copy between agents that are not GPUs");
    int has_stream = rp_jrec_int(&j->r, RP_C_STREAM, &stream);
    tconv_event ev = TCONV_EVENT_INIT;
    ev.kind = TCONV_EV_COMPLETE;
    ev.ts = start;
    ev.dur = end - start;
    ev.role = TCONV_ROLE_MEMCPY;
    ev.cat = c->s.memcpy;
    ev.corr = corr > 0 ? (uint64_t)corr : 0;
    ev.name = rp_op_name(j, kind, op);
    if (!ev.name) ev.name = rp_intern(c, "MEMORY_COPY", 11);
    ev.track = rp_work_track(j, gpu, 0, 0, stream, has_stream);
    if (ev.track == TCONV_MAP_NONE) return TCONV_FATAL;
    uint32_t n = 0;
    if (c->args) {
        tconv_arg *a = j->argv;
        a[n++] = (tconv_arg){.key = c->s.device, .type = TCONV_ARG_INT, .v.i = gpu};
        if (has_stream)
            a[n++] = (tconv_arg){.key = c->s.stream, .type = TCONV_ARG_INT, .v.i = stream};
        if (corr > 0)
            a[n++] = (tconv_arg){.key = c->s.correlation, .type = TCONV_ARG_INT, .v.i = corr};
        if (rp_jrec_int(&j->r, RP_C_BYTES, &bytes))
            a[n++] = (tconv_arg){.key = c->s.bytes, .type = TCONV_ARG_INT, .v.i = bytes};
    }
    ev.args = n ? j->argv : NULL;
    ev.nargs = n;
    return rp_push(c, &ev);
}

/* HIP, HSA, RCCL (and rocDecode, rocJPEG) calls, and roctx ranges and marks. */
static tconv_status rp_api(rp_json *j, rp_rec rec)
{
    rp_common *c = j->c;
    int64_t start, end, kind = -1, op = -1, corr = 0, tid;
    if (!rp_times(j, &start, &end)) return rp_bad(j, "an API call without its times");
    if (!rp_jrec_int(&j->r, RP_F_THREAD, &tid)) return rp_bad(j, "an API call without its thread");
    rp_jrec_int(&j->r, RP_F_KIND, &kind);
    rp_jrec_int(&j->r, RP_F_OP, &op);
    rp_jrec_int(&j->r, RP_F_CORR, &corr);
    tconv_event ev = TCONV_EVENT_INIT;
    ev.kind = TCONV_EV_COMPLETE;
    ev.ts = start;
    ev.dur = end - start;
    ev.track = rp_thread(c, j->pid, tid);
    tconv_str op_name = rp_op_name(j, kind, op);
    if (rec == RP_REC_ROCTX) {
        uint32_t msg = corr > 0 ? tconv_map_get(&j->markers, (uint64_t)corr, 0) : TCONV_MAP_NONE;
        ev.name = msg != TCONV_MAP_NONE ? msg : op_name;
        ev.cat = c->s.roctx;
        ev.role = TCONV_ROLE_ANNOTATION;
        const char *o = op_name ? tconv_string_get(c->ctx, op_name) : "";
        if (strstr(o, "Mark")) {
            ev.kind = TCONV_EV_INSTANT;
            ev.dur = 0;
            ev.role = 0;
        } else if (strstr(o, "RangeStart") || strstr(o, "ProcessRange")) {
            /* Process-wide ranges overlap freely: an async track, as NVTX start/end. */
            ev.track = rp_async(c, j->pid);
            ev.flags = TCONV_EVF_ASYNC;
            ev.role = TCONV_ROLE_ASYNC;
            ev.id = (uint64_t)corr;
        }
    } else {
        ev.name = op_name;
        ev.cat = j->api_cat;
        ev.role = j->api_cat == c->s.hip   ? TCONV_ROLE_RUNTIME
                  : j->api_cat == c->s.hsa ? TCONV_ROLE_DRIVER
                                           : TCONV_ROLE_CPU;
        ev.corr = corr > 0 ? (uint64_t)corr : 0;
    }
    if (!ev.name) ev.name = rp_numbered(j, "operation %lld", op);
    uint32_t n = 0;
    if (c->args && corr > 0)
        j->argv[n++] = (tconv_arg){.key = c->s.correlation, .type = TCONV_ARG_INT, .v.i = corr};
    ev.args = n ? j->argv : NULL;
    ev.nargs = n;
    return rp_push(c, &ev);
}

static tconv_status rp_record(rp_json *j)
{
    switch (j->rec_kind) {
    case RP_REC_META:
        return rp_meta(j);
    case RP_REC_AGENT:
        return rp_agent(j);
    case RP_REC_NAMES:
        return rp_names(j);
    case RP_REC_MARKER:
        return rp_marker(j);
    case RP_REC_SYMBOL:
        return rp_symbol(j);
    case RP_REC_DISPATCH:
        return rp_dispatch(j);
    case RP_REC_COPY:
        return rp_copy(j);
    case RP_REC_API:
    case RP_REC_ROCTX:
        return rp_api(j, j->rec_kind);
    default:
        return TCONV_OK;
    }
}

/* ---- the walk ---------------------------------------------------------------------------- */

/* The kind of records in buffer_records.<key>, and the category of its calls. */
static rp_rec rp_buffer_kind(rp_json *j)
{
    rp_common *c = j->c;
    if (rp_key_is(j, "kernel_dispatch")) return RP_REC_DISPATCH;
    if (rp_key_is(j, "memory_copy")) return RP_REC_COPY;
    if (rp_key_is(j, "marker_api")) return RP_REC_ROCTX;
    if (rp_key_is(j, "hip_api")) {
        j->api_cat = c->s.hip;
        return RP_REC_API;
    }
    if (rp_key_is(j, "hsa_api")) {
        j->api_cat = c->s.hsa;
        return RP_REC_API;
    }
    if (rp_key_is(j, "rccl_api") || rp_key_is(j, "rocdecode_api") || rp_key_is(j, "rocjpeg_api")) {
        j->api_cat = rp_intern(c, j->key, j->key_len);
        return RP_REC_API;
    }
    return RP_REC_OTHER;
}

static int rp_tok_begin(void *user, const tconv_json_token *t)
{
    rp_json *j = user;
    j->tok_offset = t->offset;
    j->synced = 0;
    int obj = t->kind == TCONV_JSON_OBJECT_BEGIN;
    rp_lv lv = (rp_lv)j->lv[j->nlv - 1];
    switch (lv) {
    case RP_LV_RECORD: {
        int wanted = rp_jrec_begin(&j->r);
        int st = rp_push_lv(j, RP_LV_RECORD, RP_REC_NONE);
        return st == TCONV_JSON_GO && !wanted ? TCONV_JSON_SKIP : st;
    }
    case RP_LV_ROOT:
        if (!obj) {
            tconv_error_at(j->c->ctx, j->c->name, t->offset,
                           "not a rocprofv3 JSON document: it is an array, not an object with "
                           "\"rocprofiler-sdk-tool\"");
            tconv_error_hint(j->c->ctx, "rocprof v1 and Kineto write Chrome trace JSON: read "
                                        "it with -r chrome");
            return rp_fail(j);
        }
        return rp_push_lv(j, RP_LV_TOP, RP_REC_NONE);
    case RP_LV_TOP:
        if (!obj && rp_key_is(j, "rocprofiler-sdk-tool")) {
            j->seen_tool = 1;
            return rp_push_lv(j, RP_LV_TOOLS, RP_REC_NONE);
        }
        break;
    case RP_LV_TOOLS:
        if (obj) {
            rp_proc_reset(j);
            return rp_push_lv(j, RP_LV_PROC, RP_REC_NONE);
        }
        break;
    case RP_LV_PROC:
        if (obj && rp_key_is(j, "metadata")) {
            j->rec_kind = RP_REC_META;
            rp_jrec_reset(&j->r, t->offset, &j->want[RP_REC_META]);
            return rp_push_lv(j, RP_LV_RECORD, RP_REC_META);
        }
        if (obj && rp_key_is(j, "strings")) return rp_push_lv(j, RP_LV_STRINGS, RP_REC_NONE);
        if (obj && rp_key_is(j, "buffer_records")) return rp_push_lv(j, RP_LV_BUFFERS, RP_REC_NONE);
        if (!obj && rp_key_is(j, "agents")) return rp_push_lv(j, RP_LV_LIST, RP_REC_AGENT);
        if (!obj && rp_key_is(j, "kernel_symbols")) return rp_push_lv(j, RP_LV_LIST, RP_REC_SYMBOL);
        break;
    case RP_LV_STRINGS:
        if (!obj && rp_key_is(j, "buffer_records")) return rp_push_lv(j, RP_LV_LIST, RP_REC_NAMES);
        if (!obj && rp_key_is(j, "marker_api")) return rp_push_lv(j, RP_LV_LIST, RP_REC_MARKER);
        break;
    case RP_LV_BUFFERS:
        if (!obj) {
            j->list_named = 0;
            return rp_push_lv(j, RP_LV_LIST, rp_buffer_kind(j));
        }
        break;
    case RP_LV_LIST: {
        rp_rec k = (rp_rec)j->rec[j->nlv - 1];
        if (!obj) break;
        if (k == RP_REC_OTHER) {
            /* Named once, at the list's first record (the key is still the list's). */
            size_t used = strlen(j->other_kinds);
            if (!j->list_named && used + j->key_len + 3 < sizeof(j->other_kinds))
                snprintf(j->other_kinds + used, sizeof(j->other_kinds) - used, "%s%.*s",
                         used ? ", " : "", (int)j->key_len, j->key);
            j->list_named = 1;
            j->other_records++;
            break;
        }
        j->rec_kind = k;
        rp_jrec_reset(&j->r, t->offset, &j->want[k]);
        return rp_push_lv(j, RP_LV_RECORD, k);
    }
    default:
        break;
    }
    int st = rp_push_lv(j, RP_LV_SKIP, RP_REC_NONE);
    return st == TCONV_JSON_GO ? TCONV_JSON_SKIP : st;
}

static int rp_tok_end(void *user, const tconv_json_token *t)
{
    rp_json *j = user;
    j->tok_offset = t->offset;
    j->synced = 0;
    if (j->nlv <= 1) return TCONV_JSON_GO;
    rp_lv lv = (rp_lv)j->lv[--j->nlv];
    if (lv == RP_LV_PROC) return rp_proc_done(j) == TCONV_FATAL ? rp_fail(j) : TCONV_JSON_GO;
    if (lv != RP_LV_RECORD) return TCONV_JSON_GO;
    if ((rp_lv)j->lv[j->nlv - 1] == RP_LV_RECORD) {
        rp_jrec_end(&j->r);
        return TCONV_JSON_GO;
    }
    /* The record's own '}'. */
    tconv_status st = rp_record(j);
    if (st == TCONV_FATAL) return rp_fail(j);
    j->synced = 1;
    j->sync_end = t->end;
    return TCONV_JSON_GO;
}

static int rp_tok_key(void *user, const tconv_json_token *t)
{
    rp_json *j = user;
    j->synced = 0;
    if ((rp_lv)j->lv[j->nlv - 1] == RP_LV_RECORD) {
        rp_jrec_key(&j->r, t->text, t->len);
        return TCONV_JSON_GO;
    }
    j->key_len = t->len < sizeof(j->key) ? t->len : sizeof(j->key) - 1;
    memcpy(j->key, t->text, j->key_len);
    j->key[j->key_len] = '\0';
    return TCONV_JSON_GO;
}

static int rp_tok_scalar(void *user, const tconv_json_token *t)
{
    rp_json *j = user;
    j->tok_offset = t->offset;
    j->synced = 0;
    rp_lv lv = (rp_lv)j->lv[j->nlv - 1];
    if (lv == RP_LV_RECORD) return rp_jrec_scalar(&j->r, t) == 0 ? TCONV_JSON_GO : rp_oom(j);
    if (lv == RP_LV_ROOT) {
        tconv_error_at(j->c->ctx, j->c->name, t->offset,
                       "not a rocprofv3 JSON document: a lone value, not an object");
        return rp_fail(j);
    }
    return TCONV_JSON_GO;
}

/* ---- the fast path ------------------------------------------------------------------------ */

/* Kinds of records the fast path reads: the many, of scalars only. */
static int rp_fast_kind(rp_rec k)
{
    return k == RP_REC_SYMBOL || k == RP_REC_DISPATCH || k == RP_REC_API || k == RP_REC_ROCTX ||
           k == RP_REC_COPY || k == RP_REC_MARKER;
}

/* Is the lexer in a list of records the fast path reads (between them or inside one)? */
static int rp_in_fast_list(const rp_json *j)
{
    for (size_t i = j->nlv; i-- > 0;) {
        if (j->lv[i] == RP_LV_LIST) return rp_fast_kind((rp_rec)j->rec[i]);
        if (j->lv[i] != RP_LV_RECORD) return 0;
    }
    return 0;
}

/* The records from buf + pos on (just past a record's '}') that the fast path takes, each
 * handled as its '}' would be: past the last one taken. j->failed on a fatal push. */
static size_t rp_fast_run(rp_json *j, const unsigned char *buf, size_t pos, size_t len,
                          uint64_t base)
{
    rp_rec k = (rp_rec)j->rec[j->nlv - 1];
    if (j->lv[j->nlv - 1] != RP_LV_LIST || !rp_fast_kind(k)) return pos;
    rp_jfast *t = &j->fast[k];
    const unsigned char *end = buf + len;
    for (;;) {
        const unsigned char *p = rp_jfast_next(buf + pos, end);
        if (!p) break;
        j->rec_kind = k;
        rp_jrec_reset(&j->r, base + (uint64_t)(p - buf), &j->want[k]);
        const unsigned char *e = rp_jfast_record(t, &j->r, p, end, buf);
        if (!e) break;
        j->tok_offset = base + (uint64_t)(e - buf) - 1;
        if (rp_record(j) == TCONV_FATAL) {
            j->failed = 1;
            break;
        }
        pos = (size_t)(e - buf);
    }
    return pos;
}

/* Feed buf (input offsets base on) to the lexer, the fast path reading on wherever the lexer
 * stands just past a record's '}' in a list it reads: in such a list the lexer is fed up to
 * each '}' (the end of a record, perhaps), elsewhere up to each '[' (the start of such a list,
 * perhaps). 0, or -1 with the error set or the lexer's error. */
static int rp_feed(rp_json *j, const unsigned char *buf, size_t len, uint64_t base)
{
    size_t pos = 0;
    while (pos < len) {
        size_t stop = len;
        if (!j->fast_off && rp_in_fast_list(j)) {
            if (j->synced && j->sync_end == base + pos) {
                size_t m = rp_fast_run(j, buf, pos, len, base);
                if (j->failed) return -1;
                if (m > pos) {
                    pos = m;
                    tconv_json_set_offset(j->lex, base + pos);
                    j->sync_end = base + pos;
                    if (pos == len) break;
                }
            }
            const unsigned char *c = memchr(buf + pos, '}', len - pos);
            if (c) stop = (size_t)(c - buf) + 1;
        } else if (!j->fast_off) {
            /* Up to the next '[', which may open a list of records. */
            const unsigned char *c = memchr(buf + pos, '[', len - pos);
            if (c) stop = (size_t)(c - buf) + 1;
        }
        if (tconv_json_feed(j->lex, buf + pos, stop - pos)) return -1;
        pos = stop;
    }
    return 0;
}

static void rp_json_error(rp_json *j, const tconv_json_error *e)
{
    rp_common *c = j->c;
    if (e->code == TCONV_JSON_ERR_STOPPED && tconv_error_pending(c->ctx)) return;
    if (e->code == TCONV_JSON_ERR_NOMEM) {
        tconv_error_set(c->ctx, "rocprof: out of memory");
        return;
    }
    if (e->code == TCONV_JSON_ERR_TRUNCATED)
        tconv_error_at(c->ctx, c->name, e->offset,
                       "the JSON document ends inside its value (%s): the file was cut short",
                       e->message);
    else
        tconv_error_at(c->ctx, c->name, e->offset, "%s", e->message);
}

tconv_status rp_json_read(rp_common *c, tconv_input *in)
{
    rp_json *j = calloc(1, sizeof(*j));
    if (!j) {
        tconv_error_set(c->ctx, "rocprof: out of memory");
        return TCONV_FATAL;
    }
    j->c = c;
    j->in = in;
    j->nlv = 1;
    j->lv[0] = RP_LV_ROOT;
    static const char *const *const paths[RP_REC_OTHER + 1] = {
        [RP_REC_NONE] = rp_paths_none,         [RP_REC_META] = rp_paths_meta,
        [RP_REC_AGENT] = rp_paths_agent,       [RP_REC_NAMES] = rp_paths_names,
        [RP_REC_MARKER] = rp_paths_marker,     [RP_REC_SYMBOL] = rp_paths_symbol,
        [RP_REC_DISPATCH] = rp_paths_dispatch, [RP_REC_API] = rp_paths_api,
        [RP_REC_ROCTX] = rp_paths_api,         [RP_REC_COPY] = rp_paths_copy,
        [RP_REC_OTHER] = rp_paths_none};
    for (int k = 0; k <= RP_REC_OTHER; k++)
        rp_jwant_init(&j->want[k], paths[k]);
    static const tconv_json_callbacks cb = {
        .begin = rp_tok_begin, .end = rp_tok_end, .key = rp_tok_key, .scalar = rp_tok_scalar};
    j->lex = tconv_json_new(&cb, j, 0);
    tconv_status st = TCONV_FATAL;
    if (!j->lex) {
        tconv_error_set(c->ctx, "rocprof: out of memory");
        goto out;
    }
    const char *fast = getenv("TCONV_ROCPROF_FAST");
    j->fast_off = fast && strcmp(fast, "0") == 0;
    j->fast = j->fast_off ? NULL : calloc(RP_REC_OTHER + 1, sizeof(*j->fast));
    if (!j->fast_off && !j->fast) {
        tconv_error_set(c->ctx, "rocprof: out of memory");
        goto out;
    }
    ssize_t n;
    int bad = 0;
    uint64_t fed = 0;
    const void *piece;
    while ((n = tconv_input_view(in, &piece, 1 << 18)) > 0) {
        if (rp_feed(j, piece, (size_t)n, fed) != 0) {
            bad = 1;
            break;
        }
        fed += (uint64_t)n;
    }
    if (n < 0) goto out;
    if (bad && j->failed && !tconv_json_error_get(j->lex)->code) goto out;
    if (!bad && tconv_json_end(j->lex) != 0) bad = 1;
    if (bad) {
        rp_json_error(j, tconv_json_error_get(j->lex));
        goto out;
    }
    if (!j->seen_tool) {
        tconv_error_set(c->ctx,
                        "%s: a JSON object without \"rocprofiler-sdk-tool\": not "
                        "rocprofv3 output",
                        c->name);
        tconv_error_hint(c->ctx, "rocprofv3 --output-format json writes it; Chrome trace JSON "
                                 "(rocprof v1, Kineto) is read with -r chrome");
        goto out;
    }
    if (j->other_records)
        tconv_note_show(c->ctx,
                        "%s: %llu records of kinds this reader does not map left out "
                        "(%s)",
                        c->name, (unsigned long long)j->other_records, j->other_kinds);
    st = TCONV_OK;
out:
    tconv_json_free(j->lex);
    rp_jrec_free(&j->r);
    rp_proc_reset(j);
    free(j->agent);
    free(j->fast);
    free(j);
    return st;
}
