/* What the program prints on stderr: errors, warnings, notices and the progress line. Every
 * text that may hold bytes of an input (names, values, paths) is escaped, since a trace is
 * untrusted and a terminal obeys control sequences. */
#define _XOPEN_SOURCE 700 /* nftw, to size an output directory */
#include <stdatomic.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <ftw.h>
#include <stdio.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "cli.h"

/* Length of the valid UTF-8 sequence at s (1..4), or 0. */
static size_t cli_utf8_len(const unsigned char *s)
{
    unsigned c = s[0];
    size_t n;
    uint32_t cp;
    if (c < 0x80) return 1;
    if (c >= 0xc2 && c <= 0xdf) {
        n = 2;
        cp = c & 0x1f;
    } else if (c >= 0xe0 && c <= 0xef) {
        n = 3;
        cp = c & 0x0f;
    } else if (c >= 0xf0 && c <= 0xf4) {
        n = 4;
        cp = c & 0x07;
    } else {
        return 0;
    }
    for (size_t i = 1; i < n; i++) {
        if ((s[i] & 0xc0) != 0x80) return 0;
        cp = cp << 6 | (s[i] & 0x3f);
    }
    if ((n == 3 && cp < 0x800) || (n == 4 && (cp < 0x10000 || cp > 0x10ffff)) ||
        (cp >= 0xd800 && cp <= 0xdfff))
        return 0;
    return n;
}

void cli_put_safe(FILE *f, const char *str)
{
    const unsigned char *s = (const unsigned char *)str;
    while (*s) {
        size_t n = cli_utf8_len(s);
        if (n == 1 && *s >= 0x20 && *s != 0x7f) {
            fputc(*s++, f);
        } else if (n == 1) {
            if (*s == '\n')
                fputs("\\n", f);
            else if (*s == '\t')
                fputs("\\t", f);
            else if (*s == '\r')
                fputs("\\r", f);
            else
                fprintf(f, "\\x%02x", *s);
            s++;
        } else if (n == 2 && s[0] == 0xc2 && s[1] < 0xa0) {
            /* U+0080..U+009F: C1 controls (CSI is U+009B), obeyed by some terminals. */
            fprintf(f, "\\u%04x", s[1]);
            s += 2;
        } else if (n) {
            fwrite(s, 1, n, f);
            s += n;
        } else {
            fprintf(f, "\\x%02x", *s++);
        }
    }
}

void cli_say(const char *prefix, const char *s)
{
    fprintf(stderr, "tconv: %s", prefix);
    cli_put_safe(stderr, s);
    fputc('\n', stderr);
}

void cli_print_error(tconv_ctx *ctx, int usage)
{
    size_t n;
    const char *const *chain = tconv_error_chain(ctx, &n);
    if (!n) {
        cli_say("error: ", "conversion failed (no reason was given)");
        return;
    }
    cli_say(usage ? "" : "error: ", chain[0]);
    for (size_t i = 1; i < n; i++) {
        fputs("  caused by: ", stderr);
        cli_put_safe(stderr, chain[i]);
        fputc('\n', stderr);
    }
    const char *hint = tconv_error_hint_get(ctx);
    if (hint) {
        fputs("  hint: ", stderr);
        cli_put_safe(stderr, hint);
        fputc('\n', stderr);
    }
    if (usage) fputs("Try 'tconv --help' for more information.\n", stderr);
}

void cli_print_warnings(tconv_ctx *ctx)
{
    const char *kind, *first;
    uint64_t count;
    for (size_t i = 0; tconv_warning_get(ctx, i, &kind, &first, &count) == 0; i++) {
        fputs("tconv: warning: ", stderr);
        cli_put_safe(stderr, first);
        if (count == 1)
            fprintf(stderr, " [%s]\n", kind);
        else
            fprintf(stderr, " [%s, %llu times; first shown]\n", kind, (unsigned long long)count);
    }
}

/* ---- what was written --------------------------------------------------------------------- */

static uint64_t cli_tree_bytes, cli_tree_files;

