/* Tracks: CPU threads, GPU streams, processes, and NVTX start/end ranges.
 *
 * nsys names a thread by its globalTid, which packs the process id in bits 24..47 and the
 * thread id in bits 0..23 (above them, the host); a thread's track is (pid, tid) as decimal
 * text, so tracks read the same as those of other readers. A track is made when its first event
 * comes, and its names are pushed then: so only threads with events appear, whatever the
 * export's ThreadNames and PROCESSES list (every thread and process of the machine, in some).
 *
 * A GPU stream is (device, stream) of one process: track pid "GPU <device>", tid "stream <id>"
 * (CUPTI's stream ids are per process, so a second process on the same stream id gets
 * "stream <id> (pid <pid>)"). The device's process name carries the GPU's name from
 * TARGET_INFO_GPU. Synchronisations without a stream go on the device's "sync" track. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "nsys_reader.h"

static tconv_str nsys_num(nsys_reader *r, const char *fmt, int64_t v)
{
    snprintf(r->buf, sizeof(r->buf), fmt, (long long)v);
    return nsys_intern(r, r->buf);
}

static int nsys_meta(nsys_reader *r, uint32_t track, tconv_str what, tconv_str text)
{
    tconv_event ev = TCONV_EVENT_INIT;
    ev.kind = TCONV_EV_METADATA;
    ev.track = track;
    ev.name = what;
    ev.text = text;
    return nsys_push(r, &ev) == TCONV_FATAL ? -1 : 0;
}

/* Map column key -> column value of every row of a table (the last row wins). */
static void nsys_load_map(nsys_reader *r, tconv_map *m, const char *table, const char *sql)
{
    sqlite3_stmt *st = sqlin_prepare_opt(&r->d, table, sql);
    if (!st) return;
    while (sqlin_step(&r->d, st, table) == SQLITE_ROW) {
        int ok1, ok2;
        int64_t k = sqlin_int(st, 0, &ok1), v = sqlin_int(st, 1, &ok2);
        if (ok1 && ok2 && v >= 0 && v < UINT32_MAX) tconv_map_set(m, (uint64_t)k, 0, (uint32_t)v);
    }
    sqlite3_finalize(st);
}

/* The GPUs' names by the device ids CUPTI uses (TARGET_INFO_CUDA_DEVICE maps them when the
 * export has it; otherwise nsys's GPU id is the CUDA device id). */
static void nsys_gpu_names(nsys_reader *r)
{
    const char *idcol = sqlin_has_column(&r->d, "TARGET_INFO_GPU", "id")         ? "id"
                        : sqlin_has_column(&r->d, "TARGET_INFO_GPU", "deviceId") ? "deviceId"
                                                                                 : NULL;
    if (!idcol || !sqlin_has_column(&r->d, "TARGET_INFO_GPU", "name")) return;
    char sql[160];
    snprintf(sql, sizeof(sql), "SELECT \"%s\", name FROM TARGET_INFO_GPU ORDER BY rowid", idcol);
    sqlite3_stmt *st = sqlin_prepare_opt(&r->d, "TARGET_INFO_GPU", sql);
    while (st && sqlin_step(&r->d, st, "TARGET_INFO_GPU") == SQLITE_ROW) {
        int ok;
        int64_t id = sqlin_int(st, 0, &ok);
        const char *name = sqlin_text(&r->d, st, 1, NULL);
        if (ok && name && id >= 0 && id < UINT32_MAX &&
            tconv_map_get(&r->gpu_names, (uint64_t)id, 0) == TCONV_MAP_NONE)
            tconv_map_set(&r->gpu_names, (uint64_t)id, 0, nsys_intern(r, name));
    }
    sqlite3_finalize(st);
    if (!sqlin_has_column(&r->d, "TARGET_INFO_CUDA_DEVICE", "cudaId")) return;
    tconv_map cuda = {0};
    nsys_load_map(r, &cuda, "TARGET_INFO_CUDA_DEVICE",
                  "SELECT cudaId, gpuId FROM TARGET_INFO_CUDA_DEVICE ORDER BY rowid");
    tconv_map by_cuda = {0};
    for (size_t i = 0; i < cuda.nslots; i++) {
        const tconv_map_slot *s = &cuda.slots[i];
        if (s->value == TCONV_MAP_NONE) continue;
        uint32_t name = tconv_map_get(&r->gpu_names, s->value, 0);
        if (name != TCONV_MAP_NONE) tconv_map_set(&by_cuda, s->a, 0, name);
    }
    for (size_t i = 0; i < by_cuda.nslots; i++)
        if (by_cuda.slots[i].value != TCONV_MAP_NONE)
            tconv_map_set(&r->gpu_names, by_cuda.slots[i].a, 0, by_cuda.slots[i].value);
    tconv_map_free(&cuda);
    tconv_map_free(&by_cuda);
}

