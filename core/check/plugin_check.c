/* tconv-plugin-check: runs a plugin's readers and writers through the contract every plugin
 * keeps, with nothing but the public API, so a plugin author (and tconv's own tests) can see what
 * breaks before users do.
 *
 *   readers: probe junk and never claim it, read empty and junk input without crashing and with
 *            an error message when refusing it, read each given sample the same way twice;
 *   writers: take every event kind from a built-in mock reader, write the same bytes twice,
 *            refuse unknown options as usage errors, fail with a message on an unwritable output.
 *
 * Every check prints one "ok" or "FAIL" line; the exit status is 1 if any failed. A crash is a
 * failure too: the checks run in a child process each, so one crash does not hide the rest. */
#define _XOPEN_SOURCE 700 /* nftw */
#include <dirent.h>
#include <errno.h>
#include <ftw.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "tconv/host.h"

static int check_failed;
static char check_tmp[256];

/* Messages may quote the junk they refused: bytes that are not printable ASCII are escaped. */
static void check_report(int ok, const char *what, const char *detail)
{
    printf("%s %s%s", ok ? "ok  " : "FAIL", what, detail && *detail ? ": " : "");
    for (const unsigned char *p = (const unsigned char *)(detail ? detail : ""); *p; p++)
        printf(*p >= 0x20 && *p < 0x7f ? "%c" : "\\x%02x", *p);
    printf("\n");
    if (!ok) check_failed = 1;
}

/* ---- the mock reader: every event kind, deterministic --------------------------------------- */

static tconv_status mock_read(tconv_ctx *ctx, tconv_input *in, const tconv_options *opts,
                              tconv_sink *sink)
{
    (void)in, (void)opts;
#define S(x) tconv_string_intern_cstr(ctx, x)
    uint32_t t1 = tconv_track_get(ctx, S("100"), S("1")),
             t2 = tconv_track_get(ctx, S("100"), S("2"));
    uint32_t gpu = tconv_track_get(ctx, S("0"), S("stream 7"));
    tconv_track_set_kind(ctx, gpu, TCONV_TRACK_GPU);
    tconv_arg args[6] = {{S("count"), TCONV_ARG_INT, {.i = -3}},
                         {S("bytes"), TCONV_ARG_UINT, {.u = 4096}},
                         {S("ratio"), TCONV_ARG_DOUBLE, {.d = 0.5}},
                         {S("device"), TCONV_ARG_STRING, {.s = S("cuda")}},
                         {S("ok"), TCONV_ARG_BOOL, {.i = 1}},
                         {S("shape"), TCONV_ARG_JSON, {.s = S("[2,3]")}}};
    tconv_event evs[16];
    size_t n = 0;
    for (size_t i = 0; i < 16; i++)
        tconv_event_init(&evs[i]);
    evs[n].kind = TCONV_EV_METADATA, evs[n].track = t1, evs[n].name = S("process_name"),
    evs[n++].text = S("trainer \"main\"");
    evs[n].kind = TCONV_EV_METADATA, evs[n].track = t1, evs[n].name = S("thread_name"),
    evs[n++].text = S("python ✓");
    evs[n].kind = TCONV_EV_COMPLETE, evs[n].track = t1, evs[n].name = S("step"),
    evs[n].cat = S("user_annotation"), evs[n].ts = 1000, evs[n++].dur = 9000;
    evs[n].kind = TCONV_EV_BEGIN, evs[n].track = t1, evs[n].name = S("forward;fn<a, b>"),
    evs[n].cat = S("cpu_op"), evs[n].ts = 2000, evs[n].args = args, evs[n++].nargs = 6;
    evs[n].kind = TCONV_EV_COMPLETE, evs[n].track = t1, evs[n].name = S("cudaLaunchKernel"),
    evs[n].cat = S("cuda_runtime"), evs[n].ts = 2500, evs[n].dur = 100, evs[n++].corr = 7;
    evs[n].kind = TCONV_EV_FLOW_START, evs[n].track = t1, evs[n].name = S("ac2g"), evs[n].ts = 2500,
    evs[n].id = 7, evs[n++].flags = TCONV_EVF_BIND_ENCLOSING;
    evs[n].kind = TCONV_EV_END, evs[n].track = t1, evs[n++].ts = 6000;
    evs[n].kind = TCONV_EV_INSTANT, evs[n].track = t1, evs[n].name = S("mark"), evs[n].ts = 6500,
    evs[n++].flags = TCONV_EVF_SCOPE_PROCESS;
    evs[n].kind = TCONV_EV_COUNTER, evs[n].track = t2, evs[n].name = S("memory"),
    evs[n].key = S("allocated"), evs[n].unit = S("bytes"), evs[n].ts = 3000,
    evs[n++].value = 1048576;
    evs[n].kind = TCONV_EV_COMPLETE, evs[n].track = gpu, evs[n].name = S("sgemm_128x64"),
    evs[n].cat = S("kernel"), evs[n].ts = 3000, evs[n].dur = 2000, evs[n++].corr = 7;
    evs[n].kind = TCONV_EV_FLOW_END, evs[n].track = gpu, evs[n].name = S("ac2g"), evs[n].ts = 3000,
    evs[n].id = 7, evs[n++].flags = TCONV_EVF_BIND_ENCLOSING;
    evs[n].kind = TCONV_EV_COMPLETE, evs[n].track = gpu, evs[n].name = S("overlapping"),
    evs[n].cat = S("kernel"), evs[n].ts = 4000, evs[n++].dur = 2000;
    for (size_t i = 0; i < n; i++)
        if (tconv_sink_push(sink, &evs[i]) == TCONV_FATAL) return TCONV_FATAL;
#undef S
    return TCONV_OK;
}

