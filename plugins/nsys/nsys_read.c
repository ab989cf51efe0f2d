/* One read of an Nsight Systems export: is it one, what does it hold, and its rows as one
 * stream in time order.
 *
 * Each source table is read by a cursor ordered by start; the read takes the row that starts
 * first among the cursors' current rows (ties go to the source listed first: CPU calls before
 * the GPU work they launch), so events come in the order they happened and memory holds one
 * row per table. What the export lacks of the usual captures (CUDA, NVTX, OS runtime, CPU
 * sampling) is said in a note: an empty table of kernels and an export without that table
 * mean different things to the user. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "nsys_reader.h"

tconv_status nsys_push(nsys_reader *r, const tconv_event *ev)
{
    tconv_status st = tconv_sink_push(r->sink, ev);
    if (st == TCONV_FATAL) return TCONV_FATAL;
    if (!r->pushed++) r->first_track = ev->track;
    return TCONV_OK;
}

void nsys_bad_row(nsys_reader *r, const nsys_cursor *c, const char *what)
{
    r->skipped++;
    tconv_warning_add(r->ctx, "nsys.bad-row", "%s: table %s, row %lld: %s; skipped", r->d.name,
                      c->table, (long long)sqlite3_column_int64(c->st, c->rowid_col), what);
}

/* The first text value of a query, interned; 0 when there is none. */
static tconv_str nsys_query_text(nsys_reader *r, const char *table, const char *sql)
{
    if (!sqlin_has_table(&r->d, table)) return 0;
    sqlite3_stmt *st = sqlin_prepare_opt(&r->d, table, sql);
    tconv_str s = 0;
    if (st && sqlin_step(&r->d, st, table) == SQLITE_ROW) {
        const char *t = sqlin_text(&r->d, st, 0, NULL);
        if (t) s = nsys_intern(r, t);
    }
    sqlite3_finalize(st);
    return s;
}

/* Is this an nsys export? 0, or -1 with an error that says what it is instead. */
static int nsys_recognise(nsys_reader *r)
{
    static const char *const marks[] = {"CUPTI_ACTIVITY_KIND_KERNEL",
                                        "CUPTI_ACTIVITY_KIND_RUNTIME",
                                        "NVTX_EVENTS",
                                        "OSRT_API",
                                        "COMPOSITE_EVENTS",
                                        "ThreadNames",
                                        "TARGET_INFO_GPU",
                                        "META_DATA_EXPORT",
                                        "EXPORT_META_DATA",
                                        "TARGET_INFO_SESSION_START_TIME"};
    int nsys = 0, rocpd = 0;
    for (size_t i = 0; i < sizeof(marks) / sizeof(marks[0]); i++)
        nsys |= sqlin_has_table(&r->d, marks[i]);
    for (size_t i = 0; i < r->d.ntables; i++)
        rocpd |= strncmp(r->d.tables[i], "rocpd_", 6) == 0;
    if (sqlin_has_table(&r->d, "StringIds") && nsys) return 0;
    if (rocpd && !nsys) {
        tconv_error_set(r->ctx,
                        "%s: this is a ROCm profiler database (rocpd_* tables), not an "
                        "Nsight Systems export",
                        r->d.name);
        tconv_error_hint(r->ctx, "read it with -r rocprof, or without -r");
    } else if (nsys) {
        tconv_error_set(r->ctx,
                        "%s: the Nsight Systems export has no StringIds table, which "
                        "holds every name: it was cut down too far to be read",
                        r->d.name);
    } else {
        tconv_error_set(r->ctx,
                        "%s: a SQLite database, but not an Nsight Systems export: it has "
                        "none of the tables nsys writes (StringIds, ThreadNames, "
                        "CUPTI_ACTIVITY_KIND_*, NVTX_EVENTS, ...)",
                        r->d.name);
        tconv_error_hint(r->ctx, "make one with: nsys export --type sqlite REPORT.nsys-rep");
    }
    return -1;
}

static tconv_status nsys_dispatch(nsys_reader *r, nsys_cursor *c)
{
    switch (c->kind) {
    case NSYS_SRC_SAMPLES:
        return nsys_sample_row(r, c);
    case NSYS_SRC_KERNEL:
    case NSYS_SRC_MEMCPY:
    case NSYS_SRC_MEMSET:
    case NSYS_SRC_SYNC:
    case NSYS_SRC_GRAPH:
    case NSYS_SRC_CUDA_MEMORY:
    case NSYS_SRC_WDDM_MEMORY:
        return nsys_gpu_row(r, c);
    default:
        return nsys_cpu_row(r, c);
    }
}

static tconv_status nsys_merge(nsys_reader *r)
{
    for (;;) {
        nsys_cursor *best = NULL;
        for (size_t i = 0; i < r->ncur; i++) {
            nsys_cursor *c = &r->cur[i];
            if (c->has_row && (!best || c->start < best->start)) best = c;
        }
        if (!best) return TCONV_OK;
        if (nsys_dispatch(r, best) == TCONV_FATAL || r->d.failed) return TCONV_FATAL;
        if (nsys_cursor_next(r, best) != 0) return TCONV_FATAL;
    }
}

