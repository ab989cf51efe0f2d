/* The host API: for programs that convert, as the tconv command line does, rather than for
 * plugins. A host owns the loaded plugins; a run is one conversion of some inputs into one
 * output through a reader and a writer that the host's plugins provide.
 *
 *     tconv_host *h = tconv_host_new(NULL);
 *     tconv_host_load_standard(h, NULL, 0);
 *     tconv_run_opts o = TCONV_RUN_OPTS_INIT;
 *     const char *in[] = {"trace.json.gz"};
 *     o.inputs = in;
 *     o.ninputs = 1;
 *     o.output = "trace.pb.gz";                  // writer inferred from the name
 *     tconv_run *r = tconv_run_new(h, &o);
 *     tconv_outcome res = tconv_run_execute(r);  // the error chain and warnings are on
 *     ...                                        // tconv_run_ctx(r)
 *     tconv_run_free(r);
 *     tconv_host_free(h);
 *
 * A host and its runs belong to one thread at a time; different hosts are independent, except
 * for what the process shares (the out-of-memory handler, temporary outputs removed at exit). */
#ifndef TCONV_HOST_H
#define TCONV_HOST_H

#include <stddef.h>
#include <stdint.h>

#include "context.h"
#include "plugin.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct tconv_host tconv_host;
typedef struct tconv_run tconv_run;

/* ---- what the host tells its program ----------------------------------------------------- */
typedef enum tconv_notice_level {
    TCONV_NOTICE_WARNING = 1, /* something was skipped: a plugin that cannot be loaded */
    TCONV_NOTICE_NOTE,        /* a choice the user should know of: spans left out of self time */
    TCONV_NOTICE_INFO,        /* what -v prints: readers chosen, stage sizes, throughput */
    TCONV_NOTICE_DEBUG,       /* shadowed plugins and the like */
    TCONV_NOTICE_ERROR        /* an input failed and was skipped (keep_going): its error */
} tconv_notice_level;

/* Where a run is: given every few thousand events and when an input starts or ends. */
typedef struct tconv_progress {
    size_t struct_size;
    uint32_t input;       /* index of the input being read */
    uint32_t ninputs;     /* inputs in the run (files below directories counted) */
    const char *name;     /* of the input being read; NULL between inputs */
    uint64_t bytes_read;  /* from the input files so far (compressed), all inputs */
    uint64_t events;      /* pushed by the readers so far */
    uint32_t inputs_done; /* inputs read to their end (or skipped, or failed) */
} tconv_progress;

typedef struct tconv_host_hooks {
    size_t struct_size; /* sizeof(tconv_host_hooks) */
    void *user;
    /* One line of text, no "tconv:" prefix, no newline. NULL: notices are dropped. */
    void (*notice)(void *user, tconv_notice_level level, const char *text);
    /* NULL: no progress reports. */
    void (*progress)(void *user, const tconv_progress *p);
} tconv_host_hooks;

/* hooks may be NULL; it is copied. */
tconv_host *tconv_host_new(const tconv_host_hooks *hooks);
void tconv_host_free(tconv_host *h);

/* ---- plugins ----------------------------------------------------------------------------- */
/* Loads every "*.so" in dir (not starting with '.'), in name order. A plugin that cannot be
 * loaded costs a warning notice; the first plugin of a name wins over later ones. 0, or -1
 * when dir cannot be read. */
int tconv_host_load_dir(tconv_host *h, const char *dir);
/* The standard search, in priority order: each folder of $TCONV_PLUGIN_PATH (colon-separated),
 * the extra folders, ~/.local/lib/tconv/plugins, next to the running executable (plugins/,
 * ../lib/tconv/plugins), then the installed plugin folder. When the process runs with raised
 * privileges (setuid, setgid or file capabilities: AT_SECURE), only the installed folder. */
void tconv_host_load_standard(tconv_host *h, const char *const *extra_dirs, size_t n);
/* One plugin file, with the checks and notices of tconv_host_load_dir. 0, or -1 when refused. */
int tconv_host_load_file(tconv_host *h, const char *path);
/* A plugin compiled into the program itself (a mock reader or writer in a test, an embedder's
 * own format): checked like a loaded one, then found by name like the others. desc must stay
 * valid as long as the host. 0, or -1 when refused. */
int tconv_host_add_plugin(tconv_host *h, const tconv_plugin_desc *desc);
/* 1 when the process runs with privileges its user does not have (AT_SECURE). */
int tconv_host_privileged(void);