static int cli_tree_add(const char *path, const struct stat *sb, int type, struct FTW *ftw)
{
    (void)path;
    (void)ftw;
    if (type == FTW_F && S_ISREG(sb->st_mode)) {
        cli_tree_bytes += (uint64_t)sb->st_size;
        cli_tree_files++;
    }
    return 0;
}

/* 532 bytes, 12.3 kB, 4.1 MB, 1.20 GB: as the -v throughput line counts (10^3 steps). */
static void cli_size(char *buf, size_t cap, uint64_t n)
{
    if (n < 1000)
        snprintf(buf, cap, "%llu byte%s", (unsigned long long)n, n == 1 ? "" : "s");
    else if (n < 1000000)
        snprintf(buf, cap, "%.1f kB", (double)n / 1e3);
    else if (n < 1000000000)
        snprintf(buf, cap, "%.1f MB", (double)n / 1e6);
    else
        snprintf(buf, cap, "%.2f GB", (double)n / 1e9);
}

void cli_print_written(const char *output)
{
    struct stat sb;
    if (!output || strcmp(output, "-") == 0 || stat(output, &sb) != 0) return;
    char size[64];
    fputs("tconv: wrote ", stderr);
    cli_put_safe(stderr, output);
    if (S_ISDIR(sb.st_mode)) {
        cli_tree_bytes = cli_tree_files = 0;
        if (nftw(output, cli_tree_add, 16, FTW_PHYS) != 0) {
            fputc('\n', stderr);
            return;
        }
        cli_size(size, sizeof(size), cli_tree_bytes);
        fprintf(stderr, " (%llu file%s, %s)\n", (unsigned long long)cli_tree_files,
                cli_tree_files == 1 ? "" : "s", size);
    } else {
        cli_size(size, sizeof(size), (uint64_t)sb.st_size);
        fprintf(stderr, " (%s)\n", size);
    }
}

/* ---- notices and progress ----------------------------------------------------------------- */

static int cli_verbosity;
static atomic_int cli_progress_shown;
static double cli_t0, cli_last;

static double cli_now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

void cli_progress_erase(void)
{
    static const char erase[] = "\r\033[K";
    if (atomic_exchange(&cli_progress_shown, 0)) {
        ssize_t w = write(2, erase, sizeof(erase) - 1);
        (void)w;
    }
}

static void cli_notice(void *user, tconv_notice_level level, const char *text)
{
    (void)user;
    /* An input's error is shown as every error is, -q or not. */
    int shown = level == TCONV_NOTICE_ERROR                                   ? 1
                : level == TCONV_NOTICE_WARNING || level == TCONV_NOTICE_NOTE ? cli_verbosity >= 0
                : level == TCONV_NOTICE_INFO                                  ? cli_verbosity > 0
                                             : cli_verbosity >= 0 && getenv("TCONV_DEBUG");
    if (!shown) return;
    cli_progress_erase();
    cli_say(level == TCONV_NOTICE_ERROR     ? "error: "
            : level == TCONV_NOTICE_WARNING ? "warning: "
            : level == TCONV_NOTICE_NOTE    ? "note: "
            : level == TCONV_NOTICE_DEBUG   ? "debug: "
                                            : "",
            text);
}

/* A progress line on a terminal only: it must never reach a log or a pipe. */
static void cli_progress(void *user, const tconv_progress *p)
{
    (void)user;
    double now = cli_now();
    if (now - cli_last < 0.5 || now - cli_t0 < 1.0) return;
    cli_last = now;
    double mb = (double)p->bytes_read / 1e6;
    fprintf(stderr, "\r\033[Ktconv: %.1f MB read, %.1f MB/s, %llu events", mb, mb / (now - cli_t0),
            (unsigned long long)p->events);
    if (p->ninputs > 1)
        fprintf(stderr, ", %u of %u inputs done", (unsigned)p->inputs_done, (unsigned)p->ninputs);
    atomic_store(&cli_progress_shown, 1);
}

void cli_hooks_init(tconv_host_hooks *hooks, int verbosity)
{
    cli_verbosity = verbosity;
    cli_t0 = cli_last = cli_now();
    *hooks = (tconv_host_hooks){sizeof(*hooks), NULL, cli_notice, NULL};
    if (verbosity >= 0 && isatty(2)) hooks->progress = cli_progress;
}
