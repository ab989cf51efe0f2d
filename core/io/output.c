/* The output layer. A regular file is written under a temporary name in the same folder and
 * renamed over the target only when the run succeeds, so a failed run leaves neither a partial
 * file nor a clobbered old one. Devices and FIFOs are written directly (they cannot be renamed
 * over). A directory output (an OTF2 archive) is filled as a temporary sibling directory and
 * swapped with the old one in one renameat2(RENAME_EXCHANGE), so that a kill at any moment leaves
 * the old or the new directory under the name, never neither; the old one is removed after.
 *
 * Temporaries are named ".<name>.tconv-<pid>-XXXXXX". Each one is in a process-wide registry
 * until it is committed or removed, so that an exit on a failed allocation and a program's
 * signal thread (tconv_outputs_discard) can remove it while the run that writes it is still
 * going. Who removes a temporary is settled by one atomic state per output: exactly one of the
 * run (commit or abort) and a discard wins it. The registry's lock guards the list only; a run
 * never holds it across I/O, and every name a discard needs is made when the output opens. */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <libgen.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "io.h"

enum { OUTPUT_BUF = 256 * 1024 };

/* Where an output's temporary stands. */
enum {
    OUTPUT_NONE,       /* no temporary: written in place, committed, or removed */
    OUTPUT_PENDING,    /* exists; whoever moves it out of this state owns it */
    OUTPUT_COMMITTING, /* the run is moving it into place */
    OUTPUT_GONE        /* removed, or being removed */
};

struct tconv_output {
    tconv_ctx *ctx;
    char *name;   /* as given, "-" for stdout */
    char *target; /* what a symlink named by name points to; NULL if name is no link */
    char *tmp;    /* temporary file or directory, NULL when written in place; freed at close */
    char *aside;  /* tmp + "-old": where a directory is moved to be removed */
    atomic_int state;
    int fd;
    int mode;
    int force;
    int failed;
    int borrowed; /* another process's temporary directory: that process commits or removes it */
    unsigned char *buf;
    size_t len;
    uint64_t bytes;
    struct tconv_output *next_live;
};

static pthread_mutex_t output_lock = PTHREAD_MUTEX_INITIALIZER;
static tconv_output *output_live;

/* For the one who won the temporary (state now OUTPUT_GONE). A directory is first renamed
 * aside: a writer still filling it by path then fails instead of refilling what is removed. */
static void output_remove_tmp(tconv_output *o)
{
    if (o->mode != TCONV_OUT_DIR) {
        unlink(o->tmp);
    } else if (rename(o->tmp, o->aside) == 0) {
        tconv_outsafe_rm_tree(o->aside);
    } else {
        tconv_outsafe_rm_tree(o->tmp);
    }
}

static int output_take(tconv_output *o, int to)
{
    int want = OUTPUT_PENDING;
    return atomic_compare_exchange_strong(&o->state, &want, to);
}

size_t tconv_output_discard_all(void)
{
    size_t n = 0;
    pthread_mutex_lock(&output_lock);
    for (tconv_output *o = output_live; o; o = o->next_live)
        if (output_take(o, OUTPUT_GONE)) {
            output_remove_tmp(o);
            n++;
        }
    pthread_mutex_unlock(&output_lock);
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
    static atomic_int registered;
    if (!atomic_exchange(&registered, 1)) atexit(output_at_exit);
    atomic_store(&out->state, OUTPUT_PENDING);
    pthread_mutex_lock(&output_lock);
    out->next_live = output_live;
    output_live = out;
    pthread_mutex_unlock(&output_lock);
}

static void output_untrack(tconv_output *out)
{
    pthread_mutex_lock(&output_lock);
    for (tconv_output **p = &output_live; *p; p = &(*p)->next_live)
        if (*p == out) {
            *p = out->next_live;
            break;
        }
    pthread_mutex_unlock(&output_lock);
}

/* The folder and the last component of path, malloc'd. */
static void output_split(const char *path, char **dir, char **base)
{
    char *d = tconv_xstrdup(path), *b = tconv_xstrdup(path);
    *dir = tconv_xstrdup(dirname(d));
    *base = tconv_xstrdup(basename(b));
    free(d);
    free(b);
}

/* "<dir>/.<base>.tconv-<pid>-XXXXXX": same file system as the target, so rename is atomic. A
 * killed run's leftovers of this pattern are removed first (tconv_outsafe_sweep). */
