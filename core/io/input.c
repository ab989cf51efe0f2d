/* The input layer: a file or stdin, gzip recognised by its magic bytes (not its name) and
 * inflated as a stream, so a reader sees the same bytes either way and memory stays flat. A gzip
 * input is inflated on a read-ahead thread (core/io/readahead.c) while the reader parses, unless
 * TCONV_INFLATE_THREAD=0 or the thread cannot be started; the bytes, errors and their positions
 * are the same either way.
 *
 * A regular file is inflated by ISA-L where the build has it (core/io/inflate.c); when ISA-L fails
 * or refuses, the file is inflated again from its start by zlib, the bytes already handed over
 * are dropped, and zlib goes on, so that a damaged file fails where and as it did with zlib
 * alone. A pipe cannot be read twice: it is inflated by zlib.
 *
 * A reader may take the bytes where the input holds them (tconv_input_view) instead of a copy
 * (tconv_input_read): then a plain regular file is mapped (core/io/inmap.c) and handed over from
 * the page cache. */
#include <errno.h>
#include <fcntl.h>
#include <stdatomic.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "io.h"

enum {
    INPUT_RAW_CAP = 256 * 1024,
    INPUT_BUF_CAP = 512 * 1024,
    INPUT_PEEK = 4096,
    INPUT_SLOT_CAP = 256 * 1024, /* one read-ahead buffer */
    /* Mapped pages the reader is done with are let go of in steps of this: they would count in
     * the process's resident size, a whole file of them. */
    INPUT_MAP_KEEP = 256 << 10
};

/* No line-oriented format has lines anywhere near this (a 100 000-frame folded stack is about
 * 5 MB); a file that does is not text, and holding it would only cost memory. */
#define INPUT_MAX_LINE ((size_t)64 << 20)

struct tconv_input {
    tconv_ctx *ctx;
    char *name;
    int fd;
    int regular; /* a regular file: reading it never blocks for long */
    uint32_t index;
    int gz, eof, failed;
    unsigned char *buf; /* what the reader sees: buf[pos .. len) */
    size_t pos, len;
    uint64_t offset, line;
    char *lbuf;
    size_t lcap;

    /* The producing side: on the read-ahead thread while it runs, else on the reader's. */
    int zinit, raw_eof;
    int zpad; /* zero bytes followed the last member */
    tconv_inflater *z;
    uint64_t redo; /* after ISA-L failed: decompressed bytes zlib produces again and drops */
    unsigned char *raw;
    size_t raw_pos, raw_len;
    uint64_t raw_total;
    uint64_t produced, limit; /* decompressed bytes so far; the cap (0: none) */
    char why[320];            /* what went wrong, until the reading side reports it */
    int why_errno;
    atomic_uint_least64_t raw_seen; /* raw_total, for progress lines on the reader's side */
    atomic_uint_least64_t by_name;  /* read by the reader itself (tconv_input_add_read) */

    tconv_readahead *ra;      /* NULL: inflate in line */
    const unsigned char *cur; /* the read-ahead buffer being read: cur[cur_pos .. cur_len) */
    size_t cur_pos, cur_len;

    /* A plain regular file mapped for tconv_input_view (core/io/inmap.c): map[map_pos ..
     * map_len) is still to be handed over; map_tried: not again after a refusal. */
    const unsigned char *map;
    size_t map_pos, map_len;
    size_t map_kept; /* below it the pages are let go of (INPUT_MAP_KEEP) */
    int map_tried;

    /* Bytes read once and given back (tconv_input_unread): read again before anything else. */
    unsigned char *back;
    size_t back_pos, back_len;
    int reraise;   /* the failure was taken off the context: say it again at the next read */
    uint64_t size; /* of the file, when regular */
};

/* Producing side: describe a failure; the reading side reports it (input_raise). */
static int input_stop(tconv_input *in, const char *what)
{
    snprintf(in->why, sizeof(in->why), "%s", what);
    return -1;
}

