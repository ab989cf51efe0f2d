/* State shared by the parts of the Chrome Trace Event reader: the JSON walk (chrome_parse.c),
 * the mapping to the event model (chrome_emit.c), stack frames and samples (chrome_frames.c)
 * and JSON error messages (chrome_errors.c). One per input. */
#ifndef CHROME_READER_H
#define CHROME_READER_H

#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <tconv/tconv.h>

#include "chrome_jsonbuf.h"
#include "chrome_record.h"
#include "chrome_strmap.h"

/* What the JSON walk is inside of. */
typedef enum chrome_level {
    CHROME_LV_ROOT,      /* before the document's value */
    CHROME_LV_TOP,       /* the top-level object */
    CHROME_LV_EVENTS,    /* traceEvents, or the bare array */
    CHROME_LV_RECORD,    /* one object collected into rec (see rec_src) */
    CHROME_LV_ARGS,      /* a record's args */
    CHROME_LV_ID2,       /* a record's id2 */
    CHROME_LV_STACK,     /* a record's stack array */
    CHROME_LV_FRAMES,    /* stackFrames */
    CHROME_LV_SAMPLES,   /* samples */
    CHROME_LV_SYS,       /* systemTraceEvents given as an object */
    CHROME_LV_SYSEVENTS, /* its events */
    CHROME_LV_DONE       /* after the document's value */
} chrome_level;

/* Where a record came from, which decides how it is mapped. */
typedef enum chrome_src {
    CHROME_SRC_EVENT,
    CHROME_SRC_SAMPLE,
    CHROME_SRC_FRAME,
    CHROME_SRC_SYSTEM
} chrome_src;

/* Where a captured nested value goes. */
typedef enum chrome_cap { CHROME_CAP_SKIP, CHROME_CAP_ARG, CHROME_CAP_TOP } chrome_cap;

#define CHROME_TRACK_CACHE 8
#define CHROME_TRACK_KEY 62
#define CHROME_FLOW_KEY 64

typedef struct chrome_track_slot {
    uint8_t plen, tlen;
    char key[CHROME_TRACK_KEY]; /* pid text then tid text */
    uint32_t track;
} chrome_track_slot;

/* Interned names, categories and metadata texts by their text: a trace repeats a few hundred
 * of them millions of times, and a hit costs a compare instead of the string table's hash and
 * probe. Texts longer than the key go to the table. */
#define CHROME_INTERN_CACHE 64
#define CHROME_INTERN_KEY 46

typedef struct chrome_intern_slot {
    uint8_t len; /* 0: empty */
    char key[CHROME_INTERN_KEY];
    tconv_str id;
} chrome_intern_slot;

/* An event object as the fast path read it (chrome_fast.c): its texts are spans of the input
 * buffer, its times already in ns. */
typedef struct chrome_flat {
    const char *name, *cat; /* NULL: absent */
    const char *pid, *tid;  /* "": absent */
    uint32_t nlen, clen, plen, tlen;
    int tid_string; /* tid was a JSON string */
    char ph;        /* 'B', 'E' or 'X' */
    int64_t ts, dur;
    /* The element's input offset and length, from just past the ',' before it to its '}'
     * (what a part's reader hands over, chrome_split.c). */
    uint64_t off, len;
} chrome_flat;

/* The layout of the last event object the fast path read member by member (chrome_fast.c):
 * frag[i] are the bytes before value i, from the end of the element before the object
 * (frag[n - 1]: after the last, up to the '}'). */
#define CHROME_SHAPE_MAX 12  /* values */
#define CHROME_SHAPE_FRAG 32 /* bytes of a fragment, at most */
typedef struct chrome_shape {
    uint8_t n; /* fragments: values + 1; 0: none learnt */
    uint8_t field[CHROME_SHAPE_MAX], kind[CHROME_SHAPE_MAX];
    uint8_t flen[CHROME_SHAPE_MAX + 1];
    uint32_t fmask[CHROME_SHAPE_MAX + 1]; /* a bit per byte of the fragment */
    unsigned char frag[CHROME_SHAPE_MAX + 1][CHROME_SHAPE_FRAG];
} chrome_shape;

typedef struct chrome_frame_entry {
    tconv_str name, category;
    int32_t parent; /* index of the parent entry, -1 for a root (after resolution) */
    int has_parent; /* before resolution: the parent's id text is in frame_parents */
    uint32_t poff, plen;
} chrome_frame_entry;

