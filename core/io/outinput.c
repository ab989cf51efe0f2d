/* An output that is also an input. The output replaces its name only when the run succeeds, so
 * such a run would end by replacing the input with what was made from it (a perf capture named
 * .txt picks the text writer; "-o t.pb.gz t.pb.gz" rewrites a profile): the user's data is gone
 * and the exit status says success. So before anything is read or written, the output is
 * compared with every named input: the same file (device and inode: hard links, bind mounts),
 * the same path once links are resolved, an input directory that holds the output, or an output
 * directory (which --force replaces whole) that holds an input. Devices and FIFOs are not
 * compared: "-o /dev/null" with a "/dev/null" input loses nothing. */
#define _XOPEN_SOURCE 700
#include <errno.h>
#include <libgen.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "io.h"

/* The absolute path the output has or will have: its links resolved, or its folder's when it
 * does not exist yet. NULL when even its folder cannot be resolved (opening it fails later). */
static char *outinput_resolve(const char *path)
{
    char *real = realpath(path, NULL);
    if (real || errno != ENOENT) return real;
    char *d = tconv_xstrdup(path), *b = tconv_xstrdup(path);
    char *dir = realpath(dirname(d), NULL);
    const char *base = basename(b);
    char *full = NULL;
    if (dir && strcmp(base, ".") && strcmp(base, "..") && strcmp(base, "/")) {
        size_t n = strlen(dir) + strlen(base) + 2;
        full = tconv_xmalloc(n);
        snprintf(full, n, "%s%s%s", dir, strcmp(dir, "/") ? "/" : "", base);
    }
    free(dir);
    free(d);
    free(b);
    return full;
}

/* 1 when path lies below dir (both absolute and resolved). */
static int outinput_below(const char *path, const char *dir)
{
    size_t n = strlen(dir);
    if (strcmp(dir, "/") == 0) return path[0] == '/' && path[1] != 0;
    return strncmp(path, dir, n) == 0 && path[n] == '/';
}

static int outinput_same(const struct stat *a, const struct stat *b)
{
    return a->st_dev == b->st_dev && a->st_ino == b->st_ino;
}

int tconv_output_check_inputs(tconv_ctx *ctx, const char *output, const char *const *inputs,
                              size_t ninputs)
{
    static const char *const stdin_only[] = {"-"};
    if (!output || strcmp(output, "-") == 0) return 0;
    struct stat ost;
    int oexists = stat(output, &ost) == 0;
    if (oexists && !S_ISREG(ost.st_mode) && !S_ISDIR(ost.st_mode)) return 0;
    if (!ninputs) {
        inputs = stdin_only;
        ninputs = 1;
    }
    char *rout = outinput_resolve(output);
    int bad = 0;
    for (size_t i = 0; i < ninputs && !bad; i++) {
        const char *in = inputs[i];
        struct stat ist;
        if (strcmp(in, "-") == 0) {
            if (oexists && fstat(0, &ist) == 0 && S_ISREG(ist.st_mode) &&
                outinput_same(&ist, &ost)) {
                tconv_error_usage(ctx,
                                  "output '%s' is also the input (standard input); the run would "
                                  "replace it: pick another -o",
                                  output);
                bad = 1;
            }
            continue;
        }
        if (stat(in, &ist) != 0) continue; /* opening it fails later, with the reason */
        char *rin = realpath(in, NULL);
        if ((oexists && outinput_same(&ist, &ost)) || (rin && rout && strcmp(rin, rout) == 0)) {
            tconv_error_usage(ctx,
                              "output '%s' is also the input '%s'; the run would replace it: "
                              "pick another -o",
                              output, in);
            bad = 1;
        } else if (rin && rout && S_ISDIR(ist.st_mode) && outinput_below(rout, rin)) {
            tconv_error_usage(ctx,
                              "output '%s' is inside the input directory '%s', where the run "
                              "would read it: pick an -o outside it",
                              output, in);
            bad = 1;
        } else if (rin && rout && oexists && S_ISDIR(ost.st_mode) && outinput_below(rin, rout)) {
            tconv_error_usage(ctx,
                              "input '%s' is inside the output directory '%s', which the run "
                              "replaces: pick another -o",
                              in, output);
            bad = 1;
        }
        free(rin);
    }
    free(rout);
    return bad ? -1 : 0;
}
