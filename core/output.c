/* The output layer. A regular file is written under a temporary name in the same folder and
 * renamed over the target only when the run succeeds, so a failed run leaves neither a partial
 * file nor a clobbered old one. Devices and FIFOs are written directly (they cannot be renamed
 * over). Directory outputs get the same treatment with a temporary sibling directory. */
#define _XOPEN_SOURCE 700
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <libgen.h>
#include <stdarg.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "internal.h"

enum { OUTPUT_BUF = 256 * 1024 };

struct tconv_output {
    tconv_ctx *ctx;
    char *name;   /* as given, "-" for stdout */
    char *target; /* what a symlink named by name points to; NULL if name is no link */
    char *tmp;    /* temporary file or directory, NULL when written in place */
    int fd;
    int mode;
    int failed;
    unsigned char *buf;
    size_t len;
    uint64_t bytes;
    struct tconv_output *next_live;
};

/* Outputs that have a temporary file or directory. Running out of memory ends the process with
 * exit(1) (core/memory.c, and plugins that cannot go on), and that must not leave the temporary
 * behind: an exit handler removes what is still listed here. */
static tconv_output *output_live;

static void output_rm_tree(const char *path);

size_t tconv_output_discard_all(void)
{
    size_t n = 0;
    for (tconv_output *o = output_live; o; o = o->next_live) {
        if (!o->tmp) continue;
        if (o->mode == TCONV_OUT_DIR)
            output_rm_tree(o->tmp);
        else
            unlink(o->tmp);
        n++;
    }
    return n;
}

TCONV_API size_t tconv_outputs_discard(void)
{
    return tconv_output_discard_all();
}

static void output_at_exit(void)
{
    tconv_output_discard_all();
}

static void output_track(tconv_output *out)
{
    static int registered;
    if (!registered) registered = atexit(output_at_exit) == 0;
    out->next_live = output_live;
    output_live = out;
}

static void output_untrack(tconv_output *out)
{
    for (tconv_output **p = &output_live; *p; p = &(*p)->next_live)
        if (*p == out) {
            *p = out->next_live;
            return;
        }
}

static int output_rm_entry(const char *p, const struct stat *sb, int flag, struct FTW *ftw)
{
    (void)sb;
    (void)flag;
    (void)ftw;
    return remove(p);
}

static void output_rm_tree(const char *path)
{
    nftw(path, output_rm_entry, 16, FTW_DEPTH | FTW_PHYS);
}

/* "<dir>/.<base>.tconv-XXXXXX": same filesystem as the target, so rename is atomic. */
static char *output_sibling(const char *path, const char *tag)
{
    char *d = tconv_xstrdup(path), *b = tconv_xstrdup(path);
    const char *dir = dirname(d), *base = basename(b);
    size_t n = strlen(dir) + strlen(base) + strlen(tag) + 16;
    char *s = tconv_xmalloc(n);
    snprintf(s, n, "%s/.%s.%s-XXXXXX", dir, base, tag);
    free(d);
    free(b);
    return s;
}

/* With standard input, output or error closed, a new file gets fd 0, 1 or 2, where a later read
 * of stdin or a write to stdout would reach it: the output must stay above them. */
static int output_above_std(int fd)
{
    if (fd < 0 || fd > 2) return fd;
    int high = fcntl(fd, F_DUPFD_CLOEXEC, 3);
    int err = errno;
    close(fd);
    errno = err;
    return high;
}

static int output_dir_is_empty(const char *path)
{
    DIR *d = opendir(path);
    if (!d) return 0;
    struct dirent *e;
    int empty = 1;
    while (empty && (e = readdir(d)))
        if (strcmp(e->d_name, ".") && strcmp(e->d_name, "..")) empty = 0;
    closedir(d);
    return empty;
}

static tconv_output *output_new(tconv_ctx *ctx, const char *path, int mode)
{
    tconv_output *out = tconv_xcalloc(1, sizeof(*out));
    out->ctx = ctx;
    out->name = tconv_xstrdup(path ? path : "-");
    out->fd = -1;
    out->mode = mode;
    return out;
}

