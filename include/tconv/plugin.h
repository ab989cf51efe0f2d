/* The plugin ABI. A plugin is a shared object exporting one function, tconv_plugin_describe,
 * that returns a static descriptor. One plugin may provide several readers and writers.
 *
 * Compatibility: the host loads a plugin only if its abi_major equals TCONV_ABI_MAJOR and its
 * abi_minor is not newer than the host's. A minor release only appends fields to structs; every
 * struct that a plugin hands to the host starts with its size, so the host reads only what the
 * plugin knows. The element structs of arrays (tconv_option_desc, tconv_arg, tconv_frame,
 * tconv_sample_type) carry no size and are frozen for the whole major: what they lack comes as a
 * new field of the struct that points to the array. */
#ifndef TCONV_PLUGIN_H
#define TCONV_PLUGIN_H

#include <stddef.h>
#include <stdint.h>

#include "context.h"
#include "event.h"
#include "io.h"
/* Generated at build time (not beside this file in the source tree), hence the <tconv/...> form. */
#include <tconv/version.h>

#ifdef __cplusplus
extern "C" {
#endif

#if defined(__GNUC__)
#define TCONV_EXPORT __attribute__((visibility("default")))
#else
#define TCONV_EXPORT
#endif

/* ---- options ---------------------------------------------------------------------------- */
typedef enum tconv_option_type {
    TCONV_OPT_BOOL = 1, /* true/false, yes/no, 1/0, on/off */
    TCONV_OPT_INT,      /* int64 */
    TCONV_OPT_DOUBLE,
    TCONV_OPT_STRING,
    TCONV_OPT_ENUM /* one of choices, written "a|b|c" */
} tconv_option_type;

typedef struct tconv_option_desc {
    const char *name;
    int type;                  /* tconv_option_type */
    const char *default_value; /* as text; NULL means unset */
    /* ENUM: the values, "a|b|c". INT, DOUBLE: NULL, or the range, alternatives "N", "A..B",
     * "A.." or "..B" joined with '|' ("0|8.."); a value outside is a usage error. */
    const char *choices;
    const char *help;
} tconv_option_desc;

/* Options given with -R/-W, already checked against the descriptors (unknown names and bad
 * values are usage errors before the plugin is called). Getters fall back to the default. */
typedef struct tconv_options tconv_options;
const char *tconv_option_get_string(const tconv_options *o, const char *name);
int64_t tconv_option_get_int(const tconv_options *o, const char *name);
double tconv_option_get_double(const tconv_options *o, const char *name);
int tconv_option_get_bool(const tconv_options *o, const char *name);
int tconv_option_is_set(const tconv_options *o, const char *name); /* given by the user */

/* ---- readers ---------------------------------------------------------------------------- */
typedef struct tconv_sink tconv_sink;

/* Hand one event to the pipeline. The event is copied as needed: it may live on the stack.
 * TCONV_FATAL ends the read (return it from read()). */
tconv_status tconv_sink_push(tconv_sink *sink, const tconv_event *ev);

typedef struct tconv_reader_class {
    size_t struct_size;
    const char *name;
    const char *description;          /* one line */
    const char *extensions;           /* "json|json.gz"; used to break probe ties */
    const tconv_option_desc *options; /* terminated by a zeroed entry; may be NULL */
    /* Score 0..100 for how sure the reader is that these first bytes are its format. */
    int (*probe)(const unsigned char *buf, size_t len);
    /* Read the whole input, pushing events. Return TCONV_OK or TCONV_FATAL (message on ctx). */
    tconv_status (*read)(tconv_ctx *ctx, tconv_input *in, const tconv_options *opts,
                         tconv_sink *sink);
    /* ---- appended in ABI 1.2 ---- */
    uint32_t flags; /* TCONV_READER_* */
    /* ---- appended in ABI 1.4 ---- */
    /* For a reader that opens files of its own besides its input (an archive named by one of
     * its files): when the regular file at path is its format, gives add() each file read()
     * would open for it, a folder standing for everything below it. The host refuses an output
     * among them before anything is read, as it refuses one that is an input. Called on every
     * input, before the reader is chosen: it must look at path alone (its name, a few bytes)
     * and never block. NULL: the reader reads only its input's bytes. */
    void (*members)(const char *path, void (*add)(void *arg, const char *member), void *arg);
} tconv_reader_class;

enum {
    /* read() may run on several inputs at once, on threads other than the host's (tconv -j),
     * each call with a context of its own: the reader keeps no state outside the call (no
     * static variables, no process-wide library callbacks), looks at nothing of the context
     * but its own strings and tracks, and returns as soon as a push returns TCONV_FATAL,
     * without touching the context again. What it sees of the context is then the same as in a
     * serial run, and the host replays what it did in input order. */
    TCONV_READER_CONCURRENT = 1u << 0
};

/* ---- writers ---------------------------------------------------------------------------- */
enum {
    /* Each track's events arrive time-ordered and properly nested; COMPLETE arrives as BEGIN/END.
     * Metadata arrives first, then the tracks one after another. */
    TCONV_WRITER_ORDERED = 1u << 0,
    TCONV_WRITER_DIRECTORY = 1u << 1, /* writes a directory (-o required) */
    TCONV_WRITER_BINARY = 1u << 2,    /* refuses to write to a terminal */
    /* The next four flags (ABI 1.3) are deprecated since ABI 1.4: they name the core's
     * scheduling, which a writer now derives from what it needs (TCONV_NEED_STACK_SUMS,
     * TCONV_NEED_METADATA_APART, TCONV_NEED_RANK_PARTS below). They keep working: a flag and
     * the need it stands for have the same effect, and a host of ABI 1.3 reads only the flags.
     *
     * ABI 1.3: in an MPI run the writer runs on every rank, on that rank's inputs, and the
     * writers combine their parts at finish through tconv_ctx_collective() (collective.h).
     * Without it rank 0 alone writes, from every rank's recordings. The core may still run
     * such a writer on rank 0 alone (with tconv_ctx_collective() NULL) when the run needs
     * something per-rank writing cannot give (docs/scale.md). Now: TCONV_NEED_RANK_PARTS. */
    TCONV_WRITER_COLLECTIVE = 1u << 3,
    /* ABI 1.3: a writer of stack samples (one that takes samples and no spans) whose output does
     * not depend on when its samples come among the other events it is given (it ignores
     * metadata events, and what it looks up at a sample concerns that sample's own track). The
     * samples the core makes from an input's spans then come as soon as that input is read,
     * instead of after every input, so the core holds one input's spans rather than the run's.
     * Samples keep their order among themselves. A host that does not know the flag ignores it
     * and gives them after every input. Now: TCONV_NEED_METADATA_APART. */
    TCONV_WRITER_EARLY_SAMPLES = 1u << 4,
    /* ABI 1.3: the same for an ordered writer (TCONV_WRITER_ORDERED): its output does not
     * depend on when an input's ordered events come among the metadata events of later inputs
     * it is given directly, so the ordering stage flushes each input as soon as it is read.
     * Events keep their order among themselves. Now: TCONV_NEED_METADATA_APART. */
    TCONV_WRITER_EARLY_EVENTS = 1u << 5,
    /* ABI 1.3: with TCONV_WRITER_EARLY_SAMPLES, the writer's output depends on its samples only
     * through the sum of their values per (track, stack), taken in the order each (track,
     * stack) first comes: it reads neither a sample's time nor its name, category, args or
     * sequence number. The core may then give it, for each input, one sample per (track, stack)
     * carrying the sum, with the fields of the first (so a -j or MPI run sends summed samples
     * between threads and ranks, not spans). A writer whose options make it read more (pprof's
     * time window) says so through TCONV_NEED_EACH_SAMPLE. Now: TCONV_NEED_STACK_SUMS. */
    TCONV_WRITER_SUMMED_SAMPLES = 1u << 6
};

/* What a writer needs from the core, declared before open() (tconv_writer_class.needs). */
enum {
    TCONV_NEED_ARGS = 1u << 0, /* event args (a writer without needs() gets them) */
    /* Each GPU activity charged to the CPU stack that launched it, as extra samples of type
     * gpu/nanoseconds: for profile writers (SAMPLE without spans). event-model.md, "GPU
     * attribution". */
    TCONV_NEED_GPU_ATTRIBUTION = 1u << 1,
    /* tconv_event.corr on the spans an ordered writer gets (kept beside the buffered event, so
     * ask only when used). Unordered writers always see it. */
    TCONV_NEED_CORR = 1u << 2,
    /* ABI 1.3: each sample as the stages make it, for a writer that otherwise needs only the
     * sums (TCONV_NEED_STACK_SUMS) whose options make it read more of a sample (a time
     * window). It wins over TCONV_NEED_STACK_SUMS. */
    TCONV_NEED_EACH_SAMPLE = 1u << 3,
    /* ABI 1.4: what the writer's output depends on, in its own terms; the core derives from
     * them when and where the stages run (docs/plugin-guide.md, "What a writer needs"). A host
     * of ABI 1.3 ignores them: the output is the same, made later or on fewer threads.
     *
     * The output depends on the metadata events it is given directly (track names, process
     * names) and on its other events, but not on where the metadata comes among them: the
     * writer keeps metadata apart, or ignores it, and what it looks up at an event concerns
     * that event's own track. Each input's samples (a stack-sample writer) or ordered events
     * (TCONV_WRITER_ORDERED) may then come as soon as that input is read, so the core holds
     * one input's spans rather than the run's. Events keep their order among themselves. */
    TCONV_NEED_METADATA_APART = 1u << 4,
    /* A writer of stack samples whose output depends on its samples only through the sum of
     * their values per (track, stack), taken in the order each (track, stack) first comes: it
     * reads neither a sample's time nor its name, category, args or sequence number, nor where
     * it comes among the metadata (TCONV_NEED_METADATA_APART follows). The core may then give
     * it one sample per (track, stack) and input, carrying the sum, with the fields of the
     * first: a -j or MPI run sends summed samples between threads and ranks, not spans. */
    TCONV_NEED_STACK_SUMS = 1u << 5,
    /* Its own part per rank: in an MPI run the writer runs on every rank, on that rank's
     * inputs, and the writers combine their parts at finish through tconv_ctx_collective()
     * (collective.h). Without it rank 0 alone writes, from every rank's recordings. The core
     * may still run it on rank 0 alone (tconv_ctx_collective() NULL) when the run needs
     * something per-rank writing cannot give (docs/scale.md). */
    TCONV_NEED_RANK_PARTS = 1u << 6
};

typedef struct tconv_writer_class {
    size_t struct_size;
    const char *name;
    const char *description;
    const tconv_option_desc *options;
    /* TCONV_KIND_BIT() mask of kinds taken. A writer that takes SAMPLE but not spans gets the
     * spans of the input as self-time samples (the stack stage). Other kinds it does not take
     * are counted and reported as dropped. */
    uint32_t accepts;
    uint32_t flags; /* TCONV_WRITER_* */
    tconv_status (*open)(tconv_ctx *ctx, tconv_output *out, const tconv_options *opts,
                         void **state);
    tconv_status (*event)(void *state, const tconv_event *ev);
    /* All events delivered: write what is left. */
    tconv_status (*finish)(void *state);
    /* Always called once after a successful open, also after a failure. */
    void (*destroy)(void *state);
    /* ---- appended in ABI 1.1 ---- */
    /* Output names that pick this writer when -w is not given: "pb.gz|pprof". */
    const char *extensions;
    /* TCONV_NEED_* for these options, asked once before open(). NULL: args only (and whatever
     * the ABI 1.0 calls tconv_args_ignore / tconv_gpu_attribute in open() say). */
    uint32_t (*needs)(const tconv_options *opts);
} tconv_writer_class;

/* ---- the descriptor --------------------------------------------------------------------- */
typedef struct tconv_plugin_desc {
    size_t struct_size;
    uint32_t abi_major;
    uint32_t abi_minor;
    const char *name;
    const char *version;
    const char *description;
    const tconv_reader_class *const *readers; /* NULL-terminated; may be NULL */
    const tconv_writer_class *const *writers;
} tconv_plugin_desc;

/* For hosts: does class c (from a plugin that may be built for an older minor) have field? */
#define TCONV_CLASS_HAS(c, field)                                                                  \
    ((c)->struct_size >= offsetof(__typeof__(*(c)), field) + sizeof((c)->field))

#define TCONV_PLUGIN_ENTRY "tconv_plugin_describe"
typedef const tconv_plugin_desc *(*tconv_plugin_entry_fn)(void);

/* Define the entry point of a plugin. */
#define TCONV_PLUGIN(desc_var)                                                                     \
    TCONV_EXPORT const tconv_plugin_desc *tconv_plugin_describe(void);                             \
    TCONV_EXPORT const tconv_plugin_desc *tconv_plugin_describe(void)                              \
    {                                                                                              \
        return &(desc_var);                                                                        \
    }

#ifdef __cplusplus
}
#endif
#endif
