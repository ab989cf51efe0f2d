/* The OTF2 writer's internal state, shared by the files of this plugin only.
 *
 * The writer works in two phases. While the core delivers the ordered stream (metadata first,
 * then one track after another), every event is appended in a compact byte form to the buffer
 * of its location (otf2_collect.c). At finish, flows are paired (otf2_flows.c), processes and
 * threads become location groups and locations (otf2_layout.c), and the archive is written one
 * location at a time, then the definitions (otf2_archive.c). */
#ifndef TCONV_OTF2_WRITER_H
#define TCONV_OTF2_WRITER_H

#include <stddef.h>
#include <stdint.h>

#include <otf2/otf2.h>

#include "tconv/tconv.h"

#include "otf2_bytes.h"

/* Record tags of the compact location buffers (low bits), and the flag for an attribute list. */
enum {
    OTF2W_REC_ENTER = 1,
    OTF2W_REC_LEAVE = 2,
    OTF2W_REC_METRIC = 3,
    OTF2W_REC_FLOW = 4,
    OTF2W_REC_KIND_MASK = 0x07,
    OTF2W_REC_ATTRS = 0x08
};

/* What a location holds, to pick its OTF2 location type. */
enum {
    OTF2W_LOCF_SPANS = 1u << 0,
    OTF2W_LOCF_METRICS = 1u << 1,
    OTF2W_LOCF_FLOWS = 1u << 2,
    OTF2W_LOCF_MARKERS = 1u << 3,
    OTF2W_LOCF_GPU_SPANS = 1u << 4,     /* a span of a GPU category (kernel, memcpy, ...) */
    OTF2W_LOCF_GROUP_MARKERS = 1u << 5, /* a process-scoped instant: its process needs a group */
    OTF2W_LOCF_GLOBAL_MARKERS = 1u << 6 /* a trace-wide instant: its input orders it (unify) */
};

/* One per track; a track becomes an OTF2 location when it holds anything. */
typedef struct otf2_loc {
    otf2_bytes buf;  /* the compact records */
    int64_t base_ts; /* time of the first record; records store deltas */
    int64_t last_ts; /* time of the last record */
    uint64_t nrec;   /* records in buf */
    uint32_t *stack; /* regions of the open spans, innermost last */
    size_t stack_cap;
    uint32_t depth;
    uint32_t flags; /* OTF2_LOCF_* */
    uint32_t group; /* index into otf2_state.groups (layout) */
    uint64_t id;    /* OTF2 location id (layout) */
    OTF2_StringRef name_ref;
    OTF2_StringRef tid_ref; /* the tid as the input wrote it, a property: its ref + 1, 0: none */
    OTF2_LocationType type;
    uint64_t nevents; /* events written (archive) */
    uint64_t hash;    /* of its records, when another process makes the archive's (archive) */
} otf2_loc;

/* A region: one per distinct (name, category). */
typedef struct otf2_region {
    tconv_str name, cat;
    unsigned role;  /* tconv_role */
    uint32_t input; /* of its first use: definitions of several ranks merge in input order */
} otf2_region;

/* A counter series definition: one metric member and class per (name, key, unit). Its values
 * are written as INT64 when every one is a whole number that fits (bytes, counts), as DOUBLE
 * otherwise. */
typedef struct otf2_series {
    tconv_str name, key, unit;
    uint32_t input;
    uint32_t fraction; /* a value that is not a whole int64 was seen */
} otf2_series;

/* A metric instance: a series as recorded on one location. */
typedef struct otf2_instance {
    uint32_t series;
    uint32_t track;
} otf2_instance;

/* An attribute: one per (arg key, OTF2 type). */
typedef struct otf2_attr {
    tconv_str key;
    OTF2_Type type;
    uint32_t input;
} otf2_attr;

/* A marker definition: one per (instant name, category). */
typedef struct otf2_markdef {
    tconv_str name, cat;
    uint32_t input;
} otf2_markdef;

/* A flow event as delivered, for pairing at finish: 24 bytes. Events of one flow at the same
 * time keep their delivery order. */
typedef struct otf2_flow {
    uint64_t id;
    int64_t ts;
    uint32_t cls; /* (index of (input, category, name) in flow_classes) << 2 | phase */
    uint32_t track;
} otf2_flow;

enum { OTF2W_FLOW_START = 1, OTF2W_FLOW_STEP = 2, OTF2W_FLOW_END = 3 };

/* How flows are written (option flows): as Parameter records that name the flow (the default:
 * no message that MPI statistics count), as MPI messages in a communicator of their own, or
 * not at all. */
enum { OTF2W_FLOWS_PARAMETERS, OTF2W_FLOWS_MESSAGES, OTF2W_FLOWS_NONE };
#define OTF2W_FLOW_PHASE(f) ((f)->cls & 3u)

/* What pairing decided for one flow event: a receive from and/or a send to another track. The
 * message tag is the index of the receiving flow event, unique per link. */
#define OTF2W_NO_PEER UINT32_MAX
typedef struct otf2_link {
    uint32_t recv_from, recv_tag;
    uint32_t send_to, send_tag;
} otf2_link;

