/* Stacks: CPU sampling as stack samples, and the backtraces of CUDA and OS runtime calls.
 *
 * A CPU sample is a COMPOSITE_EVENTS row (time, thread) with its frames in
 * SAMPLING_CALLCHAINS, stackDepth 0 the leaf; each frame is the function (symbol) in its module,
 * so pprof and flame graphs show a real CPU profile. A sample's value is one, and the sampling
 * period in ns (sample type cpu/nanoseconds): the median of the intervals between a thread's
 * successive samples (over the first 64 Ki samples), since nsys samples a thread only while it
 * runs.
 *
 * A call's backtrace (CUDA_CALLCHAINS, OSRT_CALLCHAINS) has no times of its own: its frames
 * become spans over the call, root first, pushed before the call so that the ordering stage
 * nests the call innermost (equal spans nest in push order). The launch then sits under the
 * code that made it, which is what GPU attribution shows. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "nsys_cols.h"
#include "nsys_reader.h"

static void nsys_frames_room(nsys_reader *r, size_t n)
{
    if (n > r->frames_cap) TCONV_ARRAY_GROW(r->frames, r->frames_cap, n);
}

static tconv_str nsys_frame_name(nsys_reader *r, sqlite3_stmt *st, int col)
{
    int ok;
    tconv_str s = nsys_string(r, sqlin_int(st, col, &ok));
    return ok && s ? s : nsys_intern(r, "[unknown]");
}

tconv_status nsys_backtrace(nsys_reader *r, int osrt, int64_t chain, uint32_t track, int64_t start,
                            int64_t end)
{
    const char *table = osrt ? "OSRT_CALLCHAINS" : "CUDA_CALLCHAINS";
    sqlite3_stmt **st = osrt ? &r->osrt_chain_st : &r->cuda_chain_st;
    if (!*st) {
        if (!sqlin_has_table(&r->d, table)) return TCONV_OK;
        char sql[160];
        snprintf(sql, sizeof(sql),
                 "SELECT symbol, module FROM %s WHERE id = ?1 ORDER BY stackDepth DESC", table);
        *st = sqlin_prepare(&r->d, table, sql);
        if (!*st) return TCONV_FATAL;
    }
    sqlite3_bind_int64(*st, 1, chain);
    tconv_event ev = TCONV_EVENT_INIT;
    ev.kind = TCONV_EV_COMPLETE;
    ev.track = track;
    ev.ts = start;
    ev.dur = end - start;
    ev.role = TCONV_ROLE_CPU;
    int rc;
    tconv_status status = TCONV_OK;
    while ((rc = sqlin_step(&r->d, *st, table)) == SQLITE_ROW) {
        ev.name = nsys_frame_name(r, *st, 0);
        int ok;
        ev.cat = nsys_string(r, sqlin_int(*st, 1, &ok));
        if ((status = nsys_push(r, &ev)) == TCONV_FATAL) break;
    }
    sqlite3_reset(*st);
    return rc < 0 ? TCONV_FATAL : status;
}

static int nsys_cmp_i64(const void *a, const void *b)
{
    int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;
    return (x > y) - (x < y);
}

/* The median interval between a thread's successive samples among the first NSYS_PERIOD_ROWS
 * samples in time; 1 ms (nsys's default rate) when no thread has two. A window function over
 * every sample cost as much as reading them; the first 64 Ki tell the rate as well. */
enum { NSYS_PERIOD_ROWS = 65536 };
static int64_t nsys_sample_period(nsys_reader *r, int sorted)
{
    char sql[160];
    snprintf(sql, sizeof(sql), "SELECT globalTid, start FROM COMPOSITE_EVENTS ORDER BY %s LIMIT %d",
             sorted ? "rowid" : "start, rowid", NSYS_PERIOD_ROWS);
    sqlite3_stmt *st = sqlin_prepare(&r->d, "COMPOSITE_EVENTS", sql);
    if (!st) return -1;
    tconv_map last = {0};
    int64_t *gaps = NULL, *starts = NULL;
    size_t ngaps = 0, gcap = 0, nstarts = 0, scap = 0;
    int rc;
    while ((rc = sqlin_step(&r->d, st, "COMPOSITE_EVENTS")) == SQLITE_ROW) {
        int ok1, ok2;
        int64_t tid = sqlin_int(st, 0, &ok1), t = sqlin_int(st, 1, &ok2);
        if (!ok1 || !ok2) continue;
        uint32_t i = tconv_map_put(&last, (uint64_t)tid, 0, (uint32_t)nstarts);
        if (i == nstarts) {
            TCONV_ARRAY_GROW(starts, scap, nstarts + 1);
            nstarts++;
        } else if (t > starts[i]) {
            TCONV_ARRAY_GROW(gaps, gcap, ngaps + 1);
            gaps[ngaps++] = t - starts[i];
        }
        starts[i] = t;
    }
    sqlite3_finalize(st);
    int64_t period = 1000000;
    if (ngaps) {
        qsort(gaps, ngaps, sizeof(*gaps), nsys_cmp_i64);
        period = gaps[ngaps / 2];
    }
    free(gaps);
    free(starts);
    tconv_map_free(&last);
    return rc < 0 ? -1 : period;
}

