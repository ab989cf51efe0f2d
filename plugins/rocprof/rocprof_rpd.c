/* rpd_tracer's SQLite database (rocmProfileData, rocpd schema 2): API calls in rocpd_api, GPU
 * operations in rocpd_op, linked by rocpd_api_ops, names in rocpd_string, launch details in
 * rocpd_kernelapi and rocpd_copyapi, clocks and the like in rocpd_monitor.
 *
 * Read like the nsys reader reads its tables: each source by start, merged, one row at a time;
 * strings are looked up by id the first time a row names them. An op's correlation id is the
 * id of the API call that enqueued it (rocpd_api_ops), and every API call carries its own id,
 * so GPU attribution puts an op under its hipLaunchKernel. rpd_tracer's own work (its
 * writeRows and activity callbacks) is overhead; roctx ranges ("UserMarker", the message in
 * args) are annotations, marks instants. rocprofiler-sdk's newer rocpd databases (rocpd_info_*
 * tables) are a different schema, refused with a message. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "rocprof_reader.h"
#include "../nsys/sqlin.h"

enum { RPD_API = 0, RPD_OP, RPD_MONITOR, RPD_NSRC };

typedef struct rpd_cursor {
    const char *table;
    sqlite3_stmt *st;
    int64_t start;
    int has_row;
    uint64_t rows;
} rpd_cursor;

typedef struct rpd_reader {
    rp_common *c;
    sqlin_db d;
    sqlite3_stmt *str_st;
    tconv_map strs;
    rpd_cursor cur[RPD_NSRC];
    tconv_str user_marker, writer_mark, activity_cb;
    tconv_arg argv[12];
} rpd_reader;

static tconv_str rpd_string(rpd_reader *r, int64_t id)
{
    if (id < 0 || id > UINT32_MAX) return 0;
    uint32_t v = tconv_map_get(&r->strs, (uint64_t)id, 0);
    if (v != TCONV_MAP_NONE) return v;
    tconv_str s = 0;
    sqlite3_bind_int64(r->str_st, 1, id);
    if (sqlin_step(&r->d, r->str_st, "rocpd_string") == SQLITE_ROW) {
        size_t len;
        const char *t = sqlin_text(&r->d, r->str_st, 0, &len);
        if (t) s = rp_intern(r->c, t, len);
    }
    sqlite3_reset(r->str_st);
    /* A failed lookup is not remembered as a missing string: the read ends there. */
    if (!r->d.failed) tconv_map_set(&r->strs, (uint64_t)id, 0, s);
    return s;
}

static int rpd_next(rpd_reader *r, rpd_cursor *cur)
{
    int rc = sqlin_step(&r->d, cur->st, cur->table);
    if (rc < 0) return -1;
    cur->has_row = rc == SQLITE_ROW;
    if (!cur->has_row) return 0;
    cur->rows++;
    int ok;
    cur->start = sqlin_int(cur->st, 0, &ok);
    if (!ok) cur->start = INT64_MIN;
    return 0;
}

static int rpd_open(rpd_reader *r, int src, const char *table, const char *sql)
{
    rpd_cursor *cur = &r->cur[src];
    cur->table = table;
    cur->st = sqlin_prepare(&r->d, table, sql);
    if (!cur->st) return -1;
    return rpd_next(r, cur);
}

static tconv_status rpd_bad(rpd_reader *r, rpd_cursor *cur, const char *what)
{
    rp_common *c = r->c;
    long long id = sqlite3_column_int64(cur->st, sqlite3_column_count(cur->st) - 1);
    if (c->opt.strict) {
        tconv_error_set(c->ctx, "%s: table %s, id %lld: %s", c->name, cur->table, id, what);
        return TCONV_FATAL;
    }
    c->skipped++;
    tconv_warning_add(c->ctx, "rocprof.bad-row", "%s: table %s, id %lld: %s; skipped", c->name,
                      cur->table, id, what);
    return TCONV_OK;
}

