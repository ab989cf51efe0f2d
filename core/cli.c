/* The tconv command line: finds plugins, picks a reader and a writer, runs the conversion.
 * Exit status: 0 success (warnings allowed), 1 conversion error, 2 usage error. */
#include <dirent.h>
#include <errno.h>
#include <getopt.h>
#include <libgen.h>
#include <limits.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "internal.h"

#ifndef TCONV_VERSION
#define TCONV_VERSION "0.0.0"
#endif
#ifndef TCONV_PLUGINDIR
#define TCONV_PLUGINDIR "/usr/local/lib/tconv/plugins"
#endif

enum { EXIT_CONVERT = 1, EXIT_USAGE = 2 };

typedef struct cli_args {
    const char *reader, *writer, *output;
    char **ropts, **wopts, **plugin_paths;
    size_t nropts, nwopts, npaths;
    int force, list, help, version, quiet, verbose, strict, stats;
    uint64_t max_input; /* decompressed bytes per input */
    const char *help_plugin;
    char **inputs;
    size_t ninputs;
} cli_args;

static void cli_usage(FILE *f)
{
    fputs("usage: tconv [-r READER] [-w WRITER] [-o OUT] [-R key=val]... [-W key=val]...\n"
          "             [--force] [INPUT...]\n"
          "       tconv --list | --help-plugin NAME | --help | --version\n"
          "\n"
          "Convert traces and profiles between formats. INPUT absent or '-' reads stdin;\n"
          "several inputs are read in turn into one event stream. gzip input is recognised\n"
          "by its content and decompressed on the fly.\n"
          "\n"
          "  -r, --reader NAME     input format; omitted: detected from the first bytes\n"
          "  -w, --writer NAME     output format; omitted: inferred from -o\n"
          "                        (.pb.gz/.pprof -> pprof, .folded -> folded, .csv -> csv,\n"
          "                        .txt -> text)\n"
          "  -o, --output OUT      output file or directory; absent or '-' is stdout\n"
          "  -R key=val            reader option (see --help-plugin READER)\n"
          "  -W key=val            writer option (see --help-plugin WRITER)\n"
          "      --stats           print a summary report of the inputs (-w summary -o -)\n"
          "      --strict          malformed records are errors, not counted warnings\n"
          "                        (for readers with a 'strict' option)\n"
          "      --force           replace an existing non-empty output directory\n"
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
    return EXIT_USAGE;
}

static void cli_push(char ***arr, size_t *n, char *s)
{
    *arr = tconv_xrealloc(*arr, (*n + 1) * sizeof(**arr));
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
    enum { O_FORCE = 256, O_LIST, O_HELP_PLUGIN, O_PLUGIN_PATH, O_STRICT, O_MAX_INPUT, O_STATS };
    static const struct option longopts[] = {
        {"reader", required_argument, 0, 'r'},
        {"writer", required_argument, 0, 'w'},
        {"output", required_argument, 0, 'o'},
        {"force", no_argument, 0, O_FORCE},
        {"strict", no_argument, 0, O_STRICT},
        {"list", no_argument, 0, O_LIST},
        {"help-plugin", required_argument, 0, O_HELP_PLUGIN},
        {"plugin-path", required_argument, 0, O_PLUGIN_PATH},
        {"max-input-bytes", required_argument, 0, O_MAX_INPUT},
        {"stats", no_argument, 0, O_STATS},
        {"quiet", no_argument, 0, 'q'},
        {"verbose", no_argument, 0, 'v'},
        {"version", no_argument, 0, 'V'},
        {"help", no_argument, 0, 'h'},
        {0, 0, 0, 0},
    };
    opterr = 0;
    int c;
    while ((c = getopt_long(argc, argv, ":r:w:o:R:W:qvVh", longopts, NULL)) != -1) {
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
        case O_MAX_INPUT:
            if (cli_parse_size(optarg, &a->max_input) < 0)
                return cli_usage_error("--max-input-bytes: '%s' is not a size (like 500M, 64G, "
                                       "or 0 for no limit)",
                                       optarg);
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

/* ---- plugin discovery ------------------------------------------------------------------- */

static void cli_load_dir(tconv_registry *r, const char *dir, char ***seen, size_t *nseen)
{
    char real[PATH_MAX];
    if (!realpath(dir, real)) return;
    for (size_t i = 0; i < *nseen; i++)
        if (strcmp((*seen)[i], real) == 0) return;
    cli_push(seen, nseen, tconv_xstrdup(real));
    tconv_registry_load_dir(r, real);
}

static void cli_load_plugins(tconv_registry *r, const cli_args *a)
{
    char **seen = NULL;
    size_t nseen = 0;
    /* A setuid or setgid tconv must not load code named by whoever runs it. */
    int privileged = getuid() != geteuid() || getgid() != getegid();
    const char *env = privileged ? NULL : getenv("TCONV_PLUGIN_PATH");
    if (env && *env) {
        char *copy = tconv_xstrdup(env), *save = NULL;
        for (char *d = strtok_r(copy, ":", &save); d; d = strtok_r(NULL, ":", &save))
            cli_load_dir(r, d, &seen, &nseen);
        free(copy);
    }
    for (size_t i = 0; i < a->npaths; i++)
        cli_load_dir(r, a->plugin_paths[i], &seen, &nseen);
    const char *home = privileged ? NULL : getenv("HOME");
    if (home && *home) {
        char user[PATH_MAX];
        snprintf(user, sizeof(user), "%s/.local/lib/tconv/plugins", home);
        cli_load_dir(r, user, &seen, &nseen);
    }
    /* Relative to the executable: build tree (tconv next to plugins/), then an installed
     * prefix (bin/../lib/tconv/plugins), so a relocated install still finds its plugins. */
    char exe[PATH_MAX];
    ssize_t n = readlink("/proc/self/exe", exe, sizeof(exe) - 1);
    if (n > 0) {
        exe[n] = 0;
        char *dir = dirname(exe);
        char p[PATH_MAX + 32];
        snprintf(p, sizeof(p), "%s/plugins", dir);
        cli_load_dir(r, p, &seen, &nseen);
        snprintf(p, sizeof(p), "%s/../lib/tconv/plugins", dir);
        cli_load_dir(r, p, &seen, &nseen);
    }
    cli_load_dir(r, TCONV_PLUGINDIR, &seen, &nseen);
    for (size_t i = 0; i < nseen; i++)
        free(seen[i]);
    free(seen);
}

static void cli_list_names(const tconv_registry *r, int writers, FILE *f)
{
    int any = 0;
    for (size_t i = 0; i < r->n; i++) {
        const tconv_plugin_desc *d = r->plugins[i].desc;
        if (writers) {
            for (const tconv_writer_class *const *c = d->writers; c && *c; c++)
                fprintf(f, "%s%s", any++ ? ", " : "", (*c)->name);
        } else {
            for (const tconv_reader_class *const *c = d->readers; c && *c; c++)
                fprintf(f, "%s%s", any++ ? ", " : "", (*c)->name);
        }
    }
    if (!any) fprintf(f, "none (no plugins found; see --list and TCONV_PLUGIN_PATH)");
}

static void cli_list(const tconv_registry *r)
{
    if (!r->n) printf("no plugins found (set TCONV_PLUGIN_PATH or use --plugin-path)\n");
    for (size_t i = 0; i < r->n; i++) {
        const tconv_plugin_desc *d = r->plugins[i].desc;
        printf("%s %s  %s\n", d->name, d->version ? d->version : "", r->plugins[i].path);
        if (d->description) printf("    %s\n", d->description);
        for (const tconv_reader_class *const *c = d->readers; c && *c; c++)
            printf("    reader  %-12s %s\n", (*c)->name,
                   (*c)->description ? (*c)->description : "");
        for (const tconv_writer_class *const *c = d->writers; c && *c; c++)
            printf("    writer  %-12s %s\n", (*c)->name,
                   (*c)->description ? (*c)->description : "");
    }
}

static void cli_print_options(const tconv_option_desc *o, const char *flag)
{
    if (!o || !o->name) {
        printf("  no options\n");
        return;
    }
    printf("  options (%s key=val):\n", flag);
    for (; o->name; o++) {
        const char *type = o->type == TCONV_OPT_BOOL     ? "bool"
                           : o->type == TCONV_OPT_INT    ? "int"
                           : o->type == TCONV_OPT_DOUBLE ? "number"
                           : o->type == TCONV_OPT_ENUM   ? o->choices
                                                         : "text";
        printf("    %-14s %-12s %s", o->name, type, o->help ? o->help : "");
        if (o->default_value) printf(" (default: %s)", o->default_value);
        printf("\n");
    }
}

static int cli_help_plugin(const tconv_registry *r, const char *name)
{
    int found = 0;
    for (size_t i = 0; i < r->n; i++) {
        const tconv_plugin_desc *d = r->plugins[i].desc;
        int whole = strcmp(d->name, name) == 0;
        for (const tconv_reader_class *const *c = d->readers; c && *c; c++) {
            if (!whole && strcmp((*c)->name, name) != 0) continue;
            printf("reader %s (plugin %s, %s)\n  %s\n", (*c)->name, d->name, r->plugins[i].path,
                   (*c)->description ? (*c)->description : "");
            if ((*c)->extensions) printf("  file extensions: %s\n", (*c)->extensions);
            cli_print_options((*c)->options, "-R");
            found = 1;
        }
        for (const tconv_writer_class *const *c = d->writers; c && *c; c++) {
            if (!whole && strcmp((*c)->name, name) != 0) continue;
            printf("writer %s (plugin %s, %s)\n  %s\n", (*c)->name, d->name, r->plugins[i].path,
                   (*c)->description ? (*c)->description : "");
            if ((*c)->flags & TCONV_WRITER_DIRECTORY) printf("  writes a directory: -o DIR\n");
            cli_print_options((*c)->options, "-W");
            found = 1;
        }
    }
    if (!found) {
        fprintf(stderr, "tconv: no plugin, reader or writer named '%s'; readers: ", name);
        cli_list_names(r, 0, stderr);
        fprintf(stderr, "; writers: ");
        cli_list_names(r, 1, stderr);
        fprintf(stderr, "\n");
        return EXIT_USAGE;
    }
    return 0;
}

/* ---- choosing reader and writer --------------------------------------------------------- */

static int cli_ends_with(const char *s, const char *suffix)
{
    size_t n = strlen(s), m = strlen(suffix);
    return n >= m && strcmp(s + n - m, suffix) == 0;
}

static const char *cli_writer_from_output(const char *out)
{
    static const struct {
        const char *ext, *writer;
    } map[] = {{".pb.gz", "pprof"},
               {".pprof", "pprof"},
               {".folded", "folded"},
               {".csv", "csv"},
               {".txt", "text"}};
    for (size_t i = 0; out && i < sizeof(map) / sizeof(map[0]); i++)
        if (cli_ends_with(out, map[i].ext)) return map[i].writer;
    return NULL;
}

/* Does the input name end in one of the reader's extensions ("json|json.gz")? */
static int cli_ext_matches(const tconv_reader_class *rc, const char *name)
{
    for (const char *p = rc->extensions; p && *p;) {
        const char *bar = strchr(p, '|');
        size_t len = bar ? (size_t)(bar - p) : strlen(p);
        size_t n = strlen(name);
        if (len < n && name[n - len - 1] == '.' && strncmp(name + n - len, p, len) == 0) return 1;
        p = bar ? bar + 1 : p + len;
    }
    return 0;
}

static const tconv_reader_class *cli_detect(const tconv_registry *r, tconv_input *in)
{
    size_t len;
    const unsigned char *head = tconv_input_peek(in, &len);
    const tconv_reader_class *best = NULL;
    int best_score = 0, best_ext = 0;
    for (size_t i = 0; i < r->n; i++) {
        for (const tconv_reader_class *const *c = r->plugins[i].desc->readers; c && *c; c++) {
            if (!(*c)->probe) continue;
            int score = (*c)->probe(head, len);
            int ext = cli_ext_matches(*c, tconv_input_name(in));
            if (score > 0 && (score > best_score || (score == best_score && ext && !best_ext))) {
                best = *c;
                best_score = score;
                best_ext = ext;
            }
        }
    }
    return best;
}

static int cli_declares(const tconv_reader_class *rc, const char *kv)
{
    size_t len = strcspn(kv, "=");
    for (const tconv_option_desc *d = rc->options; d && d->name; d++)
        if (strlen(d->name) == len && strncmp(d->name, kv, len) == 0) return 1;
    return 0;
}

/* Reader options for rc: with a reader named by -r, all of them (an unknown one is an error);
 * with detected readers, the ones rc declares, since one folder may mix formats. --strict
 * becomes strict=true where the reader has that option. */
static int cli_parse_ropts(const tconv_reader_class *rc, const cli_args *a, int named,
                           tconv_options *ro, char *err, size_t cap)
{
    char **kv = tconv_xcalloc(a->nropts + 1, sizeof(char *));
    size_t n = 0;
    for (size_t i = 0; i < a->nropts; i++)
        if (named || cli_declares(rc, a->ropts[i])) kv[n++] = a->ropts[i];
    for (const tconv_option_desc *d = rc->options; a->strict && d && d->name; d++)
        if (strcmp(d->name, "strict") == 0) kv[n++] = "strict=true";
    int r = tconv_options_parse(ro, rc->options, kv, n, err, cap);
    free(kv);
    return r;
}

/* ---- directory inputs ------------------------------------------------------------------- */

typedef struct cli_input {
    char *path;
    const char *dir; /* the directory given on the command line it was found in, or NULL */
} cli_input;

static int cli_visible(const struct dirent *e)
{
    return e->d_name[0] != '.';
}

/* Every regular file below dir, depth first, in bytewise name order, so a run folder always
 * reads in the same order. */
static void cli_expand_dir(const char *dir, const char *top, cli_input **list, size_t *n,
                           size_t *cap)
{
    struct dirent **ents = NULL;
    int m = scandir(dir, &ents, cli_visible, alphasort);
    for (int i = 0; i < m; i++) {
        size_t len = strlen(dir) + strlen(ents[i]->d_name) + 2;
        char *p = tconv_xmalloc(len);
        snprintf(p, len, "%s/%s", dir, ents[i]->d_name);
        struct stat st;
        if (stat(p, &st) == 0 && S_ISDIR(st.st_mode)) {
            cli_expand_dir(p, top, list, n, cap);
            free(p);
        } else if (stat(p, &st) == 0 && S_ISREG(st.st_mode)) {
            TCONV_GROW(*list, *cap, *n + 1);
            (*list)[(*n)++] = (cli_input){p, top};
        } else {
            free(p);
        }
        free(ents[i]);
    }
    free(ents);
}

static cli_input *cli_inputs(char **args, size_t nargs, size_t *n)
{
    cli_input *list = NULL;
    size_t cap = 0;
    *n = 0;
    for (size_t i = 0; i < nargs; i++) {
        struct stat st;
        if (strcmp(args[i], "-") != 0 && stat(args[i], &st) == 0 && S_ISDIR(st.st_mode)) {
            cli_expand_dir(args[i], args[i], &list, n, &cap);
        } else {
            TCONV_GROW(list, cap, *n + 1);
            list[(*n)++] = (cli_input){tconv_xstrdup(args[i]), NULL};
        }
    }
    return list;
}

/* ---- progress --------------------------------------------------------------------------- */

static double cli_now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

typedef struct cli_progress {
    tconv_input *in;
    uint64_t done_bytes; /* of earlier inputs */
    double t0, last;
    int shown;
} cli_progress;

/* A progress line on a terminal only: it must never reach a log or a pipe. */
static void cli_progress_tick(void *user, uint64_t events)
{
    cli_progress *p = user;
    double now = cli_now();
    if (!p->in || now - p->last < 0.5 || now - p->t0 < 1.0) return;
    p->last = now;
    double mb = (double)(p->done_bytes + tconv_input_raw_offset(p->in)) / 1e6;
    fprintf(stderr, "\r\033[Ktconv: %.1f MB read, %.1f MB/s, %llu events", mb, mb / (now - p->t0),
            (unsigned long long)events);
    p->shown = 1;
}

/* ---- the conversion --------------------------------------------------------------------- */

typedef struct cli_run {
    const cli_args *a;
    tconv_registry *reg;
    const tconv_writer_class *wc;
    tconv_options wopts;
    tconv_ctx *ctx;
} cli_run;

static int cli_convert(cli_run *run)
{
    const cli_args *a = run->a;
    tconv_ctx *ctx = run->ctx;
    const tconv_writer_class *wc = run->wc;
    char err[1024];

    const tconv_reader_class *fixed = NULL;
    if (a->reader && !(fixed = tconv_registry_reader(run->reg, a->reader, NULL))) {
        fprintf(stderr, "tconv: unknown reader '%s'; available readers: ", a->reader);
        cli_list_names(run->reg, 0, stderr);
        fprintf(stderr, "\n");
        return EXIT_USAGE;
    }
    /* Reader options are checked up front when the reader is known, so a typo costs nothing. */
    tconv_options ro;
    if (fixed) {
        int bad = cli_parse_ropts(fixed, a, 1, &ro, err, sizeof(err)) < 0;
        tconv_options_free(&ro);
        if (bad) {
            fprintf(stderr, "tconv: reader %s: %s\n", fixed->name, err);
            return EXIT_USAGE;
        }
    }
    for (size_t i = 0; !fixed && i < a->nropts; i++) {
        int known = 0;
        for (size_t p = 0; p < run->reg->n && !known; p++)
            for (const tconv_reader_class *const *c = run->reg->plugins[p].desc->readers;
                 c && *c && !known; c++)
                known = cli_declares(*c, a->ropts[i]);
        if (!known) {
            fprintf(stderr,
                    "tconv: no reader has the option '%.*s'; see --help-plugin READER, and name "
                    "the reader with -r\n",
                    (int)strcspn(a->ropts[i], "="), a->ropts[i]);
            return EXIT_USAGE;
        }
    }

    tconv_output_opts oo = {(wc->flags & TCONV_WRITER_DIRECTORY) ? TCONV_OUT_DIR : TCONV_OUT_STREAM,
                            a->force, (wc->flags & TCONV_WRITER_BINARY) != 0};
    tconv_output *out = tconv_output_open(ctx, a->output, &oo);
    if (!out) return EXIT_CONVERT;
    void *ws = NULL;
    tconv_status st = wc->open(ctx, out, &run->wopts, &ws);
    if (st != TCONV_OK) {
        if (!tconv_error_pending(ctx))
            tconv_error_set(ctx, "the %s writer failed to start", wc->name);
        tconv_output_close(out);
        return EXIT_CONVERT;
    }
    char *stdin_only[] = {"-"};
    size_t ninputs;
    cli_input *inputs =
        cli_inputs(a->ninputs ? a->inputs : stdin_only, a->ninputs ? a->ninputs : 1, &ninputs);
    uint32_t nread = 0;
    tconv_sink *sink = tconv_sink_new(ctx, wc, ws);
    int rc = 0;
    double t0 = cli_now();
    uint64_t bytes = 0, plain = 0; /* read from files; after decompression */
    cli_progress prog = {NULL, 0, t0, t0, 0};
    if (!a->quiet && isatty(2)) tconv_sink_set_progress(sink, cli_progress_tick, &prog);
    for (size_t i = 0; i < ninputs && st == TCONV_OK && !rc; i++) {
        tconv_ctx_set_input(ctx, nread);
        tconv_input *in = tconv_input_open(ctx, inputs[i].path, nread, a->max_input);
        if (!in) {
            st = TCONV_FATAL;
            break;
        }
        const tconv_reader_class *rc_ = fixed ? fixed : cli_detect(run->reg, in);
        if (inputs[i].dir && rc_ && fixed && fixed->probe) {
            size_t hlen;
            const unsigned char *head = tconv_input_peek(in, &hlen);
            if (fixed->probe(head, hlen) <= 0) rc_ = NULL;
        }
        if (!rc_ && inputs[i].dir && !tconv_error_pending(ctx)) {
            /* A folder may hold files of other formats (logs, images): skip them, counted. */
            tconv_warning_add(ctx, "core.skipped-file",
                              "'%s' (in '%s') is not in a format %s recognises; skipped",
                              inputs[i].path, inputs[i].dir, fixed ? fixed->name : "any reader");
            tconv_input_close(in);
            continue;
        }
        nread++;
        if (!rc_) {
            if (tconv_error_pending(ctx)) {
                st = TCONV_FATAL;
            } else {
                fprintf(stderr, "tconv: error: cannot tell the format of '%s'; tried readers: ",
                        tconv_input_name(in));
                cli_list_names(run->reg, 0, stderr);
                fprintf(stderr, "\n  hint: name the format with -r READER\n");
                rc = EXIT_CONVERT;
            }
            tconv_input_close(in);
            break;
        }
        if (cli_parse_ropts(rc_, a, fixed != NULL, &ro, err, sizeof(err)) < 0) {
            fprintf(stderr, "tconv: reader %s: %s\n", rc_->name, err);
            tconv_options_free(&ro);
            tconv_input_close(in);
            rc = EXIT_USAGE;
            break;
        }
        if (a->verbose)
            fprintf(stderr, "tconv: reading '%s' with the %s reader\n", tconv_input_name(in),
                    rc_->name);
        prog.in = in;
        st = rc_->read(ctx, in, &ro, sink);
        prog.in = NULL;
        if (st != TCONV_OK && !tconv_error_pending(ctx))
            tconv_error_set(ctx, "%s: the %s reader failed without saying why",
                            tconv_input_name(in), rc_->name);
        bytes += tconv_input_raw_offset(in);
        plain += tconv_input_offset(in);
        prog.done_bytes = bytes;
        tconv_options_free(&ro);
        tconv_input_close(in);
    }
    if (nread == 0 && st == TCONV_OK && !rc) {
        /* Only directories were given, and nothing in them could be read. */
        tconv_error_set(ctx, "no file under '%s' is in a format tconv can read",
                        a->ninputs ? a->inputs[0] : "-");
        st = TCONV_FATAL;
    }
    for (size_t i = 0; i < ninputs; i++)
        free(inputs[i].path);
    free(inputs);
    if (prog.shown) fprintf(stderr, "\r\033[K");
    if (st == TCONV_OK && !rc) {
        st = tconv_sink_finish(sink);
        if (st != TCONV_OK && !tconv_error_pending(ctx))
            tconv_error_set(ctx, "the %s writer failed without saying why", wc->name);
        if (st != TCONV_OK) tconv_error_wrap(ctx, "writing '%s' failed", tconv_output_name(out));
    }
    uint64_t nevents = tconv_sink_events(sink);
    tconv_sink_free(sink);
    wc->destroy(ws);
    if (st == TCONV_OK && !rc && tconv_output_commit(out) != 0) st = TCONV_FATAL;
    tconv_output_close(out); /* removes the temporary file or directory if not committed */
    if (a->verbose) {
        double dt = cli_now() - t0;
        fprintf(stderr,
                "tconv: %llu events from %.1f MB (%.1f MB read) in %.3f s: %.1f MB/s of input\n",
                (unsigned long long)nevents, (double)plain / 1e6, (double)bytes / 1e6, dt,
                dt > 0 ? (double)plain / 1e6 / dt : 0.0);
    }
    if (rc) return rc;
    return st == TCONV_OK ? 0 : EXIT_CONVERT;
}

static int cli_main(cli_args *a)
{
    if (a->help) {
        cli_usage(stdout);
        return 0;
    }
    if (a->version) {
        printf("tconv %s (plugin ABI %d.%d)\n", TCONV_VERSION, TCONV_ABI_MAJOR, TCONV_ABI_MINOR);
        return 0;
    }
    tconv_registry reg = {0};
    reg.quiet = a->quiet;
    reg.warn = stderr;
    cli_load_plugins(&reg, a);
    int rc = 0;
    if (a->list) {
        cli_list(&reg);
    } else if (a->help_plugin) {
        rc = cli_help_plugin(&reg, a->help_plugin);
    } else {
        cli_run run = {a, &reg, NULL, {0}, NULL};
        const char *wname = a->writer ? a->writer : cli_writer_from_output(a->output);
        char err[1024];
        if (!wname) {
            rc = cli_usage_error("%s", "no writer: give one with -w (writers: see --list), or an "
                                       "-o name ending in .pb.gz, .pprof, .folded, .csv or .txt");
        } else if (!(run.wc = tconv_registry_writer(&reg, wname, NULL))) {
            fprintf(stderr, "tconv: unknown writer '%s'; available writers: ", wname);
            cli_list_names(&reg, 1, stderr);
            fprintf(stderr, "\n");
            rc = EXIT_USAGE;
        } else if (tconv_options_parse(&run.wopts, run.wc->options, a->wopts, a->nwopts, err,
                                       sizeof(err)) < 0) {
            fprintf(stderr, "tconv: writer %s: %s\n", run.wc->name, err);
            rc = EXIT_USAGE;
        } else if ((run.wc->flags & TCONV_WRITER_DIRECTORY) &&
                   (!a->output || strcmp(a->output, "-") == 0)) {
            rc = cli_usage_error("the %s writer writes a directory: give it with -o DIR",
                                 run.wc->name);
        } else {
            run.ctx = tconv_ctx_new();
            tconv_ctx_set_verbosity(run.ctx, a->quiet ? -1 : a->verbose);
            rc = cli_convert(&run);
            if (!a->quiet) tconv_warning_print(run.ctx, stderr);
            if (rc == EXIT_CONVERT && tconv_error_pending(run.ctx))
                tconv_error_print(run.ctx, stderr);
            tconv_ctx_free(run.ctx);
        }
        tconv_options_free(&run.wopts);
    }
    tconv_registry_free(&reg);
    return rc;
}

TCONV_API int tconv_cli_main(int argc, char **argv);

TCONV_API int tconv_cli_main(int argc, char **argv)
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