typedef struct chrome_reader {
    tconv_ctx *ctx;
    tconv_input *in;
    tconv_sink *sink;
    const char *input_name;
    int strict;
    int args_wanted; /* tconv_args_wanted: 0 when no one reads the args of the events pushed */
    int failed;      /* a fatal error is on the context */

    /* The JSON lexer (tconv/json.h) and where its last token ended. */
    tconv_json_lexer *lex;
    uint64_t tok_end, last_tok_end;
    /* Where the fast path may go on from (chrome_parse_chunk): just past the '}' of the last
     * event, in the bytes being parsed, as long as no token came after it (sync_off is then
     * last_tok_end). */
    const unsigned char *sync_ptr;
    uint64_t sync_off;
    unsigned fast_tries; /* for the next chunk (chrome_parse_chunk) */
    int fast_off;        /* TCONV_CHROME_FAST=0: the lexer reads everything */
    uint64_t fast_base;  /* the input offset of the first byte of the buffer being read */
    chrome_shape shape;

    /* Structural levels (not every JSON level: captured values have none). */
    uint8_t *lv;
    size_t nlv, lv_cap;
    int form;          /* '[' or '{' once known */
    int events_closed; /* the event array was closed with ']' */

    /* The pending member name at the current level. */
    chrome_field field; /* LV_RECORD: a known field, or UNKNOWN with key_span */
    chrome_span key_span;
    int id2_global; /* LV_ID2: 1 for "global", 0 for "local", -1 other */
    char *topkey;   /* LV_TOP and LV_FRAMES: the key, copied */
    size_t topkey_len, topkey_cap;
    int top_state; /* LV_SYS: 1 when the key is "events" */

    chrome_record rec;
    chrome_src rec_src;
    int bad_utf8;

    /* Capture of a nested value as compact JSON text, or skipping it. */
    size_t cap_depth; /* 0 when not capturing */
    chrome_cap cap_target;
    chrome_jsonbuf json;
    char *scratch;
    size_t scratch_cap;

    /* Mapping state. */
    chrome_track_slot tcache[CHROME_TRACK_CACHE];
    unsigned tcache_next;
    chrome_intern_slot icache[CHROME_INTERN_CACHE];
    /* The hash of a flow's (category, name) prefix, for the last pair: a Kineto trace's flows
     * are nearly all ("ac2g", "ac2g"). */
    char flow_key[CHROME_FLOW_KEY];   /* category text then name text */
    size_t flow_catlen, flow_namelen; /* flow_catlen SIZE_MAX: none yet */
    uint64_t flow_hash;
    uint8_t *track_flags;
    size_t ntrack_flags;
    tconv_arg *targs;
    size_t targs_cap;
    tconv_frame *tframes;
    size_t tframes_cap;
    char *tmp; /* text assembled for synthetic track names and ids */
    size_t tmp_cap;
    uint64_t nrecords;
    uint64_t nemitted;
    /* The host of a TensorFlow profiler trace (from its file name), 0 for other traces: each
     * process track carries it, so that writers group the trace with the host's memory
     * profile. */
    tconv_str host;

    /* PyTorch [memory] instants: the 2021 Kineto traces give only each allocation's Bytes, so
     * the allocated level is summed per (pid, device) key here. */
    chrome_strmap mem_keys; /* "pid\0device" -> index into mem_sums */
    double *mem_sums;
    size_t nmem_sums, mem_sums_cap;
    tconv_str mem_allocated, mem_reserved, mem_bytes, mem_cat; /* 0 until the first one */

    /* stackFrames and the samples waiting for them. */
    chrome_strmap frame_ids;
    chrome_frame_entry *frames;
    size_t nframes, frames_cap;
    char *frame_parents; /* parent id texts until resolution */
    size_t frame_parents_len, frame_parents_cap;
    int frames_seen; /* the stackFrames member has been read */
    int frames_resolved;
    chrome_record *deferred;
    chrome_src *deferred_src;
    size_t ndeferred, deferred_cap, deferred_src_cap;
    int sampletypes_set;
    int at_end; /* the whole input was read: nothing more can come */

    /* Reading the event array in parts (tconv/split.h, chrome_split.c). */
    int split_ok;      /* stop at the event array's '[' and hand it to the core */
    int split_hit;     /* ... which the walk just did: the lexer stopped there */
    int split_never;   /* the lexer is finishing at the input's end: read the array in line */
    uint64_t split_at; /* the input offset past that '[' */
    int part;          /* a part's reader: elements that need the reader's state are deferred */
    int handed;        /* the record being mapped was handed to the calling thread */
} chrome_reader;

