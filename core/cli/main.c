/* The tconv command line: parses the arguments, loads the plugins and runs one conversion
 * through the host API. Exit status: 0 success (warnings allowed), 1 conversion error, 2 usage
 * error, 128 + N when signal N interrupted it. */
#include <errno.h>
#include <getopt.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli.h"

typedef struct cli_args {
    const char *reader, *writer, *output;
    char **ropts, **wopts, **plugin_paths;
    size_t nropts, nwopts, npaths;
    int force, list, help, version, quiet, verbose, strict, stats, all_spans, keep_going;
    unsigned jobs;        /* -j; 0: the online CPUs */
    uint64_t jobs_memory; /* --jobs-memory; 0: the default */
    uint64_t max_input;   /* decompressed bytes per input */
    const char *help_plugin;
    const char *window, *steps, *step_name, *input, *rank;
    char **inputs;
    size_t ninputs;
} cli_args;

/* The help: the output endings are the loaded writers' own, not a list that falls behind. */
static void cli_usage(FILE *f, const tconv_host *h)
{
    fputs("usage: tconv [-r READER] [-w WRITER] [-o OUT] [-R key=val]... [-W key=val]...\n"
          "             [--force] [--keep-going] [-j N] [INPUT...]\n"
          "       tconv --list | --help-plugin NAME | --help | --version\n"
          "\n"
          "Convert traces and profiles between formats. INPUT absent or '-' reads stdin;\n"
          "several inputs are read in turn into one event stream. gzip input is recognised\n"
          "by its content and decompressed on the fly.\n"
          "\n"
          "  -r, --reader NAME     input format; omitted: detected from the first bytes\n"
          "  -w, --writer NAME     output format; omitted: picked by the end of -o's name\n",
          f);
    cli_writer_endings(h, f, 24, 80);
    fputs("  -o, --output OUT      output file or directory; absent or '-' is stdout\n"
          "  -R key=val            reader option (see --help-plugin READER)\n"
          "  -W key=val            writer option (see --help-plugin WRITER)\n"
          "      --stats           print a summary report of the inputs (-w summary -o -)\n"
          "      --window [@]START:[END]  only this part of the trace; times with a unit\n"
          "                        (ns us ms s) from its first event, e.g. 2s:3.5s, 200ms:,\n"
          "                        or absolute with @; spans are cut to the window\n"
          "      --steps A[-B]     only steps A to B (Kineto ProfilerStep#N), per input\n"
          "      --step-name P     steps are spans named P, or P and a number (P#3, P 3)\n"
          "      --input N         only the events of input N (0-based, as listed)\n"
          "      --rank N          only the events of the inputs of rank N in a distributed\n"
          "                        job (Kineto distributedInfo); every input must say its rank\n"
          "      --all-spans       count every span in self time (pprof, folded, summary,\n"
          "                        csv stacks), also the profiler's window and async spans,\n"
          "                        which are left out by default (a note says how many)\n"
          "      --strict          malformed records are errors, not counted warnings\n"
          "                        (for readers with a 'strict' option)\n"
          "      --force           replace an existing non-empty output directory\n"
          "      --keep-going      with several inputs or a directory: report an input that\n"
          "                        fails, leave it out whole, and write the output from the\n"
          "                        rest (then 'N of M inputs failed', exit 1)\n"
          "  -j, --jobs N          read up to N inputs at once on N threads (default: the\n"
          "                        online CPUs, at most the inputs; 1: one after another);\n"
          "                        one JSON trace of 16 MiB or more, alone, is read in parts\n"
          "                        on N threads unless its events are of the dense legacy\n"
          "                        shape (a .gz one is decompressed on one thread); an nsys\n"
          "                        export that large reads its CPU samples' frames on a\n"
          "                        second thread; the output is the same for every N\n"
          "      --jobs-memory SIZE  most memory the inputs read ahead may hold at once\n"
          "                        (suffixes K M G T; default a quarter of the memory; 0: no\n"
          "                        limit); past it threads wait; the output is the same\n"
          "      --plugin-path DIR search DIR for plugins (repeatable)\n"
          "      --max-input-bytes N  stop when a gzip input decompresses past N bytes\n"
          "                        (suffixes K M G T; default 64G; 0: no limit)\n"
          "      --list            list plugins, readers and writers\n"
          "      --help-plugin N   describe plugin, reader or writer N and its options\n"
          "  -q, --quiet           no warnings or progress\n"
          "  -v, --verbose         say which reader reads each input, and the throughput\n"
          "  -V, --version         print the version\n"
          "  -h, --help            this help\n"
          "\n"
          "Plugins are searched in $TCONV_PLUGIN_PATH (colon-separated), each --plugin-path,\n"
          "~/.local/lib/tconv/plugins, next to the executable (plugins/, ../lib/tconv/plugins),\n"
          "then the installed plugin folder; the first plugin of a name wins.\n"
          "Exit status: 0 done (maybe with warnings), 1 conversion failed, 2 usage.\n"
          "\n"
          "examples:\n"
          "  tconv -w pprof -o trace.pb.gz trace.json.gz   # then: go tool pprof -top trace.pb.gz\n"
          "  tconv -r chrome -w otf2 -o trace_otf2 trace.json\n"
          "  tconv -w text trace.json | less\n",
          f);
}