size_t tconv_host_plugin_count(const tconv_host *h);
/* The i-th plugin in priority order, and the file it came from. */
const tconv_plugin_desc *tconv_host_plugin(const tconv_host *h, size_t i, const char **path);
const tconv_reader_class *tconv_host_reader(const tconv_host *h, const char *name);
const tconv_writer_class *tconv_host_writer(const tconv_host *h, const char *name);
/* The writer an output name asks for by its ending (".pb.gz" -> pprof), or NULL. */
const tconv_writer_class *tconv_host_writer_for(const tconv_host *h, const char *output);
/* The reader most sure that these first bytes are its format; name (may be NULL) breaks ties by
 * the readers' extensions. NULL when no reader recognises them. */
const tconv_reader_class *tconv_host_detect(const tconv_host *h, const unsigned char *head,
                                            size_t len, const char *name);

/* ---- a run ------------------------------------------------------------------------------- */
typedef struct tconv_run_opts {
    size_t struct_size; /* set by TCONV_RUN_OPTS_INIT */
    const char *reader; /* NULL: detected per input from its first bytes */
    const char *writer; /* NULL: from the output's name (tconv_host_writer_for) */
    const char *output; /* NULL or "-": standard output */
    /* Files or directories (every file below, in name order); "-" is standard input. None:
     * standard input. */
    const char *const *inputs;
    size_t ninputs;
    /* "key=val" options for the reader(s) and the writer. With a detected reader, each reader
     * gets the options it declares (one folder may mix formats); an option no reader declares
     * is a usage error. */
    const char *const *reader_options;
    size_t nreader_options;
    const char *const *writer_options;
    size_t nwriter_options;
    int force;               /* replace an existing output directory tconv wrote */
    int strict;              /* strict=true for readers that have that option */
    int verbosity;           /* -1 quiet, 0 normal, 1+ verbose (notices, warnings) */
    uint64_t max_input_size; /* most bytes a gzip input may decompress to; 0: no limit */
    /* Count every span in self time, also those that are not work of their thread (the
     * profiler's window, async spans, markers: tconv_span_is_work). */
    int all_spans;
    /* Selection, applied to writers that buffer the stream (pprof, folded, OTF2, csv, summary,
     * text-ordered/-stacks; not the streaming text writer):
     *   window: "[@]START:[END]", times with a unit (ns us ms s) from the trace's first event,
     *           or absolute with @; spans are cut to it;
     *   steps: "N" or "A-B", the time from step A's start to step B's end, per input: Kineto's
     *          ProfilerStep#N, or spans named step_name followed by N (step_name alone: counted
     *          from 1 in start order);
     *   step_name: the steps of --steps and of the summary's and report's breakdowns are the
     *          spans named step_name, or step_name and a number; a warning when none is. */
    const char *window;
    const char *steps;
    const char *step_name;
    int only_input; /* nonzero: read everything, keep only the events of input `input` */
    uint32_t input; /* 0-based, in the order inputs are listed (directories expanded) */
    /* With several inputs (or a directory): an input that fails is reported through the notice
     * hook (TCONV_NOTICE_ERROR) and left out, whole: the events it pushed are held until it is
     * read to its end, and dropped. The output is written from the rest, and execute returns
     * TCONV_PARTIAL. Costs the memory of one input's events. */
    int keep_going;
    /* nonzero: keep only the events of the inputs whose metadata says they are rank `rank` of
     * a distributed job (tconv_ctx_rank: Kineto's distributedInfo, a "rank" member). A rank is
     * known only once its input is read, so this applies to the writers that buffer the stream,
     * like window. Inputs that say no rank make the run fail: TCONV_USAGE when none says one,
     * TCONV_FAILED when only some do; no input of that rank is TCONV_USAGE. */
    int only_rank;
    int64_t rank;
    /* ---- appended in ABI 1.2 ---- */
    /* Threads that read inputs at once: 0 for the online CPUs, never more than the inputs; 1
     * reads them one after another on the calling thread. Any value gives the same output,
     * messages and outcome; hooks are called on the calling thread only. */
    unsigned jobs;
    /* ---- appended in ABI 1.3 ---- */
    /* With jobs > 1: the most bytes the inputs read ahead may hold at once (their recordings);
     * a thread reading ahead past it waits for the calling thread to catch up. The input the
     * calling thread takes next is never held back, so the run may exceed this by that input's
     * recording. 0: a quarter of the memory of the machine or of the process's cgroup;
     * UINT64_MAX: no limit. Any value gives the same output. */
    uint64_t jobs_memory;
} tconv_run_opts;