static int mock_probe(const unsigned char *buf, size_t len)
{
    (void)buf, (void)len;
    return 0; /* named with -r only */
}

static const tconv_reader_class mock_reader = {
    .struct_size = sizeof(tconv_reader_class),
    .name = "check-mock",
    .description = "every event kind (tconv-plugin-check)",
    .probe = mock_probe,
    .read = mock_read,
};
static const tconv_reader_class *const mock_readers[] = {&mock_reader, NULL};
static const tconv_plugin_desc mock_plugin = {
    .struct_size = sizeof(tconv_plugin_desc),
    .abi_major = TCONV_ABI_MAJOR,
    .abi_minor = TCONV_ABI_MINOR,
    .name = "check-mock",
    .version = TCONV_VERSION,
    .description = "tconv-plugin-check's mock reader",
    .readers = mock_readers,
};

/* ---- running one conversion ------------------------------------------------------------------ */

static void check_notice(void *user, tconv_notice_level level, const char *text)
{
    (void)user, (void)level, (void)text;
}

static void check_say(void *user, tconv_notice_level level, const char *text)
{
    (void)user;
    if (level == TCONV_NOTICE_WARNING) fprintf(stderr, "tconv-plugin-check: %s\n", text);
}

/* The plugin under test first (it wins over an installed copy), the mock reader, then the
 * standard plugins for the text writer that readers are drained into. */
static tconv_host *check_host(const char *plugin)
{
    tconv_host_hooks hooks = {.struct_size = sizeof(hooks), .notice = check_notice};
    tconv_host *h = tconv_host_new(&hooks);
    if (tconv_host_load_file(h, plugin) < 0) {
        tconv_host_free(h);
        return NULL;
    }
    tconv_host_add_plugin(h, &mock_plugin);
    tconv_host_load_standard(h, NULL, 0);
    return h;
}

static int check_rm(const char *path, const struct stat *st, int flag, struct FTW *ftw)
{
    (void)st, (void)flag, (void)ftw;
    return remove(path);
}