static int cli_usage_error(const char *fmt, const char *a)
{
    fprintf(stderr, "tconv: ");
    fprintf(stderr, fmt, a);
    fprintf(stderr, "\nTry 'tconv --help' for more information.\n");
    return CLI_EXIT_USAGE;
}

static void cli_push(char ***arr, size_t *n, char *s)
{
    *arr = realloc(*arr, (*n + 1) * sizeof(**arr));
    if (!*arr) {
        fputs("tconv: error: out of memory\n", stderr);
        exit(1);
    }
    (*arr)[(*n)++] = s;
}

/* "123", "500K", "64G": bytes, with binary suffixes. */
static int cli_parse_size(const char *s, uint64_t *out)
{
    char *end;
    errno = 0;
    unsigned long long v = strtoull(s, &end, 10);
    if (errno || end == s || *s == '-') return -1;
    int shift = 0;
    switch (*end) {
    case 0:
        break;
    case 'K':
    case 'k':
        shift = 10;
        break;
    case 'M':
    case 'm':
        shift = 20;
        break;
    case 'G':
    case 'g':
        shift = 30;
        break;
    case 'T':
    case 't':
        shift = 40;
        break;
    default:
        return -1;
    }
    if (*end && end[1]) return -1;
    if (shift && v > (UINT64_MAX >> shift)) return -1;
    *out = (uint64_t)v << shift;
    return 0;
}

