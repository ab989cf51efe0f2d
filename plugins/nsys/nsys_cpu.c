/* Work on CPU threads: CUDA runtime and driver calls, NVTX ranges and marks, OS runtime calls,
 * cuDNN and cuBLAS calls, and the profiler's own overhead.
 *
 * CUDA calls carry the correlation id of the GPU work they started (nsys_gpu.c says how it is
 * made unique), and their role, runtime or driver, from eventClass. Exports up to 2022 store a
 * call's backtrace as a second row of class "CUDA backtrace" around the call; it is not a call
 * of its own, and only its frames are read (nsys_samples.c). API names lose the "_v3020"
 * version suffix, as nsys shows them.
 *
 * NVTX: push/pop ranges nest on their thread, with the domain as category; start/end ranges
 * may overlap and cross threads, so each process's ranges of one domain go on an async track
 * of their own; marks are instants. A range's text is inline or registered (textId); its
 * payload, JSON payload and category become args. Domain, category and thread names are read
 * before the events (nsys_nvtx_prepare), since nsys may write them after the ranges. */
#include <stdio.h>
#include <string.h>

#include "nsys_cols.h"
#include "nsys_reader.h"

/* ---- NVTX names ------------------------------------------------------------------------- */

static tconv_str nsys_nvtx_text(nsys_reader *r, sqlite3_stmt *st, int text, int text_id)
{
    size_t len;
    const char *t = sqlin_text(&r->d, st, text, &len);
    if (t) return tconv_string_intern(r->ctx, t, len);
    int ok;
    int64_t id = sqlin_int(st, text_id, &ok);
    return ok ? nsys_string(r, id) : 0;
}

int nsys_nvtx_prepare(nsys_reader *r)
{
    if (!sqlin_has_column(&r->d, "NVTX_EVENTS", "eventType")) return 0;
    int has_text_id = sqlin_has_column(&r->d, "NVTX_EVENTS", "textId");
    int has_domain = sqlin_has_column(&r->d, "NVTX_EVENTS", "domainId");
    int has_category = sqlin_has_column(&r->d, "NVTX_EVENTS", "category");
    char sql[400];
    snprintf(sql, sizeof(sql),
             "SELECT eventType, globalTid, %s, %s, text, %s FROM NVTX_EVENTS WHERE eventType "
             "IN (%d, %d, %d, %d, %d) ORDER BY start, rowid",
             has_domain ? "domainId" : "NULL", has_category ? "category" : "NULL",
             has_text_id ? "textId" : "NULL", NSYS_NVTX_CATEGORY, NSYS_NVTXT_CATEGORY,
             NSYS_NVTX_THREAD, NSYS_NVTXT_THREAD, NSYS_NVTX_DOMAIN);
    sqlite3_stmt *st = sqlin_prepare(&r->d, "NVTX_EVENTS", sql);
    if (!st) return -1;
    int rc;
    int64_t rank = -1, rank_tid = 0;
    while ((rc = sqlin_step(&r->d, st, "NVTX_EVENTS")) == SQLITE_ROW) {
        int ok;
        int64_t type = sqlin_int(st, 0, NULL), gtid = sqlin_int(st, 1, &ok);
        int64_t domain = sqlin_int(st, 2, NULL), category = sqlin_int(st, 3, NULL);
        tconv_str text = nsys_nvtx_text(r, st, 4, 5);
        uint64_t dkey = (uint64_t)nsys_pid_of(gtid) << 32 | (uint32_t)domain;
        if (type == NSYS_NVTX_DOMAIN) {
            tconv_map_set(&r->domains, dkey, 0, text);
        } else if (type == NSYS_NVTX_CATEGORY || type == NSYS_NVTXT_CATEGORY) {
            tconv_map_set(&r->categories, dkey, (uint32_t)category, text);
        } else if (ok && text) {
            tconv_map_set(&r->nvtx_names, (uint64_t)gtid, 0, text);
            /* nsys's MPI tracing names each rank's thread "MPI Rank N". */
            int n = -1;
            long long v;
            if (sscanf(tconv_string_get(r->ctx, text), "MPI Rank %lld%n", &v, &n) == 1 &&
                n == (int)tconv_string_length(r->ctx, text) && v >= 0 && rank < 0) {
                rank = v;
                rank_tid = gtid;
            }
        }
    }
    sqlite3_finalize(st);
    if (rc < 0) return -1;
    if (rank >= 0) {
        tconv_event ev = TCONV_EVENT_INIT;
        ev.kind = TCONV_EV_METADATA;
        ev.track = nsys_thread(r, rank_tid);
        if (ev.track == TCONV_MAP_NONE) return -1;
        ev.name = r->s.rank;
        snprintf(r->buf, sizeof(r->buf), "%lld", (long long)rank);
        ev.text = nsys_intern(r, r->buf);
        if (nsys_push(r, &ev) == TCONV_FATAL) return -1;
    }
    return r->d.failed ? -1 : 0;
}