/* rocpd_api: start, end, pid, tid, apiName_id, args_id, id */
static tconv_status rpd_api(rpd_reader *r, rpd_cursor *cur)
{
    rp_common *c = r->c;
    sqlite3_stmt *st = cur->st;
    int ok[4];
    int64_t end = sqlin_int(st, 1, &ok[0]), pid = sqlin_int(st, 2, &ok[1]),
            tid = sqlin_int(st, 3, &ok[2]), id = sqlin_int(st, 6, &ok[3]);
    if (cur->start == INT64_MIN || !ok[0] || !ok[1] || !ok[2] || end < cur->start)
        return rpd_bad(r, cur, "an API call without its start, end, process or thread");
    tconv_str name = rpd_string(r, sqlin_int(st, 4, NULL));
    tconv_str args = rpd_string(r, sqlin_int(st, 5, NULL));
    tconv_event ev = TCONV_EVENT_INIT;
    ev.kind = TCONV_EV_COMPLETE;
    ev.track = rp_thread(c, pid, tid);
    ev.ts = cur->start;
    ev.dur = end - cur->start;
    const char *n = tconv_string_get(c->ctx, name);
    if (name == r->user_marker) {
        ev.name = args ? args : name;
        ev.cat = c->s.roctx;
        ev.role = TCONV_ROLE_ANNOTATION;
        if (ev.dur == 0) {
            ev.kind = TCONV_EV_INSTANT;
            ev.role = 0;
        }
        return rp_push(c, &ev);
    }
    ev.name = name;
    if (name == r->activity_cb || strstr(n, "::writeRows")) {
        ev.cat = c->s.overhead;
        ev.role = TCONV_ROLE_OVERHEAD;
    } else if (strncmp(n, "hip", 3) == 0) {
        ev.cat = c->s.hip;
        ev.role = TCONV_ROLE_RUNTIME;
    } else if (strncmp(n, "hsa_", 4) == 0) {
        ev.cat = c->s.hsa;
        ev.role = TCONV_ROLE_DRIVER;
    } else {
        ev.cat = c->s.api;
        ev.role = TCONV_ROLE_CPU;
    }
    if (ok[3] && id > 0 && ev.role != TCONV_ROLE_OVERHEAD) ev.corr = (uint64_t)id;
    uint32_t na = 0;
    if (c->args) {
        if (ev.corr)
            r->argv[na++] = (tconv_arg){.key = c->s.correlation, .type = TCONV_ARG_INT, .v.i = id};
        if (args)
            r->argv[na++] = (tconv_arg){.key = c->s.args, .type = TCONV_ARG_STRING, .v.s = args};
    }
    ev.args = na ? r->argv : NULL;
    ev.nargs = na;
    return rp_push(c, &ev);
}

/* rocpd_op with its API call's launch details: start, end, gpuId, queueId, description_id,
 * opType_id, api_id, kernel stream, grid x y z, workgroup x y z, group segment, private
 * segment, copy stream, copy size, id */
enum {
    RPD_O_END = 1,
    RPD_O_GPU,
    RPD_O_QUEUE,
    RPD_O_DESC,
    RPD_O_TYPE,
    RPD_O_API,
    RPD_O_KSTREAM,
    RPD_O_GRID,
    RPD_O_WG = RPD_O_GRID + 3,
    RPD_O_LDS = RPD_O_WG + 3,
    RPD_O_SCRATCH,
    RPD_O_CSTREAM,
    RPD_O_SIZE,
    RPD_O_ID
};

static tconv_str rpd_dim3(rpd_reader *r, sqlite3_stmt *st, int col)
{
    int ok[3];
    int64_t v[3];
    for (int i = 0; i < 3; i++)
        v[i] = sqlin_int(st, col + i, &ok[i]);
    if (!ok[0] || !ok[1] || !ok[2]) return 0;
    int n = snprintf(r->c->buf, sizeof(r->c->buf), "[%lld,%lld,%lld]", (long long)v[0],
                     (long long)v[1], (long long)v[2]);
    return rp_intern(r->c, r->c->buf, (size_t)n);
}

