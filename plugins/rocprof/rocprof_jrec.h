/* One JSON record of a rocprofv3 document (a kernel dispatch, an API call, an agent, a kernel
 * symbol), collected token by token: each scalar is kept with its path inside the record
 * ("dispatch_info.agent_id.handle"), and the record's handler looks up the fields it reads
 * when the record ends. Memory holds one record. */
#ifndef ROCPROF_JREC_H
#define ROCPROF_JREC_H

#include <stddef.h>
#include <stdint.h>

#include <tconv/json.h>

enum { RP_JREC_MAX_DEPTH = 8, RP_JREC_MAX_FIELDS = 96 };

typedef struct rp_jfield {
    size_t path, path_len; /* offsets into the arena */
    size_t text, len;
    int kind; /* tconv_json_kind of the value */
} rp_jfield;

typedef struct rp_jrec {
    char *arena;
    size_t used, cap;
    rp_jfield f[RP_JREC_MAX_FIELDS];
    size_t n;
    /* the keys leading to the current value, as offsets into path[] */
    char path[256];
    size_t plen, mark[RP_JREC_MAX_DEPTH + 1];
    size_t depth;    /* containers open inside the record */
    int key_pending; /* a key was read and its value not yet */
    size_t key_mark; /* path length before that key */
    uint64_t offset; /* input offset of the record's '{' */
    int overflow;    /* deeper or wider than kept: the excess is dropped */
} rp_jrec;

void rp_jrec_reset(rp_jrec *r, uint64_t offset);
void rp_jrec_free(rp_jrec *r);
/* The record's tokens after its '{' up to (not including) its '}'. -1 when out of memory. */
int rp_jrec_key(rp_jrec *r, const char *k, size_t n);
int rp_jrec_begin(rp_jrec *r);
void rp_jrec_end(rp_jrec *r);
int rp_jrec_scalar(rp_jrec *r, const tconv_json_token *t);

/* The field at path, or NULL. */
const rp_jfield *rp_jrec_get(const rp_jrec *r, const char *path);
static inline const char *rp_jrec_text(const rp_jrec *r, const rp_jfield *f)
{
    return r->arena + f->text;
}
/* The field as an integer: 1 and *v, or 0 when absent or not an integer. */
int rp_jrec_int(const rp_jrec *r, const char *path, int64_t *v);

#endif