/* ---- NVTX events ------------------------------------------------------------------------ */

static tconv_status nsys_nvtx_row(nsys_reader *r, nsys_cursor *c)
{
    sqlite3_stmt *st = c->st;
    int64_t type = sqlin_int(st, NSYS_N_TYPE, NULL);
    int is_range = type == NSYS_NVTX_PUSHPOP || type == NSYS_NVTXT_PUSHPOP;
    int is_async = type == NSYS_NVTX_STARTEND || type == NSYS_NVTXT_STARTEND;
    int is_mark = type == NSYS_NVTX_MARK || type == NSYS_NVTXT_MARK;
    if (!is_range && !is_async && !is_mark) {
        if (type != NSYS_NVTX_DOMAIN && type != NSYS_NVTX_CATEGORY && type != NSYS_NVTX_THREAD &&
            type != NSYS_NVTXT_CATEGORY && type != NSYS_NVTXT_THREAD)
            tconv_warning_add(r->ctx, "nsys.nvtx-type",
                              "%s: NVTX event type %lld (table NVTX_EVENTS) is not read", r->d.name,
                              (long long)type);
        return TCONV_OK;
    }
    int ok_tid, ok_end;
    int64_t gtid = sqlin_int(st, NSYS_N_TID, &ok_tid), end = sqlin_int(st, NSYS_N_END, &ok_end);
    if (c->start == INT64_MIN || !ok_tid) {
        nsys_bad_row(r, c, "an NVTX event without its start or thread");
        return TCONV_OK;
    }
    if (ok_end && end < c->start) {
        nsys_bad_row(r, c, "an NVTX range that ends before it starts");
        return TCONV_OK;
    }
    int64_t domain = sqlin_int(st, NSYS_N_DOMAIN, NULL);
    uint64_t dkey = (uint64_t)nsys_pid_of(gtid) << 32 | (uint32_t)domain;
    tconv_event ev = TCONV_EVENT_INIT;
    ev.ts = c->start;
    ev.name = nsys_nvtx_text(r, st, NSYS_N_TEXT, NSYS_N_TEXT_ID);
    uint32_t dname = tconv_map_get(&r->domains, dkey, 0);
    ev.cat = dname != TCONV_MAP_NONE && dname ? dname : r->s.nvtx;
    if (is_mark) {
        ev.kind = TCONV_EV_INSTANT;
        ev.track = nsys_thread(r, gtid);
    } else if (is_range) {
        ev.kind = ok_end ? TCONV_EV_COMPLETE : TCONV_EV_BEGIN;
        ev.dur = ok_end ? end - c->start : 0;
        ev.role = TCONV_ROLE_ANNOTATION;
        ev.track = nsys_thread(r, gtid);
    } else {
        ev.kind = ok_end ? TCONV_EV_COMPLETE : TCONV_EV_BEGIN;
        ev.dur = ok_end ? end - c->start : 0;
        ev.role = TCONV_ROLE_ASYNC;
        ev.flags = TCONV_EVF_ASYNC;
        ev.id = (uint64_t)sqlin_int(st, NSYS_N_RANGE, NULL);
        ev.track = nsys_nvtx_track(r, gtid, domain);
    }
    if (ev.track == TCONV_MAP_NONE) return TCONV_FATAL;
    uint32_t n = 0;
    if (r->args) {
        tconv_arg *a = r->argv;
        int ok;
        int64_t i;
        double d;
        if ((i = sqlin_int(st, NSYS_N_I64, &ok)), ok)
            a[n++] = (tconv_arg){.key = r->s.payload, .type = TCONV_ARG_INT, .v.i = i};
        else if ((i = sqlin_int(st, NSYS_N_U64, &ok)), ok)
            a[n++] = (tconv_arg){.key = r->s.payload, .type = TCONV_ARG_UINT, .v.u = (uint64_t)i};
        else if ((i = sqlin_int(st, NSYS_N_I32, &ok)), ok)
            a[n++] = (tconv_arg){.key = r->s.payload, .type = TCONV_ARG_INT, .v.i = i};
        else if ((i = sqlin_int(st, NSYS_N_U32, &ok)), ok)
            a[n++] = (tconv_arg){.key = r->s.payload, .type = TCONV_ARG_UINT, .v.u = (uint64_t)i};
        else if (sqlite3_column_type(st, NSYS_N_DOUBLE) != SQLITE_NULL ||
                 sqlite3_column_type(st, NSYS_N_FLOAT) != SQLITE_NULL) {
            int col = sqlite3_column_type(st, NSYS_N_DOUBLE) != SQLITE_NULL ? NSYS_N_DOUBLE
                                                                            : NSYS_N_FLOAT;
            d = sqlite3_column_double(st, col);
            a[n++] = (tconv_arg){.key = r->s.payload, .type = TCONV_ARG_DOUBLE, .v.d = d};
        }
        tconv_str json = nsys_nvtx_text(r, st, NSYS_N_JSON, NSYS_N_JSON_ID);
        if (json) a[n++] = (tconv_arg){.key = r->s.json, .type = TCONV_ARG_STRING, .v.s = json};
        int64_t cat = sqlin_int(st, NSYS_N_CATEGORY, &ok);
        if (ok && cat) {
            uint32_t cname = tconv_map_get(&r->categories, dkey, (uint32_t)cat);
            if (cname != TCONV_MAP_NONE && cname)
                a[n++] = (tconv_arg){.key = r->s.category, .type = TCONV_ARG_STRING, .v.s = cname};
            else
                a[n++] = (tconv_arg){.key = r->s.category, .type = TCONV_ARG_INT, .v.i = cat};
        }
    }
    ev.args = n ? r->argv : NULL;
    ev.nargs = n;
    return nsys_push(r, &ev);
}

