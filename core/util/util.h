/* The util layer (core/util/): what every other layer of the core builds on: memory and arrays,
 * sorting, the JSON lexer's scan paths and structural index, "did you mean", the wire codec's
 * type (wire.h). This layer includes only the public headers. Private to the core: never
 * installed; a layer above includes it through its own header. */
#ifndef TCONV_CORE_UTIL_H
#define TCONV_CORE_UTIL_H

#include <stdio.h>
#include <stdlib.h>

#include <stdatomic.h>

#include "tconv/host.h"
#include "tconv/tconv.h"

/* What libtconv exports: the public API, declared in include/tconv. */
#define TCONV_API __attribute__((visibility("default")))

/* ---- allocation: out of memory is not a recoverable condition for a converter ---- */
void *tconv_xmalloc(size_t n);
void *tconv_xcalloc(size_t n, size_t size);
void *tconv_xrealloc(void *p, size_t n);
char *tconv_xstrdup(const char *s);
/* A size no allocation can hold (a table out of ids counts as one): ends like a failed one. */
_Noreturn void tconv_oom_fatal(size_t n);
/* Grow *p (of *cap elements of size) to hold at least need elements. */
void tconv_grow(void **p, size_t *cap, size_t need, size_t size);
/* Arrays of tens of MB, appended to (core/bigarray.c): *p holds *cap elements of size bytes, of
 * which used are kept when it grows to hold need; freed only with tconv_big_free. */
void tconv_big_grow(void **p, size_t *cap, size_t used, size_t need, size_t size);
void tconv_big_free(void *p, size_t cap, size_t size);
/* The check in line: the stages grow their arrays per event, and the call cost more than it. */
#define TCONV_GROW(arr, cap, need)                                                                 \
    do {                                                                                           \
        if ((need) > (cap)) tconv_grow((void **)&(arr), &(cap), (need), sizeof(*(arr)));           \
    } while (0)

/* The core's hash tables (strings, tracks, stack nodes, GPU keys, record names) are open
 * addressing over a power-of-two array of uint32_t, each entry an index + 1 (0: empty), probed one
 * slot at a time. Stores v in the first empty slot from hash. */
static inline void tconv_slots_put(uint32_t *slots, size_t nslots, size_t hash, uint32_t v)
{
    size_t mask = nslots - 1;
    size_t i = hash & mask;
    while (slots[i])
        i = (i + 1) & mask;
    slots[i] = v;
}

/* ---- JSON lexer ---- */
/* The scans of the lexers made from now on (for tests that compare the paths): one of these, or
 * -1 for the default (SSE2 where built). Process-wide. Returns -1 when this build or CPU lacks
 * the path. */
enum { TCONV_JSON_SCAN_PORTABLE, TCONV_JSON_SCAN_SSE2, TCONV_JSON_SCAN_AVX2 };
int tconv_json_scan_use(int path);
/* The path a lexer made now would take. */
int tconv_json_scan_current(void);

/* ---- the structural index: split points of one large JSON input (core/json_index.c) ---- */
typedef struct tconv_json_index {
    uint64_t in_string; /* all ones: the bytes indexed so far end inside a string */
    uint64_t escaped;   /* 1: ... and their last byte is a backslash that escapes the next */
    int64_t depth;      /* containers open */
    uint64_t offset;    /* bytes indexed so far */
    int path;           /* TCONV_JSON_SCAN_* */
    /* Set by the caller: stop at the ']' or '}' that closes the container whose elements are
     * counted (core/parallel/split.c reads one array in parts, and what follows it is not
     * elements). */
    int stop_at_close;
    uint64_t closed; /* the input offset of that byte once met; UINT64_MAX before */
} tconv_json_index;
void tconv_json_index_init(tconv_json_index *ix);
/* Index buf[0 .. len), the next bytes of the input: the input offsets of the ',' outside
 * strings at nesting depth depth (those between the elements of a container opened at depth
 * - 1: depth 1 for a bare event array, 2 for "traceEvents" in the trace object) go to out, which
 * has room for len of them; returns how many. Exact on valid JSON; no grammar check. With
 * stop_at_close, nothing after the close of that container is indexed (closed says where). */
size_t tconv_json_index_commas(tconv_json_index *ix, const unsigned char *buf, size_t len,
                               int64_t depth, uint64_t *out);
/* The same, but only the first such ',' at input offset from or later: 1 with its offset in
 * *at, buf indexed up to it (ix->offset is *at + 1); 0 when buf holds none (all indexed, or up to
 * the close with stop_at_close). The bytes before from cost no work per structural character. */
int tconv_json_index_find(tconv_json_index *ix, const unsigned char *buf, size_t len, int64_t depth,
                          uint64_t from, uint64_t *at);

/* ---- bytes one process sends another (core/wire.h) ---- */
typedef struct tconv_wire tconv_wire;

/* ---- arena: many small copies freed together ---- */
typedef struct tconv_arena {
    struct tconv_arena_chunk *head;
    size_t total;
} tconv_arena;
void *tconv_arena_alloc(tconv_arena *a, size_t n);
void *tconv_arena_dup(tconv_arena *a, const void *p, size_t n);
void tconv_arena_free(tconv_arena *a);

/* The name of names closest to a mistyped word, if one is close enough to offer (core/spell.c). */
const char *tconv_spell_closest(const char *word, const char *const *names, size_t n);

/* Sort idx[n] in place by cmp(ctx, a, b), which must never call two indices equal. */
typedef int (*tconv_idx_cmp)(const void *ctx, uint32_t a, uint32_t b);
void tconv_idx_sort(uint32_t *idx, size_t n, tconv_idx_cmp cmp, const void *ctx);

/* The UTF-8 bytes of code point cp into out (room for 4); U+FFFD for a surrogate or a value
 * past U+10FFFF (core/util/utf8.c). */
size_t tconv_utf8_encode(uint32_t cp, unsigned char *out);

#endif