static int input_raise(tconv_input *in)
{
    in->failed = 1;
    tconv_error_set(in->ctx, "%s: %s", in->name, in->why);
    return -1;
}

/* Deflate cannot expand more than about 1032:1, and real traces compress 5-50:1, so a long
 * stretch beyond 1000:1 is a gzip bomb; the size cap bounds the rest. Both say how to go on. */
static int input_bomb(tconv_input *in)
{
    char msg[256];
    if (in->limit && in->produced > in->limit) {
        snprintf(msg, sizeof(msg),
                 "decompresses to more than %llu bytes, the limit; raise it with "
                 "--max-input-bytes",
                 (unsigned long long)in->limit);
        return input_stop(in, msg) < 0;
    }
    if (in->produced > (256ull << 20) && in->produced / 1000 > in->raw_total) {
        snprintf(msg, sizeof(msg),
                 "expands more than 1000:1 (%llu compressed bytes gave %llu): a gzip bomb, "
                 "not a trace",
                 (unsigned long long)in->raw_total, (unsigned long long)in->produced);
        return input_stop(in, msg) < 0;
    }
    return 0;
}

/* Read more compressed (or plain) bytes into raw[]; 0 at end of file. */
static ssize_t input_read_raw(tconv_input *in, tconv_readahead *ra)
{
    if (in->raw_pos < in->raw_len)
        memmove(in->raw, in->raw + in->raw_pos, in->raw_len - in->raw_pos);
    in->raw_len -= in->raw_pos;
    in->raw_pos = 0;
    /* A pipe may stay silent for ever: wait for it where the consumer can end the wait. */
    if (ra && tconv_readahead_wait(ra) < 0) return input_stop(in, "reading stopped");
    for (;;) {
        ssize_t n = read(in->fd, in->raw + in->raw_len, INPUT_RAW_CAP - in->raw_len);
        if (n < 0 && errno == EINTR) continue;
        if (n < 0) {
            in->why_errno = errno;
            return input_stop(in, strerror(errno));
        }
        if (n == 0) in->raw_eof = 1;
        in->raw_len += (size_t)n;
        in->raw_total += (uint64_t)n;
        atomic_store_explicit(&in->raw_seen, in->raw_total, memory_order_relaxed);
        return n;
    }
}

/* ISA-L failed or refused: start again from the file's first byte with zlib, which drops the
 * bytes handed over already and then says what is wrong, as it would have alone. */
static int input_redo_with_zlib(tconv_input *in)
{
    tconv_inflater *z = tconv_inflater_new(TCONV_INFLATE_ZLIB);
    if (!z) return input_stop(in, "cannot initialise zlib");
    if (lseek(in->fd, 0, SEEK_SET) != 0) {
        tconv_inflater_free(z);
        in->why_errno = errno;
        return input_stop(in, strerror(errno));
    }
    tconv_inflater_free(in->z);
    in->z = z;
    in->redo = in->produced;
    in->produced = 0;
    in->raw_pos = in->raw_len = 0;
    in->raw_total = 0;
    in->raw_eof = 0;
    in->zinit = 1;
    in->zpad = 0;
    return 0;
}

/* Whether a failure of the ISA-L inflater is to be told, or redone by zlib first. */
static int input_may_redo(const tconv_input *in)
{
    return tconv_inflater_backend(in->z) == TCONV_INFLATE_ISAL;
}

/* Inflate into dst[0 .. cap): the bytes written (at least one), 0 at the clean end of the last
 * member, -1 on a failure (in->why). The read-ahead thread's producer, or called in line. */
