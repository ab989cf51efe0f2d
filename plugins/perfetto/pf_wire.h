/* The protobuf wire format, written and read directly.
 *
 * Why not protobuf-c's generated code, as the pprof writer uses: a Perfetto trace is a stream of
 * small packets (a slice begin is ~25 bytes), so the per-message costs dominate. protobuf-c's
 * unpack allocates every submessage and string, copies the unknown fields (a systing trace's
 * ftrace bundles are most of its bytes) and frees them again; its pack wants the whole message
 * as initialised structs and walks it twice (size, then bytes). Reading fields in place from a
 * cursor and appending them to a growing buffer costs a few instructions per field and no
 * allocation, which is what lets the reader and the writer keep up with the Chrome JSON ones.
 * proto/perfetto_trace.proto stays the reference for every field number used here, and the
 * tests decode the written files with protoc against it.
 *
 * Writing: pf_buf grows (out of memory is sticky in oom, checked once per packet). A nested
 * message is opened with a one-byte length placeholder and closed by writing the length, moving
 * the content when the length needs more bytes: submessages are small, so the move is rare and
 * short, and the file holds no padded lengths.
 *
 * Reading: pf_cur walks the fields of one message held in memory. Every length is checked
 * against the end of the message, so a corrupt length is an error, never a read past it. */
#ifndef PF_WIRE_H
#define PF_WIRE_H

#include <stddef.h>
#include <stdint.h>
#include <string.h>

enum { PF_VARINT = 0, PF_I64 = 1, PF_LEN = 2, PF_I32 = 5 };

/* ---- writing --------------------------------------------------------------------------- */

typedef struct pf_buf {
    uint8_t *p;
    size_t len, cap;
    int oom;
} pf_buf;

/* Room for n more bytes; 0 when out of memory (oom set). */
int pf_buf_reserve(pf_buf *b, size_t n);
void pf_buf_free(pf_buf *b);

static inline void pf_put_varint(pf_buf *b, uint64_t v)
{
    if (b->cap - b->len < 10 && !pf_buf_reserve(b, 10)) return;
    uint8_t *q = b->p + b->len;
    while (v >= 0x80) {
        *q++ = (uint8_t)(v | 0x80);
        v >>= 7;
    }
    *q++ = (uint8_t)v;
    b->len = (size_t)(q - b->p);
}

/* The bytes a varint of v takes. */
static inline size_t pf_varint_size(uint64_t v)
{
    size_t n = 1;
    while (v >= 0x80) {
        v >>= 7;
        n++;
    }
    return n;
}

static inline void pf_put_tag(pf_buf *b, uint32_t field, unsigned wt)
{
    pf_put_varint(b, (uint64_t)field << 3 | wt);
}

static inline void pf_put_uint(pf_buf *b, uint32_t field, uint64_t v)
{
    pf_put_tag(b, field, PF_VARINT);
    pf_put_varint(b, v);
}

/* int32 and int64 fields: negative values as ten-byte two's complement, as protobuf does. */
static inline void pf_put_int(pf_buf *b, uint32_t field, int64_t v)
{
    pf_put_uint(b, field, (uint64_t)v);
}

static inline void pf_put_bytes(pf_buf *b, uint32_t field, const void *s, size_t n)
{
    pf_put_tag(b, field, PF_LEN);
    pf_put_varint(b, n);
    if (b->cap - b->len < n && !pf_buf_reserve(b, n)) return;
    if (n) memcpy(b->p + b->len, s, n);
    b->len += n;
}

static inline void pf_put_fixed64(pf_buf *b, uint32_t field, uint64_t v)
{
    pf_put_tag(b, field, PF_I64);
    if (b->cap - b->len < 8 && !pf_buf_reserve(b, 8)) return;
    for (int i = 0; i < 8; i++)
        b->p[b->len++] = (uint8_t)(v >> (8 * i));
}

static inline void pf_put_double(pf_buf *b, uint32_t field, double d)
{
    uint64_t v;
    memcpy(&v, &d, sizeof v);
    pf_put_fixed64(b, field, v);
}

/* Opens a nested message: returns the mark to close it with. */
static inline size_t pf_open(pf_buf *b, uint32_t field)
{
    pf_put_tag(b, field, PF_LEN);
    if (b->cap - b->len < 1 && !pf_buf_reserve(b, 1)) return b->len;
    b->p[b->len++] = 0;
    return b->len;
}

