/* The archive's trace identifier. OTF2 draws it from the host id, the process id and the clock
 * when it saves the anchor file, and offers no call to choose it, so two conversions of one input
 * would differ in those 8 bytes. The writer hashes what it writes (each location's records, the
 * markers and every global string, in the order written), and once the archive is closed the
 * drawn identifier in the anchor file is replaced by that hash: the same input gives the same
 * archive byte for byte, and different inputs different identifiers.
 *
 * Each location's records are hashed on their own, from zero, and only that location's hash
 * enters the archive's, in location order: whoever writes a location's events (another rank
 * of an MPI run: otf2_archive_write_part) hands over 8 bytes instead of the records, and the
 * identifier stays the same. */
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "otf2_oom.h"
#include "otf2_writer.h"

enum { OTF2W_ANCHOR_MAX = 64 * 1024 };

uint64_t otf2_traceid_hash(uint64_t h, const void *p, size_t n)
{
    const uint64_t k = 0x9e3779b97f4a7c15ull;
    h = (h ^ n) * k;
    const unsigned char *b = p;
    /* A word at a step: a location's records can be gigabytes. */
    for (; n >= 8; b += 8, n -= 8) {
        uint64_t w;
        memcpy(&w, b, 8);
        h = (h ^ w) * k;
        h ^= h >> 29;
    }
    for (; n; b++, n--)
        h = (h ^ *b) * k;
    return h ^ (h >> 32);
}

void otf2_traceid_mix(otf2_state *st, const void *p, size_t n)
{
    st->trace_hash = otf2_traceid_hash(st->trace_hash, p, n);
}

/* Where the 8 bytes of id stand in buf, in either byte order: the offset, or -1 unless exactly
 * one place holds them. */
static long otf2_traceid_find(const unsigned char *buf, size_t len, uint64_t id, int *swapped)
{
    unsigned char le[8], be[8];
    for (int i = 0; i < 8; i++) {
        le[i] = (unsigned char)(id >> (8 * i));
        be[7 - i] = le[i];
    }
    long at = -1;
    int found = 0;
    for (size_t i = 0; i + 8 <= len; i++) {
        int l = memcmp(buf + i, le, 8) == 0, b = memcmp(buf + i, be, 8) == 0;
        if (!l && !b) continue;
        found++;
        at = (long)i;
        *swapped = !l;
    }
    return found == 1 ? at : -1;
}

static int otf2_traceid_patch(const char *path, uint64_t drawn, uint64_t id)
{
    int fd = open(path, O_RDWR | O_CLOEXEC);
    if (fd < 0) return -1;
    unsigned char buf[OTF2W_ANCHOR_MAX];
    ssize_t len = read(fd, buf, sizeof(buf));
    int swapped = 0;
    long at = len > 0 ? otf2_traceid_find(buf, (size_t)len, drawn, &swapped) : -1;
    int rc = -1;
    if (at >= 0) {
        unsigned char v[8];
        for (int i = 0; i < 8; i++)
            v[swapped ? 7 - i : i] = (unsigned char)(id >> (8 * i));
        rc = pwrite(fd, v, 8, at) == 8 ? 0 : -1;
    }
    if (close(fd) != 0) rc = -1;
    return rc;
}

tconv_status otf2_traceid_fix(otf2_state *st, const char *dir)
{
    size_t n = strlen(dir) + sizeof("/traces.otf2");
    char *path = malloc(n);
    if (!path) otf2_oom();
    snprintf(path, n, "%s/traces.otf2", dir);
    uint64_t drawn = 0;
    OTF2_Reader *rd = OTF2_Reader_Open(path);
    int ok = rd && OTF2_Reader_GetTraceId(rd, &drawn) == OTF2_SUCCESS;
    if (rd) OTF2_Reader_Close(rd);
    /* Never 0, and never what OTF2 drew (the patch could not tell them apart). */
    uint64_t id = st->trace_hash ? st->trace_hash : 1;
    ok = ok && (id == drawn || otf2_traceid_patch(path, drawn, id) == 0);
    free(path);
    if (!ok)
        tconv_warning_add(st->ctx, "otf2.trace-id",
                          "cannot set the trace identifier in traces.otf2 (an anchor file this "
                          "writer does not know): the archive keeps the random one OTF2 drew");
    return TCONV_OK;
}