int nsys_tracks_init(nsys_reader *r)
{
    if (sqlin_has_column(&r->d, "ThreadNames", "nameId"))
        nsys_load_map(r, &r->thread_names, "ThreadNames",
                      "SELECT globalTid, nameId FROM ThreadNames ORDER BY rowid");
    if (sqlin_has_column(&r->d, "PROCESSES", "globalPid")) {
        nsys_load_map(r, &r->procs, "PROCESSES",
                      "SELECT globalPid, rowid FROM PROCESSES ORDER BY rowid");
        r->proc_st =
            sqlin_prepare(&r->d, "PROCESSES", "SELECT name FROM PROCESSES WHERE rowid = ?1");
        if (!r->proc_st) return -1;
    }
    nsys_gpu_names(r);
    /* The machine's name, for the OTF2 system tree. */
    static const char *const host_sql[] = {
        "SELECT value FROM TARGET_INFO_SYSTEM_ENV WHERE name = 'Hostname' LIMIT 1",
        "SELECT value FROM META_DATA_EXPORT WHERE name = 'EXPORT_HOST' LIMIT 1",
        "SELECT value FROM EXPORT_META_DATA WHERE name = 'EXPORT_HOST' LIMIT 1"};
    static const char *const host_table[] = {"TARGET_INFO_SYSTEM_ENV", "META_DATA_EXPORT",
                                             "EXPORT_META_DATA"};
    for (size_t i = 0; i < 3 && !r->host && !r->d.failed; i++) {
        sqlite3_stmt *st = sqlin_has_table(&r->d, host_table[i])
                               ? sqlin_prepare_opt(&r->d, host_table[i], host_sql[i])
                               : NULL;
        if (st && sqlin_step(&r->d, st, host_table[i]) == SQLITE_ROW) {
            const char *t = sqlin_text(&r->d, st, 0, NULL);
            if (t) r->host = nsys_intern(r, t);
        }
        sqlite3_finalize(st);
    }
    return r->d.failed ? -1 : 0;
}

void nsys_tracks_free(nsys_reader *r)
{
    sqlite3_finalize(r->proc_st);
    r->proc_st = NULL;
    tconv_map *maps[] = {&r->threads,     &r->thread_names, &r->nvtx_names,   &r->procs,
                         &r->procs_seen,  &r->streams,      &r->stream_owner, &r->devices_seen,
                         &r->gpu_names,   &r->mem_index,    &r->domains,      &r->categories,
                         &r->async_tracks};
    for (size_t i = 0; i < sizeof(maps) / sizeof(maps[0]); i++)
        tconv_map_free(maps[i]);
    free(r->mem_sum);
    r->mem_sum = NULL;
}

/* The process's name: PROCESSES, else the name of its main thread. */
static tconv_str nsys_process_name(nsys_reader *r, int64_t global_pid)
{
    uint32_t row = tconv_map_get(&r->procs, (uint64_t)global_pid, 0);
    tconv_str name = 0;
    if (row != TCONV_MAP_NONE && r->proc_st) {
        sqlite3_bind_int64(r->proc_st, 1, row);
        if (sqlin_step(&r->d, r->proc_st, "PROCESSES") == SQLITE_ROW) {
            const char *t = sqlin_text(&r->d, r->proc_st, 0, NULL);
            if (t) name = nsys_intern(r, t);
        }
        sqlite3_reset(r->proc_st);
    }
    if (!name) {
        uint64_t main = (uint64_t)global_pid | nsys_pid_of(global_pid);
        uint32_t id = tconv_map_get(&r->thread_names, main, 0);
        if (id != TCONV_MAP_NONE) name = nsys_string(r, id);
    }
    return name;
}

