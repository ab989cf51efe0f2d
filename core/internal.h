/* Core internals shared between core/ files; never installed. */
#ifndef TCONV_INTERNAL_H
#define TCONV_INTERNAL_H

#include <stdio.h>
#include <stdlib.h>

#include <stdatomic.h>

#include "tconv/host.h"
#include "tconv/tconv.h"

#define TCONV_API __attribute__((visibility("default")))

/* ---- allocation: out of memory is not a recoverable condition for a converter ---- */
void *tconv_xmalloc(size_t n);
void *tconv_xcalloc(size_t n, size_t size);
void *tconv_xrealloc(void *p, size_t n);
char *tconv_xstrdup(const char *s);
/* A size no allocation can hold (a table out of ids counts as one): ends like a failed one. */
_Noreturn void tconv_oom_fatal(size_t n);
/* Grow *p (of *cap elements of size) to hold at least need elements. */
void tconv_grow(void **p, size_t *cap, size_t need, size_t size);
/* Arrays of tens of MB, appended to (core/bigarray.c): *p holds *cap elements of size bytes, of
 * which used are kept when it grows to hold need; freed only with tconv_big_free. */
void tconv_big_grow(void **p, size_t *cap, size_t used, size_t need, size_t size);
void tconv_big_free(void *p, size_t cap, size_t size);
/* The check in line: the stages grow their arrays per event, and the call cost more than it. */
#define TCONV_GROW(arr, cap, need)                                                                 \
    do {                                                                                           \
        if ((need) > (cap)) tconv_grow((void **)&(arr), &(cap), (need), sizeof(*(arr)));           \
    } while (0)

/* ---- JSON lexer ---- */
/* The scans of the lexers made from now on (for tests that compare the paths): one of these, or
 * -1 for the default (SSE2 where built). Process-wide. Returns -1 when this build or CPU lacks
 * the path. */
enum { TCONV_JSON_SCAN_PORTABLE, TCONV_JSON_SCAN_SSE2, TCONV_JSON_SCAN_AVX2 };
int tconv_json_scan_use(int path);
/* The path a lexer made now would take. */
int tconv_json_scan_current(void);

/* ---- the structural index: split points of one large JSON input (core/json_index.c) ---- */
typedef struct tconv_json_index {
    uint64_t in_string; /* all ones: the bytes indexed so far end inside a string */
    uint64_t escaped;   /* 1: ... and their last byte is a backslash that escapes the next */
    int64_t depth;      /* containers open */
    uint64_t offset;    /* bytes indexed so far */
    int path;           /* TCONV_JSON_SCAN_* */
    /* Set by the caller: stop at the ']' or '}' that closes the container whose elements are
     * counted (core/split.c reads one array in parts, and what follows it is not elements). */
    int stop_at_close;
    uint64_t closed; /* the input offset of that byte once met; UINT64_MAX before */
} tconv_json_index;
void tconv_json_index_init(tconv_json_index *ix);
/* Index buf[0 .. len), the next bytes of the input: the input offsets of the ',' outside
 * strings at nesting depth depth (those between the elements of a container opened at depth
 * - 1: depth 1 for a bare event array, 2 for "traceEvents" in the trace object) go to out, which
 * has room for len of them; returns how many. Exact on valid JSON; no grammar check. With
 * stop_at_close, nothing after the close of that container is indexed (closed says where). */
size_t tconv_json_index_commas(tconv_json_index *ix, const unsigned char *buf, size_t len,
                               int64_t depth, uint64_t *out);
/* The same, but only the first such ',' at input offset from or later: 1 with its offset in
 * *at, buf indexed up to it (ix->offset is *at + 1); 0 when buf holds none (all indexed, or up to
 * the close with stop_at_close). The bytes before from cost no work per structural character. */
int tconv_json_index_find(tconv_json_index *ix, const unsigned char *buf, size_t len, int64_t depth,
                          uint64_t from, uint64_t *at);

/* ---- arena: many small copies freed together ---- */
typedef struct tconv_arena {
    struct tconv_arena_chunk *head;
    size_t total;
} tconv_arena;
void *tconv_arena_alloc(tconv_arena *a, size_t n);
void *tconv_arena_dup(tconv_arena *a, const void *p, size_t n);
void tconv_arena_free(tconv_arena *a);

/* ---- strings ---- */
typedef struct tconv_strtab {
    tconv_arena arena;
    const char **str;
    uint32_t *len;
    uint32_t *hash;
    size_t n, cap;
    uint32_t *slots; /* open addressing: id+1, 0 = empty */
    size_t nslots;
} tconv_strtab;
void tconv_strtab_init(tconv_strtab *t);
void tconv_strtab_free(tconv_strtab *t);

/* ---- tracks ---- */
typedef struct tconv_tracktab {
    tconv_track *tracks;
    size_t n, cap;
    uint32_t *slots; /* (input, pid, tid): id+1, 0 = empty */
    size_t nslots;
    /* A process's tracks, found without a scan of all tracks: (input, pid) -> its first track,
     * and each track -> the next one of its process (UINT32_MAX ends the list). */
    uint32_t *proc_slots; /* id+1 of the first track, 0 = empty */
    size_t nproc_slots, nprocs;
    uint32_t *proc_next;
    size_t proc_next_cap;
    /* Metadata names looked at and what they are, by id modulo 16 (track.c): a trace repeats
     * the same few names (process_name, thread_name) for every process and thread, again and
     * again. Zeroed, each slot holds id 0 (""), which is none of them. */
    tconv_str meta_name[16];
    uint8_t meta_kind[16];
} tconv_tracktab;
void tconv_tracktab_free(tconv_tracktab *t);

