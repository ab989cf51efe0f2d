/* The sources an export has, each read by one SELECT ordered by start (then rowid, the order
 * nsys wrote the rows in), so the read merges them into one stream in time order.
 *
 * Exports differ: tables are absent when nothing of that kind was captured (or a tool removed
 * them), columns were added over the schema versions (mangledName, greenContextId, ...) and
 * some tools add columns of their own. Each source lists the columns it reads in the order of
 * nsys_cols.h; an absent column is selected as NULL, and only the columns without which a row
 * means nothing are required: a table that lacks one is not what its name says, and the read
 * stops there rather than guess. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "nsys_cols.h"
#include "nsys_reader.h"

typedef struct nsys_srcdef {
    nsys_src_kind kind;
    const char *table;
    const char *what; /* what its absence means, for the note */
    /* The columns in nsys_cols.h order; "$NAME" is the kernel name the options chose. */
    const char *cols[20];
    unsigned required; /* bit i: column i must exist */
    /* bit i: column i is read only for args, so selected as NULL when no one reads args (a
     * profile writer): a narrower row costs SQLite less to sort and to hand over. */
    unsigned args_only;
} nsys_srcdef;

#define NSYS_GPU_COLS                                                                              \
    "start", "end", "deviceId", "contextId", "streamId", "correlationId", "globalPid"
#define NSYS_GPU_REQ 0x17u /* start, end, deviceId, streamId */
#define NSYS_CALL_COLS                                                                             \
    "start", "end", "globalTid", "correlationId", "nameId", "eventClass", "returnValue",           \
        "callchainId"
#define NSYS_CALL_REQ 0x17u  /* start, end, globalTid, nameId */
#define NSYS_CALL_ARGS 0x40u /* returnValue */
#define NSYS_CALLS(k, t, w, req)                                                                   \
    {                                                                                              \
        .kind = k, .table = t, .what = w, .cols = {NSYS_CALL_COLS}, .required = req,               \
        .args_only = NSYS_CALL_ARGS                                                                \
    }

static const nsys_srcdef nsys_srcdefs[NSYS_SRC_COUNT] = {
    NSYS_CALLS(NSYS_SRC_RUNTIME, "CUPTI_ACTIVITY_KIND_RUNTIME", "CUDA API calls", NSYS_CALL_REQ),
    {.kind = NSYS_SRC_NVTX,
     .table = "NVTX_EVENTS",
     .what = "NVTX",
     .cols = {"start", "end", "globalTid", "endGlobalTid", "eventType", "rangeId", "category",
              "text", "textId", "domainId", "uint64Value", "int64Value", "doubleValue",
              "uint32Value", "int32Value", "floatValue", "jsonText", "jsonTextId"},
     .required = 0x11u, /* start, eventType */
     .args_only = 0x3FC40u /* category, payloads */},
    NSYS_CALLS(NSYS_SRC_OSRT, "OSRT_API", "OS runtime calls", NSYS_CALL_REQ),
    NSYS_CALLS(NSYS_SRC_CUDNN, "CUDNN_EVENTS", NULL, NSYS_CALL_REQ),
    NSYS_CALLS(NSYS_SRC_CUBLAS, "CUBLAS_EVENTS", NULL, NSYS_CALL_REQ),
    NSYS_CALLS(NSYS_SRC_OVERHEAD, "PROFILER_OVERHEAD", NULL, NSYS_CALL_REQ),
    NSYS_CALLS(NSYS_SRC_CUPTI_OVERHEAD, "CUPTI_ACTIVITY_KIND_OVERHEAD", NULL, 0x07u),
    {.kind = NSYS_SRC_KERNEL,
     .table = "CUPTI_ACTIVITY_KIND_KERNEL",
     .what = "CUDA kernels",
     .cols = {NSYS_GPU_COLS, "$NAME", "gridX", "gridY", "gridZ", "blockX", "blockY", "blockZ",
              "registersPerThread", "staticSharedMemory", "dynamicSharedMemory", "launchType",
              "graphNodeId"},
     .required = NSYS_GPU_REQ | 1u << NSYS_K_NAME,
     .args_only = 0x7FF08u /* context, launch configuration */},
    {.kind = NSYS_SRC_MEMCPY,
     .table = "CUPTI_ACTIVITY_KIND_MEMCPY",
     .what = "memcpy",
     .cols = {NSYS_GPU_COLS, "bytes", "copyKind", "srcKind", "dstKind"},
     .required = NSYS_GPU_REQ,
     .args_only = 0x688u /* context, bytes, memory kinds */},
    {.kind = NSYS_SRC_MEMSET,
     .table = "CUPTI_ACTIVITY_KIND_MEMSET",
     .what = "memset",
     .cols = {NSYS_GPU_COLS, "bytes", "value", "memKind"},
     .required = NSYS_GPU_REQ,
     .args_only = 0x388u /* context, bytes, value, memory kind */},
    {.kind = NSYS_SRC_SYNC,
     .table = "CUPTI_ACTIVITY_KIND_SYNCHRONIZATION",
     .cols = {NSYS_GPU_COLS, "syncType"},
     .required = NSYS_GPU_REQ,
     .args_only = 0x8u /* context */},
    {.kind = NSYS_SRC_GRAPH,
     .table = "CUPTI_ACTIVITY_KIND_GRAPH_TRACE",
     .cols = {NSYS_GPU_COLS, "graphId", "graphExecId"},
     .required = NSYS_GPU_REQ,
     .args_only = 0x108u /* context, graph exec */},
    {.kind = NSYS_SRC_SAMPLES,
     .table = "COMPOSITE_EVENTS",
     .what = "CPU sampling",
     .cols = {"start", "globalTid", "id"},
     .required = 0x07u},
    {.kind = NSYS_SRC_CUDA_MEMORY,
     .table = "CUDA_GPU_MEMORY_USAGE_EVENTS",
     .cols = {"start", "globalPid", "deviceId", "bytes", "memoryOperationType", "memKind"},
     .required = 0x1Fu},
    {.kind = NSYS_SRC_WDDM_MEMORY,
     .table = "GPU_MEMORY_USAGE_EVENTS",
     .cols = {"timestamp", "globalTid", "gpu", "newUsage", "segmentGroup"},
     .required = 0x0Fu},
};

