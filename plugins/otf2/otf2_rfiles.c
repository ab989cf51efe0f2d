/* The archive's files as the otf2 reader checks them before libotf2 opens them. libotf2 trusts
 * what it reads: it sizes allocations by the anchor file's counts (a crafted count asks for
 * gigabytes), compares the anchor's properties pairwise (tens of thousands take seconds), and
 * opens a member file whatever it is (a FIFO named traces.def blocks the run for ever). So the
 * anchor is read here first, whole and bounded, and the counts libotf2 would act on are held
 * against what the file can hold; and every member is opened only once it is known to be a
 * regular file.
 *
 * The anchor's layout (format versions 1 and 2, OTF2 1.x to 3.x): a buffer header (0x03, an
 * endianness byte), "OTF2\0", two format bytes, the library's version (3 bytes), the event and
 * definition chunk sizes (8 bytes each, in the writer's byte order), the file substrate and
 * the compression (1 byte each), the numbers of locations and of global definitions (8 bytes
 * each), the machine name, creator and description (NUL-terminated), the number of properties
 * (4 bytes) and that many name and value strings; what follows (trace id, snapshots,
 * thumbnails) sizes nothing. */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "otf2_reader.h"

typedef struct otf2r_anchor {
    const unsigned char *p, *end;
    int big; /* multi-byte numbers are big-endian */
} otf2r_anchor;

static uint64_t otf2r_anchor_num(const unsigned char *p, size_t n, int big)
{
    uint64_t v = 0;
    for (size_t i = 0; i < n; i++)
        v |= (uint64_t)p[big ? n - 1 - i : i] << (8 * i);
    return v;
}

/* Past a NUL-terminated string; 0 when the file ends first. */
static int otf2r_anchor_skip_string(otf2r_anchor *a)
{
    const unsigned char *nul = memchr(a->p, 0, (size_t)(a->end - a->p));
    if (!nul) return 0;
    a->p = nul + 1;
    return 1;
}

static tconv_status otf2r_anchor_bad(otf2r *r, const char *what)
{
    tconv_error_set(r->ctx, "%s: a damaged OTF2 anchor file: %s", r->anchor, what);
    return TCONV_FATAL;
}

/* The claims libotf2 would act on, checked in buf (the whole file). */
static tconv_status otf2r_anchor_parse(otf2r *r, const unsigned char *buf, size_t len)
{
    enum { CHUNKS = 12, SUBSTRATE = 28, STRINGS = 46 };
    if (len < STRINGS + 3 + 4) return otf2r_anchor_bad(r, "it ends before its fields do");
    /* The byte order is the one in which the event chunk size is one OTF2 allows: a size in
     * that range read in the other order never is. */
    otf2r_anchor a = {buf + STRINGS, buf + len, 0};
    uint64_t evt = otf2r_anchor_num(buf + CHUNKS, 8, 0);
    if (evt < OTF2_CHUNK_SIZE_MIN || evt > OTF2_CHUNK_SIZE_MAX) {
        a.big = 1;
        evt = otf2r_anchor_num(buf + CHUNKS, 8, 1);
    }
    uint64_t def = otf2r_anchor_num(buf + CHUNKS + 8, 8, a.big);
    char why[160];
    if (evt < OTF2_CHUNK_SIZE_MIN || evt > OTF2_CHUNK_SIZE_MAX || def < OTF2_CHUNK_SIZE_MIN ||
        def > OTF2_CHUNK_SIZE_MAX) {
        snprintf(why, sizeof(why),
                 "its chunk sizes are outside the %" PRIu64 " to %" PRIu64 " bytes OTF2 allows",
                 (uint64_t)OTF2_CHUNK_SIZE_MIN, (uint64_t)OTF2_CHUNK_SIZE_MAX);
        return otf2r_anchor_bad(r, why);
    }
    if (buf[SUBSTRATE] != OTF2_SUBSTRATE_POSIX) {
        tconv_error_set(r->ctx,
                        "%s: the archive is stored with file substrate %u, not as plain files "
                        "(POSIX), which is all tconv reads",
                        r->anchor, buf[SUBSTRATE]);
        return TCONV_FATAL;
    }
    uint64_t nlocs = otf2r_anchor_num(buf + SUBSTRATE + 2, 8, a.big);
    if (nlocs > OTF2R_MAX_REF) {
        snprintf(why, sizeof(why), "it claims %" PRIu64 " locations", nlocs);
        return otf2r_anchor_bad(r, why);
    }
    for (int i = 0; i < 3; i++)
        if (!otf2r_anchor_skip_string(&a)) return otf2r_anchor_bad(r, "its names run past its end");
    if (a.end - a.p < 4) return otf2r_anchor_bad(r, "it ends before its properties");
    uint64_t nprops = otf2r_anchor_num(a.p, 4, a.big);
    a.p += 4;
    /* A property is two strings of at least a NUL each. */
    if (nprops > (uint64_t)(a.end - a.p) / 2) {
        snprintf(why, sizeof(why), "it claims %" PRIu64 " properties, more than its %zu bytes hold",
                 nprops, len);
        return otf2r_anchor_bad(r, why);
    }
    for (uint64_t i = 0; i < 2 * nprops; i++)
        if (!otf2r_anchor_skip_string(&a))
            return otf2r_anchor_bad(r, "its properties run past its end");
    return TCONV_OK;
}

