#include "pprof_gz.h"

#include <string.h>

static void pprof_gz_deflate(pprof_gz *gz, const uint8_t *data, size_t len)
{
    if (!gz->failed && tconv_gzout_write(gz->z, data, len) != 0) gz->failed = 1;
}

/* The fields come in pieces of a few bytes (a tag, a varint): each deflate call costs a CRC
 * update and a pass through zlib's state machine, so they are gathered first. Deflate's output
 * does not depend on how its input is split (without flushes), so the bytes stay the same. */
static void pprof_gz_flush_input(pprof_gz *gz)
{
    if (gz->ilen) pprof_gz_deflate(gz, gz->ibuf, gz->ilen);
    gz->ilen = 0;
}

static void pprof_gz_append(ProtobufCBuffer *buf, size_t len, const uint8_t *data)
{
    pprof_gz *gz = (pprof_gz *)buf;
    gz->raw_bytes += len;
    if (len <= sizeof gz->ibuf - gz->ilen) {
        memcpy(gz->ibuf + gz->ilen, data, len);
        gz->ilen += len;
        return;
    }
    pprof_gz_flush_input(gz);
    if (len < sizeof gz->ibuf) {
        memcpy(gz->ibuf, data, len);
        gz->ilen = len;
    } else {
        pprof_gz_deflate(gz, data, len);
    }
}

int pprof_gz_open(pprof_gz *gz, tconv_ctx *ctx, tconv_output *out, int level)
{
    gz->base.append = pprof_gz_append;
    gz->failed = 0;
    gz->raw_bytes = 0;
    gz->ilen = 0;
    gz->z = tconv_gzout_new(ctx, out, level);
    return gz->z ? 0 : -1;
}

static void pprof_gz_raw_varint(pprof_gz *gz, uint64_t v)
{
    uint8_t tmp[10];
    size_t n = 0;
    do {
        uint8_t b = v & 0x7f;
        v >>= 7;
        tmp[n++] = b | (v ? 0x80 : 0);
    } while (v);
    pprof_gz_append(&gz->base, n, tmp);
}

void pprof_gz_varint_field(pprof_gz *gz, uint32_t field, uint64_t value)
{
    pprof_gz_raw_varint(gz, (uint64_t)field << 3 | 0);
    pprof_gz_raw_varint(gz, value);
}

void pprof_gz_bytes_field(pprof_gz *gz, uint32_t field, const void *data, size_t len)
{
    pprof_gz_raw_varint(gz, (uint64_t)field << 3 | 2);
    pprof_gz_raw_varint(gz, len);
    if (len) pprof_gz_append(&gz->base, len, data);
}

void pprof_gz_message_field(pprof_gz *gz, uint32_t field, const ProtobufCMessage *msg)
{
    pprof_gz_raw_varint(gz, (uint64_t)field << 3 | 2);
    pprof_gz_raw_varint(gz, protobuf_c_message_get_packed_size(msg));
    protobuf_c_message_pack_to_buffer(msg, &gz->base);
}

int pprof_gz_finish(pprof_gz *gz)
{
    pprof_gz_flush_input(gz);
    if (!gz->failed && tconv_gzout_finish(gz->z) != 0) gz->failed = 1;
    return gz->failed ? -1 : 0;
}

void pprof_gz_close(pprof_gz *gz)
{
    tconv_gzout_free(gz->z);
    gz->z = NULL;
}