static tconv_output *output_open_dir(tconv_ctx *ctx, const char *path, const tconv_output_opts *o)
{
    struct stat st;
    if (!path || strcmp(path, "-") == 0) {
        tconv_error_set(ctx, "this writer writes a directory: give it with -o DIR");
        return NULL;
    }
    if (stat(path, &st) == 0) {
        if (!S_ISDIR(st.st_mode)) {
            tconv_error_set(ctx,
                            "output '%s' exists and is not a directory; remove it or pick "
                            "another -o",
                            path);
            return NULL;
        }
        if (!o->force && !output_dir_is_empty(path)) {
            tconv_error_set(ctx,
                            "output directory '%s' exists and is not empty; use --force to "
                            "replace it",
                            path);
            return NULL;
        }
    }
    tconv_output *out = output_new(ctx, path, TCONV_OUT_DIR);
    out->tmp = output_sibling(path, "tconv");
    if (!mkdtemp(out->tmp)) {
        tconv_error_set(ctx, "cannot create a directory next to '%s': %s", path, strerror(errno));
        free(out->tmp);
        out->tmp = NULL;
        tconv_output_close(out);
        return NULL;
    }
    output_track(out);
    return out;
}

tconv_output *tconv_output_open(tconv_ctx *ctx, const char *path, const tconv_output_opts *o)
{
    if (o->mode == TCONV_OUT_DIR) return output_open_dir(ctx, path, o);
    tconv_output *out = output_new(ctx, path, TCONV_OUT_STREAM);
    out->buf = tconv_xmalloc(OUTPUT_BUF);
    struct stat st;
    if (!path || strcmp(path, "-") == 0) {
        if (o->binary && isatty(1)) {
            tconv_error_set(ctx, "refusing to write binary output to a terminal; use -o FILE or "
                                 "redirect stdout");
            tconv_output_close(out);
            return NULL;
        }
        out->fd = 1;
        return out;
    }
    if (stat(path, &st) == 0 && S_ISDIR(st.st_mode)) {
        tconv_error_set(ctx, "output '%s' is a directory; this writer writes a file", path);
        tconv_output_close(out);
        return NULL;
    }
    /* Through a symlink, replace what it points to, not the link. */
    struct stat lst;
    if (lstat(path, &lst) == 0 && S_ISLNK(lst.st_mode) && (out->target = realpath(path, NULL)))
        path = out->target;
    int exists = stat(path, &st) == 0;
    if (exists && !S_ISREG(st.st_mode)) {
        out->fd = output_above_std(open(path, O_WRONLY | O_CLOEXEC));
        if (out->fd >= 0 && o->binary && isatty(out->fd)) {
            tconv_error_set(ctx, "refusing to write binary output to a terminal ('%s')", path);
            tconv_output_close(out);
            return NULL;
        }
    } else {
        out->tmp = output_sibling(path, "tconv");
        out->fd = output_above_std(mkstemp(out->tmp));
        if (out->fd >= 0) {
            /* A replaced file keeps its mode; a new one gets the usual 0666 & ~umask. */
            mode_t mask = umask(0);
            umask(mask);
            fchmod(out->fd, exists ? st.st_mode & 07777 : 0666 & ~mask);
        }
    }
    if (out->fd < 0) {
        tconv_error_set(ctx, "cannot write '%s': %s", path, strerror(errno));
        free(out->tmp);
        out->tmp = NULL;
        tconv_output_close(out);
        return NULL;
    }
    if (out->tmp) output_track(out);
    return out;
}

static int output_flush(tconv_output *out)
{
    size_t off = 0;
    while (off < out->len) {
        ssize_t n = write(out->fd, out->buf + off, out->len - off);
        if (n < 0 && errno == EINTR) continue;
        if (n < 0) {
            out->failed = 1;
            tconv_error_set(out->ctx, "cannot write '%s': %s",
                            strcmp(out->name, "-") ? out->name : "<stdout>", strerror(errno));
            return -1;
        }
        off += (size_t)n;
    }
    out->len = 0;
    return 0;
}

