/* What tconv may delete next to an output. A directory output is replaced only when it holds
 * nothing but what tconv itself would write there (nothing at all, or an OTF2 archive), and never
 * when the system or the process stands on it ('.', '..', '/', a mount point, a folder holding
 * the current directory): --force is permission to replace an earlier result, not to delete
 * whatever has that name. Temporaries carry the id of the process that made them, so that a later
 * run can tell the leftovers of a killed run (their process is gone) from the temporaries of a
 * run still going, and remove only the former. */
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <ftw.h>
#include <signal.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "io.h"

static int outsafe_rm_entry(const char *p, const struct stat *sb, int flag, struct FTW *ftw)
{
    (void)sb;
    (void)flag;
    (void)ftw;
    remove(p);
    return 0; /* go on: remove what can be removed */
}

void tconv_outsafe_rm_tree(const char *path)
{
    /* Never follows a link, never crosses into another file system mounted below. */
    nftw(path, outsafe_rm_entry, 16, FTW_DEPTH | FTW_PHYS | FTW_MOUNT);
}

static int outsafe_visible(const struct dirent *e)
{
    return strcmp(e->d_name, ".") && strcmp(e->d_name, "..");
}

/* Bytewise, so that "the first entry" named in a refusal does not depend on the locale. */
static int outsafe_order(const struct dirent **a, const struct dirent **b)
{
    return strcmp((*a)->d_name, (*b)->d_name);
}

static int outsafe_ends(const char *s, const char *suffix)
{
    size_t n = strlen(s), k = strlen(suffix);
    return n > k && strcmp(s + n - k, suffix) == 0;
}

static char *outsafe_join(const char *dir, const char *name)
{
    size_t n = strlen(dir) + strlen(name) + 2;
    char *p = tconv_xmalloc(n);
    snprintf(p, n, "%s/%s", dir, name);
    return p;
}

static void outsafe_free_list(struct dirent **e, int n)
{
    for (int i = 0; i < n; i++)
        free(e[i]);
    free(e);
}

/* An archive's trace folder holds one file per location: N.evt, N.def, N.snap. */
static int outsafe_trace_folder(const char *dir, char **foreign)
{
    struct dirent **e;
    int n = scandir(dir, &e, outsafe_visible, outsafe_order);
    if (n < 0) return -1;
    for (int i = 0; i < n && !*foreign; i++) {
        char *p = outsafe_join(dir, e[i]->d_name);
        struct stat st;
        const char *name = e[i]->d_name;
        int ok = lstat(p, &st) == 0 && S_ISREG(st.st_mode) &&
                 (outsafe_ends(name, ".evt") || outsafe_ends(name, ".def") ||
                  outsafe_ends(name, ".snap"));
        if (ok)
            free(p);
        else
            *foreign = p;
    }
    outsafe_free_list(e, n);
    return 0;
}

int tconv_outsafe_foreign(const char *dir, char **foreign, int *empty)
{
    *foreign = NULL;
    struct dirent **e;
    int n = scandir(dir, &e, outsafe_visible, outsafe_order);
    if (n < 0) return -1;
    *empty = n == 0;
    int rc = 0;
    for (int i = 0; i < n && !*foreign && rc == 0; i++) {
        const char *name = e[i]->d_name;
        char *p = outsafe_join(dir, name);
        struct stat st;
        if (lstat(p, &st) != 0) {
            *foreign = p;
            continue;
        }
        if (S_ISREG(st.st_mode) && (outsafe_ends(name, ".otf2") || outsafe_ends(name, ".def") ||
                                    outsafe_ends(name, ".marker"))) {
            free(p);
            continue;
        }
        /* The trace folder "S" of an anchor file "S.otf2". */
        char *anchor = tconv_xmalloc(strlen(p) + 6);
        sprintf(anchor, "%s.otf2", p);
        struct stat ast;
        int is_trace = S_ISDIR(st.st_mode) && lstat(anchor, &ast) == 0 && S_ISREG(ast.st_mode);
        free(anchor);
        if (is_trace) {
            rc = outsafe_trace_folder(p, foreign);
            free(p);
        } else {
            *foreign = p;
        }
    }
    outsafe_free_list(e, n);
    return rc;
}