static char *output_sibling(const char *path)
{
    char *dir, *base;
    output_split(path, &dir, &base);
    struct timespec now;
    clock_gettime(CLOCK_REALTIME, &now);
    tconv_outsafe_sweep(dir, base, &now);
    size_t n = strlen(dir) + strlen(base) + 48;
    char *s = tconv_xmalloc(n);
    snprintf(s, n, "%s/.%s.tconv-%ld-XXXXXX", dir, base, (long)getpid());
    free(dir);
    free(base);
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

static mode_t output_umask(void)
{
    mode_t mask = umask(0);
    umask(mask);
    return mask;
}

static tconv_output *output_new(tconv_ctx *ctx, const char *path, int mode)
{
    tconv_output *out = tconv_xcalloc(1, sizeof(*out));
    out->ctx = ctx;
    out->name = tconv_xstrdup(path ? path : "-");
    out->fd = -1;
    out->mode = mode;
    atomic_init(&out->state, OUTPUT_NONE);
    return out;
}

/* Through a symlink, the output is what it points to; a link to nothing is refused rather than
 * written through, since a dangling link in a shared folder may have been planted. 0 with
 * *target set (NULL: path is no link), or -1 with the error on ctx. */
static int output_follow(tconv_ctx *ctx, const char *path, char **target)
{
    struct stat lst, st;
    *target = NULL;
    if (lstat(path, &lst) != 0 || !S_ISLNK(lst.st_mode)) return 0;
    if (stat(path, &st) != 0 && errno == ENOENT) {
        char to[4096];
        ssize_t n = readlink(path, to, sizeof(to) - 1);
        to[n > 0 ? n : 0] = 0;
        tconv_error_usage(ctx,
                          "output '%s' is a symbolic link to '%s', which does not exist; tconv "
                          "does not write through a dangling link: create the target or remove "
                          "the link",
                          path, to);
        return -1;
    }
    if (!(*target = realpath(path, NULL))) {
        tconv_error_set(ctx, "cannot write '%s': %s", path, strerror(errno));
        return -1;
    }
    return 0;
}

/* Whether the existing directory dir may be replaced: refusals of what --force may not touch are
 * usage errors naming the entry that would be lost. */
static int output_dir_check(tconv_ctx *ctx, const char *dir, const char *shown, int force)
{
    if (tconv_outsafe_place(ctx, dir, shown) < 0) return -1;
    char *foreign;
    int empty;
    if (tconv_outsafe_foreign(dir, &foreign, &empty) < 0) {
        tconv_error_set(ctx, "cannot read the output directory '%s': %s", shown, strerror(errno));
        return -1;
    }
    if (foreign) {
        tconv_error_usage(ctx,
                          "output directory '%s' holds '%s', which is not part of an OTF2 "
                          "archive; tconv replaces only an empty directory or an OTF2 archive, "
                          "even with --force: pick another -o",
                          shown, foreign);
        free(foreign);
        return -1;
    }
    if (!empty && !force) {
        tconv_error_set(ctx,
                        "output directory '%s' exists and is not empty; use --force to replace "
                        "it",
                        shown);
        return -1;
    }
    return 0;
}

static tconv_output *output_open_dir(tconv_ctx *ctx, const char *path, const tconv_output_opts *o)
{
    if (!path || strcmp(path, "-") == 0) {
        tconv_error_set(ctx, "this writer writes a directory: give it with -o DIR");
        return NULL;
    }
    char *target;
    if (output_follow(ctx, path, &target) < 0) return NULL;
    const char *dest = target ? target : path;
    struct stat st;
    int exists = stat(dest, &st) == 0;
    if (exists && !S_ISDIR(st.st_mode)) {
        tconv_error_set(
            ctx, "output '%s' exists and is not a directory; remove it or pick another -o", path);
        free(target);
        return NULL;
    }
    if (exists && output_dir_check(ctx, dest, path, o->force) < 0) {
        free(target);
        return NULL;
    }
    tconv_output *out = output_new(ctx, path, TCONV_OUT_DIR);
    out->target = target;
    out->force = o->force;
    out->tmp = output_sibling(dest);
    /* Made before the directory exists: an allocation that fails ends the process, and what
     * exists must by then be in the registry. */
    out->aside = tconv_xmalloc(strlen(out->tmp) + 5);
    if (!mkdtemp(out->tmp)) {
        tconv_error_set(ctx, "cannot create a directory next to '%s': %s", path, strerror(errno));
        free(out->tmp);
        out->tmp = NULL;
        tconv_output_close(out);
        return NULL;
    }
    sprintf(out->aside, "%s-old", out->tmp);
    /* mkdtemp makes it 0700: a replaced directory keeps its owner and mode, a new one gets the
     * umask's permissions, as mkdir would give it. */
    if (exists && chown(out->tmp, st.st_uid, st.st_gid) != 0) {
        /* not permitted: the directory is the runner's, as a new one would be */
    }
    chmod(out->tmp, exists ? st.st_mode & 07777 : 0777 & ~output_umask());
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
    if (output_follow(ctx, path, &out->target) < 0) {
        tconv_output_close(out);
        return NULL;
    }
    if (out->target) path = out->target;
    int exists = stat(path, &st) == 0;
    if (exists && !S_ISREG(st.st_mode)) {
        out->fd = output_above_std(open(path, O_WRONLY | O_CLOEXEC));
        if (out->fd >= 0 && o->binary && isatty(out->fd)) {
            tconv_error_set(ctx, "refusing to write binary output to a terminal ('%s')", path);
            tconv_output_close(out);
            return NULL;
        }
    } else {
        out->tmp = output_sibling(path);
        out->fd = output_above_std(mkstemp(out->tmp));
        if (out->fd >= 0) {
            /* A replaced file keeps its owner, group (where permitted: chown needs privilege
             * unless only the group changes to one of the runner's) and mode; a new one gets
             * the usual 0666 & ~umask. The owner first: chown clears set-id bits. */
            if (exists && fchown(out->fd, st.st_uid, st.st_gid) != 0 &&
                fchown(out->fd, (uid_t)-1, st.st_gid) != 0) {
                /* not permitted: the file is the runner's, as a new one would be */
            }
            fchmod(out->fd, exists ? st.st_mode & 07777 : 0666 & ~output_umask());
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

/* A write past the process's file size limit (ulimit -f) fails with EFBIG, the kernel's
 * SIGXFSZ staying blocked in the writing thread (core/cli/cli_signal.c): said as the limit it
 * is, which strerror's "File too large" leaves to guess. */
static void output_write_error(tconv_output *out, int err)
{
    const char *name = strcmp(out->name, "-") ? out->name : "<stdout>";
    struct rlimit rl;
    if (err == EFBIG && getrlimit(RLIMIT_FSIZE, &rl) == 0 && rl.rlim_cur != RLIM_INFINITY)
        tconv_error_set(out->ctx,
                        "cannot write '%s': file too large: the file size limit (ulimit -f) is "
                        "%llu bytes",
                        name, (unsigned long long)rl.rlim_cur);
    else if (err == EFBIG)
        tconv_error_set(out->ctx, "cannot write '%s': file too large for its file system", name);
    else
        tconv_error_set(out->ctx, "cannot write '%s': %s", name, strerror(err));
}

static int output_flush(tconv_output *out)
{
    size_t off = 0;
    while (off < out->len) {
        ssize_t n = write(out->fd, out->buf + off, out->len - off);
        if (n < 0 && errno == EINTR) continue;
        if (n < 0) {
            out->failed = 1;
            output_write_error(out, errno);
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

/* The old directory when the new one could not be swapped with it (a file system without
 * RENAME_EXCHANGE): moved aside, the new one renamed in, the old one put back on failure. A kill
 * between the two renames leaves the name empty; both directories then carry the temporary
 * pattern, for the next run to remove. */
static int output_swap_by_renames(tconv_output *out, const char *dest)
{
    struct stat st;
    if (lstat(dest, &st) == 0) {
        if (output_dir_check(out->ctx, dest, out->name, out->force) < 0) return -1;
        if (rename(dest, out->aside) != 0) {
            tconv_error_set(out->ctx, "cannot replace '%s': %s", out->name, strerror(errno));
            return -1;
        }
        if (rename(out->tmp, dest) != 0) {
            int err = errno;
            rename(out->aside, dest);
            tconv_error_set(out->ctx, "cannot replace '%s': %s", out->name, strerror(err));
            return -1;
        }
        tconv_outsafe_rm_tree(out->aside);
        return 0;
    }
    if (rename(out->tmp, dest) != 0) {
        tconv_error_set(out->ctx, "cannot create '%s': %s", out->name, strerror(errno));
        return -1;
    }
    return 0;
}

static int output_swap_in(tconv_output *out, const char *dest)
{
    /* Other runs may create, swap or remove dest at the same time: each step is retried on the
     * state it finds, a few times. */
    for (int tries = 0; tries < 16; tries++) {
        if (renameat2(AT_FDCWD, out->tmp, AT_FDCWD, dest, RENAME_NOREPLACE) == 0) return 0;
        int err = errno;
        if (err == EINVAL || err == ENOSYS) return output_swap_by_renames(out, dest);
        if (err != EEXIST && err != ENOTEMPTY) {
            tconv_error_set(out->ctx, "cannot create '%s': %s", out->name, strerror(err));
            return -1;
        }
        struct stat st;
        if (stat(dest, &st) == 0 && !S_ISDIR(st.st_mode)) {
            tconv_error_set(out->ctx,
                            "output '%s' exists and is not a directory; remove it or pick another "
                            "-o",
                            out->name);
            return -1;
        }
        if (output_dir_check(out->ctx, dest, out->name, out->force) < 0) return -1;
        if (renameat2(AT_FDCWD, out->tmp, AT_FDCWD, dest, RENAME_EXCHANGE) != 0) {
            err = errno;
            if (err == ENOENT) continue; /* removed meanwhile: create it */
            if (err == EINVAL || err == ENOSYS) return output_swap_by_renames(out, dest);
            tconv_error_set(out->ctx, "cannot replace '%s': %s", out->name, strerror(err));
            return -1;
        }
        /* The old directory now has the temporary's name. Checked again: something may have
         * been put into it since the check above. */
        char *foreign = NULL;
        int empty = 1;
        int bad = tconv_outsafe_foreign(out->tmp, &foreign, &empty) < 0 || foreign ||
                  (!empty && !out->force);
        if (bad) {
            renameat2(AT_FDCWD, out->tmp, AT_FDCWD, dest, RENAME_EXCHANGE);
            tconv_error_usage(out->ctx,
                              "output directory '%s' changed while tconv wrote (it now holds "
                              "'%s'); left as it is",
                              out->name, foreign ? foreign : "files");
            free(foreign);
            return -1;
        }
        tconv_outsafe_rm_tree(out->tmp);
        return 0;
    }
    tconv_error_set(out->ctx, "cannot replace '%s': it keeps changing; try again", out->name);
    return -1;
}

static int output_discarded(tconv_output *out)
{
    tconv_error_set(out->ctx, "'%s' was not written: the run was stopped", out->name);
    return -1;
}

static int output_commit_dir(tconv_output *out)
{
    if (!output_take(out, OUTPUT_COMMITTING)) return output_discarded(out);
    int rc = output_swap_in(out, out->target ? out->target : out->name);
    /* Not swapped in: the temporary is still there, for abort to remove. */
    atomic_store(&out->state, rc == 0 ? OUTPUT_NONE : OUTPUT_PENDING);
    return rc;
}

/* The ranks of an MPI run whose writer runs on each (core/run/run.c) fill rank 0's temporary
 * directory; only rank 0 commits it or removes it. */
tconv_output *tconv_output_borrow_dir(tconv_ctx *ctx, const char *name, const char *dir)
{
    tconv_output *out = output_new(ctx, name, TCONV_OUT_DIR);
    out->tmp = tconv_xstrdup(dir);
    out->borrowed = 1;
    return out;
}

int tconv_output_commit(tconv_output *out)
{
    if (out->borrowed) return 0;
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
    if (!output_take(out, OUTPUT_COMMITTING)) return output_discarded(out);
    if (rename(out->tmp, out->target ? out->target : out->name) != 0) {
        atomic_store(&out->state, OUTPUT_PENDING);
        tconv_error_set(out->ctx, "cannot create '%s': %s", out->name, strerror(errno));
        return -1;
    }
    atomic_store(&out->state, OUTPUT_NONE);
    return 0;
}

void tconv_output_abort(tconv_output *out)
{
    if (!out || !out->tmp || out->borrowed) return;
    if (out->mode != TCONV_OUT_DIR && out->fd >= 0) {
        close(out->fd);
        out->fd = -1;
    }
    if (output_take(out, OUTPUT_GONE)) output_remove_tmp(out);
}

void tconv_output_close(tconv_output *out)
{
    if (!out) return;
    tconv_output_abort(out);
    output_untrack(out);
    if (out->fd > 2) close(out->fd);
    free(out->name);
    free(out->target);
    free(out->tmp);
    free(out->aside);
    free(out->buf);
    free(out);
}
