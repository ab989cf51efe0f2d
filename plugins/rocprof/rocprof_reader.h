/* The ROCm profiler reader: rocprofv3's JSON output (rocprofiler-sdk-tool) and rpd_tracer's
 * SQLite database (rocpd schema 2), into the same events as the nsys reader gives for CUDA:
 * kernels, copies and fills on per-GPU queue or stream tracks, HIP/HSA API calls on their
 * threads with the correlation id that links a launch to its GPU work, roctx ranges and marks.
 *   rocprof_common.c  what both formats share: tracks, names, interned strings, pushes;
 *   rocprof_json.c    rocprofv3 JSON, streamed through the core's JSON lexer (rocprof_jrec.c
 *                     collects one record at a time);
 *   rocprof_rpd.c     rpd SQLite, tables read in start order and merged. */
#ifndef ROCPROF_READER_H
#define ROCPROF_READER_H

#include <tconv/tconv.h>

enum { RP_NAMES_DEMANGLED = 0, RP_NAMES_SHORT, RP_NAMES_MANGLED };
enum { RP_BY_AUTO = 0, RP_BY_STREAM, RP_BY_QUEUE };

typedef struct rp_opts {
    int names;  /* RP_NAMES_* */
    int by;     /* RP_BY_*: GPU tracks per HIP stream (when known) or per HSA queue */
    int strict; /* a malformed record ends the read */
} rp_opts;

/* What both formats' readers share. */
typedef struct rp_common {
    tconv_ctx *ctx;
    tconv_sink *sink;
    rp_opts opt;
    const char *name; /* the input's */
    int args;         /* build args (tconv_args_wanted) */
    uint64_t pushed, skipped;
    uint32_t first_track;
    tconv_map threads; /* (pid << 32 | tid) -> track */
    tconv_map gpus;    /* (device index, track key) -> track */
    tconv_map gpu_seen;
    tconv_map gpu_names; /* device index -> tconv_str */
    tconv_map async;     /* pid -> track of process-wide roctx ranges */
    char buf[256];
    struct {
        tconv_str empty, process_name, thread_name, host, kernel, memcpy, memset, sync, hip, hsa,
            rccl, roctx, overhead, api, device, queue, stream, correlation, grid, block, smem,
            scratch, bytes, args, kind, src, dst, memory, thread;
    } s;
} rp_common;

void rp_common_init(rp_common *c, tconv_ctx *ctx, tconv_sink *sink, const rp_opts *opt,
                    const char *name);
void rp_common_free(rp_common *c);
tconv_status rp_push(rp_common *c, const tconv_event *ev);
tconv_str rp_intern(rp_common *c, const char *s, size_t len);
/* The track of a CPU thread. */
uint32_t rp_thread(rp_common *c, int64_t pid, int64_t tid);
/* The async track of a process's process-wide roctx ranges (roctxRangeStart/Stop). */
uint32_t rp_async(rp_common *c, int64_t pid);
/* The track "GPU <device>" / what (a "queue 3", "stream 0x1f" or "copy" text), pushing the
 * device's process name the first time. TCONV_MAP_NONE on a fatal push. */
uint32_t rp_gpu(rp_common *c, int64_t device, tconv_str what);
/* The process-scoped track of a device, for its counters. */
uint32_t rp_gpu_counters(rp_common *c, int64_t device);
/* The name a kernel is shown by: demangled as given, or its short form (no return type,
 * parameters, template arguments or namespaces) for -R names=short. */
tconv_str rp_kernel_name(rp_common *c, const char *demangled, size_t len);
/* The role of a GPU operation from its type's text ("KernelExecution", "CopyHostToDevice",
 * "MEMORY_COPY_...", "FillBuffer", "Barrier..."). */
unsigned rp_op_role(const char *type, size_t len);

/* rocprof_json.c, rocprof_rpd.c */
tconv_status rp_json_read(rp_common *c, tconv_input *in);
tconv_status rp_rpd_read(rp_common *c, tconv_input *in);

#endif