static ssize_t input_inflate(void *user, tconv_readahead *ra, unsigned char *dst, size_t cap)
{
    tconv_input *in = user;
    for (;;) {
        if (in->raw_pos == in->raw_len) {
            if (in->raw_eof) {
                if (in->zinit == 2) return 0; /* ended cleanly on a member boundary */
                if (input_may_redo(in)) {
                    if (input_redo_with_zlib(in) < 0) return -1;
                    continue;
                }
                return input_stop(in, "unexpected end of gzip data (the file is truncated)");
            }
            if (input_read_raw(in, ra) < 0) return -1;
            continue;
        }
        if (in->zinit == 2 && in->raw[in->raw_pos] == 0) {
            /* Zero bytes after the last member (a padded tape block or download): gzip -d and
             * -t accept them, so they end the input; anything after them is garbage. */
            while (in->raw_pos < in->raw_len && in->raw[in->raw_pos] == 0)
                in->raw_pos++;
            in->zpad = 1;
            continue;
        }
        if (in->zinit == 2 && in->zpad) {
            if (input_may_redo(in)) {
                if (input_redo_with_zlib(in) < 0) return -1;
                continue;
            }
            char msg[128];
            snprintf(msg, sizeof(msg),
                     "invalid gzip data at compressed byte %llu: data after the zero padding "
                     "that ends the last member",
                     (unsigned long long)(in->raw_total - (in->raw_len - in->raw_pos)));
            return input_stop(in, msg);
        }
        if (in->zinit == 2) { /* another gzip member follows: inflate it too, like gzip -d */
            if (tconv_inflater_reset(in->z)) return input_stop(in, "zlib reset failed");
            in->zinit = 1;
        }
        /* After a redo, the bytes handed over before are inflated again into dst and dropped. */
        size_t room = in->redo && in->redo < cap ? (size_t)in->redo : cap;
        size_t used, got;
        const char *why = NULL;
        int rc = tconv_inflater_run(in->z, in->raw + in->raw_pos, in->raw_len - in->raw_pos, &used,
                                    dst, room, &got, &why);
        in->raw_pos += used;
        if (rc == TCONV_INFLATE_REFUSED) {
            if (input_redo_with_zlib(in) < 0) return -1;
            continue;
        }
        if (in->redo) {
            in->redo -= got;
            got = 0;
        }
        in->produced += got;
        if (input_bomb(in)) return -1;
        if (rc == TCONV_INFLATE_END) {
            in->zinit = 2;
        } else if (rc == TCONV_INFLATE_ERROR) {
            char msg[256];
            snprintf(msg, sizeof(msg), "invalid gzip data at compressed byte %llu: %s",
                     (unsigned long long)(in->raw_total - (in->raw_len - in->raw_pos)), why);
            return input_stop(in, msg);
        }
        if (in->zinit == 2 && in->raw_pos == in->raw_len && !in->raw_eof &&
            input_read_raw(in, ra) < 0)
            return -1;
        if (got) return (ssize_t)got;
    }
}

/* The next read-ahead buffer into cur: 1, or 0 at the end, -1 on error (on the ctx). */
static int input_next(tconv_input *in)
{
    int status;
    in->cur = tconv_readahead_next(in->ra, &in->cur_len, &status);
    in->cur_pos = 0;
    if (in->cur) return 1;
    in->cur_len = 0;
    if (status < 0) return input_raise(in);
    in->eof = 1;
    return 0;
}

/* Map the rest of a plain regular file for tconv_input_view, once: 1 when mapped. */
static int input_map(tconv_input *in)
{
    if (in->map_tried || !in->regular || in->gz || in->raw_eof || in->failed) return 0;
    in->map_tried = 1;
    size_t len;
    const unsigned char *m = tconv_inmap_open(in->fd, in->name, &len);
    if (!m) return 0;
    if (len <= in->raw_total) { /* nothing left past what was read */
        tconv_inmap_close(m, len);
        return 0;
    }
    in->map = m;
    in->map_len = len;
    in->map_pos = (size_t)in->raw_total;
    return 1;
}

/* The mapping is used up: whatever the file gained since it was mapped is read as before. */
static void input_unmap(tconv_input *in)
{
    if (lseek(in->fd, (off_t)in->map_len, SEEK_SET) < 0) {
        in->why_errno = errno;
        input_stop(in, strerror(errno));
        input_raise(in);
    }
    in->raw_total = in->map_len;
    tconv_inmap_close(in->map, in->map_len);
    in->map = NULL;
}

