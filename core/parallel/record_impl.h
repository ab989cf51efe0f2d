/* The parts of a recording (core/parallel/record.c), shared with its wire form
 * (core/parallel/record_wire.c), which sends recordings between the processes of an MPI run. */
#ifndef TCONV_RECORD_IMPL_H
#define TCONV_RECORD_IMPL_H

#include "parallel.h"

enum {
    REC_SYNC = 1, /* the worker's tables had a strings and b tracks */
    REC_KIND,     /* tconv_track_set_kind(a, b) */
    REC_STYPES,   /* tconv_sampletypes_set: p is a tconv_stypes_saved */
    REC_LAUNCH,   /* tconv_launchstacks_declare(b) */
    REC_WARNING,  /* tconv_warning_add of the worker's warning kind a */
    REC_NOTICE,   /* a notice of level a, text p */
    REC_LANE,     /* tconv_track_lane(a, b) */
    REC_DEFER /* a part of an input (core/parallel/split.c): the main thread reads the element at
               * input offset b, of length (uintptr_t)p, in its place. Never sent between
               * processes: parts are read by threads of one. */
};

/* An event as recorded: a tconv_event without the fields the replay sets (input, seq) and with
 * its args, frames and values in one copy: 96 bytes instead of 136. */
typedef struct rec_ev {
    int64_t ts, dur;
    uint64_t id, corr;
    double value;
    void *payload; /* nargs args, nframes frames, nvalues values, in the recording's arena */
    uint32_t track, name, cat, key, unit, text;
    uint32_t nargs, nframes, nvalues;
    uint16_t kind, flags, role;
} rec_ev;

typedef struct rec_op {
    uint32_t type, a;
    uint64_t at; /* events recorded before it */
    int64_t b;
    void *p;
} rec_op;

struct tconv_rec {
    tconv_ctx *w; /* the worker's context */
    rec_ev *ev;
    size_t nev, capev;
    tconv_arena data; /* args, frames and values of the events */
    rec_op *ops;
    size_t nops, capops;
    uint32_t nstr, ntrack; /* the worker's tables at the last REC_SYNC */
    tconv_status status;
    /* the byte budget of -j (tconv_rec_budget): NULL jobs, none */
    tconv_jobs *jobs;
    size_t job;
    size_t touched;     /* events' worth of ev written before, by the recordings that had it */
    uint64_t held;      /* bytes reported to jobs */
    uint64_t pooled;    /* of held, what the array counted while it waited (to tell jobs) */
    uint64_t next_hold; /* report again when events and copies reach this many bytes */
    uint64_t step;
    int given_up;
    int mute;            /* tconv_rec_mute: warnings and sample types not recorded */
    tconv_partial *part; /* a partial result (pipeline.h), or NULL */
    /* REC_DEFER's element, read on the main thread when the replay reaches it */
    tconv_status (*defer)(void *user, uint64_t offset, uint64_t len);
    void *defer_user;
    /* replay: worker id -> run id, and how much of each is filled */
    tconv_str *smap;
    uint32_t *tmap;
    size_t nsmap, ntmap;
};

/* Room for need events in rec->ev, which only this grows (core/parallel/record.c says why). */
void tconv_rec_ev_reserve(tconv_rec *rec, size_t need);

#endif
