/* One trace event as read from the JSON text, before it is mapped to the event model. Values are
 * kept as their text in a per-event arena, so numbers keep every digit. */
#ifndef CHROME_RECORD_H
#define CHROME_RECORD_H

#include <stddef.h>
#include <stdint.h>

typedef struct chrome_span {
    uint32_t off, len; /* into the record's arena; the text is followed by a NUL */
} chrome_span;
_Static_assert(sizeof(chrome_span) == 8, "a span is stored as one 8-byte word");

typedef enum chrome_vtype {
    CHROME_V_NONE = 0, /* absent */
    CHROME_V_STRING,
    CHROME_V_NUMBER, /* text as written */
    CHROME_V_BOOL,   /* text "true" or "false" */
    CHROME_V_NULL,
    CHROME_V_JSON /* compact text of an object or array */
} chrome_vtype;

typedef struct chrome_val {
    uint32_t type; /* chrome_vtype */
    chrome_span s;
} chrome_val;

/* The event fields the mapping looks at. Others land in the record's extras. */
typedef enum chrome_field {
    CHROME_F_NAME,
    CHROME_F_CAT,
    CHROME_F_PH,
    CHROME_F_TS,
    CHROME_F_DUR,
    CHROME_F_PID,
    CHROME_F_TID,
    CHROME_F_ID,
    CHROME_F_ID2_LOCAL,
    CHROME_F_ID2_GLOBAL,
    CHROME_F_SCOPE,
    CHROME_F_S,
    CHROME_F_BP,
    CHROME_F_SF,
    CHROME_F_BIND_ID,
    CHROME_F_FLOW_IN,
    CHROME_F_FLOW_OUT,
    CHROME_F_WEIGHT,
    CHROME_F_COUNT,
    /* Members that hold structure, not a scalar: never stored in f[]. */
    CHROME_F_ARGS = CHROME_F_COUNT,
    CHROME_F_ID2,
    CHROME_F_STACK,
    CHROME_F_UNKNOWN
} chrome_field;

typedef struct chrome_kv {
    chrome_span key;
    chrome_val val;
} chrome_kv;

typedef struct chrome_kvs {
    chrome_kv *v;
    size_t n, cap;
    /* Past a few keys, an index of them by hash (slot: position + 1, 0: empty), valid while
     * nidx == n; chrome_record_set_kv keeps it. */
    uint32_t *idx;
    size_t idx_cap, nidx;
} chrome_kvs;

typedef struct chrome_record {
    char *arena;
    size_t len, cap;
    chrome_val f[CHROME_F_COUNT];
    uint32_t fset;      /* bit f: f[f] was set, to be cleared by chrome_record_reset */
    chrome_kvs args;    /* "args", in order; a repeated key keeps its first place, last value */
    chrome_kvs extras;  /* other scalar members of the event */
    chrome_span *stack; /* "stack": frame names, root first */
    size_t nstack, capstack;
    int has_args, has_stack;
    uint64_t offset; /* decompressed byte offset of the event's '{' */
    uint64_t index;  /* position of the event in its array, from 0 */
} chrome_record;
_Static_assert(CHROME_F_COUNT <= 32, "fset holds a bit per field");

chrome_field chrome_field_lookup(const char *key, size_t len);

void chrome_record_reset(chrome_record *r);
void chrome_record_free(chrome_record *r);
/* Deep copy; 0 on success, -1 when out of memory. */
int chrome_record_clone(chrome_record *dst, const chrome_record *src);

/* Append text to the arena (repairing invalid UTF-8 when utf8 is set); *bad is set when a
 * repair happened. Returns 0, or -1 when out of memory. */
int chrome_record_text(chrome_record *r, const char *s, size_t n, int utf8, int *bad,
                       chrome_span *out);

int chrome_record_set_field(chrome_record *r, chrome_field f, chrome_vtype t, chrome_span s);
/* Add or replace (same key) a member of args or extras. */
int chrome_record_set_kv(chrome_record *r, chrome_kvs *kvs, chrome_span key, chrome_vtype t,
                         chrome_span s);
int chrome_record_push_stack(chrome_record *r, chrome_span s);

static inline const char *chrome_record_str(const chrome_record *r, chrome_span s)
{
    return r->arena + s.off;
}

/* The text of a field that is a string or a number; NULL when it is absent or of another
 * type. */
const char *chrome_record_scalar(const chrome_record *r, chrome_field f, size_t *len);

#endif