/* ---- calls ------------------------------------------------------------------------------ */

tconv_status nsys_cpu_row(nsys_reader *r, nsys_cursor *c)
{
    if (c->kind == NSYS_SRC_NVTX) return nsys_nvtx_row(r, c);
    sqlite3_stmt *st = c->st;
    int ok_end, ok_tid, ok_corr, ok_chain, ok_class;
    int64_t end = sqlin_int(st, NSYS_C_END, &ok_end), gtid = sqlin_int(st, NSYS_C_TID, &ok_tid),
            corr = sqlin_int(st, NSYS_C_CORR, &ok_corr),
            chain = sqlin_int(st, NSYS_C_CHAIN, &ok_chain),
            cls = sqlin_int(st, NSYS_C_CLASS, &ok_class);
    if (c->start == INT64_MIN || !ok_end || !ok_tid) {
        nsys_bad_row(r, c, "a call without its start, end or thread");
        return TCONV_OK;
    }
    if (end < c->start) {
        nsys_bad_row(r, c, "a call that ends before it starts");
        return TCONV_OK;
    }
    int backtrace_row = c->kind == NSYS_SRC_RUNTIME && ok_class && cls == r->backtrace_class;
    if (backtrace_row && !r->opt.backtraces) return TCONV_OK;
    uint32_t track = nsys_thread(r, gtid);
    if (track == TCONV_MAP_NONE) return TCONV_FATAL;
    if (r->opt.backtraces && ok_chain && chain > 0 &&
        (c->kind == NSYS_SRC_RUNTIME || c->kind == NSYS_SRC_OSRT)) {
        if (nsys_backtrace(r, c->kind == NSYS_SRC_OSRT, chain, track, c->start, end) == TCONV_FATAL)
            return TCONV_FATAL;
    }
    if (backtrace_row) return TCONV_OK;

    tconv_event ev = TCONV_EVENT_INIT;
    ev.kind = TCONV_EV_COMPLETE;
    ev.track = track;
    ev.ts = c->start;
    ev.dur = end - c->start;
    int ok_name;
    int64_t name = sqlin_int(st, NSYS_C_NAME, &ok_name);
    ev.name = ok_name ? nsys_api_name(r, name) : 0;
    uint32_t n = 0;
    switch (c->kind) {
    case NSYS_SRC_RUNTIME:
        if (ok_class && cls == r->driver_class) {
            ev.role = TCONV_ROLE_DRIVER;
            ev.cat = r->s.driver;
        } else {
            ev.role = TCONV_ROLE_RUNTIME;
            ev.cat = r->s.runtime;
        }
        ev.corr = ok_corr ? nsys_corr(gtid, corr) : 0;
        if (r->args && ok_corr)
            r->argv[n++] = (tconv_arg){.key = r->s.correlation, .type = TCONV_ARG_INT, .v.i = corr};
        break;
    case NSYS_SRC_OSRT:
        ev.role = TCONV_ROLE_CPU;
        ev.cat = r->s.osrt;
        break;
    case NSYS_SRC_CUDNN:
        ev.role = TCONV_ROLE_CPU;
        ev.cat = r->s.cudnn;
        break;
    case NSYS_SRC_CUBLAS:
        ev.role = TCONV_ROLE_CPU;
        ev.cat = r->s.cublas;
        break;
    default: /* PROFILER_OVERHEAD, CUPTI_ACTIVITY_KIND_OVERHEAD */
        ev.role = TCONV_ROLE_OVERHEAD;
        ev.cat = r->s.overhead;
        if (!ev.name) ev.name = nsys_intern(r, "CUPTI overhead");
        break;
    }
    if (r->args && c->kind != NSYS_SRC_OVERHEAD && c->kind != NSYS_SRC_CUPTI_OVERHEAD) {
        int ok;
        int64_t ret = sqlin_int(st, NSYS_C_RET, &ok);
        if (ok) r->argv[n++] = (tconv_arg){.key = r->s.ret, .type = TCONV_ARG_INT, .v.i = ret};
    }
    ev.args = n ? r->argv : NULL;
    ev.nargs = n;
    return nsys_push(r, &ev);
}