uint32_t nsys_thread(nsys_reader *r, int64_t global_tid)
{
    uint32_t t = tconv_map_get(&r->threads, (uint64_t)global_tid, 0);
    if (t != TCONV_MAP_NONE) return t;
    uint32_t pid = nsys_pid_of(global_tid);
    t = tconv_track_get(r->ctx, nsys_num(r, "%lld", pid),
                        nsys_num(r, "%lld", nsys_tid_of(global_tid)));
    tconv_map_set(&r->threads, (uint64_t)global_tid, 0, t);
    if (!r->host_given && r->host) {
        r->host_given = 1;
        if (nsys_meta(r, t, r->s.host, r->host) != 0) return TCONV_MAP_NONE;
    }
    if (tconv_map_get(&r->procs_seen, pid, 0) == TCONV_MAP_NONE) {
        tconv_map_set(&r->procs_seen, pid, 0, 1);
        tconv_str name = nsys_process_name(r, global_tid & ~(int64_t)0xFFFFFF);
        if (name && nsys_meta(r, t, r->s.process_name, name) != 0) return TCONV_MAP_NONE;
    }
    tconv_str name = tconv_map_get(&r->nvtx_names, (uint64_t)global_tid, 0);
    if (name == TCONV_MAP_NONE) {
        uint32_t id = tconv_map_get(&r->thread_names, (uint64_t)global_tid, 0);
        name = id == TCONV_MAP_NONE ? 0 : nsys_string(r, id);
    }
    if (name && nsys_meta(r, t, r->s.thread_name, name) != 0) return TCONV_MAP_NONE;
    return t;
}

uint32_t nsys_process(nsys_reader *r, int64_t global_pid)
{
    uint32_t pid = nsys_pid_of(global_pid);
    uint32_t t = tconv_track_get(r->ctx, nsys_num(r, "%lld", pid), r->s.empty);
    tconv_track_set_kind(r->ctx, t, TCONV_TRACK_PROCESS);
    if (tconv_map_get(&r->procs_seen, pid, 0) == TCONV_MAP_NONE) {
        tconv_map_set(&r->procs_seen, pid, 0, 1);
        tconv_str name = nsys_process_name(r, global_pid & ~(int64_t)0xFFFFFF);
        if (name && nsys_meta(r, t, r->s.process_name, name) != 0) return TCONV_MAP_NONE;
    }
    return t;
}

uint32_t nsys_stream(nsys_reader *r, int64_t device, int64_t stream, int64_t global_pid)
{
    if (stream < 0 || stream >= 0xFFFFFFFF) stream = -1;
    uint64_t key = (uint64_t)(uint32_t)device << 32 | (uint32_t)stream;
    uint32_t pid = nsys_pid_of(global_pid);
    uint32_t t = tconv_map_get(&r->streams, key, pid);
    if (t != TCONV_MAP_NONE) return t;
    uint32_t owner = tconv_map_put(&r->stream_owner, key, 0, pid);
    int n = stream < 0 ? snprintf(r->buf, sizeof(r->buf), "sync")
                       : snprintf(r->buf, sizeof(r->buf), "stream %lld", (long long)stream);
    if (owner != pid) snprintf(r->buf + n, sizeof(r->buf) - (size_t)n, " (pid %u)", (unsigned)pid);
    tconv_str tid = nsys_intern(r, r->buf);
    t = tconv_track_get(r->ctx, nsys_num(r, "GPU %lld", device), tid);
    tconv_track_set_kind(r->ctx, t, TCONV_TRACK_GPU);
    tconv_map_set(&r->streams, key, pid, t);
    if (tconv_map_get(&r->devices_seen, (uint64_t)device, 0) == TCONV_MAP_NONE) {
        tconv_map_set(&r->devices_seen, (uint64_t)device, 0, 1);
        uint32_t gpu = tconv_map_get(&r->gpu_names, (uint64_t)device, 0);
        int m = snprintf(r->buf, sizeof(r->buf), "GPU %lld", (long long)device);
        if (gpu != TCONV_MAP_NONE)
            snprintf(r->buf + m, sizeof(r->buf) - (size_t)m, " (%s)",
                     tconv_string_get(r->ctx, gpu));
        if (nsys_meta(r, t, r->s.process_name, nsys_intern(r, r->buf)) != 0) return TCONV_MAP_NONE;
    }
    return t;
}

uint32_t nsys_nvtx_track(nsys_reader *r, int64_t global_tid, int64_t domain)
{
    uint32_t pid = nsys_pid_of(global_tid);
    uint64_t key = (uint64_t)pid << 32 | (uint32_t)domain;
    uint32_t t = tconv_map_get(&r->async_tracks, key, 0);
    if (t != TCONV_MAP_NONE) return t;
    uint32_t dname = tconv_map_get(&r->domains, key, 0);
    if (dname != TCONV_MAP_NONE && dname)
        snprintf(r->buf, sizeof(r->buf), "NVTX %s", tconv_string_get(r->ctx, dname));
    else
        snprintf(r->buf, sizeof(r->buf), "NVTX");
    t = tconv_track_get(r->ctx, nsys_num(r, "%lld", pid), nsys_intern(r, r->buf));
    tconv_track_set_kind(r->ctx, t, TCONV_TRACK_ASYNC);
    tconv_map_set(&r->async_tracks, key, 0, t);
    return t;
}