tconv_status otf2r_anchor_check(otf2r *r)
{
    int fd = open(r->anchor, O_RDONLY | O_NONBLOCK | O_CLOEXEC);
    struct stat st;
    if (fd < 0 || fstat(fd, &st) != 0) {
        tconv_error_set(r->ctx, "%s: cannot be read: %s", r->anchor, strerror(errno));
        if (fd >= 0) close(fd);
        return TCONV_FATAL;
    }
    if (!S_ISREG(st.st_mode)) {
        close(fd);
        tconv_error_set(r->ctx,
                        "%s: not a regular file; the otf2 reader opens the archive's files by "
                        "name, and each must be one",
                        r->anchor);
        return TCONV_FATAL;
    }
    if (st.st_size > (off_t)OTF2R_MAX_ANCHOR) {
        close(fd);
        tconv_error_set(r->ctx,
                        "%s: an OTF2 anchor file of %lld bytes, far more than one holds (at most "
                        "%u are read): a damaged archive",
                        r->anchor, (long long)st.st_size, OTF2R_MAX_ANCHOR);
        return TCONV_FATAL;
    }
    unsigned char *buf = malloc(OTF2R_MAX_ANCHOR);
    if (!buf) otf2r_oom();
    size_t len = 0;
    for (ssize_t n; len < OTF2R_MAX_ANCHOR; len += (size_t)n) {
        n = read(fd, buf + len, OTF2R_MAX_ANCHOR - len);
        if (n < 0 && errno == EINTR) {
            n = 0;
            continue;
        }
        if (n <= 0) break;
    }
    close(fd);
    tconv_input_add_file(r->in); /* read here by name: counted as the input's */
    tconv_status s = otf2r_anchor_parse(r, buf, len);
    free(buf);
    return s;
}

int otf2r_file_there(otf2r *r, const char *path, const char *what)
{
    struct stat st;
    if (stat(path, &st) != 0) return 0;
    if (S_ISREG(st.st_mode)) {
        if (access(path, R_OK) != 0) return 0;
        /* the library reads it by name: counted as the input's, for -v and progress */
        tconv_input_add_read(r->in, (uint64_t)st.st_size);
        return 1;
    }
    tconv_error_set(r->ctx,
                    "%s: %s is not a regular file; an OTF2 archive's files must be (a FIFO or a "
                    "device there would be read for ever)",
                    path, what);
    return -1;
}
