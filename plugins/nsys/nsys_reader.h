/* The Nsight Systems reader: an `nsys export --type sqlite` file (schemas 2.9 to 3.x) into
 * events. The state of one read, shared by the files of the reader:
 *   nsys_read.c     the read: open, metadata, the merge of the tables by start, the note;
 *   nsys_tables.c   which tables and columns the export has, and the SELECT for each source;
 *   nsys_names.c    StringIds, enum labels, interned constants;
 *   nsys_tracks.c   threads, processes and GPU streams as tracks, with their names;
 *   nsys_gpu.c      kernels, copies, sets, synchronisations, graphs, GPU memory;
 *   nsys_cpu.c      CUDA API calls, NVTX, OS runtime, library calls, overhead, backtraces;
 *   nsys_samples.c  CPU sampling as stack samples;
 *   nsys_chains.c   the samples' frames read on a thread of their own, when there is one.
 * Memory: the tracks, the distinct strings used (one map entry per StringIds id that an event
 * names), one row of each table at a time (and up to 8 MiB of frame rows for the thread
 * that reads them); SQLite sorts each table by start with its own bounded cache, spilling to
 * temporary files. */
#ifndef NSYS_READER_H
#define NSYS_READER_H

#include <tconv/tconv.h>

#include "sqlin.h"

enum { NSYS_NAMES_DEMANGLED = 0, NSYS_NAMES_SHORT, NSYS_NAMES_MANGLED };
enum { NSYS_SAMPLES_AUTO = 0, NSYS_SAMPLES_ON, NSYS_SAMPLES_OFF };

typedef struct nsys_opts {
    int names;      /* NSYS_NAMES_*: which kernel name */
    int samples;    /* NSYS_SAMPLES_*: CPU sampling as stack samples */
    int backtraces; /* CUDA and OS runtime backtraces as the calls' enclosing frames */
} nsys_opts;

/* The sources read, in the order that breaks ties between rows that start together. */
typedef enum nsys_src_kind {
    NSYS_SRC_RUNTIME = 0,
    NSYS_SRC_NVTX,
    NSYS_SRC_OSRT,
    NSYS_SRC_CUDNN,
    NSYS_SRC_CUBLAS,
    NSYS_SRC_OVERHEAD,
    NSYS_SRC_CUPTI_OVERHEAD,
    NSYS_SRC_KERNEL,
    NSYS_SRC_MEMCPY,
    NSYS_SRC_MEMSET,
    NSYS_SRC_SYNC,
    NSYS_SRC_GRAPH,
    NSYS_SRC_SAMPLES,
    NSYS_SRC_CUDA_MEMORY,
    NSYS_SRC_WDDM_MEMORY,
    NSYS_SRC_COUNT
} nsys_src_kind;

/* One table being read, its current row, ordered by start. */
typedef struct nsys_cursor {
    nsys_src_kind kind;
    const char *table;
    sqlite3_stmt *st;
    int64_t start; /* the current row's */
    int has_row;
    int rowid_col; /* where the SELECT put the rowid, for messages */
    int sorted;    /* the table is stored in start order (read without sorting) */
    uint64_t rows;
} nsys_cursor;

/* A frame's row of SAMPLING_CALLCHAINS as read: StringIds ids, is the symbol there, kernel
 * mode; with the id of the sample it belongs to. */
typedef struct nsys_raw_frame {
    int64_t symbol, module;
    int has_symbol, kernel;
} nsys_raw_frame;

typedef struct nsys_chain_row {
    int64_t id;
    nsys_raw_frame f;
} nsys_chain_row;

typedef struct nsys_chains nsys_chains;

