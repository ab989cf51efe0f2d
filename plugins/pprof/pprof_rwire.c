/* Walking protobuf fields. Everything is bounds-checked against the bytes given: the probe runs
 * on the first few KiB of arbitrary input, the reader on a whole untrusted file. */
#include "pprof_rwire.h"

/* A varint of at most 10 bytes at buf[*pos]; 1, 0 when cut by the end, -1 when too long. */
static int pprof_wire_varint(const uint8_t *buf, size_t len, size_t *pos, uint64_t *v)
{
    uint64_t x = 0;
    for (unsigned i = 0; i < 10; i++) {
        if (*pos >= len) return 0;
        uint8_t b = buf[(*pos)++];
        x |= (uint64_t)(b & 0x7f) << (7 * i);
        if (!(b & 0x80)) {
            *v = x;
            return 1;
        }
    }
    return -1;
}

pprof_wire_step pprof_wire_next(const uint8_t *buf, size_t len, size_t *pos, pprof_wire_field *f,
                                const char **what)
{
    size_t p = *pos;
    if (p >= len) return PPROF_WIRE_END;
    uint64_t tag;
    int r = pprof_wire_varint(buf, len, &p, &tag);
    *what = "a field tag runs past the end of the data";
    if (r == 0) return PPROF_WIRE_CUT;
    *what = "a field tag longer than 10 bytes";
    if (r < 0) return PPROF_WIRE_BAD;
    f->number = (uint32_t)(tag >> 3);
    f->type = (uint32_t)(tag & 7);
    f->offset = *pos;
    f->body = NULL;
    f->len = 0;
    f->value = 0;
    *what = "field number 0, which protobuf does not allow";
    if ((tag >> 3) == 0 || (tag >> 3) > 0x1fffffff) return PPROF_WIRE_BAD;
    switch (f->type) {
    case PPROF_WIRE_VARINT:
        r = pprof_wire_varint(buf, len, &p, &f->value);
        *what = r == 0 ? "a number runs past the end of the data" : "a number longer than 10 bytes";
        if (r <= 0) return r == 0 ? PPROF_WIRE_CUT : PPROF_WIRE_BAD;
        break;
    case PPROF_WIRE_I64:
    case PPROF_WIRE_I32: {
        size_t n = f->type == PPROF_WIRE_I64 ? 8 : 4;
        *what = "a fixed-size number runs past the end of the data";
        if (len - p < n) return PPROF_WIRE_CUT;
        for (size_t i = 0; i < n; i++)
            f->value |= (uint64_t)buf[p + i] << (8 * i);
        p += n;
        break;
    }
    case PPROF_WIRE_LEN: {
        uint64_t n;
        r = pprof_wire_varint(buf, len, &p, &n);
        *what = r == 0 ? "a length runs past the end of the data" : "a length longer than 10 bytes";
        if (r <= 0) return r == 0 ? PPROF_WIRE_CUT : PPROF_WIRE_BAD;
        *what = "a field's length runs past the end of the data";
        if (n > len - p) return PPROF_WIRE_CUT;
        f->body = buf + p;
        f->len = (size_t)n;
        p += (size_t)n;
        break;
    }
    default:
        *what = "a group or an unknown wire type, which profile.proto does not use";
        return PPROF_WIRE_BAD;
    }
    *pos = p;
    return PPROF_WIRE_FIELD;
}

int pprof_wire_profile_type(uint32_t number)
{
    switch (number) {
    case 1:  /* sample_type */
    case 2:  /* sample */
    case 3:  /* mapping */
    case 4:  /* location */
    case 5:  /* function */
    case 6:  /* string_table */
    case 11: /* period_type */
    case 13: /* comment, packed */
        return PPROF_WIRE_LEN;
    case 7:  /* drop_frames */
    case 8:  /* keep_frames */
    case 9:  /* time_nanos */
    case 10: /* duration_nanos */
    case 12: /* period */
    case 14: /* default_sample_type */
        return PPROF_WIRE_VARINT;
    default:
        return -1;
    }
}

int pprof_wire_only_varints(const uint8_t *body, size_t len, uint32_t max)
{
    size_t pos = 0;
    pprof_wire_field f;
    const char *what;
    pprof_wire_step s;
    while ((s = pprof_wire_next(body, len, &pos, &f, &what)) == PPROF_WIRE_FIELD)
        if (f.type != PPROF_WIRE_VARINT || f.number > max) return 0;
    return s == PPROF_WIRE_END;
}