/* ---- warnings ---- */
/* Another process's warnings of a kind (an MPI run): counted in, the first message kept if new. */
void tconv_warning_merge(tconv_ctx *ctx, const char *kind, const char *first, uint64_t count);
typedef struct tconv_warning {
    char *kind;
    char *first;
    uint64_t count;
    /* A first message that names a track: its id, and where the number is in the text
     * (UINT32_MAX: none). A worker's stages number tracks their own way; the main thread puts
     * the run's number in (tconv_warnings_give_mapped). */
    uint32_t track, track_at;
} tconv_warning;
/* tconv_warning_add of the message fmt... + track + after, formatted only for the first. */
void tconv_warning_add_track(tconv_ctx *ctx, const char *kind, uint32_t track, const char *after,
                             const char *fmt, ...) TCONV_PRINTF(5, 6);
/* Warnings made now but counted in later, where a flush at the end would have made them (the
 * early flush, lanes split at their input's end): swapped in for the context's own while they
 * are made, then given to the context in their order. */
typedef struct tconv_warning_set {
    tconv_warning *w;
    size_t n, cap;
} tconv_warning_set;
void tconv_warnings_swap(tconv_ctx *ctx, tconv_warning_set *aside);
/* Counts every warning of aside in (tconv_warning_merge), then empties it. */
void tconv_warnings_give(tconv_ctx *ctx, tconv_warning_set *aside);
void tconv_warnings_free(tconv_warning_set *set);
/* The same, with a first message's track number replaced by tmap[track] (a worker's warnings). */
void tconv_warnings_give_mapped(tconv_warning_set *to, tconv_warning_set *aside,
                                const uint32_t *tmap, size_t ntmap);

/* ---- selection (core/select.c) ---- */
typedef struct tconv_step_span {
    int64_t from, to; /* first selected step's start, last one's end */
} tconv_step_span;

typedef struct tconv_step_bare {
    int64_t start, end;
    uint32_t input;
} tconv_step_bare;

typedef struct tconv_selection {
    int window, absolute, has_end; /* --window [@]START:[END] */
    int64_t start, end;            /* ns, relative to the trace's first time unless absolute */
    int steps;                     /* --steps A-B */
    int64_t step_first, step_last;
    /* --step-name P (with or without --steps): the steps are the spans named P, or P and a
     * number (tconv_selection_mark_step); NULL: ProfilerStep#N, as the reader marked them. */
    const char *step_name;
    uint64_t step_marked;        /* spans --step-name made steps, for the warning when none */
    tconv_step_span *step_spans; /* per input, noted as spans are pushed */
    size_t nstep_spans;
    /* --steps with spans named P alone: numbered in start order per input once all are read */
    tconv_step_bare *bare;
    size_t nbare, bare_cap;
    int bare_done;
    int64_t input; /* --input N; -1: all */
    /* --rank N, resolved once every input is read: nonzero per input index to keep. NULL: all */
    int by_rank;
    unsigned char *keep;
    size_t nkeep;
} tconv_selection;

/* ---- what is known of each input (core/inputinfo.c) ---- */
typedef struct tconv_inputinfo {
    tconv_str name; /* as opened; 0 until the input is read */
    int has_rank, has_time_origin;
    int64_t rank;           /* from "rank" or distributedInfo metadata */
    int64_t time_origin_ns; /* from baseTimeNanoseconds metadata */
} tconv_inputinfo;

/* A writer's collective service in an MPI run (core/collective.c). */
struct tconv_collective {
    struct tconv_mpi *mpi;
    uint32_t *global_input; /* by this rank's input index */
    size_t ninputs;
};

struct tconv_ctx {
    tconv_strtab strings;
    tconv_tracktab tracks;
    char **errors; /* outermost first */
    size_t nerrors;
    tconv_warning *warnings;
    size_t nwarnings, capwarnings;
    tconv_sample_type *stypes;
    size_t nstypes, stype_default;
    uint32_t stypes_input;  /* the input that set them */
    tconv_collective *coll; /* the writer runs on every rank of an MPI run; else NULL */
    uint32_t input;         /* index of the input being read */
    char *input_name;       /* its name for messages, or NULL */
    int verbosity;
    int have_bounds;
    int64_t first_ns, last_ns;
    int ignore_args;
    int gpu_attribute; /* a writer asked for GPU attribution (core/gpu.c) */
    int need_corr;     /* the writer reads tconv_event.corr (TCONV_NEED_CORR) */
    int all_spans;     /* self time counts spans that are not thread work (--all-spans) */
    tconv_selection selection;
    int64_t *launch_tol; /* per input: launch-stack tolerance in ns, -1 if not declared */
    size_t nlaunch_tol;  /* entries, all set (the array's capacity) */
    int error_usage;     /* the pending error is the caller's mistake, not the input's */
    char *error_hint;    /* how to fix the pending error, or NULL */
    /* Where notices (tconv_note) go: the host's hook; NULL prints them to stderr. */
    void (*notice)(void *user, tconv_notice_level level, const char *text);
    void *notice_user;
    const atomic_int *interrupt; /* nonzero: the run was asked to stop (tconv_run_interrupt) */
    unsigned char *str_class;    /* per string id: its role as a category, ... (core/role.c) */
    size_t nstr_class;