typedef struct nsys_reader {
    tconv_ctx *ctx;
    tconv_sink *sink;
    sqlin_db d;
    nsys_opts opt;
    int args;        /* build args (tconv_args_wanted) */
    char schema[32]; /* "3.24.0", "" when the export does not say */

    /* StringIds: each id an event names, interned once */
    sqlite3_stmt *str_st;
    tconv_map strs;

    /* threads and processes */
    tconv_map threads;      /* globalTid -> track */
    tconv_map thread_names; /* globalTid -> StringIds id (ThreadNames) */
    tconv_map nvtx_names;   /* globalTid -> tconv_str (nvtxNameOsThread) */
    tconv_map procs;        /* globalPid -> PROCESSES rowid */
    tconv_map procs_seen;   /* pid -> 1 once its name was given */
    sqlite3_stmt *proc_st;
    int host_given;
    tconv_str host;

    /* GPU streams and devices */
    tconv_map streams;      /* (device << 32 | stream, pid) -> track */
    tconv_map stream_owner; /* (device << 32 | stream) -> the first pid seen on it */
    tconv_map devices_seen; /* device -> 1 once named */
    tconv_map gpu_names;    /* device -> tconv_str of the GPU's name */
    tconv_map mem_index;    /* (device, pid) -> index in mem_sum */
    double *mem_sum;
    size_t nmem, mem_cap;

    /* NVTX */
    tconv_map domains;      /* (pid << 32 | domain) -> tconv_str */
    tconv_map categories;   /* (pid << 32 | domain, category) -> tconv_str */
    tconv_map async_tracks; /* (pid << 32 | domain) -> track */

    /* enum labels */
    tconv_str memcpy_kind[32], mem_kind[16], sync_kind[8];
    int64_t backtrace_class, driver_class;

    /* backtraces and samples */
    sqlite3_stmt *cuda_chain_st, *osrt_chain_st, *sample_st;
    /* SAMPLING_CALLCHAINS read once in id order beside the samples (nsys_samples.c), by this
     * statement or on a thread of its own (nsys_chains.c) */
    sqlite3_stmt *chain_scan;
    nsys_chains *chains;
    nsys_chain_row scan_row; /* the scan's current row */
    int64_t scan_max;        /* the largest sample id the scan served */
    int scan_state;          /* 0 not opened, 1 on a row, 2 at its end */
    nsys_raw_frame *raw;     /* one sample's frames as scanned */
    size_t raw_cap;
    tconv_frame *frames;
    size_t frames_cap;
    int64_t sample_period;
    int sample_types_set;

    /* interned constants */
    struct {
        tconv_str empty, process_name, thread_name, host, rank, base_time;
        tconv_str kernel, memcpy, memset, sync, graph, runtime, driver, osrt, cudnn, cublas,
            overhead, nvtx, memory, bytes, allocated, wddm_usage;
        tconv_str device, context, stream, correlation, grid, block, regs, smem, smem_static,
            smem_dynamic, copy_kind, src_kind, dst_kind, bandwidth, value, payload, json, category,
            ret, graph_id, graph_exec, launch_type;
        tconv_str memset_name;
    } s;

    /* scratch */
    tconv_arg argv[16];
    char buf[256];

    int64_t order_last; /* the order check's time of the row before (nsys_tables.c) */
    nsys_cursor cur[NSYS_SRC_COUNT];
    size_t ncur;
    uint64_t pushed, skipped;
    uint32_t first_track; /* of the first event pushed */
} nsys_reader;

/* nsys_chains.c: the scan of SAMPLING_CALLCHAINS by sql (columns id, symbol, module, kernel
 * mode) on a thread of its own, with the spare connection (taken); NULL when there is none or
 * the thread cannot start (the caller then reads on its own connection). next gives the scan's
 * next row: 1, 0 at its end, -1 with the error on the ctx. */
nsys_chains *nsys_chains_start(nsys_reader *r, const char *sql);
int nsys_chains_next(nsys_reader *r, nsys_chains *c, nsys_chain_row *row);
void nsys_chains_stop(nsys_chains *c);
/* The current row of a statement of those columns. */
nsys_chain_row nsys_chain_row_read(sqlite3_stmt *st);

/* nsys_read.c */
tconv_status nsys_read(tconv_ctx *ctx, tconv_input *in, const nsys_opts *opt, tconv_sink *sink);
tconv_status nsys_push(nsys_reader *r, const tconv_event *ev);
/* A row that cannot become an event: counted, first one shown. */
void nsys_bad_row(nsys_reader *r, const nsys_cursor *c, const char *what);

