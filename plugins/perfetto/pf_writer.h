/* The perfetto writer's state, shared by the files that fill it: pf_writer.c (packets, events),
 * pf_wtrack.c (track descriptors), pf_wargs.c (args as debug annotations), pf_wsample.c (stack
 * samples as interned callstacks).
 *
 * The output is one trusted packet sequence. Every string the trace repeats (event names,
 * categories, annotation names, string values from their second use on, frames) is interned on
 * it, so the tables grow with the distinct strings of the input, not with its events; packets
 * are written to the output as they are made. */
#ifndef PF_WRITER_H
#define PF_WRITER_H

#include <stdint.h>

#include <tconv/map.h>
#include <tconv/stacktab.h>
#include <tconv/tconv.h>

#include "pf_wire.h"

/* Interning state of one string id of the run. */
typedef struct pf_wstr {
    uint32_t name;  /* iid in event_names, 0: not yet */
    uint32_t cat;   /* event_categories */
    uint32_t annot; /* debug_annotation_names */
    uint32_t sval;  /* debug_annotation_string_values; PF_SEEN_ONCE: written inline once */
} pf_wstr;

#define PF_SEEN_ONCE UINT32_MAX

/* A tconv track as written. */
typedef struct pf_wtrack {
    uint64_t uuid; /* 0: no descriptor yet */
} pf_wtrack;

/* A process (input, pid text) as written: its track's uuid. */
typedef struct pf_wproc {
    uint64_t uuid;
} pf_wproc;

/* One counter series (track, name, key, unit, id): a counter track. */
typedef struct pf_wseries {
    uint32_t track;
    tconv_str name, key, unit, cat;
    uint64_t id;
    uint64_t uuid;
    uint32_t next; /* next series with the same (name, key, track); UINT32_MAX: none */
} pf_wseries;

/* A metadata event held until the tracks are final (see pf_writer.c): what the writer uses of
 * it. Kineto traces of MTIA runs repeat their process and thread metadata 300 000 times. */
typedef struct pf_wmeta {
    int64_t ts;
    uint32_t track;
    tconv_str name, cat, key, text;
    uint32_t nargs;
    size_t arg0; /* first of its args in metas_args */
} pf_wmeta;

/* A distinct frame of the stack samples. */
typedef struct pf_wframe {
    tconv_frame f;
    uint32_t next; /* next frame in the same map slot; UINT32_MAX: none */
} pf_wframe;

typedef struct pf_writer {
    tconv_ctx *ctx;
    tconv_output *out;
    tconv_gzout *gz;

    pf_buf out_buf; /* whole packets not yet handed to the output */
    pf_buf ev;      /* the TracePacket's payload being built (one event) */
    pf_buf intern;  /* InternedData entries the current packet introduces */
    pf_buf scratch; /* JSON args being encoded */
    pf_buf jcache;  /* encoded JSON values, by string id (json_map) */
    tconv_map json_map;
    int started;   /* the tracks are final: descriptors and metadata are written */
    int seq_clock; /* times are on the sequence's clock, t0 its zero (pf_writer.c) */
    int want_seq_clock;
    int64_t t0;
    int first_written; /* the sequence's first packet (SEQ_INCREMENTAL_STATE_CLEARED) is out */
    uint64_t packets, bytes;

    pf_wstr *strs;
    size_t nstrs;
    tconv_str *sval_rev; /* by string value iid: the string */
    size_t sval_rev_cap;
    uint32_t next_name, next_cat, next_annot, next_sval;
    /* tconv's own names (pf_fields.h): records of identities and the repaired spans' length */
    tconv_str s_measured, s_text, s_key, s_track, s_counter, s_pid, s_tid, s_kind, s_name, s_id,
        s_ithread, s_isort;

    pf_wtrack *tracks;
    size_t ntracks, tracks_cap;
    tconv_map by_key;   /* (pid << 32 | tid, input) -> track id, for lanes and processes */
    tconv_map procs;    /* (pid str, input) -> index in procv */
    tconv_map pid_user; /* (numeric pid, 0) -> input + 1 that writes it as a process */
    pf_wproc *procv;
    size_t nprocs, procs_cap;
    uint64_t next_uuid;

    tconv_map series_map; /* (name << 32 | key, track) -> first series */
    pf_wseries *series;
    size_t nseries, series_cap;

    pf_wmeta *metas;
    size_t nmetas, metas_cap;
    tconv_arg *metas_args;
    size_t nmetas_args, metas_args_cap;

    /* samples */
    tconv_stacktab *stacks;
    uint8_t *stack_written; /* by stacktab node */
    size_t stack_written_cap;
    tconv_map frame_map; /* (name << 32 | module, hash of the rest) -> frame */
    pf_wframe *frames;
    size_t nframes, frames_cap;
    tconv_map mapping_map; /* (module, 0) -> mapping iid */
    uint32_t next_fn, next_mapping, next_frame_iid, next_path;
    tconv_map fn_map; /* (name, 0) -> function_names iid */
    uint64_t samples_no_pid;
} pf_writer;

/* pf_writer.c */
uint32_t pf_w_event_name(pf_writer *w, tconv_str s);
uint32_t pf_w_category(pf_writer *w, tconv_str s);
uint32_t pf_w_annot_name(pf_writer *w, tconv_str s);
pf_wstr *pf_w_str(pf_writer *w, tconv_str s);
/* Writes the packet made of w->ev (as field payload_field), w->intern and the header. */
tconv_status pf_w_packet(pf_writer *w, int has_ts, int64_t ts, uint32_t payload_field);
tconv_status pf_w_oom(pf_writer *w);

/* pf_wtrack.c */
/* The uuid of a track's descriptor, written (with its parents) when first asked. 0 on error. */
uint64_t pf_w_track(pf_writer *w, uint32_t track);
/* A track no event refers to: its descriptor and, always, its identity record. */
tconv_status pf_w_track_idle(pf_writer *w, uint32_t track);
/* The counter track of this event's series (its uuid in ->uuid). NULL on error. */
pf_wseries *pf_w_series(pf_writer *w, const tconv_event *ev);
/* A metadata event (legacy 'M') on a written track. */
tconv_status pf_w_metadata(pf_writer *w, const tconv_event *ev);

/* pf_wargs.c */
/* Each arg as a debug_annotations field of w->ev. */
void pf_w_args(pf_writer *w, const tconv_arg *args, uint32_t n);
/* One annotation with a string (interned name) or an integer value. */
void pf_w_annot_str(pf_writer *w, uint32_t name_iid, tconv_str value);
void pf_w_annot_int(pf_writer *w, uint32_t name_iid, int64_t value);

/* pf_wsample.c */
tconv_status pf_w_sample(pf_writer *w, const tconv_event *ev);

#endif