    /* Per input, indexed by input (core/inputinfo.c). */
    tconv_inputinfo *inputinfo;
    size_t ninputinfo, inputinfo_cap;
    /* Metadata names that set nothing here, by id modulo 8 (core/inputinfo.c); zeroed, each
     * slot holds id 0 (""), which sets nothing. */
    tconv_str info_other[8];

    /* A worker's context (tconv -j): what the reader does to it is also recorded here, to be
     * done again to the run's context in input order (core/record.c). NULL: the run's own. */
    struct tconv_rec *rec;
    /* While the main thread reads an input in line with threads to spare: how it may read a JSON
     * array of it in parts (core/split.c). NULL: it may not. */
    const struct tconv_split_conf *split;
};

/* How one input may be read in parts (core/split.c), set by the run. */
typedef struct tconv_split_conf {
    unsigned threads;  /* in all, the calling thread's included */
    uint64_t budget;   /* bytes of parts and their recordings held at once (--jobs-memory) */
    uint64_t part;     /* bytes of input per part */
    uint64_t min_size; /* inputs (their files) smaller than this are read whole */
    size_t read;       /* bytes asked of the input at a time; 0: 1 MiB */
} tconv_split_conf;

tconv_ctx *tconv_ctx_new(void);
/* A worker's context (tconv -j): what run tells readers (verbosity, args wanted, the interrupt
 * flag, ...), nothing of its tables; its input index is index. */
tconv_ctx *tconv_ctx_new_worker(const tconv_ctx *run, uint32_t index);
void tconv_ctx_free(tconv_ctx *ctx);
void tconv_ctx_set_input(tconv_ctx *ctx, uint32_t input);
/* The name of the input being read, for messages that must name it after it is closed. */
void tconv_ctx_set_input_name(tconv_ctx *ctx, const char *name);
void tconv_ctx_set_verbosity(tconv_ctx *ctx, int v);
void tconv_ctx_note_time(tconv_ctx *ctx, int64_t t);
int tconv_ctx_ignores_args(const tconv_ctx *ctx);
int tconv_error_is_usage(const tconv_ctx *ctx);
/* A notice of the given level through the host's hook (stderr without one), whatever the
 * verbosity: the host decides what to show. */
void tconv_notice(tconv_ctx *ctx, tconv_notice_level level, const char *fmt, ...)
    TCONV_PRINTF(3, 4);
/* Nonzero when the run was asked to stop; sets the error then. For loops that may run long
 * without pushing an event (reading a quiet pipe, a writer's finish). */
int tconv_ctx_interrupted(tconv_ctx *ctx);
/* Give a span its role (from its category unless the reader set one) and its correlation id
 * (from its args unless set): core/role.c. */
void tconv_role_fill(tconv_ctx *ctx, tconv_event *e);

/* The selection stage: a filter on the ordered stream that passes what --window/--steps select,
 * spans cut to the window. */
typedef struct tconv_select tconv_select;
void tconv_selection_note_span(tconv_ctx *ctx, tconv_selection *sel, const tconv_event *ev);
/* Makes a span a step (TCONV_ROLE_STEP) when its name says so: with --step-name P, a span named
 * P, or P followed by a number (P#3, P 3, P_3, P3), and no other; without it, also a CPU span
 * named ProfilerStep#N (PyTorch's exporter without Kineto gives it no category). */
void tconv_selection_mark_step(tconv_ctx *ctx, tconv_selection *sel, tconv_event *ev);
/* Numbers the steps named P alone, once every input is read (--steps). */
void tconv_selection_resolve_steps(tconv_selection *sel);
void tconv_selection_free(tconv_selection *sel);
/* --window, --steps, --step-name (each NULL when not given). A usage mistake writes err. */
int tconv_selection_parse(tconv_selection *sel, const char *window, const char *steps,
                          const char *step_name, char *err, size_t cap);
/* Does name make a step of the step name P (--step-name, or "ProfilerStep#")? P alone (*n = -1),
 * or P, separators and a number (*n). One rule for --steps, the step role and the steps stage. */
int tconv_step_number(const char *name, const char *prefix, int64_t *n);
tconv_select *tconv_select_new(tconv_ctx *ctx, const tconv_selection *sel,
                               tconv_status (*emit)(void *user, const tconv_event *ev), void *user);
tconv_status tconv_select_event(void *user, const tconv_event *ev);
uint64_t tconv_select_cut(const tconv_select *s);
/* --rank: keep the inputs that say they are this rank, among those read[i] marks as read (not
 * failed). 0, or -1 with the error on the ctx: no input says a rank (a usage error), only some
 * do, or none is this rank (a usage error). */
int tconv_selection_keep_rank(tconv_ctx *ctx, tconv_selection *sel, int64_t rank,
                              const unsigned char *read, size_t nread);
void tconv_select_free(tconv_select *s);

/* Drops the tracks from n on: those of an input that failed under --keep-going (an input's
 * tracks are the last ones made while it is read). */
void tconv_track_truncate(tconv_ctx *ctx, uint32_t n);
/* Names and sort indices of the tracks from `from` on, as a new track has them: metadata held
 * by --keep-going is applied again as it reaches the writer, so that the writer sees the names
 * change when it would have without the staging. */
