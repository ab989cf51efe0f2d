/* The context layer (core/context/): the run's context, the tables one conversion shares with
 * every plugin: strings, tracks, errors and warnings, sample types, roles, what each input says of
 * itself. It tells an observer what a reader changes (tconv_ctx_observe) and knows nothing of
 * the layers above. */
#ifndef TCONV_CORE_CONTEXT_H
#define TCONV_CORE_CONTEXT_H

#include "util.h"

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

/* ---- what is known of each input (core/context/inputinfo.c) ---- */
typedef struct tconv_inputinfo {
    tconv_str name; /* as opened; 0 until the input is read */
    int has_rank, has_time_origin;
    int64_t rank;           /* from "rank" or distributedInfo metadata */
    int64_t time_origin_ns; /* from baseTimeNanoseconds metadata */
} tconv_inputinfo;

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
    int gpu_attribute; /* a writer asked for GPU attribution (core/stages/gpu.c) */
    int need_corr;     /* the writer reads tconv_event.corr (TCONV_NEED_CORR) */
    int all_spans;     /* self time counts spans that are not thread work (--all-spans) */
    /* The steps' name (--step-name), for the steps stage writers ask (core/stages/steps.c); NULL:
     * ProfilerStep#. The run's string: the plan's selection holds the same. */
    const char *step_name;
    int64_t *launch_tol; /* per input: launch-stack tolerance in ns, -1 if not declared */
    size_t nlaunch_tol;  /* entries, all set (the array's capacity) */
    int error_usage;     /* the pending error is the caller's mistake, not the input's */
    char *error_hint;    /* how to fix the pending error, or NULL */
    /* Where notices (tconv_note) go: the host's hook; NULL prints them to stderr. */
    void (*notice)(void *user, tconv_notice_level level, const char *text);
    void *notice_user;
    const atomic_int *interrupt; /* nonzero: the run was asked to stop (tconv_run_interrupt) */
    unsigned char *str_class; /* per string id: its role as a category, ... (core/context/role.c) */
    size_t nstr_class;

    /* Per input, indexed by input (core/context/inputinfo.c). */
    tconv_inputinfo *inputinfo;
    size_t ninputinfo, inputinfo_cap;
    /* Metadata names that set nothing here, by id modulo 8 (core/context/inputinfo.c); zeroed, each
     * slot holds id 0 (""), which sets nothing. */
    tconv_str info_other[8];

    /* Told of what a reader does to the context besides pushing events (tconv_ctx_observe);
     * NULL: no one. */
    const struct tconv_ctx_observer *obs;
    void *obs_user;
    /* While the calling thread reads an input in line with threads to spare: how it may read a
     * JSON array of it in parts (core/parallel/split.c, which defines it). NULL: it may not. */
    const struct tconv_split_conf *split;
};

/* What an observer of a context is told: the changes a reader makes to it besides its events
 * and its strings and tracks (which an observer finds in the tables), each as it is made. A
 * worker's recording (core/parallel/record.c) observes the worker's context, to make the same
 * changes to the run's context later, in input order. The context knows nothing of who observes it.
 */
typedef struct tconv_ctx_observer {
    void (*warning)(void *user, size_t kind_index); /* made or counted: ctx->warnings[kind_index] */
    void (*track_kind)(void *user, uint32_t track, uint32_t kind);
    void (*sampletypes)(void *user); /* set: ctx->stypes */
    void (*launchstacks)(void *user, int64_t tolerance_ns);
    void (*lane)(void *user, uint32_t track, unsigned n); /* tconv_track_lane(track, n) */
} tconv_ctx_observer;
/* Installs obs (NULL: none), called with user; notices go to their own hook (ctx->notice). */
void tconv_ctx_observe(tconv_ctx *ctx, const tconv_ctx_observer *obs, void *user);

tconv_ctx *tconv_ctx_new(void);
/* A worker's context (tconv -j, a part of one input): what run tells readers (verbosity, args
 * wanted, the interrupt flag, ...), nothing of its tables; its input index is index. */
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
 * (from its args unless set): core/context/role.c. */
void tconv_role_fill(tconv_ctx *ctx, tconv_event *e);

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

/* Moves the pending error (chain, hint, usage flag) of from to to. */
void tconv_error_move(tconv_ctx *to, tconv_ctx *from);

#endif
