/* Numbers in the proto3 JSON mapping: int64 and uint64 arrive as decimal strings ("123"), but
 * other writers emit plain JSON numbers; doubles may be numbers or "NaN"/"Infinity" strings. */
#ifndef TFMEM_NUM_H
#define TFMEM_NUM_H

#include <stddef.h>
#include <stdint.h>

#include <jansson.h>

typedef enum tfmem_num_status {
    TFMEM_NUM_OK = 0,
    TFMEM_NUM_ABSENT, /* no member, or JSON null: the proto3 default applies */
    TFMEM_NUM_BAD     /* present but not a number of that type */
} tfmem_num_status;

tfmem_num_status tfmem_num_int64(const json_t *v, int64_t *out);
tfmem_num_status tfmem_num_uint64(const json_t *v, uint64_t *out);
tfmem_num_status tfmem_num_double(const json_t *v, double *out);

/* Picoseconds to nanoseconds, rounded down, plus an offset. Host timestamps are taken in whole
 * nanoseconds, so real offsets lose nothing. */
int64_t tfmem_ps_to_ns(int64_t ps, int64_t offset_ns);

/* A short text of any value for messages: "\"abc\"", "true", "{...}". */
const char *tfmem_num_show(const json_t *v, char *buf, size_t cap);
/* What kind of JSON value v is, for messages: "an object", "a string", ... */
const char *tfmem_num_kind(const json_t *v);

#endif
