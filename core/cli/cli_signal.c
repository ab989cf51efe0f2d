/* Ctrl-C, kill, a closed terminal or a closed pipe must not leave a hidden temporary output
 * behind. The signals are blocked in every thread and taken by one thread in sigwait, where any
 * function may be called: it removes the temporaries, asks the run to stop (with the signal, which
 * an MPI run's ranks agree on: core/run.c), and the program exits with 128 + the signal. A run
 * that cannot notice (blocked reading a quiet pipe or a terminal) gets a moment; then the thread
 * ends the process. The limits' signals (SIGXCPU, SIGXFSZ) are taken the same way, and said: the
 * shell, which names a death by them, sees an exit.
 *
 * A signal that the program found ignored when it started stays ignored (a shell starts
 * background jobs with SIGINT ignored, and they must not die of Ctrl-C). */
#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>

#include "cli.h"

enum { CLI_SIGNAL_GRACE_MS = 1000 };

static sigset_t cli_sigs;
static _Atomic(tconv_run *) cli_run;
static atomic_int cli_caught, cli_done;

static void *cli_signal_thread(void *arg)
{
    (void)arg;
    int sig = 0;
    while (sigwait(&cli_sigs, &sig) != 0)
        ;
    atomic_store(&cli_caught, sig);
    cli_progress_erase();
    if (atomic_load(&cli_done)) return NULL; /* the main thread is on its way out */
    /* The temporaries go at once: a signal before the commit means no output, and a process
     * manager (mpirun) may follow its signal with SIGKILL within a second. A run already
     * moving its output into place keeps it (tconv_outputs_discard). */
    tconv_outputs_discard();
    tconv_run *r = atomic_load(&cli_run);
    if (r) {
        tconv_run_signal(r, sig);
        for (int ms = 0; ms < CLI_SIGNAL_GRACE_MS && !atomic_load(&cli_done); ms += 10)
            nanosleep(&(struct timespec){0, 10 * 1000 * 1000}, NULL);
        /* The run finished and the main thread is on its way out with 128 + sig. */
        if (atomic_load(&cli_done)) return NULL;
    }
    tconv_outputs_discard();
    cli_signal_say(sig);
    _exit(128 + sig);
}

void cli_signal_say(int sig)
{
    if (sig == SIGXCPU)
        fputs("tconv: stopped: the CPU time limit (ulimit -t) was reached; nothing was written\n",
              stderr);
    else if (sig == SIGXFSZ)
        fputs("tconv: stopped: SIGXFSZ, the file size limit (ulimit -f); nothing was written\n",
              stderr);
}

void cli_signal_start(void)
{
    /* SIGXCPU (the CPU time limit) and SIGXFSZ (the file size limit) kill by default, as
     * TERM does, and leave as much behind. A write past the file size limit raises SIGXFSZ
     * in the writing thread, where it stays pending: the write fails with EFBIG, which the
     * run reports as the limit. */
    static const int which[] = {SIGINT, SIGTERM, SIGHUP, SIGPIPE, SIGXCPU, SIGXFSZ};
    sigemptyset(&cli_sigs);
    for (size_t i = 0; i < sizeof(which) / sizeof(which[0]); i++) {
        struct sigaction old;
        if (sigaction(which[i], NULL, &old) == 0 && old.sa_handler == SIG_IGN) continue;
        sigaddset(&cli_sigs, which[i]);
    }
    /* Before any other thread exists, so that every thread inherits the mask. */
    if (pthread_sigmask(SIG_BLOCK, &cli_sigs, NULL) != 0) return;
    pthread_t t;
    pthread_attr_t attr;
    pthread_attr_init(&attr);
    pthread_attr_setdetachstate(&attr, PTHREAD_CREATE_DETACHED);
    if (pthread_create(&t, &attr, cli_signal_thread, NULL) != 0)
        pthread_sigmask(SIG_UNBLOCK, &cli_sigs, NULL); /* default deaths then, as before */
    pthread_attr_destroy(&attr);
}

void cli_signal_set_run(tconv_run *r)
{
    atomic_store(&cli_run, r);
}

int cli_signal_caught(void)
{
    int sig = atomic_load(&cli_caught);
    if (sig) return sig;
    /* A write to a closed pipe raises SIGPIPE in the writing thread, where it stays pending
     * (blocked) for the watcher never to see: the run failed with EPIPE instead, and the program
     * ends as the signal would have ended it. */
    sigset_t pending;
    if (sigismember(&cli_sigs, SIGPIPE) && sigpending(&pending) == 0 &&
        sigismember(&pending, SIGPIPE))
        return SIGPIPE;
    return 0;
}

void cli_signal_run_done(void)
{
    atomic_store(&cli_done, 1);
}