static tconv_status rpd_op(rpd_reader *r, rpd_cursor *cur)
{
    rp_common *c = r->c;
    sqlite3_stmt *st = cur->st;
    int ok_end, ok_gpu, ok_queue, ok_api;
    int64_t end = sqlin_int(st, RPD_O_END, &ok_end), gpu = sqlin_int(st, RPD_O_GPU, &ok_gpu),
            queue = sqlin_int(st, RPD_O_QUEUE, &ok_queue), api = sqlin_int(st, RPD_O_API, &ok_api);
    if (cur->start == INT64_MIN || !ok_end || !ok_gpu || end < cur->start)
        return rpd_bad(r, cur, "a GPU operation without its start, end or GPU");
    tconv_str desc = rpd_string(r, sqlin_int(st, RPD_O_DESC, NULL));
    tconv_str type = rpd_string(r, sqlin_int(st, RPD_O_TYPE, NULL));
    const char *tt = tconv_string_get(c->ctx, type);
    tconv_event ev = TCONV_EVENT_INIT;
    ev.kind = TCONV_EV_COMPLETE;
    ev.ts = cur->start;
    ev.dur = end - cur->start;
    ev.role = (uint16_t)rp_op_role(tt, tconv_string_length(c->ctx, type));
    ev.cat = ev.role == TCONV_ROLE_KERNEL   ? c->s.kernel
             : ev.role == TCONV_ROLE_MEMCPY ? c->s.memcpy
             : ev.role == TCONV_ROLE_MEMSET ? c->s.memset
                                            : c->s.sync;
    ev.name =
        desc ? rp_kernel_name(c, tconv_string_get(c->ctx, desc), tconv_string_length(c->ctx, desc))
             : type;
    ev.corr = ok_api && api > 0 ? (uint64_t)api : 0;
    /* The HIP stream the op was enqueued on, when its API call says. */
    int scol =
        sqlite3_column_type(st, RPD_O_KSTREAM) != SQLITE_NULL ? RPD_O_KSTREAM : RPD_O_CSTREAM;
    const unsigned char *stream = (const unsigned char *)sqlin_text(&r->d, st, scol, NULL);
    if (stream && c->opt.by == RP_BY_STREAM)
        snprintf(c->buf, sizeof(c->buf), "stream %s", (const char *)stream);
    else
        snprintf(c->buf, sizeof(c->buf), "queue %lld", (long long)(ok_queue ? queue : 0));
    ev.track = rp_gpu(c, gpu, rp_intern(c, c->buf, strlen(c->buf)));
    if (ev.track == TCONV_MAP_NONE) return TCONV_FATAL;
    uint32_t n = 0;
    if (c->args) {
        tconv_arg *a = r->argv;
        a[n++] = (tconv_arg){.key = c->s.device, .type = TCONV_ARG_INT, .v.i = gpu};
        if (ok_queue) a[n++] = (tconv_arg){.key = c->s.queue, .type = TCONV_ARG_INT, .v.i = queue};
        if (stream)
            a[n++] = (tconv_arg){.key = c->s.stream,
                                 .type = TCONV_ARG_STRING,
                                 .v.s = tconv_string_intern_cstr(c->ctx, (const char *)stream)};
        if (ev.corr)
            a[n++] = (tconv_arg){.key = c->s.correlation, .type = TCONV_ARG_INT, .v.i = api};
        tconv_str grid = rpd_dim3(r, st, RPD_O_GRID), block = rpd_dim3(r, st, RPD_O_WG);
        if (grid) a[n++] = (tconv_arg){.key = c->s.grid, .type = TCONV_ARG_JSON, .v.s = grid};
        if (block) a[n++] = (tconv_arg){.key = c->s.block, .type = TCONV_ARG_JSON, .v.s = block};
        int ok;
        int64_t v = sqlin_int(st, RPD_O_LDS, &ok);
        if (ok) a[n++] = (tconv_arg){.key = c->s.smem, .type = TCONV_ARG_INT, .v.i = v};
        v = sqlin_int(st, RPD_O_SIZE, &ok);
        if (ok) a[n++] = (tconv_arg){.key = c->s.bytes, .type = TCONV_ARG_INT, .v.i = v};
    }
    ev.args = n ? r->argv : NULL;
    ev.nargs = n;
    return rp_push(c, &ev);
}