/* The last component of path as written, trailing slashes ignored. */
static int outsafe_is_dot(const char *path)
{
    size_t n = strlen(path);
    while (n > 1 && path[n - 1] == '/')
        n--;
    size_t b = n;
    while (b > 0 && path[b - 1] != '/')
        b--;
    return (n - b == 1 && path[b] == '.') || (n - b == 2 && path[b] == '.' && path[b + 1] == '.');
}

int tconv_outsafe_place(tconv_ctx *ctx, const char *dir, const char *shown)
{
    if (outsafe_is_dot(dir)) {
        tconv_error_usage(ctx,
                          "refusing to replace '%s': tconv never replaces '.' or '..'; name an "
                          "output directory of its own with -o",
                          shown);
        return -1;
    }
    char *real = realpath(dir, NULL);
    if (!real) return 0; /* gone: nothing to protect */
    int bad = 0;
    struct stat st, up;
    char *parent = outsafe_join(real, "..");
    if (strcmp(real, "/") == 0) {
        tconv_error_usage(ctx, "refusing to replace '%s': it is the root directory", shown);
        bad = 1;
    } else if (stat(real, &st) == 0 && stat(parent, &up) == 0 &&
               (st.st_dev != up.st_dev || st.st_ino == up.st_ino)) {
        tconv_error_usage(ctx,
                          "refusing to replace '%s': it is a mount point; name a directory inside "
                          "it with -o",
                          shown);
        bad = 1;
    }
    free(parent);
    char *cwd = bad ? NULL : getcwd(NULL, 0);
    size_t n = strlen(real);
    if (cwd && strncmp(cwd, real, n) == 0 && (cwd[n] == 0 || cwd[n] == '/')) {
        tconv_error_usage(ctx,
                          "refusing to replace '%s': it holds the current directory; run tconv "
                          "from elsewhere or pick another -o",
                          shown);
        bad = 1;
    }
    free(cwd);
    free(real);
    return bad ? -1 : 0;
}

/* "<dir>/.<base>.tconv-<pid>-": the start of every temporary this process makes for base. */
static int outsafe_stale_pid(const char *name, const char *base, pid_t *pid)
{
    size_t k = strlen(base);
    if (name[0] != '.' || strncmp(name + 1, base, k) != 0) return 0;
    const char *p = name + 1 + k;
    if (strncmp(p, ".tconv-", 7) != 0) return 0;
    p += 7;
    long v = 0;
    const char *digits = p;
    while (*p >= '0' && *p <= '9' && v < 100000000)
        v = v * 10 + (*p++ - '0');
    if (p == digits || *p != '-' || v <= 0) return 0;
    *pid = (pid_t)v;
    return 1;
}

void tconv_outsafe_sweep(const char *dir, const char *base, const struct timespec *start)
{
    DIR *d = opendir(dir);
    if (!d) return;
    struct dirent *e;
    while ((e = readdir(d))) {
        pid_t pid;
        if (!outsafe_stale_pid(e->d_name, base, &pid) || pid == getpid()) continue;
        /* Alive (or not ours to signal): its run may still be writing. */
        if (kill(pid, 0) == 0 || errno != ESRCH) continue;
        char *p = outsafe_join(dir, e->d_name);
        struct stat st;
        int older = lstat(p, &st) == 0 &&
                    (st.st_mtim.tv_sec < start->tv_sec ||
                     (st.st_mtim.tv_sec == start->tv_sec && st.st_mtim.tv_nsec < start->tv_nsec));
        if (older && st.st_uid == geteuid()) {
            if (S_ISDIR(st.st_mode))
                tconv_outsafe_rm_tree(p);
            else
                unlink(p);
        }
        free(p);
    }
    closedir(d);
}
