/* libFuzzer target for one reader, chosen at build time (FUZZ_READER). The reader's sources and
 * the core are linked in statically, so the fuzzer sees all of their coverage in one process; the
 * input goes through the core's input layer (gzip detection included) from a memory file, and the
 * events through the sink's ordering and stack stages into a writer that only looks at them.
 *
 * The input's length picks one of the reader's option sets, so mutations explore the options too
 * while every input stays reproducible (a byte of the input would not do: a JSON document always
 * ends in '}' or a blank). FUZZ_VERBOSE=1 prints the set and the error, and
 * `tconv -r READER -R ...` replays a file with it. */
#define _GNU_SOURCE
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <errno.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "pipeline.h"

#ifndef FUZZ_READER
#error "build with -DFUZZ_READER=\"name\""
#endif

/* The plugin's entry point, linked in from its sources. */
const tconv_plugin_desc *tconv_plugin_describe(void);

/* Option sets per reader, each a NULL-terminated list of -R arguments (at most 4). */
typedef struct fuzz_optset {
    const char *reader;
    const char *kv[5];
} fuzz_optset;

static const fuzz_optset fuzz_optsets[] = {
    {"chrome", {NULL}},
    {"chrome", {"strict=true", NULL}},
    {"tfmem", {NULL}},
    {"tfmem", {"activities=span", NULL}},
    {"tfmem", {"activities=none", "strict=true", NULL}},
    {"tfmem", {"time-offset=4611686018427387000", "activities=span", NULL}},
    {"perf", {NULL}},
    {"perf", {"all=true", "addrs=true", "pid=true", NULL}},
    {"perf", {"tid=true", "inline=mark", "comm=false", NULL}},
    {"perf", {"inline=drop", "demangle=true", "event=cycles", NULL}},
    {"perf", {"strict=true", NULL}},
    {"folded", {NULL}},
    {"folded", {"lenient=true", NULL}},
    {"folded", {"format=extended", NULL}},
    {"folded", {"format=plain", "strict=true", NULL}},
    {"perfetto", {NULL}},
    {"perfetto", {"strict=true", NULL}},
    {"otf2", {NULL}},
    {"pprof", {NULL}},
    {"pprof", {"sample=0", NULL}},
    {"speedscope", {NULL}},
    {"firefox", {NULL}},
    {"rocprof", {NULL}},
    {"rocprof", {"strict=true", "names=short", NULL}},
    {"rocprof", {"by=queue", "names=mangled", NULL}},
};

static const tconv_reader_class *fuzz_rc;
static const fuzz_optset *fuzz_sets[16];
static size_t fuzz_nsets;
static int fuzz_fd = -1;
static char fuzz_path[64];
#ifdef FUZZ_ARCHIVE
static char fuzz_dir[48]; /* where the archive is unpacked */
#endif
static int fuzz_verbose;

/* The writer reads every field an event points to, so a bad string id, track or array shows up
 * under the sanitizers, and keeps nothing. */
typedef struct fuzz_seen {
    tconv_ctx *ctx;
    uint64_t sum;
} fuzz_seen;

static tconv_status fuzz_open(tconv_ctx *ctx, tconv_output *out, const tconv_options *opts,
                              void **state)
{
    (void)ctx;
    (void)out;
    (void)opts;
    (void)state;
    return TCONV_OK;
}

static tconv_status fuzz_event(void *state, const tconv_event *ev)
{
    fuzz_seen *s = state;
    tconv_ctx *ctx = s->ctx;
    if (!tconv_track_describe(ctx, ev->track)) abort();
    s->sum += tconv_string_length(ctx, ev->name) + tconv_string_length(ctx, ev->cat) +
              tconv_string_length(ctx, ev->key) + tconv_string_length(ctx, ev->text);
    for (uint32_t i = 0; i < ev->nargs; i++)
        s->sum += ev->args[i].type + tconv_string_length(ctx, ev->args[i].key);
    for (uint32_t i = 0; i < ev->nframes; i++)
        s->sum += tconv_string_length(ctx, ev->frames[i].name) + ev->frames[i].line;
    for (uint32_t i = 0; i < ev->nvalues; i++)
        s->sum += (uint64_t)ev->values[i];
    return TCONV_OK;
}

