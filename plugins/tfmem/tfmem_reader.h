/* The tfmem reader: TensorFlow profiler memory profiles (memory_profile.proto in its proto3 JSON
 * mapping, as the profiler writes <host>.memory_profile.json.gz). The document is loaded whole
 * with jansson, then each allocator becomes a track of counters (the aggregation stats) and
 * instants (the memory activities). */
#ifndef TFMEM_READER_H
#define TFMEM_READER_H

#include <stddef.h>
#include <stdint.h>

#include <jansson.h>

#include "tconv/tconv.h"

enum { TFMEM_ACT_INSTANT = 0, TFMEM_ACT_SPAN, TFMEM_ACT_NONE };

/* MemoryAggregationStats: one counter series per field. */
enum { TFMEM_NSTATS = 5 };
typedef struct tfmem_stat_desc {
    const char *field;  /* member name in the JSON */
    const char *series; /* counter name */
    int is_ratio;       /* a double in [0, 1] rather than an int64 byte count */
} tfmem_stat_desc;
extern const tfmem_stat_desc tfmem_stats[TFMEM_NSTATS];

/* MemoryActivityMetadata: every member but memoryActivity becomes an arg. */
enum { TFMEM_NMETA = 8 };
typedef struct tfmem_meta_desc {
    const char *field;
    int type; /* TCONV_ARG_INT, TCONV_ARG_UINT or TCONV_ARG_STRING */
} tfmem_meta_desc;
extern const tfmem_meta_desc tfmem_meta[TFMEM_NMETA];

/* Strings interned once per input. */
typedef struct tfmem_names {
    tconv_str memory; /* the category of every event */
    tconv_str series[TFMEM_NSTATS];
    tconv_str stat_key[TFMEM_NSTATS];
    tconv_str meta_key[TFMEM_NMETA];
    tconv_str bytes, ratio;
    tconv_str peak, summary_lifetime, summary_capacity, active_allocations;
} tfmem_names;

typedef struct tfmem_reader {
    tconv_ctx *ctx;
    tconv_sink *sink;
    const char *name; /* the input's name, for messages */
    uint32_t index;   /* the input's index in the conversion */
    int strict;
    int activities; /* TFMEM_ACT_* */
    int64_t offset_ns;
    tconv_str host; /* 0 when the input does not name one */
    tconv_str pid;
    tfmem_names n;
} tfmem_reader;

/* A place in the document, for messages: allocator "GPU_0_bfc", list[index], member. */
typedef struct tfmem_where {
    const char *allocator;
    const char *list; /* NULL for the allocator itself */
    size_t index;
    const char *member; /* NULL for the whole element */
} tfmem_where;

/* A malformed record: a counted warning of this kind, or with strict=true an error. The message
 * says what is wrong and, after its last "; ", what the reader does about it, which an error
 * leaves out. Returns TCONV_RECORD (go on) or TCONV_FATAL. */
tconv_status tfmem_bad(tfmem_reader *r, const char *kind, const tfmem_where *w, const char *fmt,
                       ...) TCONV_PRINTF(4, 5);

/* Reads the whole input into memory and parses it; NULL with a positioned error on the ctx.
 * *len is the document's size in bytes. An input that is not a JSON document, or is larger than
 * max bytes, fails as soon as that is known (a device that never ends, a wrong file). */
json_t *tfmem_load(tconv_ctx *ctx, tconv_input *in, uint64_t max, char **text, size_t *len);

/* The snapshots of one allocator, sorted by time: counters and activities. */
tconv_status tfmem_emit_snapshots(tfmem_reader *r, uint32_t track, const char *allocator,
                                  json_t *profile);
/* profileSummary and activeAllocations: one "peak" instant. */
tconv_status tfmem_emit_peak(tfmem_reader *r, uint32_t track, const char *allocator,
                             json_t *profile);

tconv_status tfmem_push(tfmem_reader *r, const tconv_event *ev);

#endif