/* Runs one conversion in the current process; the outcome, and the error's first line. */
static tconv_outcome check_convert(tconv_host *h, const char *reader, const char *writer,
                                   const char *input, const char *output, const char *wopt,
                                   char *err, size_t cap)
{
    tconv_run_opts o = TCONV_RUN_OPTS_INIT;
    o.reader = reader;
    o.writer = writer;
    o.output = output;
    o.inputs = &input;
    o.ninputs = 1;
    o.writer_options = &wopt;
    o.nwriter_options = wopt ? 1 : 0;
    o.force = 1;
    o.verbosity = -1;
    tconv_run *r = tconv_run_new(h, &o);
    tconv_outcome res = tconv_run_execute(r);
    size_t n = 0;
    const char *const *chain = tconv_error_chain(tconv_run_ctx(r), &n);
    snprintf(err, cap, "%s", n ? chain[n - 1] : "");
    tconv_run_free(r);
    return res;
}

/* 64-bit FNV-1a of a file, or of every file below a directory in name order. */
static uint64_t check_hash(const char *path, uint64_t h)
{
    struct stat st;
    if (stat(path, &st) != 0) return h ^ 1;
    if (S_ISDIR(st.st_mode)) {
        struct dirent **list;
        int n = scandir(path, &list, NULL, alphasort);
        for (int i = 0; i < n; i++) {
            if (strcmp(list[i]->d_name, ".") && strcmp(list[i]->d_name, "..")) {
                char sub[4096];
                snprintf(sub, sizeof(sub), "%s/%s", path, list[i]->d_name);
                for (const char *p = list[i]->d_name; *p; p++)
                    h = (h ^ (unsigned char)*p) * 0x100000001b3ull;
                h = check_hash(sub, h);
            }
            free(list[i]);
        }
        free(list);
        return h;
    }
    FILE *f = fopen(path, "rb");
    if (!f) return h ^ 2;
    int c;
    while ((c = getc(f)) != EOF)
        h = (h ^ (unsigned char)c) * 0x100000001b3ull;
    fclose(f);
    return h;
}

/* ---- running a check in a child, so that a crash is a failure and not the end --------------- */

typedef void (*check_fn)(const char *plugin, const char *name, const char *arg);

static void check_isolated(check_fn fn, const char *what, const char *plugin, const char *name,
                           const char *arg)
{
    fflush(stdout);
    pid_t pid = fork();
    if (pid == 0) {
        fn(plugin, name, arg);
        fflush(stdout);
        _exit(check_failed);
    }
    int status = 0;
    if (pid < 0 || waitpid(pid, &status, 0) < 0) {
        check_report(0, what, strerror(errno));
    } else if (WIFSIGNALED(status)) {
        char d[64];
        snprintf(d, sizeof(d), "crashed (signal %d)", WTERMSIG(status));
        check_report(0, what, d);
    } else if (WEXITSTATUS(status)) {
        check_failed = 1;
    }
}

static void check_write_file(const char *path, const unsigned char *buf, size_t n)
{
    FILE *f = fopen(path, "wb");
    if (f) {
        fwrite(buf, 1, n, f);
        fclose(f);
    }
}

/* Deterministic junk: a linear congruential sequence. */
static void check_junk(unsigned char *buf, size_t n)
{
    uint32_t x = 12345;
    for (size_t i = 0; i < n; i++) {
        x = x * 1103515245u + 12345u;
        buf[i] = (unsigned char)(x >> 16);
    }
}

/* ---- readers -----------------------------------------------------------------------------------
 */

static void check_reader_probe(const char *plugin, const char *name, const char *arg)
{
    (void)arg;
    tconv_host *h = check_host(plugin);
    const tconv_reader_class *rc = h ? tconv_host_reader(h, name) : NULL;
    char what[256], detail[256] = "";
    snprintf(what, sizeof(what), "reader %s: probe stays in 0..100 and does not claim junk", name);
    static unsigned char junk[4096], zeros[4096];
    check_junk(junk, sizeof(junk));
    const struct {
        const unsigned char *buf;
        size_t len;
    } cases[] = {{junk, 0},
                 {zeros, sizeof(zeros)},
                 {junk, sizeof(junk)},
                 {(const unsigned char *)"{", 1},
                 {(const unsigned char *)"\x1f\x8b", 2}};
    int ok = rc != NULL;
    for (size_t i = 0; ok && rc->probe && i < sizeof(cases) / sizeof(cases[0]); i++) {
        int score = rc->probe(cases[i].buf, cases[i].len);
        if (score < 0 || score > 100 || (i < 3 && score >= 50)) {
            snprintf(detail, sizeof(detail), "case %zu scored %d", i, score);
            ok = 0;
        }
    }
    check_report(ok, what, rc ? detail : "reader not found");
    tconv_host_free(h);
}