void tconv_track_forget_names(tconv_ctx *ctx, uint32_t from);
/* The sample types as an input found them, put back when it fails under --keep-going. */
typedef struct tconv_stypes_saved {
    tconv_sample_type *types;
    size_t n, def;
} tconv_stypes_saved;
void tconv_sampletypes_save(const tconv_ctx *ctx, tconv_stypes_saved *sv);
void tconv_sampletypes_restore(tconv_ctx *ctx, tconv_stypes_saved *sv); /* and frees sv */
void tconv_sampletypes_saved_free(tconv_stypes_saved *sv);
/* Record metadata that names tracks. */
void tconv_track_apply_metadata(tconv_ctx *ctx, const tconv_event *ev);
/* Lane n (1, 2, ...) of a track: a sibling track of the same input and process, its tid and
 * thread name suffixed " #<n+1>", the same kind. Created on first use. */
uint32_t tconv_track_lane(tconv_ctx *ctx, uint32_t track, unsigned n);
/* Record what an input says of itself (rank, time origin) and the name it was opened as. */
void tconv_inputinfo_apply_metadata(tconv_ctx *ctx, const tconv_event *ev);
void tconv_inputinfo_set_name(tconv_ctx *ctx, uint32_t input, const char *name);

/* ---- recording: an input read on a worker thread (core/record.c) ----
 * The worker's reader runs with a context of its own; the recording keeps what it did in order
 * (events with the worker's string and track ids, new strings and tracks, track kinds, sample
 * types, warnings, notices) and the main thread replays it into the run's context and sink,
 * through arrays from the worker's ids to the run's, filled as the worker's tables grew. The
 * run's context then goes through the same calls in the same order as if it had read the input
 * itself: ids, warnings and messages come out the same. */
typedef struct tconv_rec tconv_rec;
typedef struct tconv_jobs tconv_jobs; /* core/jobs.c, below */
/* The event array of a recording, kept to record another input into: memory already touched
 * costs no page faults (they were a tenth of a run's CPU time when each input had its own). */
typedef struct tconv_rec_buf {
    void *ev;
    size_t cap;     /* in recorded events */
    size_t touched; /* events' worth of it that were written, so in memory */
    uint64_t held;  /* bytes of it counted against -j's budget while it waits (tconv_rec_budget) */
} tconv_rec_buf;
/* Starts recording what is done to wctx (a fresh context of the worker's own) into buf (may be
 * empty), which the recording now owns. */
tconv_rec *tconv_rec_new(tconv_ctx *wctx, tconv_rec_buf buf);
/* Frees all but the event array, handed back to be freed or recorded into again. */
tconv_rec_buf tconv_rec_free(tconv_rec *rec);
/* Frees an event array that no recording holds. */
void tconv_rec_buf_free(tconv_rec_buf buf);
/* Bytes of memory the array holds (its pages written to). */
uint64_t tconv_rec_buf_bytes(tconv_rec_buf buf);
/* Counts the recording's bytes as it grows (its events and their copies, its steps, the worker's
 * strings and the array it was given) against jobs' budget as job k: every `step` bytes it
 * reports them (tconv_jobs_hold), which may wait there, in the reader's push. */
void tconv_rec_budget(tconv_rec *rec, tconv_jobs *jobs, size_t k, uint64_t step);
/* Bytes reported so far; and whether the jobs had the recording given up (the push failed). */
uint64_t tconv_rec_held(const tconv_rec *rec);
int tconv_rec_given_up(const tconv_rec *rec);
/* Hooks of the worker's context, called by the core where the reader changes it. */
/* Returns -1 when the recording must be given up (tconv_rec_budget). */
int tconv_rec_event(tconv_rec *rec, const tconv_event *e);
void tconv_rec_warning(tconv_rec *rec, size_t kind_index);
void tconv_rec_track_kind(tconv_rec *rec, uint32_t track, uint32_t kind);
void tconv_rec_sampletypes(tconv_rec *rec);
void tconv_rec_launchstacks(tconv_rec *rec, int64_t tolerance_ns);
void tconv_rec_lane(tconv_rec *rec, uint32_t track, unsigned n);
/* While on, warnings and sample types are not recorded (a partial result's flush: it keeps its
 * warnings apart, and sets the types back). */
void tconv_rec_mute(tconv_rec *rec, int on);
/* Events recorded so far. */
uint64_t tconv_rec_count(const tconv_rec *rec);
/* A part of an input (core/split.c): the element at [offset, offset + len) is the main thread's
 * to read when the replay reaches this point, through fn (TCONV_FATAL stops the replay). */
void tconv_rec_defer(tconv_rec *rec, uint64_t offset, uint64_t len);
void tconv_rec_on_defer(tconv_rec *rec,
                        tconv_status (*fn)(void *user, uint64_t offset, uint64_t len), void *user);
/* What the recording holds in memory now: its events and their copies, steps, the worker's
 * strings. */
uint64_t tconv_rec_bytes(const tconv_rec *rec);
/* The reader returned st (its error, if any, on the worker's context). */
void tconv_rec_finish(tconv_rec *rec, tconv_status st);
/* Does it all again to ctx (whose current input is the recorded one's) and sink. Returns what
 * the reader returned, with its error moved to ctx, or TCONV_FATAL where a push of the replay
 * failed in the sink (the error is then the sink's, as a serial read would have ended there). */
tconv_status tconv_rec_replay(tconv_rec *rec, tconv_ctx *ctx, tconv_sink *sink);
/* Moves the pending error (chain, hint, usage flag) of from to to. */
void tconv_error_move(tconv_ctx *to, tconv_ctx *from);

/* ---- jobs: inputs read ahead by worker threads, taken in order (core/jobs.c) ---- */
/* Reads job k on some thread (j: the jobs, for tconv_jobs_hold; NULL when run apart from them);
 * abandon becomes nonzero when its result will not be wanted. */