/* rocpd_monitor: start, end, deviceType, deviceId, monitorType, value, id. A value holds from
 * its start to the next's. */
static tconv_status rpd_monitor(rpd_reader *r, rpd_cursor *cur)
{
    rp_common *c = r->c;
    sqlite3_stmt *st = cur->st;
    int ok_dev;
    int64_t dev = sqlin_int(st, 3, &ok_dev);
    const unsigned char *type = (const unsigned char *)sqlin_text(&r->d, st, 4, NULL);
    const unsigned char *value = (const unsigned char *)sqlin_text(&r->d, st, 5, NULL);
    char *endp = NULL;
    double v = value ? strtod((const char *)value, &endp) : 0;
    if (cur->start == INT64_MIN || !ok_dev || !type || !value || endp == (char *)value)
        return rpd_bad(r, cur, "a monitor sample without its time, device, type or value");
    tconv_event ev = TCONV_EVENT_INIT;
    ev.kind = TCONV_EV_COUNTER;
    ev.track = rp_gpu_counters(c, dev);
    if (ev.track == TCONV_MAP_NONE) return TCONV_FATAL;
    ev.ts = cur->start;
    ev.name = tconv_string_intern_cstr(c->ctx, (const char *)type);
    ev.key = ev.name;
    /* rpd_tracer samples clocks (sclk, mclk) in MHz. */
    ev.unit = strstr((const char *)type, "clk") ? tconv_string_intern_cstr(c->ctx, "MHz") : 0;
    ev.value = v;
    return rp_push(c, &ev);
}

static int rpd_recognise(rpd_reader *r)
{
    rp_common *c = r->c;
    if (sqlin_has_table(&r->d, "rocpd_api") && sqlin_has_table(&r->d, "rocpd_op") &&
        sqlin_has_table(&r->d, "rocpd_string"))
        return 0;
    int sdk = 0, nsys = sqlin_has_table(&r->d, "StringIds");
    for (size_t i = 0; i < r->d.ntables; i++)
        sdk |= strncmp(r->d.tables[i], "rocpd_info_", 11) == 0;
    if (sdk) {
        tconv_error_set(c->ctx,
                        "%s: a rocprofiler-sdk rocpd database (rocpd_info_* tables): "
                        "this reader reads rpd_tracer's rocpd schema (rocpd_api, "
                        "rocpd_op) and rocprofv3's JSON",
                        c->name);
        tconv_error_hint(c->ctx, "write JSON with rocprofv3 --output-format json");
    } else if (nsys) {
        tconv_error_set(c->ctx,
                        "%s: this is an Nsight Systems export (StringIds), not a ROCm "
                        "profiler database",
                        c->name);
        tconv_error_hint(c->ctx, "read it with -r nsys, or without -r");
    } else {
        tconv_error_set(c->ctx,
                        "%s: a SQLite database, but not an rpd profile: it lacks the "
                        "tables rocpd_api, rocpd_op and rocpd_string",
                        c->name);
    }
    return -1;
}

