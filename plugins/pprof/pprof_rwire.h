/* The protobuf wire format walked field by field without decoding anything: enough for the
 * probe to tell a profile from other bytes, and for the reader to name the offset of the field
 * that protobuf-c refused (it says only that the message is bad, not where). */
#ifndef PPROF_RWIRE_H
#define PPROF_RWIRE_H

#include <stddef.h>
#include <stdint.h>

enum { PPROF_WIRE_VARINT = 0, PPROF_WIRE_I64 = 1, PPROF_WIRE_LEN = 2, PPROF_WIRE_I32 = 5 };

typedef struct pprof_wire_field {
    uint32_t number;
    uint32_t type;       /* PPROF_WIRE_* */
    size_t offset;       /* of the tag, from the start of the walked bytes */
    const uint8_t *body; /* LEN: the bytes */
    size_t len;          /* LEN: their count */
    uint64_t value;      /* VARINT, I64, I32 */
} pprof_wire_field;

typedef enum pprof_wire_step {
    PPROF_WIRE_FIELD = 1, /* *f holds the next field */
    PPROF_WIRE_END = 0,   /* the bytes ended between two fields */
    PPROF_WIRE_BAD = -1,  /* not a field: a zero field number, groups, a varint over 10 bytes */
    PPROF_WIRE_CUT = -2   /* a field runs past the end of the bytes */
} pprof_wire_step;

/* The field at *pos of buf[0 .. len); *pos moves past it. On BAD and CUT, *pos stays at the
 * field's tag and what says why (a static text). */
pprof_wire_step pprof_wire_next(const uint8_t *buf, size_t len, size_t *pos, pprof_wire_field *f,
                                const char **what);

/* The wire type field `number` of a Profile must have, or -1 for a number profile.proto does
 * not declare (skipped, as protobuf does). Field 13 (comment) may also come packed. */
int pprof_wire_profile_type(uint32_t number);

/* 1 when body holds only varint fields numbered 1 to max (a ValueType, a Line): how the probe
 * checks a submessage without decoding it. */
int pprof_wire_only_varints(const uint8_t *body, size_t len, uint32_t max);

#endif