static void fuzz_destroy(void *state)
{
    (void)state;
}

/* Samples but no spans, and ordered: spans go through the ordering and the stack stage, the
 * other kinds through the ordering stage, which is the most core code one run can reach. */
static const tconv_writer_class fuzz_writer = {
    .struct_size = sizeof(tconv_writer_class),
    .name = "fuzz",
    .accepts = TCONV_KINDS_ALL & ~TCONV_KINDS_SPANS,
    .flags = TCONV_WRITER_ORDERED,
    .open = fuzz_open,
    .event = fuzz_event,
    .destroy = fuzz_destroy,
};

int LLVMFuzzerInitialize(int *argc, char ***argv);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
    (void)argc;
    (void)argv;
    const tconv_plugin_desc *d = tconv_plugin_describe();
    for (const tconv_reader_class *const *c = d->readers; c && *c; c++)
        if (strcmp((*c)->name, FUZZ_READER) == 0) fuzz_rc = *c;
    for (size_t i = 0; i < sizeof(fuzz_optsets) / sizeof(fuzz_optsets[0]); i++)
        if (strcmp(fuzz_optsets[i].reader, FUZZ_READER) == 0 &&
            fuzz_nsets < sizeof(fuzz_sets) / sizeof(fuzz_sets[0]))
            fuzz_sets[fuzz_nsets++] = &fuzz_optsets[i];
    fuzz_fd = memfd_create("fuzz-input", MFD_CLOEXEC);
    if (!fuzz_rc || !fuzz_nsets || fuzz_fd < 0) {
        fprintf(stderr, "fuzz: no reader '%s' or no memory file\n", FUZZ_READER);
        exit(2);
    }
    /* The input layer opens a path, so it gets the memory file's. */
    snprintf(fuzz_path, sizeof(fuzz_path), "/proc/self/fd/%d", fuzz_fd);
#ifdef FUZZ_ARCHIVE
    snprintf(fuzz_dir, sizeof(fuzz_dir), "/tmp/tconv-fuzz-%d", (int)getpid());
    char traces[96];
    snprintf(traces, sizeof(traces), "%s/traces", fuzz_dir);
    if ((mkdir(fuzz_dir, 0700) != 0 && errno != EEXIST) ||
        (mkdir(traces, 0700) != 0 && errno != EEXIST)) {
        fprintf(stderr, "fuzz: cannot create %s\n", traces);
        exit(2);
    }
    snprintf(fuzz_path, sizeof(fuzz_path), "%s/traces.otf2", fuzz_dir);
#endif
    fuzz_verbose = getenv("FUZZ_VERBOSE") != NULL;
    return 0;
}

#ifdef FUZZ_ARCHIVE
/* A reader of a set of files (an OTF2 archive: anchor, global definitions, and per location a
 * definition and an event file): the input packs them as records [file index: 1 byte]
 * [length: 2 bytes, little-endian][bytes], unpacked into a folder of this process before each
 * run, so mutations reach every file. Index 0 is the anchor, 1 the global definitions, 2 + 2k
 * and 3 + 2k location k's definitions and events (k < 16). seeds.sh packs real archives. */

static void fuzz_archive_name(unsigned idx, char *buf, size_t cap)
{
    if (idx == 0)
        snprintf(buf, cap, "%s/traces.otf2", fuzz_dir);
    else if (idx == 1)
        snprintf(buf, cap, "%s/traces.def", fuzz_dir);
    else
        snprintf(buf, cap, "%s/traces/%u.%s", fuzz_dir, (idx - 2) / 2, idx % 2 ? "evt" : "def");
}