static int cli_parse(int argc, char **argv, cli_args *a)
{
    enum {
        O_FORCE = 256,
        O_LIST,
        O_HELP_PLUGIN,
        O_PLUGIN_PATH,
        O_STRICT,
        O_MAX_INPUT,
        O_STATS,
        O_ALL_SPANS,
        O_WINDOW,
        O_STEPS,
        O_STEP_NAME,
        O_INPUT,
        O_RANK,
        O_KEEP_GOING,
        O_JOBS_MEMORY
    };
    static const struct option longopts[] = {
        {"reader", required_argument, 0, 'r'},
        {"writer", required_argument, 0, 'w'},
        {"output", required_argument, 0, 'o'},
        {"force", no_argument, 0, O_FORCE},
        {"strict", no_argument, 0, O_STRICT},
        {"all-spans", no_argument, 0, O_ALL_SPANS},
        {"window", required_argument, 0, O_WINDOW},
        {"steps", required_argument, 0, O_STEPS},
        {"step-name", required_argument, 0, O_STEP_NAME},
        {"input", required_argument, 0, O_INPUT},
        {"rank", required_argument, 0, O_RANK},
        {"list", no_argument, 0, O_LIST},
        {"help-plugin", required_argument, 0, O_HELP_PLUGIN},
        {"plugin-path", required_argument, 0, O_PLUGIN_PATH},
        {"max-input-bytes", required_argument, 0, O_MAX_INPUT},
        {"stats", no_argument, 0, O_STATS},
        {"keep-going", no_argument, 0, O_KEEP_GOING},
        {"jobs", required_argument, 0, 'j'},
        {"jobs-memory", required_argument, 0, O_JOBS_MEMORY},
        {"quiet", no_argument, 0, 'q'},
        {"verbose", no_argument, 0, 'v'},
        {"version", no_argument, 0, 'V'},
        {"help", no_argument, 0, 'h'},
        {0, 0, 0, 0},
    };
    opterr = 0;
    int c;
    while ((c = getopt_long(argc, argv, ":r:w:o:R:W:j:qvVh", longopts, NULL)) != -1) {
        switch (c) {
        case 'r':
            a->reader = optarg;
            break;
        case 'w':
            a->writer = optarg;
            break;
        case 'o':
            a->output = optarg;
            break;
        case 'R':
            cli_push(&a->ropts, &a->nropts, optarg);
            break;
        case 'W':
            cli_push(&a->wopts, &a->nwopts, optarg);
            break;
        case 'j': {
            char *end;
            errno = 0;
            unsigned long n = strtoul(optarg, &end, 10);
            if (!*optarg || *end || errno || optarg[0] == '-' || n < 1 || n > 4096)
                return cli_usage_error("-j '%s': give a number of threads from 1 to 4096", optarg);
            a->jobs = (unsigned)n;
            break;
        }
        case 'q':
            a->quiet = 1;
            break;
        case 'v':
            a->verbose++;
            break;
        case 'V':
            a->version = 1;
            break;
        case 'h':
            a->help = 1;
            break;
        case O_FORCE:
            a->force = 1;
            break;
        case O_ALL_SPANS:
            a->all_spans = 1;
            break;
        case O_WINDOW:
            a->window = optarg;
            break;
        case O_STEPS:
            a->steps = optarg;
            break;
        case O_STEP_NAME:
            a->step_name = optarg;
            break;
        case O_INPUT:
            a->input = optarg;
            break;
        case O_RANK:
            a->rank = optarg;
            break;
        case O_STRICT:
            a->strict = 1;
            break;
        case O_LIST:
            a->list = 1;
            break;
        case O_HELP_PLUGIN:
            a->help_plugin = optarg;
            break;
        case O_STATS:
            a->stats = 1;
            break;
        case O_KEEP_GOING:
            a->keep_going = 1;
            break;
        case O_MAX_INPUT:
            if (cli_parse_size(optarg, &a->max_input) < 0)
                return cli_usage_error("--max-input-bytes: '%s' is not a size (like 500M, 64G, "
                                       "or 0 for no limit)",
                                       optarg);
            break;
        case O_JOBS_MEMORY:
            if (cli_parse_size(optarg, &a->jobs_memory) < 0)
                return cli_usage_error("--jobs-memory: '%s' is not a size (like 64K, 500M, 2G, "
                                       "or 0 for no limit)",
                                       optarg);
            if (!a->jobs_memory) a->jobs_memory = UINT64_MAX;
            break;
        case O_PLUGIN_PATH:
            cli_push(&a->plugin_paths, &a->npaths, optarg);
            break;
        case ':':
            return cli_usage_error("option '%s' needs an argument", argv[optind - 1]);
        default:
            return cli_usage_error("unknown option '%s'", argv[optind - 1]);
        }
    }
    for (int i = optind; i < argc; i++)
        cli_push(&a->inputs, &a->ninputs, argv[i]);
    if (a->stats) {
        if (a->writer || a->output)
            return cli_usage_error("%s", "--stats is -w summary -o -: give no -w or -o with it");
        a->writer = "summary";
        a->output = "-";
    }
    return 0;
}