#define TCONV_RUN_OPTS_INIT                                                                        \
    {                                                                                              \
        .struct_size = sizeof(tconv_run_opts), .max_input_size = (uint64_t)64 << 30                \
    }

/* How a run ended. */
typedef enum tconv_outcome {
    TCONV_DONE = 0,        /* the output is written (maybe with warnings) */
    TCONV_FAILED = 1,      /* the conversion failed; no output was written or replaced */
    TCONV_USAGE = 2,       /* the options cannot work (unknown writer, bad option, ...) */
    TCONV_INTERRUPTED = 3, /* tconv_run_interrupt was called; nothing was written */
    TCONV_PARTIAL = 4,     /* keep_going: some inputs failed; the output holds the others (the
                              error on the ctx says how many); a program exits 1 */
} tconv_outcome;

/* A run of opts (copied) with the host's plugins. Nothing is read or written until execute. */
tconv_run *tconv_run_new(tconv_host *h, const tconv_run_opts *opts);
/* Converts. Call once. The error chain and the warnings are on tconv_run_ctx afterwards. */
tconv_outcome tconv_run_execute(tconv_run *r);
/* The run's context: error chain (tconv_error_chain), warnings (tconv_warning_get), strings
 * and tracks. Valid until tconv_run_free. */
tconv_ctx *tconv_run_ctx(tconv_run *r);
/* Asks a running conversion to stop at the next event or buffer: execute then removes its
 * temporary output and returns TCONV_INTERRUPTED. Async-signal-safe, and safe from another
 * thread. */
void tconv_run_interrupt(tconv_run *r);
/* ABI 1.4: tconv_run_interrupt for signal sig, which the run's stats then name (a program exits
 * with 128 + it). In an MPI run every rank says, before rank 0 commits, whether it was stopped
 * and by which signal: a signal to any rank leaves no output, and execute returns
 * TCONV_INTERRUPTED on rank 0 with that signal in its stats. Async-signal-safe. */
void tconv_run_signal(tconv_run *r, int sig);
/* What the run did, for reports. */
typedef struct tconv_run_stats {
    size_t struct_size;
    uint64_t events;        /* pushed by the readers */
    uint64_t bytes_read;    /* from the input files (compressed) */
    uint64_t bytes_plain;   /* after decompression */
    uint32_t inputs;        /* read */
    double seconds;         /* wall time of execute */
    uint32_t inputs_failed; /* keep_going: inputs left out because they failed */
    /* ---- appended in ABI 1.4 ---- */
    /* Nonzero when this process put the output in place (also a partial output of keep_going;
     * in an MPI run, rank 0 alone): the output named in the options is now the run's. */
    int committed;
    int signal; /* TCONV_INTERRUPTED by tconv_run_signal: the signal, on any rank of an MPI run */
} tconv_run_stats;
void tconv_run_get_stats(const tconv_run *r, tconv_run_stats *st);
void tconv_run_free(tconv_run *r);

/* ---- process-wide ------------------------------------------------------------------------ */
/* Removes every temporary output of the process (the hidden files and directories that runs
 * write before they commit). For a program's signal-watching thread: safe from any thread while
 * runs go on, not from a signal handler. Each temporary is removed exactly once, by this call or
 * by its run, whichever comes first; a run whose temporary was removed here fails instead of
 * committing, and a run already moving its output into place is left to finish it. The call
 * waits only for other discards (runs hold its lock briefly and never across I/O) and needs no
 * memory beyond what removing a directory tree takes. Returns how many it removed. */
size_t tconv_outputs_discard(void);

/* The core ends the process when an allocation fails (a converter without the memory it needs
 * cannot produce a correct output): it removes temporary outputs, prints a message and exits
 * with 1. A program may install a handler that runs first: it is called with the size that
 * failed and may free memory and return nonzero to have the allocation tried once more, or
 * leave (exit, longjmp out of tconv_run_execute: the run is then abandoned and its memory lost).
 * Returning 0 goes on with the default. NULL restores the default. */
typedef int (*tconv_oom_fn)(void *user, size_t bytes);
void tconv_oom_handler_set(tconv_oom_fn fn, void *user);

/* The library's version ("0.2.0") and plugin ABI (major, minor), for checks at run time. */
const char *tconv_version_string(void);
void tconv_version_abi(unsigned *major, unsigned *minor);

#ifdef __cplusplus
}
#endif
#endif