/* Facts about one input (rank: tconv_ctx_rank). */
typedef struct otf2_input {
    tconv_str host;
    uint32_t node; /* system tree node (layout) */
} otf2_input;

/* A location group: one per (input, pid) that holds locations. */
typedef struct otf2_group {
    uint32_t input;
    tconv_str pid;
    uint32_t first_track;
    int64_t sort;
    OTF2_LocationGroupType type;
    uint32_t creator; /* index of the creating group, or UINT32_MAX */
    OTF2_StringRef name_ref;
    OTF2_StringRef pid_ref; /* the pid as the input wrote it, a property of the group */
    uint32_t nlocs;
} otf2_group;

/* A rank's part of an archive that every rank of an MPI run writes (otf2_unify.c): its local
 * ids as the whole run's, for the events it writes. */
typedef struct otf2_xlate {
    uint32_t *region, *attr, *string; /* local index -> global */
    uint64_t *metric;                 /* local instance -> global metric ref */
    uint32_t *flow_tag;               /* local flow index -> the whole run's */
    uint8_t *metric_int;              /* local instance: its values are written as INT64 */
    uint64_t nseries;                 /* the whole run's metric series */
} otf2_xlate;

typedef struct otf2_state {
    tconv_ctx *ctx;
    tconv_output *out;
    int opt_args;
    int opt_flows; /* OTF2W_FLOWS_* */

    otf2_loc *locs; /* by track id */
    size_t nlocs_cap;

    otf2_region *regions;
    size_t nregions, regions_cap;
    tconv_map region_map;

    otf2_series *series;
    size_t nseries, series_cap;
    tconv_map series_map;
    otf2_instance *instances;
    size_t ninstances, instances_cap;
    tconv_map instance_map;

    otf2_attr *attrs;
    size_t nattrs, attrs_cap;
    tconv_map attr_map;
    /* By key, the attribute last looked up for it plus 1 (otf2_attr_get): a key keeps its
     * type from one event to the next, and every arg of every event is looked up. */
    uint32_t *attr_last;
    size_t attr_last_cap;

    otf2_markdef *markdefs;
    size_t nmarkdefs, markdefs_cap;
    tconv_map markdef_map;
    otf2_bytes markers; /* compact marker records */
    uint64_t nmarkers;

    otf2_flow *flows;
    size_t nflows, flows_cap; /* nflows stays the count after flows is freed */
    tconv_map flow_class_map;
    uint32_t nflow_classes;
    otf2_link *links; /* by flow index, after pairing (messages) */
    uint64_t nlinks;
    uint32_t *chain; /* by flow index: the flow's first event, its number (parameters) */
    uint8_t *phase;  /* by flow index: OTF2W_FLOW_* (parameters) */

    otf2_input *inputs;
    size_t ninputs, inputs_cap;
    tconv_map labels_map;  /* (input, pid) -> process_labels text */
    otf2_bytes labels_log; /* the same as set, in order: input, pid, text (for otf2_unify.c) */

    otf2_group *groups;
    size_t ngroups;
    uint32_t *order; /* track ids of the locations, in location id order */
    size_t nlocations;
    uint32_t nnodes;
    OTF2_StringRef *node_name_refs;
    OTF2_StringRef *node_class_refs;

    /* tconv string id -> OTF2 string ref + 1 (0: not defined yet) */
    uint32_t *strref;
    size_t strref_cap;
    tconv_str *strings; /* tconv string ids in OTF2 string ref order */
    size_t nstrings, strings_cap;
    uint32_t *string_input; /* input of each string's first use (by ref) */
    size_t string_input_cap;
    uint32_t cur_input; /* input of the event being collected */

    /* Rank 0 of an MPI run: the whole run's tracks (gtracks, by global track index) and each
     * input's rank, for the layout (otf2_unify.c); NULL: the context's. */
    tconv_track *gtracks;
    size_t ngtracks;
    int64_t *grank;
    unsigned char *grank_has;
    otf2_xlate *xl; /* a rank's part: its ids as the run's; NULL: one writer */

    int have_time;
    int64_t min_ts, max_ts;
    int64_t shift; /* subtracted from every time: OTF2 times are unsigned */
    int hip;       /* HIP runtime calls seen: GPU regions are HIP, not CUDA */

    tconv_str str_null; /* "null", for null args */
    tconv_str s_memory, s_bytes, s_memory_instant, s_flow_name, s_flow_cat, s_flow_binding, s_next;

    /* PyTorch's [memory] instants whose process has a memory metric at their time are left
     * out (otf2_markers_drop_carried): the metric carries them. */
    tconv_map proc_map;  /* (input, pid) -> process index */
    tconv_map memts_map; /* (ts, process index) -> 1: a memory counter value there */
    uint32_t nprocs;

    /* OTF2's own error reports (otf2_error.c) */
    char lib_msg[512];
    OTF2_ErrorCode lib_code;
    uint64_t lib_reports;
    /* The first report of a failed system call (a full disk, a lost permission): it says what
     * went wrong where the failing call's own report only says that something did. */
    char lib_cause[512];
    OTF2_ErrorCode lib_cause_code; /* OTF2_SUCCESS: none yet */

    uint64_t trace_hash; /* of what was written, for the trace identifier (otf2_traceid.c) */
} otf2_state;