typedef void *(*tconv_job_fn)(void *user, size_t k, tconv_jobs *j, const atomic_int *abandon);
/* n jobs for `threads` threads in all, the caller's included (threads - 1 are started). A job
 * is begun only while it is at most `threads` jobs ahead of the one the caller takes (one more
 * while the caller does that one in line): at most `threads` + 1 results exist at once. Nor is
 * one begun unless the budget (bytes; UINT64_MAX: none) has room for the largest result so far
 * besides those held. NULL when no thread could be started. */
tconv_jobs *tconv_jobs_start(size_t n, unsigned threads, uint64_t budget, tconv_job_fn fn,
                             void *user);
/* For the caller, in order k = 0, 1, ...: NULL when no thread has begun job k (the caller does
 * it in line), else its result once done. While waiting the caller does later jobs itself. */
void *tconv_jobs_take(tconv_jobs *j, size_t k);
/* Job k's result now holds `more` bytes more, `total` in all, and took `unpooled` of the memory
 * kept (tconv_jobs_release) as its own. Over the budget, waits until the
 * results freed bring it back under, unless k is the job the caller takes next; returns -1 (at
 * once) when k is a job the caller's own thread is doing, which must give it up (its result: "do it
 * in line"), as the caller cannot wait for bytes only it frees. */
int tconv_jobs_hold(tconv_jobs *j, size_t k, uint64_t more, uint64_t total, uint64_t unpooled);
/* A result the caller freed gave back `bytes`, and has `keep` more held in memory kept for the
 * next results: returns 1 when the total with them is within the budget, else 0, and the caller
 * must free that memory too (it is no longer counted). The next job that takes the memory says
 * so (tconv_jobs_hold's unpooled): until then a job may be begun as if it were free. */
int tconv_jobs_release(tconv_jobs *j, uint64_t bytes, uint64_t keep);
/* Abandons what is left, joins the threads, and frees the results not taken with drop. */
void tconv_jobs_stop(tconv_jobs *j, void (*drop)(void *result));

/* The lowest memory limit of the process's cgroups, in bytes; 0 when none is known
 * (core/memlimit.c). */
uint64_t tconv_cgroup_memory_limit(void);

/* ---- formats known without a reader (core/formats.c) ---- */
typedef struct tconv_known_format {
    const char *name;
    const char *what; /* "a pprof profile" */
    int score;        /* a reader whose probe scores the input at least this much wins */
    const char *hint; /* what to do with it */
} tconv_known_format;
/* What the first bytes of an input (after gzip) show it is, or NULL. */
const tconv_known_format *tconv_format_known(const unsigned char *head, size_t len);
/* The entry of that name ("pprof", "perfetto", ...), or NULL. */
const tconv_known_format *tconv_format_named(const char *name);

/* The name of names closest to a mistyped word, if one is close enough to offer (core/spell.c). */
const char *tconv_spell_closest(const char *word, const char *const *names, size_t n);

/* ---- options ---- */
struct tconv_options {
    const tconv_option_desc *desc;
    char **names, **values; /* user-given, validated */
    size_t n;
};
/* Parse "key=val" strings against desc. On error, writes a message to err and returns -1. */
int tconv_options_parse(tconv_options *o, const tconv_option_desc *desc, char *const *kv, size_t n,
                        char *err, size_t errcap);
void tconv_options_free(tconv_options *o);
int tconv_option_value_check(const tconv_option_desc *d, const char *val);

/* ---- input ---- */
/* limit: most decompressed bytes a gzip input may produce (0: no limit). */
tconv_input *tconv_input_open(tconv_ctx *ctx, const char *path, uint32_t index, uint64_t limit);
/* An input another process read to its end (an MPI run): its name and how far it was read,
 * for the messages and counts of the process that replays it. Nothing can be read from it. */
tconv_input *tconv_input_read_elsewhere(tconv_ctx *ctx, const char *name, uint32_t index,
                                        uint64_t offset, uint64_t raw_offset);
void tconv_input_close(tconv_input *in);
/* Gives n bytes read from in back to it: tconv_input_read returns them next, and the offset
 * counts them again (core/split.c reads ahead of the reader it resumes). */
void tconv_input_unread(tconv_input *in, const void *bytes, size_t n);
/* A read of in failed ahead of the reader (core/split.c): the failure is taken off the context
 * and said again when the reader's read reaches it, which a reader that stops earlier never
 * does, as when it reads the input itself. */
void tconv_input_reraise(tconv_input *in);
/* The file's size when it is a regular file (compressed or not), else 0. */
uint64_t tconv_input_file_size(const tconv_input *in);

/* ---- the inputs of a run (core/inputs.c) ---- */
typedef struct tconv_input_item {
    char *path;
    const char *dir; /* the directory named by the user it was found in, or NULL */
} tconv_input_item;
typedef struct tconv_input_list {
    tconv_input_item *items;
    size_t n, cap;
} tconv_input_list;
/* Every named input, directories replaced by the files below them; none: standard input.
 * What cannot be read below a directory is a warning on ctx. */
void tconv_inputs_expand(tconv_ctx *ctx, tconv_input_list *l, const char *const *args,
                         size_t nargs);
void tconv_inputs_free(tconv_input_list *l);

/* ---- one gzip member's inflater: ISA-L or zlib (core/inflate.c) ---- */
typedef struct tconv_inflater tconv_inflater;
enum { TCONV_INFLATE_ZLIB, TCONV_INFLATE_ISAL };
/* What tconv_inflater_run returns. REFUSED: ISA-L will not or cannot go on (an error, or a
 * header it may read otherwise than zlib): inflate the input again with zlib. */
