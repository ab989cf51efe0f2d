/* Names: StringIds, the labels of enum values, and the strings the reader interns once.
 *
 * StringIds holds every string of the export (kernel and function names, modules, thread
 * names), often far more than a conversion uses. Each id is looked up by its primary key the
 * first time an event names it and kept as an interned string in a map, so memory follows the
 * distinct strings used, not the table. Enum labels come from the export's ENUM_* tables (3.x)
 * or, in 2.9 exports that have none, from CUPTI's values, which the labels describe. */
#include <stdio.h>
#include <string.h>

#include "nsys_reader.h"

tconv_str nsys_intern(nsys_reader *r, const char *s)
{
    return tconv_string_intern_cstr(r->ctx, s);
}

tconv_str nsys_string(nsys_reader *r, int64_t id)
{
    if (!r->str_st || id < 0 || id > UINT32_MAX) return 0;
    uint32_t v = tconv_map_get(&r->strs, (uint64_t)id, 0);
    if (v != TCONV_MAP_NONE) return v;
    tconv_str s = 0;
    sqlite3_bind_int64(r->str_st, 1, id);
    if (sqlin_step(&r->d, r->str_st, "StringIds") == SQLITE_ROW) {
        size_t len;
        const char *t = sqlin_text(&r->d, r->str_st, 0, &len);
        if (t) s = tconv_string_intern(r->ctx, t, len);
    }
    sqlite3_reset(r->str_st);
    /* A failed lookup is not remembered as a missing string: the read ends there. */
    if (!r->d.failed) tconv_map_set(&r->strs, (uint64_t)id, 0, s);
    return s;
}

tconv_str nsys_api_name(nsys_reader *r, int64_t id)
{
    /* The "_v" map key keeps the stripped form apart from the raw one. */
    if (id < 0 || id > UINT32_MAX) return 0;
    uint32_t v = tconv_map_get(&r->strs, (uint64_t)id, 1);
    if (v != TCONV_MAP_NONE) return v;
    tconv_str raw = nsys_string(r, id);
    const char *s = tconv_string_get(r->ctx, raw);
    size_t n = tconv_string_length(r->ctx, raw), i = n;
    while (i > 0 && s[i - 1] >= '0' && s[i - 1] <= '9')
        i--;
    tconv_str out = raw;
    if (i < n && i >= 3 && s[i - 1] == 'v' && s[i - 2] == '_')
        out = tconv_string_intern(r->ctx, s, i - 2);
    tconv_map_set(&r->strs, (uint64_t)id, 1, out);
    return out;
}

/* Fill labels[0..n) from ENUM table (id, label), else from the fallback list. */
static void nsys_enum(nsys_reader *r, const char *table, tconv_str *labels, size_t n,
                      const char *const *fallback, size_t nfallback)
{
    for (size_t i = 0; i < n; i++)
        labels[i] = i < nfallback ? nsys_intern(r, fallback[i]) : 0;
    if (!sqlin_has_column(&r->d, table, "label")) return;
    char sql[128];
    snprintf(sql, sizeof(sql), "SELECT id, label FROM \"%s\"", table);
    sqlite3_stmt *st = sqlin_prepare_opt(&r->d, table, sql);
    if (!st) return;
    while (sqlin_step(&r->d, st, table) == SQLITE_ROW) {
        int ok;
        int64_t id = sqlin_int(st, 0, &ok);
        const char *t = sqlin_text(&r->d, st, 1, NULL);
        if (ok && t && id >= 0 && (uint64_t)id < n) labels[id] = nsys_intern(r, t);
    }
    sqlite3_finalize(st);
}

/* The id of an ENUM_NSYS_EVENT_CLASS name, or the value it has had since 2.9. */
static int64_t nsys_event_class(nsys_reader *r, const char *name, int64_t fallback)
{
    static const char table[] = "ENUM_NSYS_EVENT_CLASS";
    int64_t v = fallback;
    sqlite3_stmt *st =
        sqlin_has_table(&r->d, table)
            ? sqlin_prepare_opt(&r->d, table,
                                "SELECT id FROM ENUM_NSYS_EVENT_CLASS WHERE name = ?1")
            : NULL;
    if (!st) return v;
    sqlite3_bind_text(st, 1, name, -1, SQLITE_STATIC);
    int ok;
    if (sqlin_step(&r->d, st, table) == SQLITE_ROW) {
        int64_t id = sqlin_int(st, 0, &ok);
        if (ok) v = id;
    }
    sqlite3_finalize(st);
    return v;
}

