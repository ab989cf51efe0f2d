/* A plugin runs code as it loads: its libraries' and its own constructors inside dlopen, then its
 * entry point, and the loader reads the descriptor it returns. A crash there used to take down
 * every command, --list included, without a word of which file. While one plugin loads, the
 * fatal signals a crash raises (SIGSEGV, SIGBUS, SIGILL, SIGFPE, SIGABRT) go to a handler that
 * names the file on stderr and ends the process with exit 1; the previous handlers are put back
 * once the plugin is loaded or refused.
 *
 * Why not go on without the plugin: jumping out of the handler (siglongjmp) would leave the
 * dynamic linker mid-dlopen, its lock taken and the half-initialised object in its list, and the
 * next dlopen's behaviour undefined; probing each plugin in a forked child first would cost a
 * fork per plugin per run and fork inside programs that embed the library (threads, MPI). So
 * the culprit is named and the user removes it. A crash inside a plugin later, while it reads or
 * writes, cannot be contained either: its code runs in the process, and the process dies with
 * the signal (docs/security.md). */
#define _GNU_SOURCE
#include <signal.h>
#include <string.h>
#include <unistd.h>

#include "plugin.h"

static const int guard_sigs[] = {SIGSEGV, SIGBUS, SIGILL, SIGFPE, SIGABRT};
enum { GUARD_NSIGS = sizeof(guard_sigs) / sizeof(guard_sigs[0]) };

struct tconv_loadguard {
    struct sigaction old[GUARD_NSIGS];
    stack_t old_stack;
    int stack_set;
};

/* Written by the handler: made before the plugin runs, since a handler may only write. */
static char guard_msg[4096 + 160];
static size_t guard_len;
/* A crash that is a stack overflow (a constructor recursing) needs a stack of its own. */
static char guard_stack[64 * 1024];

static void guard_handler(int sig)
{
    const char *name = sig == SIGSEGV  ? "SIGSEGV"
                       : sig == SIGBUS ? "SIGBUS"
                       : sig == SIGILL ? "SIGILL"
                       : sig == SIGFPE ? "SIGFPE"
                                       : "SIGABRT";
    static const char tail[] = "): remove it from the plugin path, or rebuild it\n";
    ssize_t rc = write(2, guard_msg, guard_len);
    rc = write(2, name, strlen(name));
    rc = write(2, tail, sizeof(tail) - 1);
    (void)rc;
    _exit(1);
}

tconv_loadguard *tconv_loadguard_begin(const char *path)
{
    tconv_loadguard *g = tconv_xcalloc(1, sizeof(*g));
    /* The path as the user's terminal should see it: control bytes as '?'. */
    static const char head[] = "tconv: error: plugin '";
    static const char mid[] = "' crashed while loading (";
    size_t n = 0, cap = sizeof(guard_msg) - sizeof(mid);
    memcpy(guard_msg, head, sizeof(head) - 1);
    n = sizeof(head) - 1;
    for (const unsigned char *p = (const unsigned char *)path; *p && n < cap; p++)
        guard_msg[n++] = *p < 0x20 || *p == 0x7f ? '?' : (char)*p;
    memcpy(guard_msg + n, mid, sizeof(mid) - 1);
    guard_len = n + sizeof(mid) - 1;
    stack_t st = {.ss_sp = guard_stack, .ss_size = sizeof(guard_stack), .ss_flags = 0};
    g->stack_set = sigaltstack(&st, &g->old_stack) == 0;
    struct sigaction sa;
    memset(&sa, 0, sizeof(sa));
    sa.sa_handler = guard_handler;
    sigemptyset(&sa.sa_mask);
    sa.sa_flags = SA_ONSTACK | SA_RESETHAND;
    for (int i = 0; i < GUARD_NSIGS; i++)
        sigaction(guard_sigs[i], &sa, &g->old[i]);
    return g;
}

void tconv_loadguard_end(tconv_loadguard *g)
{
    for (int i = 0; i < GUARD_NSIGS; i++)
        sigaction(guard_sigs[i], &g->old[i], NULL);
    if (g->stack_set) sigaltstack(&g->old_stack, NULL);
    free(g);
}
