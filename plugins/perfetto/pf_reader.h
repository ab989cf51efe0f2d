/* The perfetto reader's state, shared by pf_reader.c (the packet stream, sequences, interning,
 * clocks), pf_rtrack.c (tracks and names), pf_revent.c (track events and their args) and
 * pf_rprofile.c (callstack samples). */
#ifndef PF_READER_H
#define PF_READER_H

#include <stdint.h>

#include <tconv/map.h>
#include <tconv/tconv.h>

#include "pf_wire.h"

/* What an iid of a sequence's interned data stands for. Strings are tconv string ids; the
 * rest index the sequence's arrays. */
enum {
    PF_T_NAME = 1,  /* event_names */
    PF_T_CAT,       /* event_categories */
    PF_T_ANNOT,     /* debug_annotation_names */
    PF_T_SVAL,      /* debug_annotation_string_values */
    PF_T_FUNCTION,  /* function_names */
    PF_T_PATH,      /* mapping_paths */
    PF_T_BUILD,     /* build_ids */
    PF_T_MAPPING,   /* mappings: index into maps */
    PF_T_FRAME,     /* frames: index into frames */
    PF_T_CALLSTACK, /* callstacks: index into stacks */
    PF_T_SOURCE     /* source_locations: index into sources */
};

typedef struct pf_rmapping {
    tconv_str path;
    uint64_t start;
} pf_rmapping;

typedef struct pf_rframe {
    tconv_str name;
    uint64_t mapping; /* iid, 0: none */
    uint64_t rel_pc;
} pf_rframe;

typedef struct pf_rstack {
    size_t first, n; /* frame iids in stack_iids, root first */
} pf_rstack;

typedef struct pf_rsource {
    tconv_str file, function;
    uint32_t line;
} pf_rsource;

/* A clock of one sequence (ids 64..127), as its snapshots define it. */
typedef struct pf_rseqclock {
    uint32_t id;
    int incremental;
    uint64_t unit;
    int64_t last; /* incremental: the value so far, in the clock's ns */
} pf_rseqclock;

/* One packet sequence (trusted_packet_sequence_id) and its incremental state. */
typedef struct pf_rseq {
    uint32_t id;
    tconv_map intern; /* (iid, PF_T_*) -> string id or array index */
    pf_rmapping *maps;
    size_t nmaps, maps_cap;
    pf_rframe *frames;
    size_t nframes, frames_cap;
    pf_rstack *stacks;
    size_t nstacks, stacks_cap;
    uint64_t *stack_iids;
    size_t nstack_iids, stack_iids_cap;
    pf_rsource *sources;
    size_t nsources, sources_cap;
    /* defaults */
    int has_track;
    uint64_t track_uuid;
    uint32_t clock_id; /* 0: the trace clock */
    uint64_t *extra, *extra_d;
    size_t nextra, nextra_d, extra_cap, extra_d_cap;
    /* the legacy thread descriptor of the sequence */
    int has_thread;
    int32_t pid, tid;
    int64_t ref_us; /* last time of timestamp_delta_us */
    pf_rseqclock *clocks;
    size_t nclocks, clocks_cap;
} pf_rseq;

/* A track descriptor. */
enum { PF_RT_NAMED = 0, PF_RT_PROCESS, PF_RT_THREAD, PF_RT_COUNTER };

typedef struct pf_rtrack {
    uint64_t uuid, parent;
    int type; /* PF_RT_* */
    int32_t pid, tid;
    tconv_str name; /* TrackDescriptor.name */
    /* "tconv.track": the exact identity */
    int has_ident;
    tconv_str ipid, itid, ithread; /* ithread: its thread name, 0: none */
    int64_t isort;                 /* its thread sort index, 0: none */
    int sort_explicit, sort_pushed;
    unsigned ikind;
    /* counters */
    tconv_str unit, cat;
    int64_t multiplier;
    int incremental;
    double last;
    int has_cident;
    tconv_str cname, ckey;
    uint64_t cid;
    /* the tconv track, once used; UINT32_MAX: not yet */
    uint32_t tconv;
    int name_explicit; /* a thread_name metadata event named it */
    tconv_str name_pushed;
} pf_rtrack;

/* Names a process or thread gets from descriptors and process trees, pushed as metadata when a
 * track of it is first used (unless a metadata event of the trace named it). */
typedef struct pf_rnames {
    tconv_str name;
    int64_t sort;
    int has_sort;
    int name_explicit, sort_explicit;
    tconv_str name_pushed;
    int sort_pushed;
} pf_rnames;

/* A packet whose track has no descriptor yet: replayed when it comes, or at the end. */
typedef struct pf_rpending {
    uint64_t uuid;
    size_t off, len; /* in pending_bytes */
    uint32_t seq;    /* index in seqs */
    int64_t ts;
    uint64_t input_off;
} pf_rpending;

/* A span the writer's ordering stage repaired, held from its SLICE_BEGIN to its SLICE_END. */
typedef struct pf_rheld {
    tconv_event ev;
    tconv_arg *args;
    int64_t measured;
} pf_rheld;

/* The slices open on one tconv track: NULL for those pushed as they came. */
typedef struct pf_ropen {
    pf_rheld **v;
    size_t n, cap;
} pf_ropen;

