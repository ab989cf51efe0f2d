/* A debug annotation's value as compact JSON text: how the reader gives back a nested value (a
 * dict or an array) as a JSON arg, and how the writer checks, before it nests a JSON arg, that
 * the reader will give back the very same text. */
#ifndef PF_JSON_H
#define PF_JSON_H

#include <stddef.h>
#include <stdint.h>

/* A growing text; oom is sticky. */
typedef struct pf_text {
    char *p;
    size_t len, cap;
    int oom;
} pf_text;

void pf_text_put(pf_text *t, const char *s, size_t n);
void pf_text_free(pf_text *t);
/* The shortest "%.*g" text that reads back as d (the form the text writer prints). */
size_t pf_double_text(double d, char *buf, size_t cap);

/* Interned strings of the annotation's sequence: a name (table PF_ID_ANNOT_NAMES) or a string
 * value (PF_ID_STRING_VALUES) by iid; NULL when unknown. */
typedef const char *(*pf_iid_fn)(void *user, uint32_t table, uint64_t iid, size_t *len);

/* Appends the JSON text of the value held by the DebugAnnotation message msg[0 .. len) (its
 * name fields are skipped). 0, or -1 when the bytes are malformed or nest deeper than
 * max_depth. */
int pf_json_of_annotation(pf_text *out, const uint8_t *msg, size_t len, pf_iid_fn iid, void *user,
                          unsigned max_depth);

#endif