TCONV_API int tconv_output_write(tconv_output *out, const void *buf, size_t len)
{
    if (out->mode != TCONV_OUT_STREAM) {
        tconv_error_set(out->ctx, "a directory writer wrote to its output as a stream; it "
                                  "should write files under tconv_output_dir()");
        return -1;
    }
    if (out->failed) return -1;
    out->bytes += len;
    if (out->len + len > OUTPUT_BUF) {
        if (output_flush(out) < 0) return -1;
        if (len >= OUTPUT_BUF) {
            const unsigned char *p = buf;
            while (len) {
                size_t n = len < OUTPUT_BUF ? len : OUTPUT_BUF;
                memcpy(out->buf, p, n);
                out->len = n;
                if (output_flush(out) < 0) return -1;
                p += n;
                len -= n;
            }
            return 0;
        }
    }
    memcpy(out->buf + out->len, buf, len);
    out->len += len;
    return 0;
}

TCONV_API int tconv_output_printf(tconv_output *out, const char *fmt, ...)
{
    char small[1024];
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(small, sizeof(small), fmt, ap);
    va_end(ap);
    if (n < 0) return -1;
    if ((size_t)n < sizeof(small)) return tconv_output_write(out, small, (size_t)n);
    char *big = tconv_xmalloc((size_t)n + 1);
    va_start(ap, fmt);
    vsnprintf(big, (size_t)n + 1, fmt, ap);
    va_end(ap);
    int rc = tconv_output_write(out, big, (size_t)n);
    free(big);
    return rc;
}

TCONV_API const char *tconv_output_dir(const tconv_output *out)
{
    return out->mode == TCONV_OUT_DIR ? out->tmp : NULL;
}

TCONV_API const char *tconv_output_name(const tconv_output *out)
{
    return out->name;
}

uint64_t tconv_output_bytes(const tconv_output *out)
{
    return out->bytes;
}

static int output_commit_dir(tconv_output *out)
{
    struct stat st;
    char *old = NULL;
    if (stat(out->name, &st) == 0) {
        /* Move the old directory aside first so the new one appears in one rename. */
        old = output_sibling(out->name, "tconv-old");
        if (!mkdtemp(old) || rename(out->name, old) != 0) {
            tconv_error_set(out->ctx, "cannot replace '%s': %s", out->name, strerror(errno));
            free(old);
            return -1;
        }
    }
    if (rename(out->tmp, out->name) != 0) {
        tconv_error_set(out->ctx, "cannot create '%s': %s", out->name, strerror(errno));
        if (old) rename(old, out->name);
        free(old);
        return -1;
    }
    if (old) output_rm_tree(old);
    free(old);
    free(out->tmp);
    out->tmp = NULL;
    return 0;
}

int tconv_output_commit(tconv_output *out)
{
    if (out->mode == TCONV_OUT_DIR) return output_commit_dir(out);
    if (out->failed || output_flush(out) < 0) return -1;
    if (!out->tmp) return 0;
    /* On disk before it takes the old file's name: a crash must not leave an empty output
     * where a good one was. */
    if (fsync(out->fd) != 0) {
        tconv_error_set(out->ctx, "cannot write '%s': %s", out->name, strerror(errno));
        return -1;
    }
    if (close(out->fd) != 0) {
        out->fd = -1;
        tconv_error_set(out->ctx, "cannot write '%s': %s", out->name, strerror(errno));
        return -1;
    }
    out->fd = -1;
    if (rename(out->tmp, out->target ? out->target : out->name) != 0) {
        tconv_error_set(out->ctx, "cannot create '%s': %s", out->name, strerror(errno));
        return -1;
    }
    free(out->tmp);
    out->tmp = NULL;
    return 0;
}

void tconv_output_abort(tconv_output *out)
{
    if (!out || !out->tmp) return;
    if (out->mode == TCONV_OUT_DIR) {
        output_rm_tree(out->tmp);
    } else {
        if (out->fd >= 0) close(out->fd);
        out->fd = -1;
        unlink(out->tmp);
    }
    free(out->tmp);
    out->tmp = NULL;
}

void tconv_output_close(tconv_output *out)
{
    if (!out) return;
    tconv_output_abort(out);
    output_untrack(out);
    if (out->fd > 2) close(out->fd);
    free(out->name);
    free(out->target);
    free(out->buf);
    free(out);
}