typedef struct pf_reader {
    tconv_ctx *ctx;
    tconv_input *in;
    tconv_sink *sink;
    const char *name;
    int strict;
    uint64_t pkt_off; /* input offset of the packet being read */

    pf_rseq *seqs;
    size_t nseqs, seqs_cap;
    tconv_map seq_map; /* (sequence id, 0) -> index */

    pf_rtrack *tracks;
    size_t ntracks, tracks_cap;
    tconv_map track_map; /* (uuid, 0) -> index */
    tconv_map key_map;   /* (pid << 32 | tid, 0) -> uuid index + 1 that took the key */

    pf_rnames *names;
    size_t nnames, names_cap;
    tconv_map proc_names;   /* (pid, 0) -> names */
    tconv_map thread_names; /* (pid << 32 | tid, 1) -> names */
    uint32_t *owner;        /* by tconv track id: 1 + the descriptor it came from; 0: none */
    uint8_t *used;          /* by tconv track id: its names were looked at */
    pf_ropen *opens;        /* by tconv track id */
    size_t opens_cap;
    size_t used_cap;

    tconv_map flows; /* (flow id, 0) -> 1 once started */

    pf_rpending *pending;
    size_t npending, pending_cap;
    pf_buf pending_bytes;
    uint64_t pending_left; /* replayed at the end without a descriptor */

    /* clocks */
    uint32_t trace_clock;
    int trace_clock_fixed;
    uint64_t *snap_ids; /* the latest snapshot: clock ids and their times (ns) */
    int64_t *snap_ts;
    size_t nsnap, snap_cap;
    tconv_map clock_map; /* (clock key, 0) -> offsets: trace clock minus the clock */
    int64_t *offsets;
    size_t noffsets, offsets_cap;
    int have_origin;
    int64_t origin;
    int origin_said; /* a baseTimeNanoseconds metadata event came from the trace */
    uint64_t unknown_clock;
    uint32_t unknown_clock_id;

    /* what was skipped */
    uint64_t skipped[128]; /* by TracePacket field number below 128 */
    uint64_t skipped_other;
    uint64_t bad_events;
    uint64_t no_callstack;
    int declared_samples;

    tconv_str s_measured, s_text, s_key, s_track, s_counter, s_pid, s_tid, s_kind, s_name, s_id,
        s_empty, s_thread_name, s_process_name, s_thread_sort, s_process_sort, s_ithread, s_isort;

    void *rte; /* the track event being read (pf_revent.c) */
    /* scratch for args */
    tconv_arg *args;
    size_t args_cap;
} pf_reader;

/* Time arithmetic on values from the file, which may be anything: it wraps rather than overflow
 * (the core then skips an event beyond 2^62 ns with a warning). */
static inline int64_t pf_add(int64_t a, int64_t b)
{
    return (int64_t)((uint64_t)a + (uint64_t)b);
}
static inline int64_t pf_us(int64_t us)
{
    return (int64_t)((uint64_t)us * 1000u);
}

/* pf_reader.c */
tconv_status pf_r_error(pf_reader *r, const char *what);
tconv_status pf_r_push(pf_reader *r, const tconv_event *ev);
pf_rseq *pf_r_seq(pf_reader *r, uint32_t id);
/* The interned value (iid, table) of a sequence: 1 and *v, or 0. */
int pf_r_lookup(const pf_rseq *s, uint64_t iid, unsigned table, uint32_t *v);
tconv_str pf_r_intern(pf_reader *r, const void *s, size_t n);

/* pf_rtrack.c */
tconv_status pf_r_descriptor(pf_reader *r, const uint8_t *msg, size_t len);
pf_rtrack *pf_r_track_find(pf_reader *r, uint64_t uuid);
/* The tconv track of a descriptor; an event is about to be pushed on it when for_event (its
 * names are then pushed first). UINT32_MAX on a fatal error. */
uint32_t pf_r_track_use(pf_reader *r, pf_rtrack *t, int for_event);
/* The thread (pid, tid) of samples and legacy events; tid < 0: the process. */
uint32_t pf_r_thread_track(pf_reader *r, int32_t pid, int32_t tid, int for_event);
uint32_t pf_r_global_track(pf_reader *r);
/* Room for the per-tconv-track arrays up to track. */
int pf_r_grow_tconv(pf_reader *r, uint32_t track);
/* A metadata event named what_name (thread_name, ...) on a tconv track: marks the name as the
 * trace's own, so that descriptors do not name it again. */
void pf_r_meta_explicit(pf_reader *r, uint32_t track, pf_rtrack *t, tconv_str what);
tconv_status pf_r_process_tree(pf_reader *r, const uint8_t *msg, size_t len);
/* The thread's or process's names, when the tconv track is first used for an event. */
tconv_status pf_r_names_for(pf_reader *r, uint32_t track);

/* pf_revent.c */
tconv_status pf_r_track_event(pf_reader *r, pf_rseq *s, const uint8_t *msg, size_t len, int64_t ts);

/* pf_rprofile.c */
tconv_status pf_r_perf_sample(pf_reader *r, pf_rseq *s, const uint8_t *msg, size_t len, int64_t ts);
tconv_status pf_r_streaming_profile(pf_reader *r, pf_rseq *s, const uint8_t *msg, size_t len,
                                    int64_t ts);

#endif
