/* An output that is also an input. The output replaces its name only when the run succeeds, so
 * such a run would end by replacing the input with what was made from it (a perf capture named
 * .txt picks the text writer; "-o t.pb.gz t.pb.gz" rewrites a profile): the user's data is gone
 * and the exit status says success. So before anything is read or written, the output is
 * compared with every named input: the same file (device and inode: hard links, bind mounts),
 * the same path once links are resolved, an input directory that holds the output, or an output
 * directory (which --force replaces whole) that holds an input. Devices and FIFOs are not
 * compared: "-o /dev/null" with a "/dev/null" input loses nothing.
 *
 * An input may be more than its own file: a reader that opens files of its own (an OTF2
 * archive's definitions and event files, found from its anchor file) names them through its
 * class's members(), and each is compared as the input is. A run writing into one of them
 * would destroy the archive it reads, with the same exit status of success. */
#define _XOPEN_SOURCE 700
#include <errno.h>
#include <libgen.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "run.h"

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

/* One file the run reads: the input as named (member NULL), or a file its reader opens for it. */
typedef struct outinput_cmp {
    tconv_ctx *ctx;
    const char *output, *rout; /* as given, and resolved */
    const struct stat *ost;    /* NULL when the output does not exist */
    const char *input;         /* the input it belongs to, for messages */
    int bad;
} outinput_cmp;

static void outinput_compare(outinput_cmp *c, const char *path, const char *member)
{
    struct stat ist;
    if (c->bad) return;
    /* An input that does not exist fails later, with the reason; a member that does not exist
     * yet (an archive without markers) is still the reader's to look for. */
    int exists = stat(path, &ist) == 0;
    if (!exists && !member) return;
    if (!exists) ist = (struct stat){0};
    char *rin = exists ? realpath(path, NULL) : outinput_resolve(path);
    const char *out = c->output, *in = c->input;
    const char *rout = c->rout;
    if ((exists && c->ost && outinput_same(&ist, c->ost)) ||
        (rin && rout && strcmp(rin, rout) == 0)) {
        if (member)
            tconv_error_usage(c->ctx,
                              "output '%s' is part of the input '%s' (its reader reads '%s'); "
                              "the run would replace it: pick another -o",
                              out, in, member);
        else
            tconv_error_usage(c->ctx,
                              "output '%s' is also the input '%s'; the run would replace it: "
                              "pick another -o",
                              out, in);
        c->bad = 1;
    } else if (rin && rout && exists && S_ISDIR(ist.st_mode) && outinput_below(rout, rin)) {
        if (member)
            tconv_error_usage(c->ctx,
                              "output '%s' is inside '%s', part of the input '%s', where the "
                              "run would read it: pick an -o outside it",
                              out, member, in);
        else
            tconv_error_usage(c->ctx,
                              "output '%s' is inside the input directory '%s', where the run "
                              "would read it: pick an -o outside it",
                              out, in);
        c->bad = 1;
    } else if (rin && rout && c->ost && S_ISDIR(c->ost->st_mode) && outinput_below(rin, rout)) {
        tconv_error_usage(c->ctx,
                          "input '%s' is inside the output directory '%s', which the run "
                          "replaces: pick another -o",
                          member ? member : in, out);
        c->bad = 1;
    }
    free(rin);
}

static void outinput_member(void *arg, const char *member)
{
    if (member) outinput_compare(arg, member, member);
}

/* The files the readers would open for the regular file in besides it: -r's reader's, or those
 * of every reader that takes the file for its own. */
static void outinput_members(outinput_cmp *c, const tconv_host *h, const tconv_reader_class *fixed,
                             const char *in)
{
    struct stat st;
    if (!h || stat(in, &st) != 0 || !S_ISREG(st.st_mode)) return;
    for (size_t i = 0; i < h->reg.n && !c->bad; i++)
        for (const tconv_reader_class *const *rc = h->reg.plugins[i].desc->readers;
             rc && *rc && !c->bad; rc++) {
            void (*members)(const char *, void (*)(void *, const char *), void *) =
                TCONV_CLASS_GET(*rc, members);
            if (members && (!fixed || fixed == *rc)) members(in, outinput_member, c);
        }
}

int tconv_output_check_inputs(tconv_ctx *ctx, const char *output, const char *const *inputs,
                              size_t ninputs, const tconv_host *h, const tconv_reader_class *fixed)
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
    outinput_cmp c = {ctx, output, rout, oexists ? &ost : NULL, NULL, 0};
    for (size_t i = 0; i < ninputs && !c.bad; i++) {
        const char *in = inputs[i];
        struct stat ist;
        if (strcmp(in, "-") == 0) {
            if (oexists && fstat(0, &ist) == 0 && S_ISREG(ist.st_mode) &&
                outinput_same(&ist, &ost)) {
                tconv_error_usage(ctx,
                                  "output '%s' is also the input (standard input); the run would "
                                  "replace it: pick another -o",
                                  output);
                c.bad = 1;
            }
            continue;
        }
        c.input = in;
        outinput_compare(&c, in, NULL);
        outinput_members(&c, h, fixed, in);
    }
    free(rout);
    return c.bad ? -1 : 0;
}
