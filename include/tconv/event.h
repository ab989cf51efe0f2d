/* tconv event model: what readers produce and writers consume.
 *
 * Every time is an int64 count of nanoseconds. Every string is an interned id (tconv_str) that
 * lives as long as the run; id 0 is the empty string. An event and everything it points to
 * (args, frames, values) belong to whoever pushes it and are valid only during the call that
 * receives it: keep ids, copy the rest. */
#ifndef TCONV_EVENT_H
#define TCONV_EVENT_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef uint32_t tconv_str;

typedef enum tconv_event_kind {
    TCONV_EV_BEGIN = 1,  /* a span opens on its track */
    TCONV_EV_END,        /* closes the innermost open span on its track; name may be 0 */
    TCONV_EV_COMPLETE,   /* a whole span: ts and dur */
    TCONV_EV_INSTANT,    /* a point in time; scope in flags */
    TCONV_EV_COUNTER,    /* one value of one series: name, key (series), value, unit */
    TCONV_EV_FLOW_START, /* a flow (arrow) leaves this track: id */
    TCONV_EV_FLOW_STEP,  /* passes through */
    TCONV_EV_FLOW_END,   /* arrives */
    TCONV_EV_METADATA,   /* name = what (process_name, thread_name, ...), text = the value */
    TCONV_EV_SAMPLE,     /* a stack sample: root-first frames and one value per sample type */
    TCONV_EV_KIND_MAX
} tconv_event_kind;

#define TCONV_KIND_BIT(k) (1u << (k))
#define TCONV_KINDS_SPANS                                                                          \
    (TCONV_KIND_BIT(TCONV_EV_BEGIN) | TCONV_KIND_BIT(TCONV_EV_END) |                               \
     TCONV_KIND_BIT(TCONV_EV_COMPLETE))
#define TCONV_KINDS_FLOWS                                                                          \
    (TCONV_KIND_BIT(TCONV_EV_FLOW_START) | TCONV_KIND_BIT(TCONV_EV_FLOW_STEP) |                    \
     TCONV_KIND_BIT(TCONV_EV_FLOW_END))
#define TCONV_KINDS_ALL ((1u << TCONV_EV_KIND_MAX) - 2u)

/* Event flags. */
enum {
    TCONV_EVF_SCOPE_GLOBAL = 1u << 0,   /* instant: whole trace */
    TCONV_EVF_SCOPE_PROCESS = 1u << 1,  /* instant: whole process */
    TCONV_EVF_BIND_NEXT = 1u << 2,      /* flow: binds to the next slice that starts (default) */
    TCONV_EVF_BIND_ENCLOSING = 1u << 3, /* flow: binds to the enclosing slice (Chrome bp:"e") */
    TCONV_EVF_ASYNC = 1u << 4,   /* async span: put overlapping ones on separate tracks, since the
                                    ordering stage nests (and clips) within a track */
    TCONV_EVF_REPAIRED = 1u << 5 /* set by the ordering stage on spans it clipped/closed */
};

typedef enum tconv_arg_type {
    TCONV_ARG_NULL = 0,
    TCONV_ARG_BOOL,
    TCONV_ARG_INT,
    TCONV_ARG_UINT,
    TCONV_ARG_DOUBLE,
    TCONV_ARG_STRING,
    TCONV_ARG_JSON /* s holds compact JSON text of an object or array */
} tconv_arg_type;

typedef struct tconv_arg {
    tconv_str key;
    uint32_t type; /* tconv_arg_type */
    union {
        int64_t i;
        uint64_t u;
        double d;
        tconv_str s;
    } v;
} tconv_arg;

/* One stack frame. Only name is required; the rest is 0 when unknown. */
typedef struct tconv_frame {
    tconv_str name;
    tconv_str module; /* shared object, dso, or category */
    tconv_str file;
    uint32_t line;
    uint32_t flags; /* TCONV_FRAME_* */
    uint64_t addr;
} tconv_frame;

enum { TCONV_FRAME_KERNEL = 1u << 0, TCONV_FRAME_JIT = 1u << 1, TCONV_FRAME_INLINED = 1u << 2 };

/* One event. Initialise with TCONV_EVENT_INIT (or tconv_event_init) so that fields added in a
 * later minor ABI read as zero and struct_size tells the core how much of it the plugin knows. */