/* Are a[0 .. n) and b[0 .. n) the same bytes? The texts the mapping's caches compare are short
 * (names, pids, tids): a word or two compared in place costs less than a call to memcmp. */
static inline int chrome_text_eq(const char *a, const char *b, size_t n)
{
    if (n >= 8) {
        if (n > 16) return memcmp(a, b, n) == 0;
        uint64_t x, y, u, v;
        memcpy(&x, a, 8);
        memcpy(&y, b, 8);
        memcpy(&u, a + n - 8, 8);
        memcpy(&v, b + n - 8, 8);
        return x == y && u == v;
    }
    if (n >= 4) {
        uint32_t x, y, u, v;
        memcpy(&x, a, 4);
        memcpy(&y, b, 4);
        memcpy(&u, a + n - 4, 4);
        memcpy(&v, b + n - 4, 4);
        return x == y && u == v;
    }
    return n == 0 || (a[0] == b[0] && a[n - 1] == b[n - 1] && a[n / 2] == b[n / 2]);
}

/* chrome_parse.c: the tokens' meaning, from the core's JSON lexer. */
int chrome_parse_init(chrome_reader *r);
void chrome_parse_free(chrome_reader *r);
/* Parse the next len bytes of the input. */
tconv_status chrome_parse_chunk(chrome_reader *r, const unsigned char *buf, size_t len);
/* End of input. Accepts a document truncated between two events. */
tconv_status chrome_parse_end(chrome_reader *r);
/* A new lexer whose next byte is the input's byte at offset, inside the event array: right after
 * its '[' (expect_value), or right after an element (the next byte is then the ',' before the
 * next one). -1 when out of memory. */
int chrome_parse_prime(chrome_reader *r, uint64_t offset, int expect_value);

/* chrome_split.c: the event array, from r->split_at on, read in parts (tconv/split.h); have:
 * the bytes past the '[' already read. The walk goes on where the core says. */
tconv_status chrome_split_read(chrome_reader *r, const unsigned char *have, size_t nhave);
/* A part reader hands the element being mapped to the calling thread; returns 1. */
int chrome_hand_over(chrome_reader *r, const chrome_record *rec);

/* chrome_fast.c: the event objects from buf + pos on that the fast path reads and maps; returns
 * the position just past the last one it took (pos when none). */
size_t chrome_fast_run(chrome_reader *r, const unsigned char *buf, size_t pos, size_t len);
/* chrome_fast.c: how many of the event objects that begin buf (just past the array's '[') the
 * fast path would take in a row, counting up to most; nothing is mapped. */
size_t chrome_fast_count(const unsigned char *buf, size_t len, size_t most);

/* chrome_errors.c: the message for what the JSON lexer found wrong, in the trace's words. */
void chrome_error_json(chrome_reader *r, const tconv_json_error *e);

/* chrome_emit.c */
tconv_status chrome_emit_record(chrome_reader *r, const chrome_record *rec, chrome_src src);
/* An event the fast path read: what chrome_emit_record makes of the same object. */
tconv_status chrome_emit_flat(chrome_reader *r, const chrome_flat *f);
tconv_status chrome_emit_top(chrome_reader *r, const char *key, size_t klen, const char *text,
                             size_t tlen);
/* A malformed record: warning, or error under strict. */
tconv_status chrome_emit_bad(chrome_reader *r, const chrome_record *rec, const char *fmt, ...)
    TCONV_PRINTF(3, 4);
tconv_status chrome_emit_finish(chrome_reader *r);
void chrome_emit_free(chrome_reader *r);

/* chrome_frames.c */
int chrome_frames_add(chrome_reader *r, const char *id, size_t idlen, const chrome_record *rec);
void chrome_frames_done(chrome_reader *r);
/* Root-first frames of stack frame id sf into r->tframes; -1 when the id is unknown. */
int chrome_frames_stack(chrome_reader *r, const char *sf, size_t len, size_t *n);
/* Keep a record whose frames are not known yet; flushed by chrome_frames_flush. */
int chrome_frames_defer(chrome_reader *r, const chrome_record *rec, chrome_src src);
tconv_status chrome_frames_flush(chrome_reader *r);
void chrome_frames_free(chrome_reader *r);

/* Grow *p (of *cap elements of size elem) to hold need; -1 when out of memory. */
int chrome_reserve(void **p, size_t *cap, size_t need, size_t elem);

#endif