static int fuzz_fill(const uint8_t *data, size_t size)
{
    char name[128];
    for (unsigned i = 0; i < 34; i++) {
        fuzz_archive_name(i, name, sizeof(name));
        unlink(name);
    }
    size_t off = 0;
    while (off + 3 <= size) {
        unsigned idx = data[off] % 34;
        size_t len = (size_t)data[off + 1] | (size_t)data[off + 2] << 8;
        off += 3;
        if (len > size - off) len = size - off;
        fuzz_archive_name(idx, name, sizeof(name));
        FILE *f = fopen(name, "wb");
        if (!f) return -1;
        if (len && fwrite(data + off, 1, len, f) != len) {
            fclose(f);
            return -1;
        }
        fclose(f);
        off += len;
    }
    return 0;
}
#else
static int fuzz_fill(const uint8_t *data, size_t size)
{
    if (ftruncate(fuzz_fd, 0) != 0) return -1;
    size_t off = 0;
    while (off < size) {
        ssize_t n = pwrite(fuzz_fd, data + off, size - off, (off_t)off);
        if (n <= 0) return -1;
        off += (size_t)n;
    }
    return 0;
}
#endif

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
#ifndef FUZZ_ARCHIVE /* an archive's probe is the anchor's, tested by the reader's own tests */
    /* A probe sees the first bytes only and must stay inside them. */
    if (fuzz_rc->probe) {
        size_t head = size < 4096 ? size : 4096;
        unsigned char *copy = malloc(head ? head : 1);
        memcpy(copy, data, head);
        int score = fuzz_rc->probe(copy, head);
        free(copy);
        if (score < 0 || score > 100) abort();
    }
#endif
    if (fuzz_fill(data, size) != 0) abort();
    const fuzz_optset *set = fuzz_sets[size % fuzz_nsets];
    if (fuzz_verbose) {
        fprintf(stderr, "fuzz: tconv -r %s", FUZZ_READER);
        for (const char *const *kv = set->kv; *kv; kv++)
            fprintf(stderr, " -R %s", *kv);
        fprintf(stderr, "\n");
    }
    size_t nkv = 0;
    while (set->kv[nkv])
        nkv++;

    tconv_ctx *ctx = tconv_ctx_new();
    tconv_ctx_set_verbosity(ctx, -1);
    tconv_options ro = {0};
    char err[512];
    if (tconv_options_parse(&ro, fuzz_rc->options, (char *const *)set->kv, nkv, err, sizeof(err)) <
        0) {
        fprintf(stderr, "fuzz: bad option set: %s\n", err);
        abort();
    }
    fuzz_seen seen = {ctx, 0};
    tconv_plan plan;
    tconv_plan_init(&plan);
    tconv_plan_set_writer(&plan, &fuzz_writer);
    tconv_plan_opened(&plan, ctx);
    tconv_sink *sink = tconv_sink_new(ctx, &plan, &fuzz_writer, &seen);
    /* A small cap keeps a gzip bomb from costing seconds per run. */
    tconv_input *in = tconv_input_open(ctx, fuzz_path, 0, 16u << 20);
    if (in) {
        tconv_status st = fuzz_rc->read(ctx, in, &ro, sink);
        if (st == TCONV_OK) st = tconv_sink_finish(sink);
        /* Every failure carries its message. */
        if (st != TCONV_OK && !tconv_error_pending(ctx)) abort();
        tconv_input_close(in);
    }
    size_t nerr;
    const char *const *chain = tconv_error_chain(ctx, &nerr);
    for (size_t i = 0; fuzz_verbose && i < nerr; i++)
        fprintf(stderr, "%s%s\n", i ? "  caused by: " : "tconv: error: ", chain[i]);
    tconv_sink_free(sink);
    tconv_plan_free(&plan);
    tconv_options_free(&ro);
    tconv_ctx_free(ctx);
    return 0;
}