/* otf2_collect.c */
tconv_status otf2_collect_event(otf2_state *st, const tconv_event *ev);
/* Close spans still open at the end of each location (the core should leave none). */
void otf2_collect_close_open(otf2_state *st);
otf2_loc *otf2_collect_loc(otf2_state *st, uint32_t track);
otf2_input *otf2_collect_input(otf2_state *st, uint32_t input);
/* The index of a track's process, (input, pid). */
uint32_t otf2_proc(otf2_state *st, const tconv_track *k);

/* otf2_memory.c: the [memory] markers that a memory metric carries, left out of st->markers. */
void otf2_markers_drop_carried(otf2_state *st);

/* otf2_meta.c: the metadata the writer reads beyond the track table. */
tconv_status otf2_meta_event(otf2_state *st, const tconv_event *ev);

/* otf2_strref.c: OTF2 string refs for tconv strings, defined on first use. */
OTF2_StringRef otf2_strref(otf2_state *st, tconv_str s);
OTF2_StringRef otf2_strref_cstr(otf2_state *st, const char *s);
/* s, or a copy with U+FFFD for each NUL byte it holds (counted): what an OTF2 string can hold. */
tconv_str otf2_str_nul_free(otf2_state *st, tconv_str s);

/* otf2_flows.c: pair flow events into links (st->links), or number their flows (st->chain,
 * st->phase), as the option flows says. */
void otf2_flows_pair(otf2_state *st);
/* The pure numbering step, exposed for unit tests: the first event of each flow's chain. */
void otf2_flows_chain(const otf2_flow *flows, size_t n, uint32_t *chain);
/* The pure pairing step, exposed for unit tests: flows[n] in, links[n] out; returns the number
 * of links and counts the flow events left without a partner in *unmatched. */
uint64_t otf2_flows_link(const otf2_flow *flows, size_t n, otf2_link *links, uint64_t *unmatched);

/* otf2_traceid.c: a trace identifier derived from the archive's content. */
uint64_t otf2_traceid_hash(uint64_t h, const void *p, size_t n);
void otf2_traceid_mix(otf2_state *st, const void *p, size_t n);
/* After the archive is closed: the identifier OTF2 drew is replaced by the hash. */
tconv_status otf2_traceid_fix(otf2_state *st, const char *dir);

/* otf2_layout.c: groups, locations and system tree. */
void otf2_layout_build(otf2_state *st);

/* otf2_archive.c */
tconv_status otf2_archive_write(otf2_state *st);
/* An MPI run: every rank writes its locations' events and local definitions into one archive;
 * rank 0 (g non-NULL: the whole run's definitions) also the markers and global definitions.
 * Collective. */
tconv_status otf2_archive_write_part(otf2_state *st, otf2_state *g, tconv_collective *c);

/* otf2_coll.c: OTF2's collective callbacks on the core's service. */
OTF2_ErrorCode otf2_coll_set(OTF2_Archive *ar, tconv_collective *c);

/* otf2_unify.c: the finish of one of the writers of an MPI run (tconv_ctx_collective). */
tconv_status otf2_unify_finish(otf2_state *st, tconv_collective *c);
/* Collective: every rank's bytes to rank 0, in rank order, with each rank's length in *lens
 * (tconv_collective_gather: both malloc'd on rank 0, NULL elsewhere). */
unsigned char *otf2_gather(tconv_collective *c, const otf2_bytes *b, size_t **lens);
void otf2_state_free(otf2_state *st);
/* The strings the writer compares with, interned in st->ctx. */
void otf2_state_strings(otf2_state *st);
/* The track and input facts the layout reads: the whole run's on rank 0 of an MPI run. */
const tconv_track *otf2_track(const otf2_state *st, uint32_t track);
uint32_t otf2_track_count(const otf2_state *st);

/* otf2_regions.c: paradigm and role of a region from its category. */
void otf2_region_kind(const otf2_state *st, const otf2_region *r, OTF2_Paradigm *paradigm,
                      OTF2_RegionRole *role);
/* Whether a span category runs on a GPU (kernel, memcpy, memset). */
/* Set st->hip when the runtime calls are HIP's. */
void otf2_regions_detect_hip(otf2_state *st);

/* otf2_error.c: route OTF2's error reports into the run's errors and warnings. */
void otf2_error_install(otf2_state *st);
void otf2_error_uninstall(void);
/* Set the run's error for a failed OTF2 call, with OTF2's own message when it gave one. */
tconv_status otf2_error_fail(otf2_state *st, const char *what, OTF2_ErrorCode code);
/* Reports OTF2 made on calls that still succeeded become one counted warning; a failed write
 * among them (EFBIG, ENOSPC) is the run's error (TCONV_FATAL). */
tconv_status otf2_error_flush_warnings(otf2_state *st);

#endif