enum {
    TCONV_INFLATE_ERROR = -2,
    TCONV_INFLATE_REFUSED = -1,
    TCONV_INFLATE_MORE = 0,
    TCONV_INFLATE_END = 1 /* the member ended: reset for another */
};
/* ISA-L when built with it, unless TCONV_INFLATE=zlib. */
int tconv_inflater_default(void);
tconv_inflater *tconv_inflater_new(int backend); /* NULL: out of memory or zlib failed */
int tconv_inflater_backend(const tconv_inflater *z);
int tconv_inflater_reset(tconv_inflater *z);
/* Inflate in[0 .. in_len) into out[0 .. out_cap); *why says what is wrong on ERROR (zlib's
 * message) and REFUSED. */
int tconv_inflater_run(tconv_inflater *z, const unsigned char *in, size_t in_len, size_t *in_used,
                       unsigned char *out, size_t out_cap, size_t *out_made, const char **why);
void tconv_inflater_free(tconv_inflater *z);

/* ---- read-ahead: a producer thread ahead of its consumer (core/readahead.c) ---- */
typedef struct tconv_readahead tconv_readahead;
/* Called on the producer thread: up to cap bytes into dst; the count, 0 at the end, -1 on a
 * failure (whose description the producer keeps for the consumer). */
typedef ssize_t (*tconv_produce_fn)(void *user, tconv_readahead *ra, unsigned char *dst,
                                    size_t cap);
/* Starts the thread; NULL when it cannot be started (the caller then produces in line).
 * fd >= 0: the producer reads fd, which may block (a pipe or a terminal): see
 * tconv_readahead_wait; what it produced goes to the consumer as soon as fd has nothing more. */
tconv_readahead *tconv_readahead_start(tconv_produce_fn produce, void *user, size_t slot_cap,
                                       int fd);
/* The next produced buffer (valid until the next call); NULL at the end (*status 0) or after
 * the producer's failure (*status -1). */
const unsigned char *tconv_readahead_next(tconv_readahead *ra, size_t *len, int *status);
/* For the producer, before reading the fd given to tconv_readahead_start: 0 when it is
 * readable (at once when it was -1), -1 when the consumer is gone. */
int tconv_readahead_wait(tconv_readahead *ra);
/* Stops and joins the thread, whatever it was doing. */
void tconv_readahead_free(tconv_readahead *ra);

/* ---- output ---- */
enum { TCONV_OUT_STREAM = 0, TCONV_OUT_DIR = 1 };
typedef struct tconv_output_opts {
    int mode;
    int force;
    int binary; /* refuse a terminal */
} tconv_output_opts;
tconv_output *tconv_output_open(tconv_ctx *ctx, const char *path, const tconv_output_opts *o);
/* Flush and move into place. */
int tconv_output_commit(tconv_output *out);
tconv_output *tconv_output_borrow_dir(tconv_ctx *ctx, const char *name, const char *dir);
/* Remove whatever was created; the old file (if any) is left untouched. */
void tconv_output_abort(tconv_output *out);
void tconv_output_close(tconv_output *out);
/* Removes every temporary output of the process now; how many. */
size_t tconv_output_discard_all(void);
uint64_t tconv_output_bytes(const tconv_output *out);
/* A usage error when the output is one of the inputs (same file, same path after links), lies
 * inside an input directory, or holds an input; checked before anything is read or written. */
int tconv_output_check_inputs(tconv_ctx *ctx, const char *output, const char *const *inputs,
                              size_t ninputs);

/* ---- what may be removed next to an output (core/outsafe.c) ---- */
struct timespec;
/* 0 when dir holds nothing (*empty) or only an OTF2 archive; else *foreign is the first entry
 * (malloc'd path) that is not part of one. -1 when dir cannot be read (errno). */
int tconv_outsafe_foreign(const char *dir, char **foreign, int *empty);
/* A usage error (shown names dir) when dir is '.', '..', '/', a mount point or holds the
 * current directory. */
int tconv_outsafe_place(tconv_ctx *ctx, const char *dir, const char *shown);
/* Removes ".<base>.tconv-<pid>-*" in dir left by processes that are gone, older than start. */
void tconv_outsafe_sweep(const char *dir, const char *base, const struct timespec *start);
void tconv_outsafe_rm_tree(const char *path);

/* ---- pipeline: the sink readers push into, feeding the writer through the stages ---- */
tconv_sink *tconv_sink_new(tconv_ctx *ctx, const tconv_writer_class *wc, void *wstate);
/* Flush the stages and finish the writer. */
tconv_status tconv_sink_finish(tconv_sink *s);
void tconv_sink_free(tconv_sink *s);
uint64_t tconv_sink_events(const tconv_sink *s);
/* Events readers pushed that passed the checks, held by --keep-going or not. */
uint64_t tconv_sink_accepted(const tconv_sink *s);
/* Called every few thousand events, for a progress line. */
void tconv_sink_set_progress(tconv_sink *s, void (*fn)(void *user, uint64_t events), void *user);
/* --keep-going: from stage_begin, what readers push is checked and held; commit passes it on
 * (a FATAL there is the writer's or a stage's, not the input's), discard drops it and what it
 * changed in the sink. An input's events thus reach the output whole or not at all. */