/* Up to cap bytes of the mapping at *src; 0 once it is used up (and unmapped). */
static size_t input_map_take(tconv_input *in, const unsigned char **src, size_t cap)
{
    size_t n = in->map_len - in->map_pos;
    if (n == 0) {
        input_unmap(in);
        return 0;
    }
    if (n > cap) n = cap;
    /* What was handed over before this call is done with. */
    if (in->map_pos - in->map_kept >= INPUT_MAP_KEEP) {
        size_t upto = in->map_pos & ~(size_t)(sysconf(_SC_PAGESIZE) - 1);
        if (upto > in->map_kept) {
            (void)madvise((void *)(uintptr_t)(in->map + in->map_kept), upto - in->map_kept,
                          MADV_DONTNEED);
            in->map_kept = upto;
        }
    }
    *src = in->map + in->map_pos;
    in->map_pos += n;
    atomic_store_explicit(&in->raw_seen, in->map_pos, memory_order_relaxed);
    return n;
}

/* Append decompressed bytes after buf[len]; returns bytes added, 0 at end, -1 on error. */
static ssize_t input_fill(tconv_input *in)
{
    if (in->failed) return -1;
    if (tconv_ctx_interrupted(in->ctx)) {
        in->failed = 1;
        return -1;
    }
    if (in->eof) return 0;
    if (in->pos > 0) {
        memmove(in->buf, in->buf + in->pos, in->len - in->pos);
        in->len -= in->pos;
        in->pos = 0;
    }
    size_t room = INPUT_BUF_CAP - in->len;
    if (!room) return 0;
    size_t n;
    if (in->ra) {
        if (in->cur_pos == in->cur_len) {
            int r = input_next(in);
            if (r <= 0) return r;
        }
        n = in->cur_len - in->cur_pos;
        if (n > room) n = room;
        memcpy(in->buf + in->len, in->cur + in->cur_pos, n);
        in->cur_pos += n;
    } else if (in->gz) {
        ssize_t r = input_inflate(in, NULL, in->buf + in->len, room);
        if (r < 0) return input_raise(in);
        if (r == 0) in->eof = 1;
        n = (size_t)r;
    } else if (in->raw_pos == in->raw_len && in->map) {
        const unsigned char *src = NULL;
        n = input_map_take(in, &src, room);
        if (!n) return in->failed ? -1 : input_fill(in); /* unmapped: read on as before */
        memcpy(in->buf + in->len, src, n);
    } else {
        if (in->failed) return -1;
        if (in->raw_pos == in->raw_len && !in->raw_eof && input_read_raw(in, NULL) < 0)
            return input_raise(in);
        n = in->raw_len - in->raw_pos;
        if (n == 0) {
            in->eof = 1;
            return 0;
        }
        if (n > room) n = room;
        memcpy(in->buf + in->len, in->raw + in->raw_pos, n);
        in->raw_pos += n;
    }
    in->len += n;
    return (ssize_t)n;
}

/* TCONV_INFLATE_THREAD=0 inflates on the reader's thread: for one-core machines, and to compare
 * the two when measuring. */
static int input_thread_wanted(void)
{
    const char *e = getenv("TCONV_INFLATE_THREAD");
    return !(e && strcmp(e, "0") == 0);
}