/* Empty and junk input: success, or failure with a message; never a crash or silence. */
static void check_reader_input(const char *plugin, const char *name, const char *kind)
{
    tconv_host *h = check_host(plugin);
    char path[512], out[512], what[256], err[1024];
    snprintf(path, sizeof(path), "%s/%s.in", check_tmp, kind);
    snprintf(out, sizeof(out), "%s/%s.txt", check_tmp, kind);
    static unsigned char junk[4096];
    check_junk(junk, sizeof(junk));
    check_write_file(path, junk, strcmp(kind, "empty") == 0 ? 0 : sizeof(junk));
    snprintf(what, sizeof(what), "reader %s: %s input is read or refused with a message", name,
             kind);
    const tconv_writer_class *text = h ? tconv_host_writer(h, "text") : NULL;
    if (!text) {
        check_report(1, what, "skipped: no text writer to drain into");
        tconv_host_free(h);
        return;
    }
    tconv_outcome res = check_convert(h, name, "text", path, out, NULL, err, sizeof(err));
    /* Junk read as nothing at all would be an empty success for a user who named the wrong
     * reader: a reader that finds nothing it knows in non-empty input says so. */
    struct stat st;
    int silent =
        res == TCONV_DONE && strcmp(kind, "junk") == 0 && stat(out, &st) == 0 && st.st_size == 0;
    check_report((res == TCONV_DONE && !silent) || (res == TCONV_FAILED && *err), what,
                 silent              ? "accepted with no event and no error"
                 : res == TCONV_DONE ? ""
                                     : err);
    tconv_host_free(h);
}

static void check_reader_sample(const char *plugin, const char *name, const char *input)
{
    tconv_host *h = check_host(plugin);
    char out1[512], out2[512], what[1024], err[1024];
    snprintf(out1, sizeof(out1), "%s/sample1.txt", check_tmp);
    snprintf(out2, sizeof(out2), "%s/sample2.txt", check_tmp);
    snprintf(what, sizeof(what), "reader %s: reads %s, the same twice", name, input);
    if (!h || !tconv_host_writer(h, "text")) {
        check_report(1, what, "skipped: no text writer to drain into");
        tconv_host_free(h);
        return;
    }
    tconv_outcome a = check_convert(h, name, "text", input, out1, NULL, err, sizeof(err));
    if (a != TCONV_DONE) {
        check_report(0, what, err);
    } else {
        tconv_outcome b = check_convert(h, name, "text", input, out2, NULL, err, sizeof(err));
        struct stat st;
        int nonempty = stat(out1, &st) == 0 && st.st_size > 0;
        check_report(b == TCONV_DONE && nonempty && check_hash(out1, 0) == check_hash(out2, 0),
                     what,
                     !nonempty         ? "no events"
                     : b != TCONV_DONE ? err
                                       : "");
    }
    tconv_host_free(h);
}

/* ---- writers -----------------------------------------------------------------------------------
 */

static void check_writer_events(const char *plugin, const char *name, const char *arg)
{
    (void)arg;
    tconv_host *h = check_host(plugin);
    const tconv_writer_class *wc = h ? tconv_host_writer(h, name) : NULL;
    char out1[512], out2[512], what[256], err[1024];
    snprintf(what, sizeof(what), "writer %s: every event kind, the same bytes twice", name);
    snprintf(out1, sizeof(out1), "%s/%s.1", check_tmp, name);
    snprintf(out2, sizeof(out2), "%s/%s.2", check_tmp, name);
    if (!wc) {
        check_report(0, what, "writer not found");
        tconv_host_free(h);
        return;
    }
    const char *in = "/dev/null";
    tconv_outcome a = check_convert(h, "check-mock", name, in, out1, NULL, err, sizeof(err));
    tconv_outcome b = a == TCONV_DONE
                          ? check_convert(h, "check-mock", name, in, out2, NULL, err, sizeof(err))
                          : a;
    struct stat st;
    int exists = stat(out1, &st) == 0;
    check_report(a == TCONV_DONE && b == TCONV_DONE && exists &&
                     check_hash(out1, 0) == check_hash(out2, 0),
                 what,
                 a != TCONV_DONE || b != TCONV_DONE ? err
                 : !exists                          ? "no output"
                                                    : "");
    tconv_host_free(h);
}

