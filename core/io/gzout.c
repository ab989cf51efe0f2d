/* A gzip stream onto an output, for the writers whose format is gzip-wrapped (pprof's
 * profile.pb.gz, a Chrome trace named .json.gz). Invariant: the bytes depend on the data and
 * the level alone. zlib writes mtime 0 and a fixed OS byte in the header, and deflate's output
 * does not depend on how its input is split as long as nothing is flushed before the end, so
 * callers may hand it pieces of any size. */
#include <zlib.h>

#include "io.h"

struct tconv_gzout {
    z_stream zs;
    tconv_ctx *ctx;
    tconv_output *out;
    int failed;
    unsigned char zbuf[1u << 16];
};

/* Runs deflate over what is in zs and writes what comes out; -1 when zlib or the output fails. */
static int gzout_run(tconv_gzout *z, int flush)
{
    int rc;
    do {
        z->zs.next_out = z->zbuf;
        z->zs.avail_out = sizeof z->zbuf;
        rc = deflate(&z->zs, flush);
        if (rc == Z_STREAM_ERROR) {
            tconv_error_set(z->ctx, "gzip compression failed");
            return -1;
        }
        size_t have = sizeof z->zbuf - z->zs.avail_out;
        if (have && tconv_output_write(z->out, z->zbuf, have) != 0) return -1;
    } while (z->zs.avail_out == 0 || (flush == Z_FINISH && rc != Z_STREAM_END));
    return 0;
}

TCONV_API tconv_gzout *tconv_gzout_new(tconv_ctx *ctx, tconv_output *out, int level)
{
    tconv_gzout *z = tconv_xcalloc(1, sizeof(*z));
    z->ctx = ctx;
    z->out = out;
    /* 15 + 16: a gzip wrapper rather than zlib's. */
    int rc = deflateInit2(&z->zs, level, Z_DEFLATED, 15 + 16, 8, Z_DEFAULT_STRATEGY);
    if (rc != Z_OK) {
        tconv_error_set(ctx, "cannot start gzip compression (zlib: %s)", zError(rc));
        free(z);
        return NULL;
    }
    return z;
}

TCONV_API int tconv_gzout_write(tconv_gzout *z, const void *data, size_t len)
{
    const unsigned char *p = data;
    while (!z->failed && len) {
        /* avail_in is a uInt: very large pieces go in slices. */
        size_t slice = len > (1u << 30) ? (1u << 30) : len;
        z->zs.next_in = (Bytef *)p;
        z->zs.avail_in = (uInt)slice;
        if (gzout_run(z, Z_NO_FLUSH) != 0) z->failed = 1;
        p += slice;
        len -= slice;
    }
    return z->failed ? -1 : 0;
}

TCONV_API int tconv_gzout_finish(tconv_gzout *z)
{
    if (z->failed) return -1;
    z->zs.next_in = Z_NULL;
    z->zs.avail_in = 0;
    if (gzout_run(z, Z_FINISH) != 0) z->failed = 1;
    return z->failed ? -1 : 0;
}

TCONV_API void tconv_gzout_free(tconv_gzout *z)
{
    if (!z) return;
    deflateEnd(&z->zs);
    free(z);
}