tconv_input *tconv_input_open(tconv_ctx *ctx, const char *path, uint32_t index, uint64_t limit)
{
    int is_stdin = !path || strcmp(path, "-") == 0;
    int fd = is_stdin ? 0 : open(path, O_RDONLY | O_CLOEXEC);
    if (fd >= 0 && fd <= 2 && !is_stdin) {
        /* Standard input, output or error was closed: keep them free, or stdin would read
         * this file and output written to stdout would land in it. */
        int high = fcntl(fd, F_DUPFD_CLOEXEC, 3);
        int err = errno;
        close(fd);
        errno = err;
        fd = high;
    }
    if (fd < 0) {
        tconv_error_set(ctx, "cannot open input '%s': %s", path, strerror(errno));
        return NULL;
    }
    tconv_input *in = tconv_xcalloc(1, sizeof(*in));
    in->ctx = ctx;
    in->fd = fd;
    struct stat st;
    in->regular = fstat(fd, &st) == 0 && S_ISREG(st.st_mode);
    in->size = in->regular ? (uint64_t)st.st_size : 0;
    in->index = index;
    in->limit = limit;
    atomic_init(&in->raw_seen, 0);
    atomic_init(&in->by_name, 0);
    in->name = tconv_xstrdup(is_stdin ? "<stdin>" : path);
    in->raw = tconv_xmalloc(INPUT_RAW_CAP);
    in->buf = tconv_xmalloc(INPUT_BUF_CAP + 1);
    while (in->raw_len < 2 && !in->raw_eof) {
        if (input_read_raw(in, NULL) < 0) {
            input_raise(in);
            if (in->why_errno == EISDIR)
                tconv_error_set(ctx, "input '%s' is a directory; give a file", path);
            tconv_input_close(in);
            return NULL;
        }
    }
    if (in->raw_len >= 2 && in->raw[0] == 0x1f && in->raw[1] == 0x8b) {
        in->gz = 1;
        /* A pipe cannot be read again should ISA-L fail: zlib alone reads it. */
        in->z = tconv_inflater_new(in->regular ? tconv_inflater_default() : TCONV_INFLATE_ZLIB);
        if (!in->z) {
            tconv_error_set(ctx, "%s: cannot initialise zlib", in->name);
            tconv_input_close(in);
            return NULL;
        }
        in->zinit = 1;
        /* Without the thread (it could not start, or it is not wanted) inflate in line. */
        if (input_thread_wanted())
            in->ra =
                tconv_readahead_start(input_inflate, in, INPUT_SLOT_CAP, in->regular ? -1 : in->fd);
    }
    return in;
}

void tconv_input_close(tconv_input *in)
{
    if (!in) return;
    /* First: the thread uses the stream, the descriptor and the buffers below. */
    tconv_readahead_free(in->ra);
    tconv_inflater_free(in->z);
    if (in->map) tconv_inmap_close(in->map, in->map_len);
    if (in->fd > 0) close(in->fd);
    free(in->name);
    free(in->raw);
    free(in->buf);
    free(in->lbuf);
    free(in->back);
    free(in);
}

void tconv_input_unread(tconv_input *in, const void *bytes, size_t n)
{
    size_t left = in->back_len - in->back_pos;
    unsigned char *b = tconv_xmalloc(left + n + 1);
    memcpy(b, bytes, n);
    if (left) memcpy(b + n, in->back + in->back_pos, left);
    free(in->back);
    in->back = b;
    in->back_pos = 0;
    in->back_len = left + n;
    in->offset -= n;
}

void tconv_input_reraise(tconv_input *in)
{
    if (in->failed && in->why[0]) {
        in->reraise = 1;
        tconv_error_clear(in->ctx);
    }
}

uint64_t tconv_input_file_size(const tconv_input *in)
{
    return in->size;
}

/* Plain input, nothing buffered: one read into dst. */
static ssize_t input_read_direct(tconv_input *in, void *dst, size_t cap)
{
    ssize_t r;
    do
        r = read(in->fd, dst, cap);
    while (r < 0 && errno == EINTR);
    if (r < 0) {
        in->why_errno = errno;
        input_stop(in, strerror(errno));
        return input_raise(in);
    }
    if (r == 0) {
        in->raw_eof = in->eof = 1;
        return 0;
    }
    in->raw_total += (uint64_t)r;
    atomic_store_explicit(&in->raw_seen, in->raw_total, memory_order_relaxed);
    in->offset += (uint64_t)r;
    return r;
}

