/* A gzip-compressed protobuf stream written straight to a tconv output. A Profile message is
 * the concatenation of its fields, so the writer emits each top-level field (a sample, a
 * location, a string) as it goes and never holds the packed profile in memory. */
#ifndef PPROF_GZ_H
#define PPROF_GZ_H

#include <stddef.h>
#include <stdint.h>

#include <protobuf-c/protobuf-c.h>

#include <tconv/context.h>
#include <tconv/io.h>

typedef struct pprof_gz {
    ProtobufCBuffer base; /* first: protobuf-c calls back with a pointer to it */
    tconv_gzout *z;
    int failed;
    uint64_t raw_bytes; /* protobuf bytes before compression */
    size_t ilen;        /* protobuf bytes waiting in ibuf */
    unsigned char ibuf[1u << 16];
} pprof_gz;

/* -1 with the error on ctx when zlib cannot start. */
int pprof_gz_open(pprof_gz *gz, tconv_ctx *ctx, tconv_output *out, int level);
/* A varint field (wire type 0). */
void pprof_gz_varint_field(pprof_gz *gz, uint32_t field, uint64_t value);
/* A length-delimited field holding raw bytes (a string). */
void pprof_gz_bytes_field(pprof_gz *gz, uint32_t field, const void *data, size_t len);
/* A length-delimited field holding a packed submessage. */
void pprof_gz_message_field(pprof_gz *gz, uint32_t field, const ProtobufCMessage *msg);
/* Flush the gzip trailer. 0 if everything was written, -1 (error on ctx) otherwise. */
int pprof_gz_finish(pprof_gz *gz);
/* Release zlib's state; safe after pprof_gz_finish and after a failed open. */
void pprof_gz_close(pprof_gz *gz);

#endif