nsys_raw_frame nsys_raw_frame_read(sqlite3_stmt *st, int col)
{
    nsys_raw_frame f;
    f.symbol = sqlin_int(st, col, &f.has_symbol);
    f.module = sqlin_int(st, col + 1, NULL);
    f.kernel = sqlin_int(st, col + 2, NULL) != 0;
    return f;
}

static void nsys_frame_fill(nsys_reader *r, tconv_frame *f, const nsys_raw_frame *raw)
{
    memset(f, 0, sizeof(*f));
    tconv_str name = raw->has_symbol ? nsys_string(r, raw->symbol) : 0;
    f->name = name ? name : nsys_intern(r, "[unknown]");
    f->module = nsys_string(r, raw->module);
    if (raw->kernel) f->flags = TCONV_FRAME_KERNEL;
}

static const char *nsys_kernel_mode(nsys_reader *r)
{
    return sqlin_has_column(&r->d, "SAMPLING_CALLCHAINS", "kernelMode") ? "kernelMode" : "NULL";
}

static void nsys_chain_sql(nsys_reader *r, char *sql, size_t size)
{
    snprintf(sql, size,
             "SELECT id, symbol, module, %s FROM SAMPLING_CALLCHAINS ORDER BY id, stackDepth",
             nsys_kernel_mode(r));
}

void nsys_samples_begin(nsys_reader *r)
{
    char sql[160];
    nsys_chain_sql(r, sql, sizeof(sql));
    r->chains = nsys_chains_start(r, sql);
    if (r->chains)
        tconv_note(r->ctx, "%s: the CPU samples' frames are read on a thread of their own",
                   r->d.name);
}

/* Step the scan: 0, or -1 with the error on the ctx. */
static int nsys_scan_step(nsys_reader *r)
{
    int rc;
    if (r->chains) {
        rc = nsys_chains_next(r, r->chains, &r->scan_row);
        if (rc < 0) return -1;
        rc = rc ? SQLITE_ROW : SQLITE_DONE;
    } else {
        rc = sqlin_step(&r->d, r->chain_scan, "SAMPLING_CALLCHAINS");
        if (rc < 0) return -1;
        if (rc == SQLITE_ROW) r->scan_row = nsys_chain_row_read(r->chain_scan);
    }
    r->scan_state = rc == SQLITE_ROW ? 1 : 2;
    return 0;
}

/* The frames of sample id, root first, into r->frames: their count, or -1 with the error on the
 * ctx.
 *
 * Looking each sample's frames up by the table's key cost four fifths of the read (a statement
 * run per sample: a search of the index, a search of the table per frame, the statement's
 * start and end). The samples come in time order, and nsys numbers them in time order too, so
 * one scan of SAMPLING_CALLCHAINS in key order (id, stackDepth), beside the samples, meets each
 * sample's frames where they are needed, one row at a time. The scan only serves ids above the
 * largest it served: after that, it stands on the first row of an id above all of them, so a
 * sample whose id it passes has no frames. A sample out of id order (another export's numbering,
 * a tool's rewrite) is looked up by key as before; the frames are the same either way. */