/* The next bytes, up to cap, where the input holds them: buf (peeked or filled), the read-ahead
 * buffer, the sniffing read's raw bytes, the mapping. view: for tconv_input_view, which may map
 * the file and reads into buf when it cannot; tconv_input_read copies from here. */
static ssize_t input_take(tconv_input *in, const unsigned char **src, size_t cap, int view)
{
    size_t n;
    if (in->reraise && in->back_pos == in->back_len) {
        in->reraise = 0;
        return input_raise(in);
    }
    if (in->back_pos < in->back_len) {
        *src = in->back + in->back_pos; /* given back (tconv_input_unread) */
        n = in->back_len - in->back_pos;
        if (n > cap) n = cap;
        in->back_pos += n;
    } else if (in->pos < in->len) {
        *src = in->buf + in->pos;
        n = in->len - in->pos;
        if (n > cap) n = cap;
        in->pos += n;
    } else if (in->ra) {
        if (in->failed) return -1;
        if (in->eof) return 0;
        if (in->cur_pos == in->cur_len) {
            int r = input_next(in);
            if (r <= 0) return r;
        }
        *src = in->cur + in->cur_pos;
        n = in->cur_len - in->cur_pos;
        if (n > cap) n = cap;
        in->cur_pos += n;
    } else if (!in->gz && in->raw_pos < in->raw_len) {
        *src = in->raw + in->raw_pos; /* what the sniffing read brought */
        n = in->raw_len - in->raw_pos;
        if (n > cap) n = cap;
        in->raw_pos += n;
    } else if (!in->gz && (in->map || (view && input_map(in))) &&
               (n = input_map_take(in, src, cap))) {
        /* *src is set */
    } else if (in->failed) {
        return -1;
    } else if (view && !in->gz && !in->raw_eof) {
        /* No mapping: read into buf, which is the reader's to look at until the next call. */
        in->pos = in->len = 0;
        ssize_t r = input_read_direct(in, in->buf, cap < INPUT_BUF_CAP ? cap : INPUT_BUF_CAP);
        if (r > 0) *src = in->buf;
        return r;
    } else {
        ssize_t r = input_fill(in);
        if (r <= 0) return r;
        *src = in->buf + in->pos;
        n = in->len - in->pos;
        if (n > cap) n = cap;
        in->pos += n;
    }
    in->offset += n;
    return (ssize_t)n;
}

TCONV_API ssize_t tconv_input_read(tconv_input *in, void *dst, size_t cap)
{
    /* Plain input read in large pieces goes straight to the reader's buffer. */
    if (in->pos == in->len && !in->ra && !in->map && !in->gz && cap >= INPUT_RAW_CAP / 4 &&
        in->raw_pos == in->raw_len && !in->raw_eof && !in->failed && in->back_pos == in->back_len)
        return input_read_direct(in, dst, cap);
    const unsigned char *src = NULL;
    ssize_t n = input_take(in, &src, cap, 0);
    if (n > 0) memcpy(dst, src, (size_t)n);
    return n;
}

TCONV_API ssize_t tconv_input_view(tconv_input *in, const void **data, size_t cap)
{
    const unsigned char *src = NULL;
    ssize_t n = input_take(in, &src, cap, 1);
    if (n > 0) *data = src;
    return n;
}

/* Move the buffered bytes to the long-line buffer. */
static void input_spill(tconv_input *in, size_t *have, size_t n)
{
    TCONV_GROW(in->lbuf, in->lcap, *have + n + 1);
    memcpy(in->lbuf + *have, in->buf + in->pos, n);
    *have += n;
    in->pos += n;
    in->offset += n;
}

static const char *input_line_done(tconv_input *in, char *s, size_t n, size_t *len)
{
    in->line++;
    if (n && s[n - 1] == '\r') n--;
    s[n] = 0;
    *len = n;
    return s;
}