int nsys_names_init(nsys_reader *r)
{
    if (sqlin_has_table(&r->d, "StringIds")) {
        r->str_st = sqlin_prepare(&r->d, "StringIds", "SELECT value FROM StringIds WHERE id = ?1");
        if (!r->str_st) return -1;
    }
    static const char *const memcpy_kinds[] = {"Unknown",
                                               "Host-to-Device",
                                               "Device-to-Host",
                                               "Host-to-Array",
                                               "Array-to-Host",
                                               "Array-to-Array",
                                               "Array-to-Device",
                                               "Device-to-Array",
                                               "Device-to-Device",
                                               "Host-to-Host",
                                               "Peer-to-Peer",
                                               "Unified Host-to-Device",
                                               "Unified Device-to-Host",
                                               "Unified Device-to-Device"};
    /* nsys's own numbering (CUDA_MEMOPR_MEMORY_KIND), not CUPTI's: 2.9 exports use it too. */
    static const char *const mem_kinds[] = {"Pageable",       "Pinned",  "Device",
                                            "Array",          "Managed", "Device Static",
                                            "Managed Static", "Unknown"};
    static const char *const sync_kinds[] = {"Unknown", "Event sync", "Stream wait sync",
                                             "Stream sync", "Context sync"};
#define NSYS_N(a) (sizeof(a) / sizeof((a)[0]))
    nsys_enum(r, "ENUM_CUDA_MEMCPY_OPER", r->memcpy_kind, NSYS_N(r->memcpy_kind), memcpy_kinds,
              NSYS_N(memcpy_kinds));
    nsys_enum(r, "ENUM_CUDA_MEM_KIND", r->mem_kind, NSYS_N(r->mem_kind), mem_kinds,
              NSYS_N(mem_kinds));
    nsys_enum(r, "ENUM_CUPTI_SYNC_TYPE", r->sync_kind, NSYS_N(r->sync_kind), sync_kinds,
              NSYS_N(sync_kinds));
#undef NSYS_N
    r->backtrace_class = nsys_event_class(r, "TRACE_PROCESS_EVENT_CUDABACKTRACE", 67);
    r->driver_class = nsys_event_class(r, "TRACE_PROCESS_EVENT_CUDA_DRIVER", 1);

    struct {
        tconv_str *id;
        const char *s;
    } k[] = {
        {&r->s.process_name, "process_name"},
        {&r->s.thread_name, "thread_name"},
        {&r->s.host, "host"},
        {&r->s.rank, "rank"},
        {&r->s.base_time, "baseTimeNanoseconds"},
        {&r->s.kernel, "kernel"},
        {&r->s.memcpy, "gpu_memcpy"},
        {&r->s.memset, "gpu_memset"},
        {&r->s.sync, "cuda_sync"},
        {&r->s.graph, "cuda_graph"},
        {&r->s.runtime, "cuda_runtime"},
        {&r->s.driver, "cuda_driver"},
        {&r->s.osrt, "osrt"},
        {&r->s.cudnn, "cudnn"},
        {&r->s.cublas, "cublas"},
        {&r->s.overhead, "overhead"},
        {&r->s.nvtx, "NVTX"},
        {&r->s.memory, "memory"},
        {&r->s.bytes, "bytes"},
        {&r->s.allocated, "allocated bytes"},
        {&r->s.wddm_usage, "WDDM memory usage"},
        {&r->s.device, "device"},
        {&r->s.context, "context"},
        {&r->s.stream, "stream"},
        {&r->s.correlation, "correlation"},
        {&r->s.grid, "grid"},
        {&r->s.block, "block"},
        {&r->s.regs, "registers per thread"},
        {&r->s.smem, "shared memory"},
        {&r->s.smem_static, "static shared memory"},
        {&r->s.smem_dynamic, "dynamic shared memory"},
        {&r->s.copy_kind, "copy kind"},
        {&r->s.src_kind, "source memory"},
        {&r->s.dst_kind, "destination memory"},
        {&r->s.bandwidth, "memory bandwidth (GB/s)"},
        {&r->s.value, "value"},
        {&r->s.payload, "payload"},
        {&r->s.json, "json payload"},
        {&r->s.category, "category"},
        {&r->s.ret, "return value"},
        {&r->s.graph_id, "graph"},
        {&r->s.graph_exec, "graph exec"},
        {&r->s.launch_type, "launch type"},
        {&r->s.memset_name, "[CUDA memset]"},
    };
    for (size_t i = 0; i < sizeof(k) / sizeof(k[0]); i++)
        *k[i].id = nsys_intern(r, k[i].s);
    return r->d.failed ? -1 : 0;
}

void nsys_names_free(nsys_reader *r)
{
    sqlite3_finalize(r->str_st);
    r->str_st = NULL;
    tconv_map_free(&r->strs);
}