void tconv_sink_stage_begin(tconv_sink *s);
tconv_status tconv_sink_stage_commit(tconv_sink *s);
void tconv_sink_stage_discard(tconv_sink *s);
/* A worker's sink (tconv -j): every check about the event itself is made on the worker's
 * context, and what passes goes to the recording; the checks against the other inputs are made
 * when it is replayed. abandon nonzero ends the read. */
tconv_sink *tconv_sink_new_recording(tconv_ctx *wctx, tconv_rec *rec, const atomic_int *abandon);
/* The recording of a worker's sink; NULL for any other sink. */
tconv_rec *tconv_sink_recording(const tconv_sink *s);
/* A recorded event, its ids those of the run's context: the rest of a push. */
tconv_status tconv_sink_replay(tconv_sink *s, tconv_event *e);
/* An input was read to its end, or left out: lanes are split off, and the stack writers' samples
 * of its spans may go to the writer now (core/sink.c says when). TCONV_FATAL: the stages or the
 * writer failed, as they would have at the finish. */
tconv_status tconv_sink_input_done(tconv_sink *s);

/* ---- partial results: an input's spans through the stages on the worker ----
 * For a writer that sums samples (TCONV_WRITER_SUMMED_SAMPLES), a worker (a thread of -j, a
 * rank of an MPI run) runs the ordering and stack stages on the input it read, and the
 * recording keeps only what the writer is given directly (metadata), the samples summed per
 * (track, stack) (core/sampsum.c), and what the sink counted (below). The main thread then does
 * for the input little more than the writer's share. Where the run's sink could not take it the
 * same way as a serial run (tconv_sink_partial_ok), the input is read in line instead. */
typedef struct tconv_sums tconv_sums;
tconv_sums *tconv_sums_new(void);
/* -1: a sum overflowed. */
int tconv_sums_add(tconv_sums *s, const tconv_event *e);
size_t tconv_sums_count(const tconv_sums *s);
const tconv_event *tconv_sums_get(const tconv_sums *s, size_t i);
void tconv_sums_free(tconv_sums *s);

typedef struct tconv_partial {
    uint64_t nseq, accepted; /* events routed and accepted, the recorded metadata not counted */
    uint64_t not_work[TCONV_ROLE_MAX];
    uint64_t dropped[TCONV_EV_KIND_MAX];
    int have_spans, have_bounds;
    int64_t first_ns, last_ns;
    uint64_t order_events, order_peak;
    uint64_t sums_at; /* the recorded events from here on are the sums */
    tconv_warning_set
        warnings; /* the stages' and the flush's, kept as the early flush keeps them */
} tconv_partial;
void tconv_partial_free(tconv_partial *p);
/* Is the writer one whose samples a worker may sum, under these options? Every rank decides
 * alike, from the command. */
int tconv_partial_possible(const tconv_ctx *ctx, const tconv_writer_class *wc, uint32_t needs);
/* The worker's sink: a whole sink whose writer calls go to the recording. */
tconv_sink *tconv_sink_new_partial(tconv_ctx *wctx, const tconv_writer_class *wc, tconv_rec *rec,
                                   const atomic_int *abandon);
/* After a read that succeeded: the stages' flush, the sums into the recording. NULL where the
 * input cannot go as a partial result (it had samples of its own, the stages warned outside
 * the flush, a sum overflowed): the main thread reads it in line. */
tconv_partial *tconv_sink_partial_end(tconv_sink *s);
/* The run's sink: may it take a partial result now? */
int tconv_sink_partial_ok(const tconv_sink *s);
/* The run's sink takes the counts and warnings of p (whose track numbers tmap makes the run's),
 * once the metadata before the sums was replayed; then the sums, one by one; then the end. */
tconv_status tconv_sink_partial_begin(tconv_sink *s, tconv_partial *p, const uint32_t *tmap,
                                      size_t ntmap);
tconv_status tconv_sink_partial_sum(tconv_sink *s, tconv_event *e);
void tconv_sink_partial_end_sums(tconv_sink *s);
/* The recording's partial result (NULL: a plain recording), and setting it (owned). */
const tconv_partial *tconv_rec_partial(const tconv_rec *rec);
void tconv_rec_set_partial(tconv_rec *rec, tconv_partial *p);

/* Sort idx[n] in place by cmp(ctx, a, b), which must never call two indices equal. */
typedef int (*tconv_idx_cmp)(const void *ctx, uint32_t a, uint32_t b);
void tconv_idx_sort(uint32_t *idx, size_t n, tconv_idx_cmp cmp, const void *ctx);

/* Per-track ordering stage. Buffers events; at flush emits them per track in (start, longer
 * first, input order), COMPLETE as BEGIN/END, nesting repaired with counted warnings. */
typedef tconv_status (*tconv_emit_fn)(void *user, const tconv_event *ev);
typedef struct tconv_order tconv_order;
tconv_order *tconv_order_new(tconv_ctx *ctx, int keep_payload);
tconv_status tconv_order_add(tconv_order *o, const tconv_event *ev);
/* Every event's time, buffered or not, so an unclosed span can be closed at its track's end. */
void tconv_order_note_time(tconv_order *o, uint32_t track, int64_t t);
tconv_status tconv_order_flush(tconv_order *o, tconv_emit_fn emit, void *user);
/* An input was read to its end: its GPU streams and async tracks are split into lanes now, so
 * that the lanes' track ids follow the input's own tracks (core/order.c says why). */