/* The capture's start in UTC (time 0 of the export's clock), as the input's time origin. */
static tconv_status nsys_time_origin(nsys_reader *r)
{
    tconv_str utc = nsys_query_text(r, "TARGET_INFO_SESSION_START_TIME",
                                    "SELECT CAST(utcEpochNs AS TEXT) FROM "
                                    "TARGET_INFO_SESSION_START_TIME WHERE typeof(utcEpochNs) = "
                                    "'integer' LIMIT 1");
    if (!utc || !r->pushed) return TCONV_OK;
    /* Metadata sits on a track; any of the input's does. */
    tconv_event ev = TCONV_EVENT_INIT;
    ev.kind = TCONV_EV_METADATA;
    ev.track = r->first_track;
    ev.name = r->s.base_time;
    ev.text = utc;
    return nsys_push(r, &ev);
}

static void nsys_notes(nsys_reader *r, const char **absent, size_t nabsent, int64_t samples_left)
{
    if (samples_left > 0)
        tconv_note_show(r->ctx,
                        "%s: %lld CPU samples left out: profile writers would add their CPU time "
                        "to the traced calls' self time; -R samples=true reads them too",
                        r->d.name, (long long)samples_left);
    if (nabsent) {
        char list[256];
        size_t len = 0;
        for (size_t i = 0; i < nabsent && len < sizeof(list); i++)
            len += (size_t)snprintf(list + len, sizeof(list) - len, "%s%s",
                                    i == 0 ? "" : (i + 1 == nabsent ? " or " : ", "), absent[i]);
        tconv_note_show(r->ctx, "%s: no %s in this export (not captured, or its tables removed)",
                        r->d.name, list);
    }
    if (tconv_ctx_verbosity(r->ctx) <= 0) return;
    char list[1024];
    size_t len = 0;
    for (size_t i = 0; i < r->ncur && len < sizeof(list); i++)
        len += (size_t)snprintf(list + len, sizeof(list) - len, "%s%s %llu", i ? ", " : "",
                                r->cur[i].table, (unsigned long long)r->cur[i].rows);
    tconv_note(r->ctx, "%s: nsys export schema %s%s; rows read: %s; %llu events, %llu rows skipped",
               r->d.name, r->schema[0] ? r->schema : "unknown",
               r->d.spooled ? " (read from a temporary copy)" : "", len ? list : "none",
               (unsigned long long)r->pushed, (unsigned long long)r->skipped);
}

static void nsys_schema(nsys_reader *r)
{
    static const char *const tables[] = {"META_DATA_EXPORT", "EXPORT_META_DATA"};
    for (size_t i = 0; i < 2 && !r->schema[0]; i++) {
        char sql[160];
        snprintf(sql, sizeof(sql),
                 "SELECT value FROM %s WHERE name = 'EXPORT_SCHEMA_VERSION' LIMIT 1", tables[i]);
        tconv_str s = nsys_query_text(r, tables[i], sql);
        if (s) snprintf(r->schema, sizeof(r->schema), "%s", tconv_string_get(r->ctx, s));
    }
}

tconv_status nsys_read(tconv_ctx *ctx, tconv_input *in, const nsys_opts *opt, tconv_sink *sink)
{
    nsys_reader *r = calloc(1, sizeof(*r));
    if (!r) {
        tconv_error_set(ctx, "out of memory");
        return TCONV_FATAL;
    }
    r->ctx = ctx;
    r->sink = sink;
    r->opt = *opt;
    r->args = tconv_args_wanted(ctx);
    tconv_status st = TCONV_FATAL;
    const char *absent[NSYS_SRC_COUNT];
    size_t nabsent = 0;
    int64_t samples_left = 0;
    /* A thread to spare reads the CPU samples' frames (nsys_chains.c). */
    unsigned flags = tconv_split_possible(ctx, in) ? SQLIN_SPARE : 0;
    if (sqlin_open(&r->d, ctx, in, "an Nsight Systems export", "nsys.wal", flags) != 0) goto out;
    if (nsys_recognise(r) != 0) goto out;
    nsys_schema(r);
    if (nsys_names_init(r) != 0 || nsys_tracks_init(r) != 0 || nsys_nvtx_prepare(r) != 0) goto out;
    if (nsys_tables_open(r, absent, &nabsent, &samples_left) != 0) goto out;
    st = nsys_merge(r);
    if (st == TCONV_OK) st = nsys_time_origin(r);
    if (st == TCONV_OK && r->d.failed) st = TCONV_FATAL;
    if (st == TCONV_OK) nsys_notes(r, absent, nabsent, samples_left);
out:
    nsys_tables_close(r);
    nsys_samples_free(r);
    nsys_tracks_free(r);
    nsys_names_free(r);
    sqlin_close(&r->d);
    free(r);
    return st;
}
