/* The otf2 reader's state: the archive's global definitions, translated into tconv's strings as
 * they are read, and what one location needs while its events are read. Definitions are kept in
 * arrays indexed by their OTF2 reference (references are dense from 0 in every archive OTF2
 * writes); events are read one location at a time, so what grows with the archive is only the
 * definitions, never the events. */
#ifndef TCONV_OTF2_READER_H
#define TCONV_OTF2_READER_H

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#include <otf2/otf2.h>
#include <tconv/tconv.h>

_Noreturn static inline void otf2r_oom(void)
{
    fputs("tconv: error: out of memory in the OTF2 reader\n", stderr);
    exit(1);
}

/* A reference past this is taken for a damaged archive rather than allocated for; so is one
 * past OTF2R_REF_SLACK + 4 times the definitions read so far (tables indexed by reference
 * then grow with the definitions, not with what one of them claims). */
#define OTF2R_MAX_REF (1u << 24)
#define OTF2R_REF_SLACK (1u << 16)
/* The anchor file holds a few hundred bytes; libotf2 sizes allocations by its counts and
 * compares its properties pairwise, so a larger one is refused before libotf2 reads it. */
#define OTF2R_MAX_ANCHOR (64u * 1024)
/* Locations read through one OTF2_Reader (otf2_reader.c). */
#define OTF2R_LOCS_PER_READER 1024

typedef struct otf2r_region {
    tconv_str name, cat;
    uint16_t role; /* tconv_role, 0: the core decides from cat */
    uint8_t defined;
} otf2r_region;

typedef struct otf2r_node {
    tconv_str name, cls;
    uint32_t parent;
    uint8_t defined;
} otf2r_node;

typedef struct otf2r_lgroup {
    tconv_str name, pid;
    uint32_t node;
    uint8_t defined, named; /* named: its process_name was pushed */
} otf2r_lgroup;

typedef struct otf2r_loc {
    uint64_t id;
    tconv_str name;
    uint32_t group;
    uint8_t type; /* OTF2_LocationType */
    uint64_t nevents;
    tconv_str tid; /* the "tid" property (otf2_rprops.c), 0: none */
} otf2r_loc;

typedef struct otf2r_member {
    tconv_str name, key, unit;
    double scale; /* base^exponent */
    uint8_t defined;
} otf2r_member;

/* A metric class (its members) or an instance (its class's members, through cls). */
typedef struct otf2r_metric {
    uint32_t *members;
    uint32_t n;
    uint32_t cls; /* an instance's class, UINT32_MAX for a class */
    uint8_t defined;
} otf2r_metric;

typedef struct otf2r_attr {
    tconv_str key;
    uint8_t defined;
} otf2r_attr;

typedef struct otf2r_ogroup {
    uint64_t *members;
    uint64_t *locs; /* a COMM_GROUP's ranks resolved to locations, once for all its comms */
    uint32_t n;
    uint8_t type, paradigm, defined;
} otf2r_ogroup;

/* A communicator shares its group's resolved ranks: many communicators of one large group
 * cost the group once. */
typedef struct otf2r_comm {
    tconv_str name;
    uint32_t group;
    uint32_t size;        /* ranks, once resolved */
    const uint64_t *locs; /* the location of each rank (the group's), NULL: unresolved */
    uint8_t defined;
} otf2r_comm;

/* Messages counted per (communicator, peer, tag) on the location being read: the k-th send
 * from A to B with a tag pairs with the k-th receive at B from A with that tag (MPI's
 * non-overtaking rule), so both ends compute the same flow id without meeting. */
typedef struct otf2r_msgslot {
    uint64_t peer;
    uint32_t comm, tag;
    uint64_t count;
    uint8_t used;
} otf2r_msgslot;

typedef struct otf2r_open {
    uint32_t region;
    int64_t ts;
} otf2r_open;

