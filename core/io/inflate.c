/* One gzip member's inflater, by ISA-L or zlib. ISA-L's inflate (libisal, when the build found
 * it) is several times as fast as zlib's on the same bytes; zlib is the fallback, and the
 * inflater whose messages tconv reports: the input layer (core/io/input.c) inflates a file again
 * with zlib when ISA-L fails on it, so that every error reads as it always did.
 *
 * ISA-L is given only what it parses as zlib does: a member whose header is the plain 10 bytes
 * (or has a name, comment or extra field) with no reserved flag bits and no header CRC. Anything
 * else is refused here (TCONV_INFLATE_REFUSED) and taken by zlib. */
#include <stdlib.h>
#include <string.h>
#include <zlib.h>

#ifdef TCONV_HAVE_ISAL
#include <isa-l/igzip_lib.h>
#endif

#include "io.h"

struct tconv_inflater {
    int backend;
    int fresh; /* at a member's start: its header not seen yet */
    z_stream zs;
#ifdef TCONV_HAVE_ISAL
    struct inflate_state *is;
#endif
};

int tconv_inflater_default(void)
{
#ifdef TCONV_HAVE_ISAL
    const char *e = getenv("TCONV_INFLATE");
    if (!(e && strcmp(e, "zlib") == 0)) return TCONV_INFLATE_ISAL;
#endif
    return TCONV_INFLATE_ZLIB;
}

tconv_inflater *tconv_inflater_new(int backend)
{
    tconv_inflater *z = calloc(1, sizeof(*z));
    if (!z) return NULL;
    z->backend = backend;
    z->fresh = 1;
#ifdef TCONV_HAVE_ISAL
    if (backend == TCONV_INFLATE_ISAL) {
        z->is = malloc(sizeof(*z->is));
        if (!z->is) {
            free(z);
            return NULL;
        }
        isal_inflate_init(z->is);
        z->is->crc_flag = ISAL_GZIP;
        return z;
    }
#endif
    z->backend = TCONV_INFLATE_ZLIB;
    if (inflateInit2(&z->zs, 15 + 16) != Z_OK) {
        free(z);
        return NULL;
    }
    return z;
}

int tconv_inflater_backend(const tconv_inflater *z)
{
    return z->backend;
}

int tconv_inflater_reset(tconv_inflater *z)
{
    z->fresh = 1;
#ifdef TCONV_HAVE_ISAL
    if (z->backend == TCONV_INFLATE_ISAL) {
        isal_inflate_reset(z->is);
        z->is->crc_flag = ISAL_GZIP;
        return 0;
    }
#endif
    return inflateReset(&z->zs) == Z_OK ? 0 : -1;
}

void tconv_inflater_free(tconv_inflater *z)
{
    if (!z) return;
#ifdef TCONV_HAVE_ISAL
    free(z->is);
    if (z->backend != TCONV_INFLATE_ISAL) inflateEnd(&z->zs);
#else
    inflateEnd(&z->zs);
#endif
    free(z);
}

#ifdef TCONV_HAVE_ISAL
/* A header ISA-L reads as zlib does; the first 4 bytes must be at hand (else: no). */
static int inflate_plain_header(const unsigned char *in, size_t n)
{
    return n >= 4 && in[0] == 0x1f && in[1] == 0x8b && in[2] == 8 && !(in[3] & 0xe2);
}

static int inflate_isal(tconv_inflater *z, const unsigned char *in, size_t in_len, size_t *in_used,
                        unsigned char *out, size_t out_cap, size_t *out_made, const char **why)
{
    struct inflate_state *s = z->is;
    if (z->fresh) {
        if (!inflate_plain_header(in, in_len)) {
            *why = "a gzip header that zlib reads";
            return TCONV_INFLATE_REFUSED;
        }
        z->fresh = 0;
    }
    /* avail_in and avail_out are 32 bits wide */
    if (in_len > UINT32_MAX) in_len = UINT32_MAX;
    if (out_cap > UINT32_MAX) out_cap = UINT32_MAX;
    s->next_in = (uint8_t *)(uintptr_t)in;
    s->avail_in = (uint32_t)in_len;
    s->next_out = out;
    s->avail_out = (uint32_t)out_cap;
    int rc = isal_inflate(s);
    *in_used = in_len - s->avail_in;
    *out_made = out_cap - s->avail_out;
    if (rc < 0) {
        *why = "invalid gzip data";
        return TCONV_INFLATE_REFUSED;
    }
    return s->block_state == ISAL_BLOCK_FINISH ? TCONV_INFLATE_END : TCONV_INFLATE_MORE;
}
#endif

int tconv_inflater_run(tconv_inflater *z, const unsigned char *in, size_t in_len, size_t *in_used,
                       unsigned char *out, size_t out_cap, size_t *out_made, const char **why)
{
#ifdef TCONV_HAVE_ISAL
    if (z->backend == TCONV_INFLATE_ISAL)
        return inflate_isal(z, in, in_len, in_used, out, out_cap, out_made, why);
#endif
    z->fresh = 0;
    /* avail_in and avail_out are uInt */
    if (in_len > UINT32_MAX) in_len = UINT32_MAX;
    if (out_cap > UINT32_MAX) out_cap = UINT32_MAX;
    z->zs.next_in = (Bytef *)(uintptr_t)in;
    z->zs.avail_in = (uInt)in_len;
    z->zs.next_out = out;
    z->zs.avail_out = (uInt)out_cap;
    int rc = inflate(&z->zs, Z_NO_FLUSH);
    *in_used = in_len - z->zs.avail_in;
    *out_made = out_cap - z->zs.avail_out;
    if (rc == Z_STREAM_END) return TCONV_INFLATE_END;
    if (rc == Z_OK || rc == Z_BUF_ERROR) return TCONV_INFLATE_MORE;
    *why = z->zs.msg ? z->zs.msg : "corrupt stream";
    return TCONV_INFLATE_ERROR;
}