static int nsys_sample_frames(nsys_reader *r, int64_t id)
{
    size_t n = 0;
    if (r->scan_state == 0) {
        char sql[160];
        nsys_chain_sql(r, sql, sizeof(sql));
        if (!r->chains) r->chain_scan = sqlin_prepare(&r->d, "SAMPLING_CALLCHAINS", sql);
        if ((!r->chains && !r->chain_scan) || nsys_scan_step(r) != 0) return -1;
        r->scan_max = INT64_MIN;
    }
    if (id > r->scan_max) {
        r->scan_max = id;
        while (r->scan_state == 1 && r->scan_row.id < id)
            if (nsys_scan_step(r) != 0) return -1;
        while (r->scan_state == 1 && r->scan_row.id == id) {
            if (n + 1 > r->raw_cap) TCONV_ARRAY_GROW(r->raw, r->raw_cap, n + 1);
            r->raw[n++] = r->scan_row.f;
            if (nsys_scan_step(r) != 0) return -1;
        }
        /* leaf first as scanned; root first as pushed, names interned in that order */
        nsys_frames_room(r, n);
        for (size_t i = 0; i < n; i++)
            nsys_frame_fill(r, &r->frames[i], &r->raw[n - 1 - i]);
        return (int)n;
    }
    if (!r->sample_st) {
        char sql[160];
        snprintf(sql, sizeof(sql),
                 "SELECT symbol, module, %s FROM SAMPLING_CALLCHAINS WHERE id = ?1 ORDER BY "
                 "stackDepth DESC",
                 nsys_kernel_mode(r));
        r->sample_st = sqlin_prepare(&r->d, "SAMPLING_CALLCHAINS", sql);
        if (!r->sample_st) return -1;
    }
    sqlite3_bind_int64(r->sample_st, 1, id);
    int rc;
    while ((rc = sqlin_step(&r->d, r->sample_st, "SAMPLING_CALLCHAINS")) == SQLITE_ROW) {
        nsys_frames_room(r, n + 1);
        nsys_raw_frame raw = nsys_raw_frame_read(r->sample_st, 0);
        nsys_frame_fill(r, &r->frames[n++], &raw);
    }
    sqlite3_reset(r->sample_st);
    return rc < 0 ? -1 : (int)n;
}

tconv_status nsys_sample_row(nsys_reader *r, nsys_cursor *c)
{
    sqlite3_stmt *st = c->st;
    int ok_tid, ok_id;
    int64_t gtid = sqlin_int(st, NSYS_S_TID, &ok_tid), id = sqlin_int(st, NSYS_S_ID, &ok_id);
    if (c->start == INT64_MIN || !ok_tid || !ok_id) {
        nsys_bad_row(r, c, "a CPU sample without its time, thread or id");
        return TCONV_OK;
    }
    if (!r->sample_types_set) {
        r->sample_period = nsys_sample_period(r, c->sorted);
        if (r->sample_period < 0) return TCONV_FATAL;
        static const tconv_sample_type types[] = {{"samples", "count"}, {"cpu", "nanoseconds"}};
        tconv_sampletypes_set(r->ctx, 2, types, 1);
        r->sample_types_set = 1;
    }
    uint32_t track = nsys_thread(r, gtid);
    if (track == TCONV_MAP_NONE) return TCONV_FATAL;
    int got = nsys_sample_frames(r, id);
    if (got < 0) return TCONV_FATAL;
    size_t n = (size_t)got;
    if (!n) {
        nsys_frames_room(r, 1);
        memset(r->frames, 0, sizeof(*r->frames));
        r->frames[0].name = nsys_intern(r, "[no stack]");
        n = 1;
    }
    int64_t values[2] = {1, r->sample_period};
    tconv_event ev = TCONV_EVENT_INIT;
    ev.kind = TCONV_EV_SAMPLE;
    ev.track = track;
    ev.ts = c->start;
    ev.frames = r->frames;
    ev.nframes = (uint32_t)n;
    ev.values = values;
    ev.nvalues = 2;
    return nsys_push(r, &ev);
}

void nsys_samples_free(nsys_reader *r)
{
    sqlite3_finalize(r->cuda_chain_st);
    sqlite3_finalize(r->osrt_chain_st);
    sqlite3_finalize(r->sample_st);
    sqlite3_finalize(r->chain_scan);
    nsys_chains_stop(r->chains);
    r->chains = NULL;
    r->cuda_chain_st = r->osrt_chain_st = r->sample_st = r->chain_scan = NULL;
    r->scan_state = 0;
    free(r->frames);
    free(r->raw);
    r->frames = NULL;
    r->raw = NULL;
}
