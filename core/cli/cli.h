/* The tconv program: a user of the host API (tconv/host.h) and nothing else, so that anything
 * it can do, another program embedding libtconv can do too. */
#ifndef TCONV_CLI_H
#define TCONV_CLI_H

#include <stdio.h>

#include <tconv/host.h>
#include <tconv/tconv.h>

enum { CLI_EXIT_CONVERT = 1, CLI_EXIT_USAGE = 2 };

/* ---- messages (cli_report.c) ---- */
/* Writes s to f with control bytes, C1 controls and invalid UTF-8 escaped: names come from the
 * input, and an input must not drive the user's terminal. */
void cli_put_safe(FILE *f, const char *s);
/* "tconv: <prefix>s\n", s escaped. */
void cli_say(const char *prefix, const char *s);
void cli_print_error(tconv_ctx *ctx, int usage);
void cli_print_warnings(tconv_ctx *ctx);
/* "tconv: wrote OUT (1.2 MB)", or a directory's files and bytes; nothing for standard output. */
void cli_print_written(const char *output);
/* Host hooks: notices to stderr (as -q/-v allow), a progress line on a terminal only. */
void cli_hooks_init(tconv_host_hooks *hooks, int verbosity);
/* Erases the progress line if one is shown; async-signal-safe. */
void cli_progress_erase(void);

/* ---- plugins (cli_list.c) ---- */
void cli_list(const tconv_host *h);
int cli_help_plugin(const tconv_host *h, const char *name);
/* The output name endings the loaded writers claim (".svg -> flamegraph, ..."), wrapped at width
 * columns, each line indented. */
void cli_writer_endings(const tconv_host *h, FILE *f, int indent, int width);

/* ---- signals (cli_signal.c) ---- */
/* Blocks SIGINT, SIGTERM, SIGHUP, SIGPIPE, SIGXCPU and SIGXFSZ (those not ignored at start) in
 * every thread and starts a thread that waits for them: a signal interrupts the current run,
 * which removes its temporary output, and the program exits with 128 + the signal. */
void cli_signal_start(void);
void cli_signal_set_run(tconv_run *r);
/* The signal that interrupted the run, or 0. */
int cli_signal_caught(void);
/* What a limit's signal (SIGXCPU, SIGXFSZ) ended, on stderr; nothing for the others. */
void cli_signal_say(int sig);
/* The run ended: the watcher need not clean up after it. */
void cli_signal_run_done(void);

#endif