tconv_status tconv_order_input_done(tconv_order *o);
/* The most bytes the stage held at an input's end, at a flush, or now. */
size_t tconv_order_peak_bytes(tconv_order *o);
/* Counts of a stage that ran elsewhere on an input (a partial result), for -v. */
void tconv_order_count_elsewhere(tconv_order *o, size_t events, size_t peak);
void tconv_order_free(tconv_order *o);
/* What the stage holds: events buffered, and their bytes with full copies and tables. */
size_t tconv_order_events(const tconv_order *o);
size_t tconv_order_bytes(const tconv_order *o);

/* Stack stage: consumes the ordered stream, emits one SAMPLE per span with its self time. */
typedef struct tconv_stack tconv_stack;
tconv_stack *tconv_stack_new(tconv_ctx *ctx, tconv_emit_fn emit, void *user);
tconv_status tconv_stack_event(void *stack, const tconv_event *ev);
void tconv_stack_free(tconv_stack *s);
extern const tconv_sample_type tconv_stack_sample_types[2];

/* Stack table (include/tconv/stacktab.h): the core's own stages embed one rather than
 * allocate it, hence the struct here. */
struct tconv_stacktab {
    struct tconv_stacktab_node *nodes;
    size_t n, cap;
    uint32_t *slots;
    size_t nslots;
    uint32_t *last; /* the nodes of the last stack interned */
    size_t nlast, lastcap;
};
void tconv_stacktab_init(tconv_stacktab *t);
void tconv_stacktab_free(tconv_stacktab *t);
size_t tconv_stacktab_bytes(const tconv_stacktab *t);

/* GPU attribution stage (core/gpu.c), for writers that called tconv_gpu_attribute. The sink
 * notes correlation ids and holds launch stacks while readers push; the stack stage calls the
 * hooks as it walks each track and emits one sample per attributed GPU activity as soon as its
 * launch is known; the flush, after every track, emits the rest. */
typedef struct tconv_gpu tconv_gpu;
tconv_gpu *tconv_gpu_new(tconv_ctx *ctx);
void tconv_gpu_free(tconv_gpu *g);
void tconv_gpu_note_span(tconv_gpu *g, const tconv_event *ev);
/* 1 if the sample is a launch stack, now held by the stage. */
int tconv_gpu_take_stack(tconv_gpu *g, const tconv_event *ev);
int tconv_gpu_has_stacks(const tconv_gpu *g);
void tconv_gpu_begin(tconv_gpu *g, const tconv_event *ev, const tconv_frame *frames, size_t depth);
void tconv_gpu_point(tconv_gpu *g, const tconv_event *ev, const tconv_frame *frames, size_t depth);
tconv_status tconv_gpu_end(tconv_gpu *g, const tconv_event *ev, size_t depth);
/* GPU samples go where the stack stage's samples go; the flush emits those still waiting. */
void tconv_gpu_emit_to(tconv_gpu *g, tconv_emit_fn emit, void *user);
tconv_status tconv_gpu_flush(tconv_gpu *g);
void tconv_stack_attach_gpu(tconv_stack *s, tconv_gpu *g);
/* Launch stacks were read, but the writer did not ask for attribution: say how to. */
void tconv_gpu_hint(tconv_ctx *ctx, const char *writer);
extern const tconv_sample_type tconv_gpu_sample_types[3];

/* Launch stacks matched to launch records per thread (core/gpumatch.c). */
typedef struct tconv_match_item {
    int64_t ts;
    tconv_str pid, tid;
    uint32_t partner; /* out: index on the other side, or UINT32_MAX */
} tconv_match_item;
typedef struct tconv_match_stats {
    uint64_t by_order, by_time;
    int64_t offset; /* launch clock minus stack clock */
    int have_offset;
} tconv_match_stats;
void tconv_match_launches(tconv_match_item *stacks, size_t nstacks, tconv_match_item *launches,
                          size_t nlaunches, int64_t tolerance, tconv_match_stats *st);

/* ---- plugin registry / loader ---- */
typedef struct tconv_plugin {
    char *path;
    const tconv_plugin_desc *desc;
    void *handle; /* lt_dlhandle, or NULL for built-ins */
} tconv_plugin;

typedef struct tconv_registry {
    tconv_plugin *plugins;
    size_t n, cap;
    void (*notice)(void *user, tconv_notice_level level, const char *text);
    void *notice_user;
    int nwarnings;
    int ltdl_ready;
} tconv_registry;

int tconv_registry_load_dir(tconv_registry *r, const char *dir);
int tconv_registry_load_file(tconv_registry *r, const char *path);
/* Admit a descriptor (from a file's handle, or built into the program: handle NULL) after the
 * checks every plugin passes; -1 and a notice when refused. */
int tconv_registry_add(tconv_registry *r, const char *path, const tconv_plugin_desc *d,
                       void *handle);

struct tconv_host {
    tconv_host_hooks hooks;
    tconv_registry reg;
    char **seen; /* folders loaded, resolved */
    size_t nseen;
};
void tconv_registry_free(tconv_registry *r);
/* A class's field appended in a later minor, or NULL when its plugin was built before it. */
#define TCONV_CLASS_GET(c, field) (TCONV_CLASS_HAS(c, field) ? (c)->field : NULL)
/* tconv_host_detect, and the winning probe's score in *score (0: none claims the input). */
const tconv_reader_class *tconv_host_detect_scored(const tconv_host *h, const unsigned char *head,
                                                   size_t len, const char *name, int *score);
const tconv_reader_class *tconv_registry_reader(const tconv_registry *r, const char *name,
                                                const tconv_plugin **owner);
const tconv_writer_class *tconv_registry_writer(const tconv_registry *r, const char *name,
                                                const tconv_plugin **owner);

#endif
