/* One JSON record of a rocprofv3 document (a kernel dispatch, an API call, an agent, a kernel
 * symbol), collected token by token. A record kind names the paths its handler reads
 * ("dispatch_info.agent_id.handle"); each scalar at one of them is kept, by the path's index,
 * and the rest is only lexed. Paths are matched by a hash kept per nesting level, so a scalar
 * costs a few compares whatever the record's size; memory holds one record.
 *
 * Values inside an array keep the array's path: every name of "operations" is kept, in order,
 * under that path's index. */
#ifndef ROCPROF_JREC_H
#define ROCPROF_JREC_H

#include <stddef.h>
#include <stdint.h>

#include <tconv/json.h>

enum { RP_JREC_MAX_DEPTH = 8, RP_JREC_MAX_WANT = 24, RP_JREC_MAX_FIELDS = 4096 };

/* The paths one kind of record is read for: a static NULL-terminated list, hashed once into a
 * small table that also holds the paths of the containers leading to them, so a container
 * that holds nothing wanted is skipped whole (an agent's caches, say). */
enum { RP_JWANT_SLOTS = 128, RP_JWANT_PREFIX = 0xFF };
typedef struct rp_jwant {
    const char *const *paths;
    uint64_t slot_hash[RP_JWANT_SLOTS];
    uint8_t slot_idx[RP_JWANT_SLOTS]; /* the path's index, RP_JWANT_PREFIX, or 0xFE: empty */
    size_t n;
} rp_jwant;

void rp_jwant_init(rp_jwant *w, const char *const *paths);

typedef struct rp_jfield {
    uint32_t want;    /* index of the path in the record kind's list */
    uint16_t kind;    /* tconv_json_kind of the value */
    uint16_t is_int;  /* a number of at most 18 digits: its value is num */
    size_t text, len; /* the value: offset into the arena (or ext), length */
    int64_t num;
} rp_jfield;

typedef struct rp_jrec {
    const rp_jwant *want;
    char *arena;
    /* The fast path's record (rocprof_jfast.c): field texts are spans of these input bytes,
     * not copies in the arena. NULL for a record collected from tokens. */
    const char *ext;
    size_t used, cap;
    rp_jfield *f;
    size_t n, fcap;
    int32_t first[RP_JREC_MAX_WANT];       /* the first field of each path, or -1 */
    uint64_t level[RP_JREC_MAX_DEPTH + 1]; /* the path's hash at each open container */
    size_t depth;                          /* containers open inside the record */
    uint64_t key_hash;                     /* the path of the pending key's value */
    int key_pending;
    uint64_t offset; /* input offset of the record's '{' */
} rp_jrec;

/* Start a record of the kind whose paths are want. */
void rp_jrec_reset(rp_jrec *r, uint64_t offset, const rp_jwant *want);
void rp_jrec_free(rp_jrec *r);
/* The record's tokens after its '{' up to (not including) its '}'. -1 when out of memory. */
void rp_jrec_key(rp_jrec *r, const char *k, size_t n);
/* A container opens: 1 when it holds wanted paths, 0 when it may be skipped (then
 * rp_jrec_end still comes at its end). */
int rp_jrec_begin(rp_jrec *r);
void rp_jrec_end(rp_jrec *r);
int rp_jrec_scalar(rp_jrec *r, const tconv_json_token *t);
/* The index of the path of the scalar that comes next (after its key, or as an array's
 * element), or -1 when no path of the record kind is there; the key is used up. */
int rp_jrec_want(rp_jrec *r);
/* A value at path want, its text being ext[text .. text + len) (the fast path's); a number's
 * value num when is_int (at most 18 digits). */
void rp_jrec_put(rp_jrec *r, uint32_t want, uint32_t kind, size_t text, size_t len, int64_t num,
                 int is_int);

/* The first value at the path of index want, or NULL. */
static inline const rp_jfield *rp_jrec_get(const rp_jrec *r, uint32_t want)
{
    return want < RP_JREC_MAX_WANT && r->first[want] >= 0 ? &r->f[r->first[want]] : NULL;
}
/* The text of a value, not terminated: f->len bytes. */
static inline const char *rp_jrec_text(const rp_jrec *r, const rp_jfield *f)
{
    return (r->ext ? r->ext : r->arena) + f->text;
}
int rp_jrec_int_slow(const rp_jrec *r, const rp_jfield *f, int64_t *v);
/* The value as an integer: 1 and *v, or 0 when absent or not an integer. Read many times a
 * record: the common form is parsed once, when the value is filed. */
static inline int rp_jrec_int(const rp_jrec *r, uint32_t want, int64_t *v)
{
    const rp_jfield *f = rp_jrec_get(r, want);
    if (!f || f->kind != TCONV_JSON_NUMBER) return 0;
    if (f->is_int) {
        *v = f->num;
        return 1;
    }
    return rp_jrec_int_slow(r, f, v);
}

#endif