/* The kernel name column the options ask for, or the one there is. */
static const char *nsys_kernel_name(nsys_reader *r, const char *table)
{
    static const char *const pref[3][3] = {
        {"demangledName", "shortName", "mangledName"},
        {"shortName", "demangledName", "mangledName"},
        {"mangledName", "demangledName", "shortName"},
    };
    const char *const *p = pref[r->opt.names];
    for (int i = 0; i < 3; i++)
        if (sqlin_has_column(&r->d, table, p[i])) return p[i];
    return NULL;
}

/* Append s to the SQL text in buf (cap bytes); 0, or -1 when it does not fit. */
static int nsys_sql_add(char *buf, size_t cap, size_t *len, const char *s)
{
    size_t n = strlen(s);
    if (*len + n + 1 > cap) return -1;
    memcpy(buf + *len, s, n + 1);
    *len += n;
    return 0;
}

static int nsys_samples_left_out(nsys_reader *r, int64_t *left);

/* nsys_before(t): is t before the time of the row before? Called by SQLite once per row in the
 * order of the scan, so the check runs inside the statement without handing every row over. */
static void nsys_before_fn(sqlite3_context *cx, int argc, sqlite3_value **argv)
{
    (void)argc;
    int64_t *last = sqlite3_user_data(cx); /* the time of the row before */
    int64_t t = INT64_MIN;                 /* where ORDER BY puts a row without a time: first */
    int type = sqlite3_value_type(argv[0]);
    if (type == SQLITE_INTEGER) {
        t = sqlite3_value_int64(argv[0]);
    } else if (type == SQLITE_FLOAT) {
        sqlin_whole(sqlite3_value_double(argv[0]), &t); /* t stays where it is if not whole */
    }
    int before = t < *last;
    *last = t;
    sqlite3_result_int(cx, before);
}

/* Are the table's rows already in start order as stored? nsys writes most tables so, and a
 * scan of one column then spares SQLite sorting every row with all its columns (half of the
 * read's cost). NOT INDEXED keeps the scan on the table, in rowid order, the order the read
 * then takes. 1, 0, or -1 with the error on the ctx. */
static int nsys_in_start_order(nsys_reader *r, const nsys_srcdef *def)
{
    r->order_last = INT64_MIN;
    char sql[160];
    snprintf(sql, sizeof(sql), "SELECT 1 FROM \"%s\" NOT INDEXED WHERE nsys_before(\"%s\") LIMIT 1",
             def->table, def->cols[0]);
    sqlite3_stmt *st = sqlin_prepare(&r->d, def->table, sql);
    if (!st) return -1;
    int rc = sqlin_step(&r->d, st, def->table);
    sqlite3_finalize(st);
    return rc < 0 ? -1 : rc == SQLITE_DONE;
}