static void check_writer_errors(const char *plugin, const char *name, const char *arg)
{
    (void)arg;
    tconv_host *h = check_host(plugin);
    char what[256], err[1024], out[512];
    snprintf(out, sizeof(out), "%s/%s.err", check_tmp, name);
    snprintf(what, sizeof(what), "writer %s: an unknown option is a usage error", name);
    tconv_outcome a = check_convert(h, "check-mock", name, "/dev/null", out,
                                    "no-such-option-here=1", err, sizeof(err));
    check_report(a == TCONV_USAGE && *err, what, a == TCONV_USAGE ? "" : err);
    snprintf(what, sizeof(what), "writer %s: an unwritable output fails with a message", name);
    tconv_outcome b = check_convert(h, "check-mock", name, "/dev/null",
                                    "/nonexistent-dir/tconv-check/out", NULL, err, sizeof(err));
    check_report(b != TCONV_DONE && *err, what, b == TCONV_DONE ? "it succeeded" : "");
    tconv_host_free(h);
}

int main(int argc, char **argv)
{
    if (argc < 2 || !strcmp(argv[1], "-h") || !strcmp(argv[1], "--help")) {
        fprintf(argc < 2 ? stderr : stdout,
                "usage: tconv-plugin-check PLUGIN.so [SAMPLE...]\n"
                "Checks every reader and writer of PLUGIN.so against the plugin contract;\n"
                "each SAMPLE is an input every reader of the plugin must read, the same way\n"
                "twice. Readers are drained into the text writer, found in TCONV_PLUGIN_PATH\n"
                "or the installed plugins. Exit 0 when every check holds.\n");
        return argc < 2 ? 2 : 0;
    }
    const char *plugin = argv[1];
    snprintf(check_tmp, sizeof(check_tmp), "%s/tconv-check.XXXXXX",
             getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp");
    if (!mkdtemp(check_tmp)) {
        perror("tconv-plugin-check: mkdtemp");
        return 2;
    }
    tconv_host *h = check_host(plugin);
    if (!h) {
        /* Load it again with notices shown: they say why. */
        tconv_host_hooks hooks = {.struct_size = sizeof(hooks), .notice = check_say};
        tconv_host *say = tconv_host_new(&hooks);
        tconv_host_load_file(say, plugin);
        tconv_host_free(say);
        fprintf(stderr, "tconv-plugin-check: %s is not a loadable tconv plugin\n", plugin);
        return 2;
    }
    {
        const tconv_plugin_desc *d = tconv_host_plugin(h, 0, NULL);
        for (const tconv_reader_class *const *c = d->readers; c && *c; c++) {
            check_isolated(check_reader_probe, "reader probe", plugin, (*c)->name, NULL);
            check_isolated(check_reader_input, "reader empty input", plugin, (*c)->name, "empty");
            check_isolated(check_reader_input, "reader junk input", plugin, (*c)->name, "junk");
            for (int k = 2; k < argc; k++)
                check_isolated(check_reader_sample, "reader sample", plugin, (*c)->name, argv[k]);
        }
        for (const tconv_writer_class *const *c = d->writers; c && *c; c++) {
            check_isolated(check_writer_events, "writer events", plugin, (*c)->name, NULL);
            check_isolated(check_writer_errors, "writer errors", plugin, (*c)->name, NULL);
        }
    }
    tconv_host_free(h);
    if (nftw(check_tmp, check_rm, 16, FTW_DEPTH | FTW_PHYS) != 0)
        fprintf(stderr, "tconv-plugin-check: could not remove %s\n", check_tmp);
    return check_failed;
}
