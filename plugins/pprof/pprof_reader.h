/* The pprof reader: a profile.proto message (gzip or not; the core inflates it) as stack
 * samples with every sample type, frames from locations, tracks from thread labels. The
 * reader's state is shared by the files that resolve locations (pprof_rlocs.c), labels
 * (pprof_rlabels.c) and push the samples (pprof_reader.c). */
#ifndef PPROF_READER_H
#define PPROF_READER_H

#include <stddef.h>
#include <stdint.h>

#include <tconv/tconv.h>
#include <tconv/map.h>

#include "profile.pb-c.h"

extern const tconv_reader_class pprof_reader_class;

int pprof_probe(const unsigned char *buf, size_t len);
/* What kind of legacy profile buf starts, in words for a message; NULL if none. */
const char *pprof_legacy_kind(const unsigned char *buf, size_t len);

typedef struct pprof_rloc {
    uint32_t first, n; /* frames in pprof_reader.lframes, root (the caller) first */
    int built;
} pprof_rloc;

typedef struct pprof_reader {
    tconv_ctx *ctx;
    tconv_input *in;
    tconv_sink *sink;
    const char *name; /* the input's, for messages */
    const uint8_t *data;
    size_t len;
    Perftools__Profiles__Profile *p;
    tconv_str *strs; /* the string table, interned */

    /* ids to indices */
    tconv_map loc_ix, fn_ix, map_ix;
    pprof_rloc *locs;
    tconv_frame *lframes;
    size_t nlframes, lframes_cap;

    /* one sample's frames and args */
    tconv_frame *frames;
    size_t frames_cap;
    tconv_arg *args;
    size_t args_cap;
    int want_args;

    /* the track of the last sample and the labels it came from */
    uint32_t track;
    int have_track;
    tconv_str last_pid, last_tid, last_thread, last_process;
    tconv_str s_empty, s_thread_name, s_process_name;
} pprof_reader;

/* The input offset of the index-th occurrence of top-level field `number`, for messages that
 * name an element of the profile; 0 when not found. */
uint64_t pprof_reader_offset(const pprof_reader *r, uint32_t number, size_t index);

/* pprof_rlocs.c: index the mappings, functions and locations by id (-1: the error is set). */
int pprof_rlocs_index(pprof_reader *r);
/* The frames of the location with this id, root first; NULL with the error set when the
 * profile is inconsistent (sample is the sample's index, for the message). */
const tconv_frame *pprof_rlocs_frames(pprof_reader *r, uint64_t id, size_t sample, uint32_t *n);
void pprof_rlocs_free(pprof_reader *r);

/* pprof_rlabels.c: the sample's track from its thread and process labels (metadata pushed for
 * a track's names), and its other labels as r->args. TCONV_FATAL with the error set. */
tconv_status pprof_rlabels_sample(pprof_reader *r, const Perftools__Profiles__Sample *s,
                                  size_t index, uint32_t *track, uint32_t *nargs);

/* A string-table entry, interned; -1 with the error set when idx is out of range. */
int pprof_reader_str(pprof_reader *r, int64_t idx, const char *what, uint32_t field, size_t index,
                     tconv_str *out);

#endif