/* nsys_tables.c: the cursors of the sources the export has (r->cur), each positioned on its
 * first row; the names of the sources it lacks in absent[] (a note for the user). CPU samples
 * that -R samples=auto leaves out are counted in *samples_left. */
int nsys_tables_open(nsys_reader *r, const char **absent, size_t *nabsent, int64_t *samples_left);
/* Advance c to its next row: 0, or -1 with the error on the ctx. */
int nsys_cursor_next(nsys_reader *r, nsys_cursor *c);
void nsys_tables_close(nsys_reader *r);

/* nsys_names.c */
int nsys_names_init(nsys_reader *r);
void nsys_names_free(nsys_reader *r);
/* The interned text of a StringIds id; 0 for an id that is absent. */
tconv_str nsys_string(nsys_reader *r, int64_t id);
/* The name of a CUDA/OS API call without its "_v3020" version suffix, as nsys shows it. */
tconv_str nsys_api_name(nsys_reader *r, int64_t id);
tconv_str nsys_intern(nsys_reader *r, const char *s);

/* nsys_tracks.c */
int nsys_tracks_init(nsys_reader *r);
void nsys_tracks_free(nsys_reader *r);
/* The track of a thread (pushing its names the first time); TCONV_MAP_NONE on a fatal push. */
uint32_t nsys_thread(nsys_reader *r, int64_t global_tid);
/* The process-scoped track of the process of globalPid (counters). */
uint32_t nsys_process(nsys_reader *r, int64_t global_pid);
/* The track of a GPU stream of a process; stream < 0: the device's synchronisations. */
uint32_t nsys_stream(nsys_reader *r, int64_t device, int64_t stream, int64_t global_pid);
/* The async track of a process's NVTX start/end ranges of one domain. */
uint32_t nsys_nvtx_track(nsys_reader *r, int64_t global_tid, int64_t domain);
static inline uint32_t nsys_pid_of(int64_t global_id)
{
    return (uint32_t)(((uint64_t)global_id >> 24) & 0xFFFFFF);
}
static inline uint32_t nsys_tid_of(int64_t global_id)
{
    return (uint32_t)((uint64_t)global_id & 0xFFFFFF);
}
/* A correlation id unique in the export: CUPTI's ids are unique per process. */
static inline uint64_t nsys_corr(int64_t global_id, int64_t correlation)
{
    if (correlation <= 0 || correlation > 0xFFFFFFFF) return 0;
    return (uint64_t)nsys_pid_of(global_id) << 32 | (uint64_t)correlation;
}

/* nsys_gpu.c and nsys_cpu.c: the current row of c as events. */
tconv_status nsys_gpu_row(nsys_reader *r, nsys_cursor *c);
tconv_status nsys_cpu_row(nsys_reader *r, nsys_cursor *c);
/* The export's NVTX domain, category and thread names, read before the events. */
int nsys_nvtx_prepare(nsys_reader *r);

/* nsys_samples.c. Before the samples' cursor is opened (and its order checked), begin starts
 * the scan of their frames on a thread of its own when sqlin_open kept a spare connection; else
 * the scan starts inline at the first sample. */
void nsys_samples_begin(nsys_reader *r);
/* Columns col .. col + 2 of st (symbol, module, kernel mode) as a frame's row. */
nsys_raw_frame nsys_raw_frame_read(sqlite3_stmt *st, int col);
tconv_status nsys_sample_row(nsys_reader *r, nsys_cursor *c);
/* The frames of a backtrace (CUDA_CALLCHAINS, OSRT_CALLCHAINS) as spans over [start, end] on
 * track, root first, before the call itself is pushed. */
tconv_status nsys_backtrace(nsys_reader *r, int osrt, int64_t chain, uint32_t track, int64_t start,
                            int64_t end);
void nsys_samples_free(nsys_reader *r);

#endif