tconv_status rp_rpd_read(rp_common *c, tconv_input *in)
{
    rpd_reader *r = calloc(1, sizeof(*r));
    if (!r) {
        tconv_error_set(c->ctx, "rocprof: out of memory");
        return TCONV_FATAL;
    }
    r->c = c;
    tconv_status st = TCONV_FATAL;
    if (sqlin_open(&r->d, c->ctx, in, "an rpd profile", "rocprof.wal", 0) != 0) goto out;
    if (rpd_recognise(r) != 0) goto out;
    r->str_st =
        sqlin_prepare(&r->d, "rocpd_string", "SELECT string FROM rocpd_string WHERE id = ?1");
    if (!r->str_st) goto out;
    r->user_marker = tconv_string_intern_cstr(c->ctx, "UserMarker");
    r->activity_cb = tconv_string_intern_cstr(c->ctx, "hcc_activity_callback");
    if (rpd_open(r, RPD_API, "rocpd_api",
                 "SELECT start, end, pid, tid, apiName_id, args_id, id FROM rocpd_api ORDER BY "
                 "start, id") != 0)
        goto out;
    int ops = sqlin_has_table(&r->d, "rocpd_api_ops");
    int kapi = ops && sqlin_has_table(&r->d, "rocpd_kernelapi");
    int capi = ops && sqlin_has_table(&r->d, "rocpd_copyapi");
    char sql[1400];
    snprintf(sql, sizeof(sql),
             "SELECT o.start, o.end, o.gpuId, o.queueId, o.description_id, o.opType_id, %s, "
             "%s, %s, %s FROM rocpd_op o %s %s %s ORDER BY o.start, o.id",
             ops ? "ao.api_id" : "NULL",
             kapi ? "k.stream, k.gridX, k.gridY, k.gridZ, k.workgroupX, k.workgroupY, "
                    "k.workgroupZ, k.groupSegmentSize, k.privateSegmentSize"
                  : "NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL",
             capi ? "cp.stream, cp.size" : "NULL, NULL", "o.id",
             ops ? "LEFT JOIN (SELECT op_id, min(api_id) AS api_id FROM rocpd_api_ops GROUP BY "
                   "op_id) ao ON ao.op_id = o.id"
                 : "",
             kapi ? "LEFT JOIN rocpd_kernelapi k ON k.api_ptr_id = ao.api_id" : "",
             capi ? "LEFT JOIN rocpd_copyapi cp ON cp.api_ptr_id = ao.api_id" : "");
    if (rpd_open(r, RPD_OP, "rocpd_op", sql) != 0) goto out;
    if (sqlin_has_table(&r->d, "rocpd_monitor") &&
        rpd_open(r, RPD_MONITOR, "rocpd_monitor",
                 "SELECT start, end, deviceType, deviceId, monitorType, value, id FROM "
                 "rocpd_monitor WHERE deviceType = 'gpu' ORDER BY start, id") != 0)
        goto out;
    for (;;) {
        rpd_cursor *best = NULL;
        for (int i = 0; i < RPD_NSRC; i++) {
            rpd_cursor *cur = &r->cur[i];
            if (cur->st && cur->has_row && (!best || cur->start < best->start)) best = cur;
        }
        if (!best) break;
        tconv_status s = best == &r->cur[RPD_API]  ? rpd_api(r, best)
                         : best == &r->cur[RPD_OP] ? rpd_op(r, best)
                                                   : rpd_monitor(r, best);
        if (s == TCONV_FATAL || r->d.failed || rpd_next(r, best) != 0) goto out;
    }
    if (tconv_ctx_verbosity(c->ctx) > 0)
        tconv_note(c->ctx, "%s: rpd: %llu API calls, %llu GPU operations, %llu monitor samples%s",
                   c->name, (unsigned long long)r->cur[RPD_API].rows,
                   (unsigned long long)r->cur[RPD_OP].rows,
                   (unsigned long long)r->cur[RPD_MONITOR].rows,
                   r->d.spooled ? " (read from a temporary copy)" : "");
    st = TCONV_OK;
out:
    for (int i = 0; i < RPD_NSRC; i++)
        sqlite3_finalize(r->cur[i].st);
    sqlite3_finalize(r->str_st);
    tconv_map_free(&r->strs);
    sqlin_close(&r->d);
    free(r);
    return st;
}