static int nsys_cursor_open(nsys_reader *r, const nsys_srcdef *def)
{
    char sql[1024];
    size_t len = 0;
    nsys_sql_add(sql, sizeof(sql), &len, "SELECT ");
    for (int i = 0; def->cols[i]; i++) {
        const char *col = def->cols[i];
        if (strcmp(col, "$NAME") == 0) col = nsys_kernel_name(r, def->table);
        int have = col && sqlin_has_column(&r->d, def->table, col);
        if (r->d.failed) return -1;
        if (!have && (def->required >> i & 1u)) {
            tconv_error_set(r->ctx,
                            "%s: table %s has no column %s, which every Nsight Systems export "
                            "has: the table was changed, or this is not an nsys export",
                            r->d.name, def->table, col ? col : "demangledName");
            return -1;
        }
        if (!r->args && (def->args_only >> i & 1u)) have = 0;
        char item[80];
        snprintf(item, sizeof(item), "%s%s%s%s", i ? ", " : "", have ? "\"" : "",
                 have ? col : "NULL", have ? "\"" : "");
        nsys_sql_add(sql, sizeof(sql), &len, item);
    }
    int ncols = 0;
    while (def->cols[ncols])
        ncols++;
    int sorted = nsys_in_start_order(r, def);
    if (sorted < 0) return -1;
    char tail[160];
    snprintf(tail, sizeof(tail), ", rowid FROM \"%s\" ORDER BY %s", def->table,
             sorted ? "rowid" : "1, rowid");
    if (nsys_sql_add(sql, sizeof(sql), &len, tail) != 0) {
        tconv_error_set(r->ctx, "%s: internal error: query for %s too long", r->d.name, def->table);
        return -1;
    }
    sqlite3_stmt *st = sqlin_prepare(&r->d, def->table, sql);
    if (!st) return -1;
    nsys_cursor *c = &r->cur[r->ncur++];
    *c = (nsys_cursor){
        .kind = def->kind, .table = def->table, .st = st, .rowid_col = ncols, .sorted = sorted};
    return nsys_cursor_next(r, c);
}

int nsys_cursor_next(nsys_reader *r, nsys_cursor *c)
{
    int rc = sqlin_step(&r->d, c->st, c->table);
    if (rc < 0) return -1;
    c->has_row = rc == SQLITE_ROW;
    if (!c->has_row) return 0;
    c->rows++;
    int ok;
    c->start = sqlin_int(c->st, 0, &ok);
    /* A row without a time comes first, where its handler counts it as bad. */
    if (!ok) c->start = INT64_MIN;
    return 0;
}

int nsys_tables_open(nsys_reader *r, const char **absent, size_t *nabsent, int64_t *samples_left)
{
    *nabsent = 0;
    *samples_left = 0;
    /* registered once: SQLite refuses to replace a function while statements are open */
    if (sqlite3_create_function(r->d.db, "nsys_before", 1, SQLITE_UTF8 | SQLITE_DIRECTONLY,
                                &r->order_last, nsys_before_fn, NULL, NULL) != SQLITE_OK) {
        tconv_error_set(r->ctx, "%s: cannot read the export: %s", r->d.name,
                        sqlite3_errmsg(r->d.db));
        return -1;
    }
    for (size_t i = 0; i < NSYS_SRC_COUNT; i++) {
        const nsys_srcdef *def = &nsys_srcdefs[i];
        if (!sqlin_has_table(&r->d, def->table)) {
            if (def->what) absent[(*nabsent)++] = def->what;
            continue;
        }
        if (def->kind == NSYS_SRC_SAMPLES) {
            if (r->opt.samples == NSYS_SAMPLES_OFF ||
                !sqlin_has_table(&r->d, "SAMPLING_CALLCHAINS"))
                continue;
            int out = nsys_samples_left_out(r, samples_left);
            if (out < 0) return -1;
            if (out) {
                if (!*samples_left) absent[(*nabsent)++] = def->what;
                continue;
            }
            nsys_samples_begin(r);
        }
        if (nsys_cursor_open(r, def) != 0) return -1;
        /* An empty table says the same as an absent one: nothing of the kind was captured. */
        if (!r->cur[r->ncur - 1].has_row && def->what) absent[(*nabsent)++] = def->what;
    }
    return 0;
}

/* CPU samples beside spans of traced calls or GPU work: the stack stage can only add the
 * samples' CPU time to the spans' self time (and GPU attribution cannot take them at all), so
 * unless the user asks (-R samples=true) an export with both is read as its trace, and one
 * with samples alone as a CPU profile. Asked before the samples' cursor is opened (every source
 * of spans comes before it), so that samples left out cost a count, not an order check. 1 when
 * they are left out (their count in *left), 0 when read, -1 with the error on the ctx. */
static int nsys_samples_left_out(nsys_reader *r, int64_t *left)
{
    int spans = 0;
    for (size_t i = 0; i < r->ncur; i++) {
        const nsys_cursor *c = &r->cur[i];
        if (c->has_row && c->kind != NSYS_SRC_CUDA_MEMORY && c->kind != NSYS_SRC_WDDM_MEMORY &&
            c->kind != NSYS_SRC_OVERHEAD && c->kind != NSYS_SRC_CUPTI_OVERHEAD)
            spans = 1;
    }
    if (r->opt.samples != NSYS_SAMPLES_AUTO || !spans) return 0;
    sqlite3_stmt *st =
        sqlin_prepare(&r->d, "COMPOSITE_EVENTS", "SELECT count(*) FROM COMPOSITE_EVENTS");
    if (!st) return -1;
    int rc = sqlin_step(&r->d, st, "COMPOSITE_EVENTS");
    if (rc == SQLITE_ROW) *left = sqlite3_column_int64(st, 0);
    sqlite3_finalize(st);
    return rc < 0 ? -1 : 1;
}

void nsys_tables_close(nsys_reader *r)
{
    for (size_t i = 0; i < r->ncur; i++)
        sqlite3_finalize(r->cur[i].st);
    r->ncur = 0;
}
