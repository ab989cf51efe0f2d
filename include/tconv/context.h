/* The run context: string table, track table, errors and warnings. One per conversion; not
 * thread-safe. Writers are called from one thread; a reader flagged TCONV_READER_CONCURRENT
 * (plugin.h) may be called on other threads at once, each call with a context of its own. */
#ifndef TCONV_CONTEXT_H
#define TCONV_CONTEXT_H

#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include "event.h"

#ifdef __cplusplus
extern "C" {
#endif

#if defined(__GNUC__)
#define TCONV_PRINTF(f, a) __attribute__((format(printf, f, a)))
#else
#define TCONV_PRINTF(f, a)
#endif

typedef struct tconv_ctx tconv_ctx;

/* Status codes. A record failure lets the run go on; a fatal status ends it, with the message
 * already on the context (tconv_error_set). */
typedef enum tconv_status { TCONV_OK = 0, TCONV_RECORD = 1, TCONV_FATAL = -1 } tconv_status;

/* ---- strings ---------------------------------------------------------------------------- */
tconv_str tconv_string_intern(tconv_ctx *ctx, const char *s, size_t len);
tconv_str tconv_string_intern_cstr(tconv_ctx *ctx, const char *s);
const char *tconv_string_get(const tconv_ctx *ctx, tconv_str id); /* NUL-terminated */
size_t tconv_string_length(const tconv_ctx *ctx, tconv_str id);
uint32_t tconv_string_count(const tconv_ctx *ctx);

/* ---- tracks ----------------------------------------------------------------------------- */
typedef enum tconv_track_kind {
    TCONV_TRACK_THREAD = 0,
    TCONV_TRACK_GPU,     /* a GPU stream or queue */
    TCONV_TRACK_ASYNC,   /* async spans of one (category, id) */
    TCONV_TRACK_PROCESS, /* process-scoped items: counters, process instants */
    TCONV_TRACK_GLOBAL   /* trace-scoped items */
} tconv_track_kind;

typedef struct tconv_track {
    tconv_str pid; /* as written in the input: "1234" or "CPU functions" */
    tconv_str tid;
    uint32_t input; /* which input (rank) it came from */
    uint32_t kind;  /* tconv_track_kind */
    int has_pid_num, has_tid_num;
    int64_t pid_num, tid_num; /* numeric value when pid/tid is a number */
    tconv_str process_name;   /* from metadata, 0 if none */
    tconv_str thread_name;
    int64_t process_sort, thread_sort;
} tconv_track;

/* The track of (current input, pid, tid), created on first use. Ids are dense from 0 in order
 * of first use, which makes them deterministic for a given input. */
uint32_t tconv_track_get(tconv_ctx *ctx, tconv_str pid, tconv_str tid);
uint32_t tconv_track_count(const tconv_ctx *ctx);
const tconv_track *tconv_track_describe(const tconv_ctx *ctx, uint32_t track);
void tconv_track_set_kind(tconv_ctx *ctx, uint32_t track, tconv_track_kind kind);
/* Display name: thread_name, else "pid/tid". */
const char *tconv_track_label(const tconv_ctx *ctx, uint32_t track, char *buf, size_t cap);

/* ---- errors and warnings ---------------------------------------------------------------- */
/* Replace the current error with a new one (the run is failing). */
void tconv_error_set(tconv_ctx *ctx, const char *fmt, ...) TCONV_PRINTF(2, 3);
/* Same, prefixed with a position: "name:N: ". N is the byte offset in the (decompressed) input
 * for formats read as a byte stream, or the line number for line-oriented formats
 * (tconv_input_line), as compilers print it. */
void tconv_error_at(tconv_ctx *ctx, const char *name, uint64_t offset, const char *fmt, ...)
    TCONV_PRINTF(4, 5);
/* Add an outer message: the current error becomes its cause. */
void tconv_error_wrap(tconv_ctx *ctx, const char *fmt, ...) TCONV_PRINTF(2, 3);
int tconv_error_pending(const tconv_ctx *ctx);
/* Same as tconv_error_set, for the user's mistake rather than the input's: an option value the
 * descriptor cannot rule out (start after end, a malformed duration). The run ends with a usage
 * error (exit 2). */
void tconv_error_usage(tconv_ctx *ctx, const char *fmt, ...) TCONV_PRINTF(2, 3);
/* Messages outermost first; count in *n. */
const char *const *tconv_error_chain(const tconv_ctx *ctx, size_t *n);
/* Clears the chain and its hint. */
void tconv_error_clear(tconv_ctx *ctx);
/* How the user can fix the pending error ("run perf script -i FILE first"), shown after it;
 * set after the error, replaced by the next hint, cleared with the error. ABI 1.1. */
void tconv_error_hint(tconv_ctx *ctx, const char *fmt, ...) TCONV_PRINTF(2, 3);
const char *tconv_error_hint_get(const tconv_ctx *ctx); /* NULL if none */

/* A warning of a kind ("chrome.bad-event"): counted, and summarised once per kind at the end
 * with its first message. Never printed per event. */
void tconv_warning_add(tconv_ctx *ctx, const char *kind, const char *fmt, ...) TCONV_PRINTF(3, 4);
uint64_t tconv_warning_count(const tconv_ctx *ctx, const char *kind);
/* The i-th kind warned about, in order of first occurrence: its name, first message and count.
 * 0, or -1 when i is past the last. ABI 1.1. */
int tconv_warning_get(const tconv_ctx *ctx, size_t i, const char **kind, const char **first,
                      uint64_t *count);

/* An informational message for the user, shown with -v (the host's notice hook at level
 * TCONV_NOTICE_INFO): what a stage or a writer held, which choices it made. ABI 1.1. */
void tconv_note(tconv_ctx *ctx, const char *fmt, ...) TCONV_PRINTF(2, 3);
/* The same, shown without -v (level TCONV_NOTICE_NOTE; -q hides it): a choice that changes the
 * numbers the user reads, such as spans left out of self time, said with how to undo it. */
void tconv_note_show(tconv_ctx *ctx, const char *fmt, ...) TCONV_PRINTF(2, 3);

/* ---- sample types ----------------------------------------------------------------------- */
/* Declared by whoever produces SAMPLE events, before the first one. Copied. */
int tconv_sampletypes_set(tconv_ctx *ctx, size_t n, const tconv_sample_type *types,
                          size_t default_index);
const tconv_sample_type *tconv_sampletypes_get(const tconv_ctx *ctx, size_t *n,
                                               size_t *default_index);

/* ---- roles ------------------------------------------------------------------------------- */
/* The role (tconv_role) the core gives a span of this category when its reader set none: the one
 * table of profilers' categories ("cpu_op", "kernel", "gpu_memcpy", ...); TCONV_ROLE_CPU for any
 * other. Readers may call it to start from the same answer. ABI 1.1. */
unsigned tconv_role_of_category(tconv_ctx *ctx, tconv_str cat);

/* Does this span count in its thread's busy time (self time, stacks, totals)? Not when its role is
 * the profiler's window, an async span or a marker (tconv_role_is_work), unless the run keeps
 * all spans (--all-spans). Writers that compute self time themselves ask this; the stack stage
 * does for pprof and folded, and says how many it left out. ABI 1.1. */
int tconv_span_is_work(const tconv_ctx *ctx, const tconv_event *ev);

/* ---- hints from writers ------------------------------------------------------------------ */
/* ABI 1.0 form of a writer's TCONV_NEED_* declaration (plugin.h): a writer that never reads
 * event args calls this at open(), so that the stages that buffer events need not keep them. */
void tconv_args_ignore(tconv_ctx *ctx);
/* For readers: 0 when neither the writer nor a stage of the core will look at any event's args
 * (the writer does not need args, and no GPU attribution needs correlation ids), so that
 * building them can be skipped; pushing them anyway is harmless. A reader that sets
 * tconv_event.corr itself may skip args whenever this is 0. Appended to ABI 1.0. */
int tconv_args_wanted(const tconv_ctx *ctx);

/* ---- GPU attribution --------------------------------------------------------------------- */
/* ABI 1.0 form of TCONV_NEED_GPU_ATTRIBUTION (plugin.h). A profile writer (one that takes SAMPLE
 * but no spans) calls this at open() to have every GPU
 * activity (kernel, copy, set) charged to the CPU stack that launched it: the core then declares
 * a third sample type, gpu/nanoseconds, and adds one sample per attributed activity. See
 * event-model.md, "GPU attribution". */
void tconv_gpu_attribute(tconv_ctx *ctx);
/* A reader whose samples are CPU stacks taken at GPU launch calls, one per call (a uprobe on
 * cudaLaunchKernel), says so before pushing them. Under GPU attribution the core matches each
 * to a launch record of another input, per thread, by order or by time within tolerance_ns
 * after aligning the clocks, and puts it in front of that launch's stack; otherwise the samples
 * are ordinary samples. */
void tconv_launchstacks_declare(tconv_ctx *ctx, int64_t tolerance_ns);

/* ---- misc ------------------------------------------------------------------------------- */
int tconv_ctx_verbosity(const tconv_ctx *ctx); /* -1 quiet, 0 normal, 1+ verbose */
/* Earliest and latest time seen in the events pushed so far (span ends included); 0 if none. */
int tconv_ctx_bounds(const tconv_ctx *ctx, int64_t *first_ns, int64_t *last_ns);

/* ---- inputs ----------------------------------------------------------------------------- */
/* Inputs read so far (an input's index is that of tconv_event.input and tconv_track.input).
 * ABI 1.1. */
uint32_t tconv_ctx_input_count(const tconv_ctx *ctx);
/* The name an input was opened as (its path as given, "<stdin>"); NULL if unknown. ABI 1.1. */
const char *tconv_ctx_input_name(const tconv_ctx *ctx, uint32_t input);
/* What an input says of itself in metadata (event-model.md, "Metadata"): its rank in a
 * distributed job, and the Unix time in ns of its time 0 (absolute time = origin + ts).
 * 1 and the value when the input gave one, else 0. ABI 1.1. */
int tconv_ctx_rank(const tconv_ctx *ctx, uint32_t input, int64_t *rank);
int tconv_ctx_time_origin(const tconv_ctx *ctx, uint32_t input, int64_t *unix_ns);

#ifdef __cplusplus
}
#endif
#endif