void pf_close_long(pf_buf *b, size_t mark, size_t n);

static inline void pf_close(pf_buf *b, size_t mark)
{
    if (b->oom) return;
    size_t n = b->len - mark;
    if (n < 0x80)
        b->p[mark - 1] = (uint8_t)n;
    else
        pf_close_long(b, mark, n);
}

/* ---- reading --------------------------------------------------------------------------- */

typedef struct pf_cur {
    const uint8_t *p, *end;
} pf_cur;

typedef struct pf_field {
    uint32_t num;
    unsigned wt;
    uint64_t v;          /* PF_VARINT, PF_I64, PF_I32 */
    const uint8_t *data; /* PF_LEN */
    size_t len;
} pf_field;

static inline pf_cur pf_cur_make(const void *data, size_t len)
{
    /* An empty field may come with no buffer at all; NULL + 0 is undefined in C. */
    const uint8_t *p = data ? (const uint8_t *)data : (const uint8_t *)"";
    pf_cur c = {p, p + (data ? len : 0)};
    return c;
}

/* 1 and the value, or 0 (cut short or more than ten bytes). */
static inline int pf_get_varint(pf_cur *c, uint64_t *out)
{
    uint64_t v = 0;
    for (unsigned shift = 0; shift < 70 && c->p < c->end; shift += 7) {
        uint8_t byte = *c->p++;
        v |= (uint64_t)(byte & 0x7f) << shift;
        if (!(byte & 0x80)) {
            *out = v;
            return 1;
        }
    }
    return 0;
}

/* The next field: 1, 0 at the end, -1 when the bytes are not a message (a field number 0, a
 * wire type protobuf does not have, a length past the end). */
static inline int pf_next(pf_cur *c, pf_field *f)
{
    if (c->p >= c->end) return 0;
    uint64_t tag;
    if (!pf_get_varint(c, &tag)) return -1;
    f->num = (uint32_t)(tag >> 3);
    f->wt = (unsigned)(tag & 7);
    /* Every member set whatever the wire type: a caller that reads v of a PF_LEN field gets 0,
     * not stale bytes, and an optimising compiler sees no path where one is uninitialised. */
    f->v = 0;
    f->data = NULL;
    f->len = 0;
    if (f->num == 0 || tag >> 32) return -1;
    switch (f->wt) {
    case PF_VARINT:
        return pf_get_varint(c, &f->v) ? 1 : -1;
    case PF_I64:
        if (c->end - c->p < 8) return -1;
        for (int i = 0; i < 8; i++)
            f->v |= (uint64_t)c->p[i] << (8 * i);
        c->p += 8;
        return 1;
    case PF_I32:
        if (c->end - c->p < 4) return -1;
        f->v = (uint64_t)c->p[0] | (uint64_t)c->p[1] << 8 | (uint64_t)c->p[2] << 16 |
               (uint64_t)c->p[3] << 24;
        c->p += 4;
        return 1;
    case PF_LEN: {
        uint64_t n;
        if (!pf_get_varint(c, &n) || n > (uint64_t)(c->end - c->p)) return -1;
        f->data = c->p;
        f->len = (size_t)n;
        c->p += n;
        return 1;
    }
    default:
        return -1;
    }
}

static inline double pf_double(const pf_field *f)
{
    double d;
    memcpy(&d, &f->v, sizeof d);
    return d;
}

/* A repeated integer field comes packed (one PF_LEN field holding the values) or one field per
 * value. For a packed one, walk pf_cur_make(f.data, f.len) with this: 1 and the value, 0 at the
 * end, -1 when the bytes are malformed. fixed: 8 for fixed64 and double, 0 for varints. */
static inline int pf_packed_next(pf_cur *c, unsigned fixed, uint64_t *v)
{
    if (c->p >= c->end) return 0;
    if (!fixed) return pf_get_varint(c, v) ? 1 : -1;
    if (c->end - c->p < 8) return -1;
    *v = 0;
    for (int i = 0; i < 8; i++)
        *v |= (uint64_t)c->p[i] << (8 * i);
    c->p += 8;
    return 1;
}

#endif