TCONV_API const char *tconv_input_getline(tconv_input *in, size_t *len)
{
    size_t have = 0; /* bytes of this line already in lbuf */
    for (;;) {
        size_t avail = in->len - in->pos;
        unsigned char *start = in->buf + in->pos;
        unsigned char *nl = memchr(start, '\n', avail);
        if (nl) {
            size_t n = (size_t)(nl - start);
            if (!have) { /* the common case: the whole line is in buf, return it in place */
                in->pos += n + 1;
                in->offset += n + 1;
                return input_line_done(in, (char *)start, n, len);
            }
            input_spill(in, &have, n);
            in->pos++;
            in->offset++;
            return input_line_done(in, in->lbuf, have, len);
        }
        if (have || (in->pos == 0 && in->len == INPUT_BUF_CAP)) input_spill(in, &have, avail);
        if (have > INPUT_MAX_LINE) {
            in->failed = 1;
            tconv_error_at(in->ctx, in->name, in->line + 1,
                           "line longer than %zu MiB: this is not a line-oriented text file",
                           INPUT_MAX_LINE >> 20);
            return NULL;
        }
        ssize_t r = input_fill(in);
        if (r < 0) return NULL;
        if (r == 0) {
            if (in->len > in->pos) input_spill(in, &have, in->len - in->pos);
            if (!have) return NULL;
            return input_line_done(in, in->lbuf, have, len);
        }
    }
}

TCONV_API const unsigned char *tconv_input_peek(tconv_input *in, size_t *len)
{
    while (in->len - in->pos < INPUT_PEEK && !in->eof && !in->failed)
        if (input_fill(in) <= 0) break;
    *len = in->len - in->pos;
    return in->buf + in->pos;
}

TCONV_API const char *tconv_input_name(const tconv_input *in)
{
    return in->name;
}

TCONV_API uint64_t tconv_input_offset(const tconv_input *in)
{
    return in->offset;
}

TCONV_API uint64_t tconv_input_line(const tconv_input *in)
{
    return in->line;
}

TCONV_API int tconv_input_is_gzip(const tconv_input *in)
{
    return in->gz;
}

TCONV_API uint64_t tconv_input_raw_offset(const tconv_input *in)
{
    /* The read-ahead thread may be reading on: its count, not one torn in the middle. */
    return atomic_load_explicit(&in->raw_seen, memory_order_relaxed) + tconv_input_by_name(in);
}

TCONV_API void tconv_input_add_read(tconv_input *in, uint64_t bytes)
{
    /* Only the reader adds; a progress line may read it from another thread. */
    atomic_fetch_add_explicit(&in->by_name, bytes, memory_order_relaxed);
}

TCONV_API void tconv_input_add_file(tconv_input *in)
{
    if (!in->regular || in->gz) return;
    const void *p;
    while (in->pos < in->len && tconv_input_view(in, &p, in->len - in->pos) > 0) {
    }
    uint64_t seen = tconv_input_raw_offset(in);
    if (in->size > seen) tconv_input_add_read(in, in->size - seen);
}

uint64_t tconv_input_by_name(const tconv_input *in)
{
    return atomic_load_explicit(&in->by_name, memory_order_relaxed);
}

TCONV_API uint32_t tconv_input_index(const tconv_input *in)
{
    return in->index;
}

tconv_input *tconv_input_read_elsewhere(tconv_ctx *ctx, const char *name, uint32_t index,
                                        uint64_t offset, uint64_t raw_offset, uint64_t by_name)
{
    tconv_input *in = tconv_xcalloc(1, sizeof(*in));
    in->ctx = ctx;
    in->fd = -1;
    in->index = index;
    in->eof = in->raw_eof = 1;
    in->offset = offset;
    in->raw_total = raw_offset;
    atomic_init(&in->raw_seen, raw_offset);
    atomic_init(&in->by_name, by_name);
    in->name = tconv_xstrdup(name);
    return in;
}

void tconv_input_set_name(tconv_input *in, const char *name)
{
    free(in->name);
    in->name = tconv_xstrdup(name);
}