typedef struct otf2r {
    tconv_ctx *ctx;
    tconv_sink *sink;
    tconv_input *in;       /* the anchor file's: what the library reads is counted there */
    OTF2_Reader *reader;   /* the global definitions and markers */
    OTF2_Reader *evreader; /* the locations' files, reopened every OTF2R_LOCS_PER_READER */
    const char *anchor;    /* the anchor file's path, for messages */
    char *dir;             /* the archive's directory and the anchor's base name ("traces") */
    char *base;
    int args;      /* push attributes as args */
    int lib_error; /* OTF2 reported an error: its text is in lib_msg, its code in lib_code */
    OTF2_ErrorCode lib_code;
    char lib_msg[512];
    tconv_status status; /* TCONV_FATAL once a callback failed: reading stops */

    /* global definitions */
    tconv_str *strings;
    size_t nstrings;
    otf2r_region *regions;
    size_t nregions;
    otf2r_node *nodes;
    size_t nnodes;
    otf2r_lgroup *lgroups;
    size_t nlgroups;
    otf2r_loc *locs;
    size_t nlocs, locs_cap;
    tconv_map loc_ids; /* location id -> index in locs: each location is read once */
    uint64_t ndefs;    /* global definitions read so far */
    otf2r_member *members;
    size_t nmembers;
    otf2r_metric *metrics;
    size_t nmetrics;
    otf2r_attr *attrs;
    size_t nattrs;
    otf2r_ogroup *ogroups;
    size_t nogroups;
    otf2r_comm *comms;
    size_t ncomms;
    uint8_t *params; /* by parameter: the flow event kind it stands for, 0: none */
    size_t nparams;
    uint64_t ticks_per_s;
    int have_clock;
    tconv_str s_empty, s_message, s_process_name, s_thread_name, s_host;

    /* the location being read */
    const otf2r_loc *loc;
    uint32_t track;
    uint64_t nread; /* events read so far */
    int64_t last_ns;
    otf2r_open *stack;
    size_t depth, stack_cap, max_depth;
    uint32_t *nopen; /* per region: how often it is on the stack (a Leave of none is O(1)) */
    otf2r_msgslot *msgs;
    size_t nmsgs, msgs_cap;
    tconv_arg *argv;
    size_t argv_cap;
} otf2r;

/* otf2_rdefs.c */
void otf2r_defs_register(OTF2_GlobalDefReaderCallbacks *cb);
void otf2r_defs_resolve_comms(otf2r *r);
void otf2r_defs_free(otf2r *r);
/* The interned text of an OTF2 string reference; "" for an undefined one. */
tconv_str otf2r_string(const otf2r *r, OTF2_StringRef ref);
/* The time in ns of OTF2 ticks; -1 (error on the ctx) when it does not fit. */
int otf2r_time(otf2r *r, OTF2_TimeStamp t, int64_t *ns);

/* otf2_rprops.c: the pid and tid properties of tconv's archives, and flows written as Parameter
 * records */
void otf2r_props_register(OTF2_GlobalDefReaderCallbacks *cb);
void otf2r_props_register_events(OTF2_EvtReaderCallbacks *cb);
/* The tid of a location's track: its "tid" property, else its reference. */
tconv_str otf2r_loc_tid(otf2r *r, const otf2r_loc *loc);

/* otf2_revents.c: the attribute list as args (only when someone reads them), in r->argv. */
void otf2r_args(otf2r *r, OTF2_AttributeList *al, tconv_event *ev);

/* otf2_rfiles.c: the anchor's claims, checked before libotf2 reads it (TCONV_FATAL with the
 * error on the ctx); whether the member file at path is there to read: 1, 0 when it is missing
 * or unreadable (errno says), -1 with the error on the ctx when it is no regular file. */
tconv_status otf2r_anchor_check(otf2r *r);
int otf2r_file_there(otf2r *r, const char *path, const char *what);

/* otf2_rmarkers.c: the archive's markers as instants (spans when they last) */
tconv_status otf2r_markers_read(otf2r *r);

/* otf2_revents.c */
void otf2r_events_register(OTF2_EvtReaderCallbacks *cb);
tconv_status otf2r_events_begin(otf2r *r, const otf2r_loc *loc);
tconv_status otf2r_events_end(otf2r *r);
void otf2r_events_free(otf2r *r);

extern const tconv_reader_class otf2_reader_class;

/* otf2_error.c: the process-wide OTF2 error callback, shared with the writer */
void otf2_error_reader_install(otf2r *r);
void otf2_error_reader_hint(otf2r *r, OTF2_ErrorCode code);
void otf2_error_reader_uninstall(void);

#endif