static int cli_convert(const cli_args *a, tconv_host *h)
{
    tconv_run_opts o = TCONV_RUN_OPTS_INIT;
    o.reader = a->reader;
    o.writer = a->writer;
    o.output = a->output;
    o.inputs = (const char *const *)a->inputs;
    o.ninputs = a->ninputs;
    o.reader_options = (const char *const *)a->ropts;
    o.nreader_options = a->nropts;
    o.writer_options = (const char *const *)a->wopts;
    o.nwriter_options = a->nwopts;
    o.force = a->force;
    o.strict = a->strict;
    o.all_spans = a->all_spans;
    o.window = a->window;
    o.steps = a->steps;
    o.step_name = a->step_name;
    if (a->input) {
        char *end;
        unsigned long long n = strtoull(a->input, &end, 10);
        if (!*a->input || *end || a->input[0] == '-' || n > UINT32_MAX) {
            fprintf(stderr, "tconv: --input '%s': give an input's 0-based position\n", a->input);
            return CLI_EXIT_USAGE;
        }
        o.only_input = 1;
        o.input = (uint32_t)n;
    }
    if (a->rank) {
        char *end;
        errno = 0;
        long long n = strtoll(a->rank, &end, 10);
        if (!*a->rank || *end || errno || n < 0) {
            fprintf(stderr, "tconv: --rank '%s': give a rank, a number from 0\n", a->rank);
            return CLI_EXIT_USAGE;
        }
        o.only_rank = 1;
        o.rank = n;
    }
    o.verbosity = a->quiet ? -1 : a->verbose;
    o.max_input_size = a->max_input;
    o.keep_going = a->keep_going;
    o.jobs = a->jobs;
    o.jobs_memory = a->jobs_memory;
    int from_stdin = !a->ninputs;
    for (size_t i = 0; i < a->ninputs; i++)
        from_stdin |= strcmp(a->inputs[i], "-") == 0;
    if (from_stdin && !a->quiet && isatty(0))
        fputs("tconv: reading the trace from the terminal (standard input); give an input file, "
              "or end with Ctrl-D\n",
              stderr);

    tconv_run *r = tconv_run_new(h, &o);
    cli_signal_set_run(r);
    tconv_outcome res = tconv_run_execute(r);
    cli_signal_run_done();
    cli_progress_erase();
    int sig = res == TCONV_DONE || res == TCONV_PARTIAL ? 0 : cli_signal_caught();
    if (!sig && res == TCONV_INTERRUPTED) { /* in an MPI run, maybe another rank's signal */
        tconv_run_stats st = {.struct_size = sizeof(st)};
        tconv_run_get_stats(r, &st);
        sig = st.signal;
    }
    tconv_ctx *ctx = tconv_run_ctx(r);
    if (a->verbose && res != TCONV_USAGE) {
        tconv_run_stats st = {.struct_size = sizeof(st)};
        tconv_run_get_stats(r, &st);
        fprintf(stderr,
                "tconv: %llu events from %.1f MB (%.1f MB read) in %.3f s: %.1f MB/s of input\n",
                (unsigned long long)st.events, (double)st.bytes_plain / 1e6,
                (double)st.bytes_read / 1e6, st.seconds,
                st.seconds > 0 ? (double)st.bytes_plain / 1e6 / st.seconds : 0.0);
    }
    int rc = 0;
    if (sig) {
        rc = 128 + sig;      /* interrupted: the shell says so; nothing more to tell */
        cli_signal_say(sig); /* but for the limits' signals, which end in an exit */
    } else {
        if (!a->quiet && res != TCONV_USAGE) cli_print_warnings(ctx);
        /* Where the result went, for someone watching (-v, or a terminal): a conversion that
         * ends in silence leaves them to look for it. Said by the process that put it in place
         * (rank 0 of an MPI run). */
        tconv_run_stats done = {.struct_size = sizeof(done)};
        tconv_run_get_stats(r, &done);
        if (done.committed && !a->quiet && (a->verbose || isatty(2))) cli_print_written(a->output);
        if (res != TCONV_DONE) cli_print_error(ctx, res == TCONV_USAGE);
        rc = res == TCONV_DONE ? 0 : res == TCONV_USAGE ? CLI_EXIT_USAGE : CLI_EXIT_CONVERT;
    }
    tconv_run_free(r);
    return rc;
}

static int cli_main(const cli_args *a)
{
    if (a->version) {
        unsigned major, minor;
        tconv_version_abi(&major, &minor);
        printf("tconv %s (plugin ABI %u.%u)\n", tconv_version_string(), major, minor);
        return 0;
    }
    if (tconv_host_privileged()) {
        fputs("tconv: refusing to run with raised privileges (setuid, setgid or file "
              "capabilities): tconv reads, writes and loads the files its user names, and must "
              "do so as that user; install it without them\n",
              stderr);
        /* Nothing more runs with those privileges, not even exit handlers (a sanitizer's
         * leak check would ptrace the process, which raised privileges forbid). */
        _exit(CLI_EXIT_USAGE);
    }
    cli_signal_start();
    tconv_host_hooks hooks;
    cli_hooks_init(&hooks, a->quiet ? -1 : a->verbose);
    tconv_host *h = tconv_host_new(&hooks);
    tconv_host_load_standard(h, (const char *const *)a->plugin_paths, a->npaths);
    int rc;
    if (a->help) {
        cli_usage(stdout, h);
        rc = 0;
    } else if (a->list) {
        cli_list(h);
        rc = 0;
    } else if (a->help_plugin) {
        rc = cli_help_plugin(h, a->help_plugin);
    } else {
        rc = cli_convert(a, h);
    }
    tconv_host_free(h);
    return rc;
}

int main(int argc, char **argv)
{
    cli_args a = {0};
    a.max_input = 64ull << 30; /* far above real traces, far below what a gzip bomb makes */
    int rc = cli_parse(argc, argv, &a);
    if (rc == 0) rc = cli_main(&a);
    free(a.ropts);
    free(a.wopts);
    free(a.plugin_paths);
    free(a.inputs);
    return rc;
}