typedef struct tconv_event {
    uint32_t struct_size;
    uint16_t kind;  /* tconv_event_kind */
    uint16_t flags; /* TCONV_EVF_* */
    uint32_t track; /* from tconv_track_get */
    tconv_str name;
    tconv_str cat;
    int64_t ts;     /* ns */
    int64_t dur;    /* ns, COMPLETE only */
    uint64_t id;    /* flow id; async/counter id */
    tconv_str key;  /* COUNTER: series; METADATA: optional sub-key */
    tconv_str unit; /* COUNTER: unit of value ("bytes", "" if unknown) */
    tconv_str text; /* METADATA: the value as text */
    double value;   /* COUNTER */
    const tconv_arg *args;
    uint32_t nargs;
    uint32_t nframes;
    const tconv_frame *frames; /* SAMPLE: root first */
    const int64_t *values;     /* SAMPLE: one per declared sample type */
    uint32_t nvalues;
    uint32_t input; /* set by the core: index of the input the event came from */
    uint64_t seq;   /* set by the core: position in the input stream, for stable ordering */
    /* ---- appended in ABI 1.1 ---- */
    /* Links a GPU runtime call (a launch) to the GPU work it started: both carry the same
     * nonzero id, unique per input. 0: none. Spans only. */
    uint64_t corr;
    uint16_t role; /* tconv_role: what a span stands for; 0 lets the core decide */
} tconv_event;

/* What a span stands for. Writers that add up a thread's busy time (pprof wall, folded, summary)
 * count only spans whose role is work of the track they sit on (tconv_role_is_work); GPU
 * attribution and the kernel tables look at the device roles and the correlation id. A reader
 * that knows its format sets the role; one that leaves it 0 gets the core's guess from the
 * category (tconv_role_of_category), which also serves plugins built for ABI 1.0. */
typedef enum tconv_role {
    TCONV_ROLE_UNSET = 0,      /* not set by the reader: the core fills it in */
    TCONV_ROLE_CPU,            /* work on a CPU thread: a function, an operator */
    TCONV_ROLE_PYTHON,         /* a Python function */
    TCONV_ROLE_ANNOTATION,     /* a user's named range on a CPU thread (record_function) */
    TCONV_ROLE_STEP,           /* a training/inference step (Kineto ProfilerStep#N) */
    TCONV_ROLE_RUNTIME,        /* a GPU runtime call (cudaLaunchKernel): may carry corr */
    TCONV_ROLE_DRIVER,         /* a GPU driver call (cuLaunchKernel): may carry corr */
    TCONV_ROLE_KERNEL,         /* GPU work: a kernel */
    TCONV_ROLE_MEMCPY,         /* GPU work: a copy */
    TCONV_ROLE_MEMSET,         /* GPU work: a fill */
    TCONV_ROLE_GPU_ANNOTATION, /* a named range on a GPU track, not work of its own */
    TCONV_ROLE_SYNC,     /* waiting for the device (cudaDeviceSynchronize seen by the tracer) */
    TCONV_ROLE_OVERHEAD, /* the tracer's own cost */
    TCONV_ROLE_WINDOW,   /* the profiler's recording window: not work of the track */
    TCONV_ROLE_ASYNC,    /* an async span (Chrome b/e): overlaps freely, not a call */
    TCONV_ROLE_MARKER,   /* a zero-work marker (flow anchors and the like) */
    TCONV_ROLE_MAX
} tconv_role;

/* Device work: kernels, copies and fills. */
static inline int tconv_role_is_gpu(unsigned role)
{
    return role == TCONV_ROLE_KERNEL || role == TCONV_ROLE_MEMCPY || role == TCONV_ROLE_MEMSET;
}

/* Does the span count as busy time of its track? Windows, async spans and markers do not. */
static inline int tconv_role_is_work(unsigned role)
{
    return role != TCONV_ROLE_WINDOW && role != TCONV_ROLE_ASYNC && role != TCONV_ROLE_MARKER;
}

/* "kernel", "cpu", ...: the role's name in options and output; "" past the known roles. */
const char *tconv_role_name(unsigned role);

#define TCONV_EVENT_INIT                                                                           \
    {                                                                                              \
        .struct_size = (uint32_t)sizeof(tconv_event)                                               \
    }

static inline void tconv_event_init(tconv_event *ev)
{
    *ev = (tconv_event)TCONV_EVENT_INIT;
}

/* A sample type, as pprof names them: ("samples", "count"), ("wall", "nanoseconds"). */
typedef struct tconv_sample_type {
    const char *type;
    const char *unit;
} tconv_sample_type;

const char *tconv_event_kind_name(unsigned kind);

#ifdef __cplusplus
}
#endif
#endif
