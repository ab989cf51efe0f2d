/* One conversion: choose the writer and check every option before anything is read or
 * written, open the output (a temporary until the end), read each input with its reader into
 * the sink, finish the writer, and commit the output only when all of it worked. Every way out
 * but success leaves the output as it was. */
#include <pthread.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "inputcheck.h"
#include "internal.h"
#include "mpirank.h"

struct tconv_run {
    tconv_host *host;
    tconv_run_opts o; /* strings and arrays owned by the run */
    char **owned;     /* every string the run copied, freed with it */
    size_t nowned;
    tconv_ctx *ctx;
    atomic_int interrupt;
    tconv_run_stats stats;
    int executed;

    /* while executing */
    const tconv_writer_class *wc;
    const tconv_reader_class *fixed; /* named with -r, or NULL: detected per input */
    tconv_options wopts;
    tconv_progress prog;
    tconv_input *in; /* being read, for progress */
    uint64_t done_bytes;
    uint32_t tried;         /* inputs opened to be read: read, failed, of unknown format */
    unsigned char *read_ok; /* per input index: read to its end without failing */
    size_t nread_ok;
    tconv_mpi *mpi; /* one of the processes of an MPI run, or NULL */
    int coll_on;    /* the writer runs on every rank (run_collective) */
    tconv_collective coll;
    int partial;            /* workers and ranks send partial results (tconv_partial_possible) */
    tconv_split_conf split; /* an input read in line may be read in parts (core/split.c) */
};

static char *run_keep(tconv_run *r, const char *s)
{
    if (!s) return NULL;
    r->owned = tconv_xrealloc(r->owned, (r->nowned + 1) * sizeof(*r->owned));
    return r->owned[r->nowned++] = tconv_xstrdup(s);
}

static const char *const *run_keep_list(tconv_run *r, const char *const *v, size_t n)
{
    if (!n) return NULL;
    const char **copy = tconv_xcalloc(n, sizeof(*copy));
    for (size_t i = 0; i < n; i++)
        copy[i] = run_keep(r, v[i]);
    r->owned = tconv_xrealloc(r->owned, (r->nowned + 1) * sizeof(*r->owned));
    r->owned[r->nowned++] = (char *)copy;
    return copy;
}

TCONV_API tconv_run *tconv_run_new(tconv_host *h, const tconv_run_opts *opts)
{
    tconv_run *r = tconv_xcalloc(1, sizeof(*r));
    r->host = h;
    tconv_run_opts def = TCONV_RUN_OPTS_INIT;
    r->o = def;
    /* A program built against an older minor knows a shorter struct. */
    size_t n = opts->struct_size < sizeof(r->o) ? opts->struct_size : sizeof(r->o);
    memcpy(&r->o, opts, n);
    r->o.struct_size = sizeof(r->o);
    r->o.reader = run_keep(r, r->o.reader);
    r->o.writer = run_keep(r, r->o.writer);
    r->o.output = run_keep(r, r->o.output);
    r->o.inputs = run_keep_list(r, r->o.inputs, r->o.ninputs);
    r->o.reader_options = run_keep_list(r, r->o.reader_options, r->o.nreader_options);
    r->o.writer_options = run_keep_list(r, r->o.writer_options, r->o.nwriter_options);
    atomic_init(&r->interrupt, 0);
    r->ctx = tconv_ctx_new();
    tconv_ctx_set_verbosity(r->ctx, r->o.verbosity);
    r->ctx->all_spans = r->o.all_spans;
    r->ctx->notice = h->hooks.notice;
    r->ctx->notice_user = h->hooks.user;
    r->ctx->interrupt = &r->interrupt;
    r->stats.struct_size = sizeof(r->stats);
    return r;
}

TCONV_API void tconv_run_free(tconv_run *r)
{
    if (!r) return;
    tconv_options_free(&r->wopts);
    tconv_ctx_free(r->ctx);
    free(r->read_ok);
    for (size_t i = 0; i < r->nowned; i++)
        free(r->owned[i]);
    free(r->owned);
    free(r);
}

TCONV_API tconv_ctx *tconv_run_ctx(tconv_run *r)
{
    return r->ctx;
}

TCONV_API void tconv_run_interrupt(tconv_run *r)
{
    atomic_store_explicit(&r->interrupt, 1, memory_order_relaxed);
}

TCONV_API void tconv_run_get_stats(const tconv_run *r, tconv_run_stats *st)
{
    size_t n = st->struct_size < sizeof(*st) ? st->struct_size : sizeof(*st);
    memcpy(st, &r->stats, n);
}

static double run_now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static const char *run_class_name(const tconv_plugin_desc *d, int writers, size_t k)
{
    if (writers) return d->writers && d->writers[k] ? d->writers[k]->name : NULL;
    return d->readers && d->readers[k] ? d->readers[k]->name : NULL;
}

/* "a, b, c": the names of every reader (or writer), for messages. */
static char *run_names(const tconv_host *h, int writers)
{
    size_t len = 0, cap = 64;
    char *s = tconv_xmalloc(cap);
    s[0] = 0;
    for (size_t i = 0; i < h->reg.n; i++) {
        const char *name;
        for (size_t k = 0; (name = run_class_name(h->reg.plugins[i].desc, writers, k)); k++) {
            TCONV_GROW(s, cap, len + strlen(name) + 3);
            len += (size_t)sprintf(s + len, "%s%s", len ? ", " : "", name);
        }
    }
    if (len) return s;
    free(s);
    return tconv_xstrdup("none (no plugins found; see --list and TCONV_PLUGIN_PATH)");
}

/* Every reader's (or writer's) name, for "did you mean"; free the array (not the names). */
static const char **run_name_list(const tconv_host *h, int writers, size_t *n)
{
    const char **names = NULL;
    size_t cap = 0;
    *n = 0;
    for (size_t i = 0; i < h->reg.n; i++) {
        const char *name;
        for (size_t k = 0; (name = run_class_name(h->reg.plugins[i].desc, writers, k)); k++) {
            TCONV_GROW(names, cap, *n + 1);
            names[(*n)++] = name;
        }
    }
    return names;
}

/* ".pb.gz, .pprof, .folded, ...": every output name ending a loaded writer claims. */
static char *run_extensions(const tconv_host *h)
{
    size_t len = 0, cap = 64;
    char *s = tconv_xmalloc(cap);
    s[0] = 0;
    for (size_t i = 0; i < h->reg.n; i++) {
        for (const tconv_writer_class *const *c = h->reg.plugins[i].desc->writers; c && *c; c++) {
            const char *exts = TCONV_CLASS_GET(*c, extensions);
            for (const char *p = exts; p && *p;) {
                size_t n = strcspn(p, "|");
                TCONV_GROW(s, cap, len + n + 4);
                len += (size_t)sprintf(s + len, "%s.%.*s", len ? ", " : "", (int)n, p);
                p += n + (p[n] == '|');
            }
        }
    }
    return s;
}

/* A writer named as one of its output extensions (-w svg), else the closest name. */
static const char *run_writer_meant(const tconv_host *h, const char *word)
{
    for (size_t i = 0; i < h->reg.n; i++)
        for (const tconv_writer_class *const *c = h->reg.plugins[i].desc->writers; c && *c; c++) {
            const char *exts = TCONV_CLASS_GET(*c, extensions);
            for (const char *p = exts; p && *p;) {
                size_t n = strcspn(p, "|");
                if (strlen(word) == n && strncasecmp(word, p, n) == 0) return (*c)->name;
                p += n + (p[n] == '|');
            }
        }
    size_t n;
    const char **names = run_name_list(h, 1, &n);
    const char *meant = tconv_spell_closest(word, names, n);
    free(names);
    return meant;
}

static int run_declares(const tconv_reader_class *rc, const char *kv)
{
    size_t len = strcspn(kv, "=");
    for (const tconv_option_desc *d = rc->options; d && d->name; d++)
        if (strlen(d->name) == len && strncmp(d->name, kv, len) == 0) return 1;
    return 0;
}

/* Reader options for rc: with a reader named by -r, all of them (an unknown one is an error);
 * with detected readers, the ones rc declares, since one folder may mix formats. strict
 * becomes strict=true where the reader has that option. */
static int run_parse_ropts(const tconv_run *r, const tconv_reader_class *rc, int named,
                           tconv_options *ro, char *err, size_t cap)
{
    char **kv = tconv_xcalloc(r->o.nreader_options + 1, sizeof(char *));
    size_t n = 0;
    for (size_t i = 0; i < r->o.nreader_options; i++)
        if (named || run_declares(rc, r->o.reader_options[i]))
            kv[n++] = (char *)r->o.reader_options[i];
    for (const tconv_option_desc *d = rc->options; r->o.strict && d && d->name; d++)
        if (strcmp(d->name, "strict") == 0) kv[n++] = "strict=true";
    int rc_ = tconv_options_parse(ro, rc->options, kv, n, err, cap);
    free(kv);
    return rc_;
}

/* Everything that can be checked before the output is touched: a mistake here costs nothing. */
static int run_check(tconv_run *r)
{
    tconv_ctx *ctx = r->ctx;
    const tconv_host *h = r->host;
    char err[1024];
    const char *wname = r->o.writer;
    if (wname) {
        r->wc = tconv_host_writer(h, wname);
    } else {
        r->wc = tconv_host_writer_for(h, r->o.output);
        if (!r->wc) {
            /* The endings of the writers loaded, not a list that falls behind them. */
            char *exts = run_extensions(h);
            tconv_error_usage(ctx,
                              "no writer: give one with -w (writers: see --list), or an -o "
                              "name ending in %s",
                              *exts ? exts : "an extension a writer claims (none is loaded)");
            free(exts);
            return -1;
        }
    }
    if (!r->wc) {
        char *names = run_names(h, 1);
        tconv_error_usage(ctx, "unknown writer '%s'; available writers: %s", wname, names);
        const char *meant = run_writer_meant(h, wname);
        if (meant) tconv_error_hint(ctx, "did you mean -w %s?", meant);
        free(names);
        return -1;
    }
    if (tconv_options_parse(&r->wopts, r->wc->options, (char *const *)r->o.writer_options,
                            r->o.nwriter_options, err, sizeof(err)) < 0) {
        tconv_error_usage(ctx, "writer %s: %s", r->wc->name, err);
        return -1;
    }
    if (tconv_selection_parse(&ctx->selection, r->o.window, r->o.steps, r->o.step_name, err,
                              sizeof(err)) < 0) {
        tconv_error_usage(ctx, "%s", err);
        return -1;
    }
    if (r->o.only_input) ctx->selection.input = r->o.input;
    ctx->selection.by_rank = r->o.only_rank != 0;
    int buffers = (r->wc->flags & TCONV_WRITER_ORDERED) ||
                  ((r->wc->accepts & TCONV_KIND_BIT(TCONV_EV_SAMPLE)) &&
                   !(r->wc->accepts & TCONV_KINDS_SPANS));
    if ((r->o.window || r->o.steps) && !buffers) {
        tconv_error_usage(ctx,
                          "the %s writer streams events as they are read, so --window and "
                          "--steps cannot apply to it; use text-ordered, csv or another writer "
                          "that orders the trace",
                          r->wc->name);
        return -1;
    }
    /* An input may say its rank after its events: only a writer that holds them can wait. */
    if (r->o.only_rank && !buffers) {
        tconv_error_usage(ctx,
                          "the %s writer streams events as they are read, before an input's "
                          "rank may be known, so --rank cannot apply to it; use text-ordered, "
                          "or --input N to select by position",
                          r->wc->name);
        return -1;
    }
    if ((r->wc->flags & TCONV_WRITER_DIRECTORY) && (!r->o.output || !strcmp(r->o.output, "-"))) {
        tconv_error_usage(ctx, "the %s writer writes a directory: give it with -o DIR",
                          r->wc->name);
        return -1;
    }
    if (r->o.reader && !(r->fixed = tconv_host_reader(h, r->o.reader))) {
        char *names = run_names(h, 0);
        tconv_error_usage(ctx, "unknown reader '%s'; available readers: %s", r->o.reader, names);
        size_t n;
        const char **list = run_name_list(h, 0, &n);
        const char *meant = tconv_spell_closest(r->o.reader, list, n);
        const tconv_known_format *known = tconv_format_named(r->o.reader);
        /* A format tconv knows by name is what was meant, not a reader spelled alike. */
        if (known)
            tconv_error_hint(ctx,
                             "no loaded reader reads this format (%s): a reader plugin for it "
                             "must be on the plugin path (--list shows what is loaded)",
                             known->what);
        else if (meant)
            tconv_error_hint(ctx, "did you mean -r %s?", meant);
        free(list);
        free(names);
        return -1;
    }
    /* Reader options are checked up front when the reader is known, so a typo costs nothing. */
    if (r->fixed) {
        tconv_options ro;
        int bad = run_parse_ropts(r, r->fixed, 1, &ro, err, sizeof(err)) < 0;
        tconv_options_free(&ro);
        if (bad) {
            tconv_error_usage(ctx, "reader %s: %s", r->fixed->name, err);
            return -1;
        }
        return 0;
    }
    for (size_t i = 0; i < r->o.nreader_options; i++) {
        int known = 0;
        for (size_t p = 0; p < h->reg.n && !known; p++)
            for (const tconv_reader_class *const *c = h->reg.plugins[p].desc->readers;
                 c && *c && !known; c++)
                known = run_declares(*c, r->o.reader_options[i]);
        if (!known) {
            tconv_error_usage(ctx,
                              "no reader has the option '%.*s'; see --help-plugin READER, and "
                              "name the reader with -r",
                              (int)strcspn(r->o.reader_options[i], "="), r->o.reader_options[i]);
            return -1;
        }
    }
    return 0;
}

static void run_report(tconv_run *r)
{
    if (!r->host->hooks.progress) return;
    r->prog.events = r->stats.events;
    r->prog.bytes_read = r->done_bytes + (r->in ? tconv_input_raw_offset(r->in) : 0);
    r->prog.name = r->in ? tconv_input_name(r->in) : NULL;
    r->host->hooks.progress(r->host->hooks.user, &r->prog);
}

static void run_tick(void *user, uint64_t events)
{
    tconv_run *r = user;
    r->stats.events = events;
    run_report(r);
}

/* What a reader named with -r makes of an input's first bytes, taken before it reads them. */
typedef struct run_misread {
    int unrecognised; /* its probe scores them 0 */
    int blank;        /* only blanks: if they are the whole input, it is empty */
    size_t hlen;
    const tconv_reader_class *other; /* the reader detection would choose */
} run_misread;

static void run_misread_note(const tconv_run *r, tconv_input *in, const tconv_reader_class *rc,
                             run_misread *m)
{
    *m = (run_misread){0};
    if (!r->fixed || !rc->probe) return;
    const unsigned char *head = tconv_input_peek(in, &m->hlen);
    if (rc->probe(head, m->hlen) > 0) return;
    m->unrecognised = 1;
    m->blank = 1;
    for (size_t i = 0; i < m->hlen && m->blank; i++)
        m->blank = head[i] == ' ' || head[i] == '\t' || head[i] == '\n' || head[i] == '\r';
    m->other = tconv_host_detect(r->host, head, m->hlen, tconv_input_name(in));
}

/* A reader named with -r that read a whole input without an event and does not recognise its
 * first bytes was the wrong reader: an empty output would pass for a correct one. */
static void run_misread_check(tconv_run *r, tconv_input *in, const tconv_reader_class *rc,
                              const run_misread *m)
{
    if (!m->unrecognised || (m->blank && tconv_input_offset(in) <= m->hlen)) return;
    const char *name = tconv_input_name(in);
    tconv_error_set(r->ctx, "%s: the %s reader found nothing it recognises in this input", name,
                    rc->name);
    if (m->other && m->other != rc)
        tconv_error_hint(r->ctx, "it looks like %s input: give -r %s, or no -r to detect it",
                         m->other->name, m->other->name);
    else
        tconv_error_hint(r->ctx, "check the input; without -r tconv detects the format");
}

/* The reader detection picks for an input's first bytes, or NULL. *known: a format tconv knows
 * (core/formats.c) that no loaded reader claims as surely, which no reader then reads. */
static const tconv_reader_class *run_detect(const tconv_run *r, const unsigned char *head,
                                            size_t hlen, const char *name,
                                            const tconv_known_format **known)
{
    int score = 0;
    const tconv_reader_class *rc = tconv_host_detect_scored(r->host, head, hlen, name, &score);
    const tconv_known_format *k = tconv_format_known(head, hlen);
    *known = k && k->score > score ? k : NULL;
    return *known ? NULL : rc;
}

/* The hint of a known format, its FILE the input's name. */
static void run_known_hint(tconv_ctx *ctx, const tconv_known_format *k, const char *name)
{
    size_t cap = strlen(k->hint) + 1, n = 0;
    for (const char *p = k->hint; (p = strstr(p, "FILE")); p += 4)
        cap += strlen(name);
    char *text = tconv_xmalloc(cap);
    for (const char *p = k->hint; *p;) {
        if (strncmp(p, "FILE", 4) == 0) {
            n += (size_t)sprintf(text + n, "%s", name);
            p += 4;
        } else {
            text[n++] = *p++;
        }
    }
    text[n] = 0;
    tconv_error_hint(ctx, "%s", text);
    free(text);
}

/* The name of a loaded reader of a known format, or NULL. rocprof reads both of ROCm's. */
static const char *run_known_reader(const tconv_host *h, const tconv_known_format *k)
{
    const char *name = strncmp(k->name, "rocp", 4) == 0 ? "rocprof" : k->name;
    const tconv_reader_class *rc = tconv_host_reader(h, name);
    return rc ? rc->name : NULL;
}

/* The reader for input i, or NULL (skipped, or an error on the ctx: *fatal says which). */
static const tconv_reader_class *run_pick_reader(tconv_run *r, tconv_input *in,
                                                 const tconv_input_item *it, int *fatal)
{
    tconv_ctx *ctx = r->ctx;
    const tconv_reader_class *rc = r->fixed;
    const tconv_known_format *known = NULL;
    size_t hlen;
    const unsigned char *head = tconv_input_peek(in, &hlen);
    const char *name = tconv_input_name(in);
    *fatal = 0;
    if (!rc) {
        rc = run_detect(r, head, hlen, name, &known);
    } else if (it->dir && rc->probe && rc->probe(head, hlen) <= 0) {
        rc = NULL;
    }
    if (rc) return rc;
    if (tconv_error_pending(ctx)) {
        *fatal = 1;
        return NULL;
    }
    /* Nothing to tell a format by: say so, rather than that no reader knows it. */
    int empty = hlen == 0 && !r->fixed;
    if (it->dir && (empty || known)) {
        tconv_warning_add(ctx, "core.skipped-file", "'%s' (in '%s') is %s; skipped", it->path,
                          it->dir, empty ? "empty" : known->what);
        return NULL;
    }
    if (empty) {
        tconv_error_set(ctx, "'%s' is empty%s: there is nothing to convert", name,
                        tconv_input_is_gzip(in) ? " once decompressed" : "");
        *fatal = 1;
        return NULL;
    }
    if (known) {
        const char *own = run_known_reader(r->host, known);
        if (own) {
            /* Its reader is loaded and did not take it: the input is damaged or of a form the
             * reader does not know, and only the reader can say which. */
            tconv_error_set(ctx, "'%s' looks like %s, but the %s reader does not recognise it",
                            name, known->what, own);
            tconv_error_hint(ctx, "if it is one, name the reader to see what it finds: -r %s", own);
        } else {
            char *names = run_names(r->host, 0);
            tconv_error_set(ctx, "'%s' is %s, which none of the loaded readers reads (%s)", name,
                            known->what, names);
            run_known_hint(ctx, known, name);
            free(names);
        }
        *fatal = 1;
        return NULL;
    }
    if (it->dir) {
        /* A folder may hold files of other formats (logs, images): skip them, counted. */
        tconv_warning_add(ctx, "core.skipped-file",
                          "'%s' (in '%s') is not in a format %s recognises; skipped", it->path,
                          it->dir, r->fixed ? r->fixed->name : "any reader");
        return NULL;
    }
    char *names = run_names(r->host, 0);
    tconv_error_set(ctx, "cannot tell the format of '%s'; tried readers: %s", tconv_input_name(in),
                    names);
    tconv_error_hint(ctx, "name the format with -r READER");
    free(names);
    *fatal = 1;
    return NULL;
}

/* --keep-going: the input that just failed is left out, its error told now (the run goes on,
 * and the ctx holds one error at a time). 1 when the run goes on; 0 when it must stop: no
 * --keep-going, an interrupt, or the caller's mistake, which no other input would fix. */
static int run_input_failed(tconv_run *r, int usage)
{
    tconv_ctx *ctx = r->ctx;
    if (!r->o.keep_going || usage || tconv_error_is_usage(ctx) ||
        atomic_load_explicit(&r->interrupt, memory_order_relaxed))
        return 0;
    size_t n;
    const char *const *chain = tconv_error_chain(ctx, &n);
    size_t len = 1;
    for (size_t i = 0; i < n; i++)
        len += strlen(chain[i]) + 16;
    const char *hint = tconv_error_hint_get(ctx);
    if (hint) len += strlen(hint) + 16;
    char *text = tconv_xmalloc(len), *p = text;
    *p = 0;
    for (size_t i = 0; i < n; i++)
        p += sprintf(p, "%s%s", i ? ": " : "", chain[i]);
    if (hint) sprintf(p, " (%s)", hint);
    if (r->host->hooks.notice) r->host->hooks.notice(r->host->hooks.user, TCONV_NOTICE_ERROR, text);
    free(text);
    tconv_error_clear(ctx);
    r->stats.inputs_failed++;
    return 1;
}

/* ---- -j: inputs read on worker threads ---------------------------------------------------- */

/* An input a worker read into a recording with a context of its own; or, direct, one it left
 * to the main thread to read in line (not a regular file, which only the main thread may open
 * once; no reader that may run apart; anything that failed before reading, so that the main
 * thread's own attempt says it as a serial run would). */
typedef struct run_par run_par;
typedef struct run_job {
    run_par *par;
    tconv_jobs *jobs; /* whose byte budget counts the recording; NULL: none */
    int direct;
    tconv_ctx *ctx;
    tconv_rec *rec;
    tconv_input *in;
    const tconv_reader_class *rc;
    run_misread mis;
} run_job;

/* What the threads share: the run (read only), the inputs, and the event arrays of the
 * recordings replayed, to record into again. */
enum { RUN_SPARE = 64 };
struct run_par {
    tconv_run *r;
    const tconv_input_list *inputs;
    uint64_t step; /* a recording reports its bytes to the budget every step bytes */
    pthread_mutex_t mu;
    tconv_rec_buf spare[RUN_SPARE];
    size_t nspare;
};

static tconv_rec_buf run_spare_take(run_par *p)
{
    tconv_rec_buf buf = {0};
    pthread_mutex_lock(&p->mu);
    if (p->nspare) buf = p->spare[--p->nspare];
    pthread_mutex_unlock(&p->mu);
    return buf;
}

/* Frees a recording, and gives its bytes back to the budget of jobs. Its event array is kept for
 * the next recording, still counted, while the budget has room for it. */
static void run_rec_drop(run_par *p, tconv_jobs *jobs, tconv_rec *rec)
{
    uint64_t held = tconv_rec_held(rec);
    tconv_rec_buf buf = tconv_rec_free(rec);
    uint64_t keep = tconv_rec_buf_bytes(buf);
    if (keep > held) keep = held; /* a recording that never reported */
    pthread_mutex_lock(&p->mu);
    int room = p->nspare < RUN_SPARE;
    if (jobs && !tconv_jobs_release(jobs, held - keep, room ? keep : 0)) room = 0;
    if (room) {
        buf.held = jobs ? keep : 0;
        p->spare[p->nspare++] = buf;
        buf.ev = NULL;
    }
    pthread_mutex_unlock(&p->mu);
    tconv_rec_buf_free(buf);
}

static void run_job_free(void *v)
{
    run_job *j = v;
    if (!j) return;
    if (j->in) tconv_input_close(j->in);
    if (j->rec) run_rec_drop(j->par, j->jobs, j->rec);
    tconv_ctx_free(j->ctx);
    free(j);
}

/* The job becomes one the main thread reads in line: what the worker made of it is dropped. */
static void run_job_direct(run_job *j)
{
    if (j->in) tconv_input_close(j->in);
    j->in = NULL;
    if (j->rec) run_rec_drop(j->par, j->jobs, j->rec);
    j->rec = NULL;
    tconv_ctx_free(j->ctx);
    j->ctx = NULL;
    j->direct = 1;
}

/* A partial result the run's sink cannot take as a serial run would (an input before had stack
 * samples of its own): the input is read in line instead. */
static void run_job_unpartial(run_job *j, tconv_sink *sink)
{
    if (j && !j->direct && j->rec && tconv_rec_partial(j->rec) && !tconv_sink_partial_ok(sink))
        run_job_direct(j);
}

static int run_concurrent(const tconv_reader_class *rc)
{
    return TCONV_CLASS_HAS(rc, flags) && (rc->flags & TCONV_READER_CONCURRENT);
}

static void *run_job_read(void *user, size_t k, tconv_jobs *jobs, const atomic_int *abandon)
{
    run_par *p = user;
    const tconv_run *r = p->r;
    const tconv_input_item *it = &p->inputs->items[k];
    run_job *j = tconv_xcalloc(1, sizeof(*j));
    j->par = p;
    j->jobs = jobs;
    j->direct = 1;
    struct stat sb;
    if (strcmp(it->path, "-") == 0 || stat(it->path, &sb) != 0 || !S_ISREG(sb.st_mode)) return j;
    /* The input's index is not known yet (inputs skipped before it do not count): the worker's
     * own is its position, and the replay gives its events and tracks the real one. */
    j->ctx = tconv_ctx_new_worker(r->ctx, (uint32_t)k);
    j->in = tconv_input_open(j->ctx, it->path, (uint32_t)k, r->o.max_input_size);
    if (!j->in) goto direct;
    size_t hlen;
    const unsigned char *head = tconv_input_peek(j->in, &hlen);
    const tconv_reader_class *rc = r->fixed;
    const tconv_known_format *known;
    if (!rc)
        rc = run_detect(r, head, hlen, tconv_input_name(j->in), &known);
    else if (it->dir && rc->probe && rc->probe(head, hlen) <= 0)
        rc = NULL;
    if (!rc || tconv_error_pending(j->ctx) || !run_concurrent(rc)) goto direct;
    tconv_options ro;
    char err[1024];
    if (run_parse_ropts(r, rc, r->fixed != NULL, &ro, err, sizeof(err)) < 0) {
        tconv_options_free(&ro);
        goto direct;
    }
    tconv_ctx_set_input_name(j->ctx, tconv_input_name(j->in));
    run_misread_note(r, j->in, rc, &j->mis);
    j->rec = tconv_rec_new(j->ctx, run_spare_take(p));
    if (jobs) tconv_rec_budget(j->rec, jobs, k, p->step);
    tconv_sink *sink = r->partial ? tconv_sink_new_partial(j->ctx, r->wc, j->rec, abandon)
                                  : tconv_sink_new_recording(j->ctx, j->rec, abandon);
    tconv_status st = rc->read(j->ctx, j->in, &ro, sink);
    /* A partial result only of a read that went well and stayed plain: anything else, the main
     * thread reads in line and says as a serial run would. */
    tconv_partial *part = r->partial && st == TCONV_OK ? tconv_sink_partial_end(sink) : NULL;
    tconv_sink_free(sink);
    tconv_options_free(&ro);
    if (part) tconv_rec_set_partial(j->rec, part);
    /* given up under the budget, or no partial result: the main thread reads it at its turn */
    if (tconv_rec_given_up(j->rec) || (r->partial && !part)) goto direct;
    tconv_rec_finish(j->rec, st);
    j->rc = rc;
    j->direct = 0;
    return j;
direct:
    run_job_direct(j);
    return j;
}

/* How many threads read: -j, or the online CPUs; never more than the inputs. */
static unsigned run_threads(const tconv_run *r, size_t ninputs)
{
    long n = r->o.jobs ? (long)r->o.jobs : sysconf(_SC_NPROCESSORS_ONLN);
    if (n < 1) n = 1;
    if ((size_t)n > ninputs) n = (long)ninputs;
    return n < 1 ? 1 : (unsigned)n;
}

/* The bytes of recordings held at once: --jobs-memory, or a quarter of the memory this process
 * may use (the machine's, or its cgroup's limit if lower), as a recording is the extra -j adds to
 * what a serial run holds. */
static uint64_t run_jobs_memory(const tconv_run *r)
{
    if (r->o.jobs_memory) return r->o.jobs_memory;
    long pages = sysconf(_SC_PHYS_PAGES), page = sysconf(_SC_PAGESIZE);
    uint64_t mem = pages > 0 && page > 0 ? (uint64_t)pages * (uint64_t)page : (uint64_t)4 << 30;
    uint64_t lim = tconv_cgroup_memory_limit();
    if (lim && lim < mem) mem = lim;
    return mem / 4;
}

/* How often a recording reports its growth: a few times per share of the budget, to stay near it,
 * without taking the lock for every few events. */
static uint64_t run_budget_step(uint64_t budget, unsigned threads)
{
    uint64_t step = budget / 4 / (threads ? threads : 1);
    if (step < ((uint64_t)64 << 10)) step = (uint64_t)64 << 10;
    if (step > ((uint64_t)4 << 20)) step = (uint64_t)4 << 20;
    return step;
}

/* One input read in parts (core/split.c) where no jobs read whole inputs (a single input): by as
 * many threads as -j allows, in parts of 4 MiB, for inputs from 16 MiB on. TCONV_SPLIT_BYTES=N
 * (tests, measurements) reads every input in parts of N bytes; TCONV_SPLIT_READ=N (tests) reads
 * the input N bytes at a time, so that reads end inside strings, escapes and numbers of a small
 * input too. */
static void run_split_conf(tconv_run *r, tconv_split_conf *c)
{
    long n = r->o.jobs ? (long)r->o.jobs : sysconf(_SC_NPROCESSORS_ONLN);
    *c = (tconv_split_conf){0};
    if (n < 2) return;
    c->threads = (unsigned)n;
    c->budget = run_jobs_memory(r);
    c->part = (uint64_t)4 << 20;
    c->min_size = (uint64_t)16 << 20;
    const char *e = getenv("TCONV_SPLIT_BYTES");
    if (e && *e) {
        char *end;
        unsigned long long v = strtoull(e, &end, 10);
        if (!*end && v) {
            c->part = v;
            c->min_size = 0;
        }
    }
    e = getenv("TCONV_SPLIT_READ");
    if (e && *e) c->read = (size_t)strtoull(e, NULL, 10);
}

/* ---- MPI: inputs read by other processes (core/mpi.c) ------------------------------------ */

/* A job as bytes: whether it was read there, by which reader, what of the input the replay
 * needs (its name, how far it was read, what a -r reader made of its head), the recording. */
static void run_job_encode(const run_job *j, tconv_wire *w)
{
    tconv_wire_u64(w, (uint64_t)j->direct);
    if (j->direct) return;
    tconv_wire_str(w, j->rc->name);
    tconv_wire_str(w, tconv_input_name(j->in));
    tconv_wire_u64(w, tconv_input_offset(j->in));
    tconv_wire_u64(w, tconv_input_raw_offset(j->in));
    tconv_wire_u64(w, (uint64_t)j->mis.unrecognised);
    tconv_wire_u64(w, (uint64_t)j->mis.blank);
    tconv_wire_u64(w, j->mis.hlen);
    tconv_wire_str(w, j->mis.other ? j->mis.other->name : NULL);
    tconv_rec_encode(j->rec, w);
}

/* The job back on rank 0; direct (read in line here) if the bytes make no sense. */
static run_job *run_job_decode(run_par *p, size_t k, tconv_wire *w)
{
    const tconv_run *r = p->r;
    run_job *j = tconv_xcalloc(1, sizeof(*j));
    j->par = p;
    j->direct = 1;
    if (tconv_wire_get_u64(w) != 0 || w->bad) return j;
    char *rc = tconv_wire_get_str(w, NULL), *name = tconv_wire_get_str(w, NULL);
    uint64_t off = tconv_wire_get_u64(w), raw = tconv_wire_get_u64(w);
    j->mis.unrecognised = (int)tconv_wire_get_u64(w);
    j->mis.blank = (int)tconv_wire_get_u64(w);
    j->mis.hlen = (size_t)tconv_wire_get_u64(w);
    char *other = tconv_wire_get_str(w, NULL);
    j->rc = rc ? tconv_host_reader(r->host, rc) : NULL;
    j->mis.other = other ? tconv_host_reader(r->host, other) : NULL;
    if (j->rc && name && !w->bad) j->rec = tconv_rec_decode(w, &j->ctx);
    if (j->rec) {
        j->in = tconv_input_read_elsewhere(r->ctx, name, (uint32_t)k, off, raw);
        j->direct = 0;
    }
    free(rc);
    free(name);
    free(other);
    return j;
}

/* Rank 0: input k as its rank sent it, or NULL: read it in line (it is rank 0's own). */
static run_job *run_mpi_take(run_par *p, size_t k)
{
    tconv_wire w = {0};
    run_job *j = NULL;
    if (tconv_mpi_recv(p->r->mpi, k, &w) == 0) j = run_job_decode(p, k, &w);
    free(w.p);
    return j;
}

/* What the writer wants of the readers (asked once, before open(), so that a writer's
 * declaration and its ABI 1.0 calls in open() add up), and whether workers and ranks send
 * partial results (internal.h). Both from the command alone: every rank decides alike.
 * --keep-going holds each input's events until it is read (a failed one leaves nothing), which
 * the stages on the worker cannot undo. */
static void run_apply_needs(tconv_run *r)
{
    uint32_t (*needs)(const tconv_options *) = TCONV_CLASS_GET(r->wc, needs);
    uint32_t n = needs ? needs(&r->wopts) : TCONV_NEED_ARGS;
    if (needs) {
        if (!(n & TCONV_NEED_ARGS)) tconv_args_ignore(r->ctx);
        if (n & TCONV_NEED_GPU_ATTRIBUTION) tconv_gpu_attribute(r->ctx);
        if (n & TCONV_NEED_CORR) r->ctx->need_corr = 1;
    }
    r->partial = !r->o.keep_going && tconv_partial_possible(r->ctx, r->wc, n);
}

/* A rank but 0: reads the inputs rank 0 gives it into recordings and sends them, in input
 * order, until all are sent or rank 0 needs no more. It opens no output. */
static tconv_outcome run_mpi_serve(tconv_run *r)
{
    run_apply_needs(r); /* as rank 0's run_convert does */
    tconv_input_list inputs = {0};
    tconv_mpi_plan(r->mpi, &inputs);
    run_par par = {.r = r, .inputs = &inputs};
    pthread_mutex_init(&par.mu, NULL);
    atomic_int abandon;
    atomic_init(&abandon, 0);
    int me = tconv_mpi_rank(r->mpi);
    for (size_t k = 0; k < inputs.n && !tconv_mpi_stopped(r->mpi); k++) {
        if (tconv_mpi_owner(r->mpi, k) != me) continue;
        run_job *j = run_job_read(&par, k, NULL, &abandon);
        tconv_wire w = {0};
        run_job_encode(j, &w);
        run_job_free(j);
        tconv_mpi_send(r->mpi, &w);
    }
    tconv_mpi_stop(r->mpi);
    for (size_t i = 0; i < par.nspare; i++)
        tconv_rec_buf_free(par.spare[i]);
    pthread_mutex_destroy(&par.mu);
    tconv_inputs_free(&inputs);
    return TCONV_DONE; /* rank 0's outcome replaces it */
}

/* ---- MPI: a writer on every rank (TCONV_WRITER_COLLECTIVE) ------------------------------- */

static tconv_status run_read_checks(tconv_run *r, tconv_status st);

/* Every rank runs the whole pipeline on its own inputs, and the writers combine their parts at
 * finish (collective.h). Not for what needs the whole run before the stages start or prints
 * as it goes: --window, --steps and --rank (resolved over every input), --keep-going (each
 * failed input's message goes out in its place). Those runs replay on rank 0, as other
 * writers' do. The decision depends on the command only: every rank makes the same. */
static int run_collective(const tconv_run *r)
{
    return r->mpi && (r->wc->flags & TCONV_WRITER_COLLECTIVE) && !r->o.window && !r->o.steps &&
           !r->o.step_name && !r->o.only_rank && !r->o.keep_going;
}

static void run_bcast_wire(tconv_mpi *m, tconv_wire *w)
{
    uint64_t len = w->len;
    tconv_mpi_bcast(m, &len, sizeof(len), 0);
    if (tconv_mpi_rank(m) != 0) {
        free(w->p);
        w->p = tconv_xmalloc(len ? (size_t)len : 1);
        w->len = w->cap = (size_t)len;
        w->pos = 0;
    }
    tconv_mpi_bcast(m, w->p, (size_t)len, 0);
}

/* Rank 0 refused the output before making it: the others hear that there is none. */
static void run_bcast_wire_none(tconv_mpi *m)
{
    tconv_wire w = {0};
    tconv_wire_u64(&w, 0);
    run_bcast_wire(m, &w);
    free(w.p);
}

/* Rank 0 makes the temporary directory and every rank writes into it (the output is on a file
 * system every rank sees); rank 0 alone commits it, once every rank's writer succeeded. NULL
 * on every rank when rank 0 could not make it (its error on rank 0's ctx). */
static tconv_output *run_coll_output(tconv_run *r, const tconv_output_opts *oo)
{
    tconv_output *out = NULL;
    tconv_wire w = {0};
    if (tconv_mpi_rank(r->mpi) == 0) {
        out = tconv_output_open(r->ctx, r->o.output, oo);
        tconv_wire_u64(&w, out != NULL);
        if (out) tconv_wire_str(&w, tconv_output_dir(out));
    }
    run_bcast_wire(r->mpi, &w);
    if (tconv_mpi_rank(r->mpi) != 0 && tconv_wire_get_u64(&w)) {
        char *dir = tconv_wire_get_str(&w, NULL);
        out = tconv_output_borrow_dir(r->ctx, r->o.output, dir);
        free(dir);
    }
    free(w.p);
    return out;
}

/* Each rank's outcome to rank 0, which takes the failure of the earliest input (at finish: of
 * the lowest rank), as a single process would have stopped there, and tells every rank whether
 * to go on. After reading, rank 0 also learns which inputs were read where, and gives each
 * rank the whole run's index of each of its inputs. Warnings are added to rank 0's, in rank
 * order, once (final: at the last agreement). */
typedef struct run_coll_state {
    uint64_t fail_pos; /* input position of the failure, UINT64_MAX: none */
    uint32_t *pos;     /* by local input index: its position in the input list */
    size_t npos;
    tconv_inputcheck *check; /* after reading: the sink's checks, whose log rank 0 replays */
} run_coll_state;

static void run_coll_encode(tconv_run *r, const run_coll_state *cs, int usage, tconv_wire *w)
{
    tconv_ctx *ctx = r->ctx;
    size_t n;
    const char *const *chain = tconv_error_chain(ctx, &n);
    tconv_wire_u64(w, cs->fail_pos);
    tconv_wire_u64(w, (uint64_t)(usage || tconv_error_is_usage(ctx)));
    tconv_wire_u64(w, r->stats.inputs);
    tconv_wire_u64(w, r->tried);
    tconv_wire_u64(w, r->stats.inputs_failed);
    tconv_wire_u64(w, cs->npos);
    for (size_t i = 0; i < cs->npos; i++)
        tconv_wire_u64(w, cs->pos[i]);
    if (cs->check) tconv_inputcheck_log_encode(cs->check, cs->pos, cs->npos, w);
    tconv_wire_u64(w, n);
    for (size_t i = 0; i < n; i++)
        tconv_wire_str(w, chain[i]);
    tconv_wire_str(w, tconv_error_hint_get(ctx) ? tconv_error_hint_get(ctx) : "");
    const char *kind, *first;
    uint64_t count;
    size_t nw = 0;
    while (tconv_warning_get(ctx, nw, NULL, NULL, NULL) == 0)
        nw++;
    tconv_wire_u64(w, nw);
    for (size_t i = 0; i < nw; i++) {
        tconv_warning_get(ctx, i, &kind, &first, &count);
        tconv_wire_str(w, kind);
        tconv_wire_str(w, first);
        tconv_wire_u64(w, count);
    }
}

typedef struct run_coll_rank {
    uint64_t fail_pos, usage, inputs, tried, failed, npos;
    uint64_t *pos;
    tconv_wire w; /* positioned at its error chain */
} run_coll_rank;

/* Rank 0: the error of rank q's message replaces its own. */
static void run_coll_take_error(tconv_ctx *ctx, tconv_wire *w, int usage)
{
    size_t n = (size_t)tconv_wire_get_u64(w);
    char **chain = tconv_xcalloc(n ? n : 1, sizeof(*chain));
    for (size_t i = 0; i < n; i++)
        chain[i] = tconv_wire_get_str(w, NULL);
    char *hint = tconv_wire_get_str(w, NULL);
    tconv_error_clear(ctx);
    if (n) {
        if (usage)
            tconv_error_usage(ctx, "%s", chain[n - 1]);
        else
            tconv_error_set(ctx, "%s", chain[n - 1]);
        for (size_t i = n - 1; i-- > 0;)
            tconv_error_wrap(ctx, "%s", chain[i]);
    }
    if (hint && *hint) tconv_error_hint(ctx, "%s", hint);
    for (size_t i = 0; i < n; i++)
        free(chain[i]);
    free(chain);
    free(hint);
}

static void run_coll_skip_error(tconv_wire *w)
{
    size_t n = (size_t)tconv_wire_get_u64(w);
    for (size_t i = 0; i <= n; i++)
        free(tconv_wire_get_str(w, NULL));
}

static void run_coll_take_warnings(tconv_ctx *ctx, tconv_wire *w)
{
    size_t n = (size_t)tconv_wire_get_u64(w);
    for (size_t i = 0; i < n && !w->bad; i++) {
        char *kind = tconv_wire_get_str(w, NULL), *first = tconv_wire_get_str(w, NULL);
        uint64_t count = tconv_wire_get_u64(w);
        if (kind && first) tconv_warning_merge(ctx, kind, first, count);
        free(kind);
        free(first);
    }
}

/* Rank 0, after reading: the checks of each input against the inputs before it, which the
 * ranks only logged (a rank's inputs alone are not the run's), made over every rank's log in
 * input order (core/inputcheck.c). A failure no later than the earliest failed read (first:
 * its rank, or -1) is the run's, as one process would have stopped there, with its message. */
static int run_coll_recheck(tconv_run *r, const run_coll_state *cs, const run_coll_rank *rk,
                            int first, tconv_inputcheck_log *log)
{
    uint64_t limit = first >= 0 ? rk[first].fail_pos : UINT64_MAX, at = 0;
    tconv_ctx *scratch = tconv_ctx_new();
    int failed = tconv_inputcheck_replay(cs->check, scratch, log, limit, &at) != TCONV_OK;
    if (failed) tconv_error_move(r->ctx, scratch);
    tconv_ctx_free(scratch);
    return failed;
}

/* Returns the run's status on every rank; on rank 0 with the error to show. */
static tconv_status run_coll_agree(tconv_run *r, run_coll_state *cs, tconv_status st, int *usage,
                                   int final)
{
    tconv_mpi *m = r->mpi;
    int me = tconv_mpi_rank(m), size = tconv_mpi_size(m);
    if (st != TCONV_OK && cs->fail_pos == UINT64_MAX) cs->fail_pos = 0;
    tconv_wire w = {0};
    run_coll_encode(r, cs, *usage, &w);
    uint64_t len = w.len, *lens = me == 0 ? tconv_xcalloc((size_t)size, sizeof(*lens)) : NULL;
    size_t *eight = tconv_xcalloc((size_t)size, sizeof(*eight)), total = 0;
    for (int q = 0; q < size; q++)
        eight[q] = sizeof(uint64_t);
    tconv_mpi_gatherv(m, &len, sizeof(len), lens, eight, 0);
    size_t *counts = tconv_xcalloc((size_t)size, sizeof(*counts));
    for (int q = 0; me == 0 && q < size; q++)
        total += counts[q] = (size_t)lens[q];
    unsigned char *all = me == 0 ? tconv_xmalloc(total ? total : 1) : NULL;
    tconv_mpi_gatherv(m, w.p, w.len, all, counts, 0);
    free(w.p);
    int32_t word[2] = {st != TCONV_OK, *usage};
    uint32_t *globals = NULL;
    size_t *gcounts = NULL;
    if (me == 0) {
        run_coll_rank *rk = tconv_xcalloc((size_t)size, sizeof(*rk));
        tconv_inputcheck_log *log = final ? NULL : tconv_inputcheck_log_new();
        int first = -1;
        for (int q = 0, off = 0; q < size; off += (int)counts[q], q++) {
            tconv_wire *x = &rk[q].w;
            x->p = all + off;
            x->len = counts[q];
            rk[q].fail_pos = tconv_wire_get_u64(x);
            rk[q].usage = tconv_wire_get_u64(x);
            rk[q].inputs = tconv_wire_get_u64(x);
            rk[q].tried = tconv_wire_get_u64(x);
            rk[q].failed = tconv_wire_get_u64(x);
            rk[q].npos = tconv_wire_get_u64(x);
            rk[q].pos = tconv_xcalloc(rk[q].npos ? (size_t)rk[q].npos : 1, sizeof(uint64_t));
            for (uint64_t i = 0; i < rk[q].npos; i++)
                rk[q].pos[i] = tconv_wire_get_u64(x);
            if (log) tconv_inputcheck_log_decode(log, x);
            if (rk[q].fail_pos != UINT64_MAX &&
                (first < 0 || (!final && rk[q].fail_pos < rk[first].fail_pos)))
                first = q;
        }
        if (first > 0) { /* else rank 0's own error, or none, stays */
            run_coll_take_error(r->ctx, &rk[first].w, (int)rk[first].usage);
            *usage = (int)rk[first].usage;
        }
        int recheck = log && run_coll_recheck(r, cs, rk, first, log);
        tconv_inputcheck_log_free(log);
        if (recheck) *usage = 0;
        word[0] = first >= 0 || recheck;
        word[1] = *usage;
        if (!final && first < 0 && !recheck) {
            for (int q = 0; q < size; q++) {
                r->stats.inputs += (uint32_t)(q ? rk[q].inputs : 0);
                r->tried += (uint32_t)(q ? rk[q].tried : 0);
                r->stats.inputs_failed += (uint32_t)(q ? rk[q].failed : 0);
            }
            word[0] = run_read_checks(r, TCONV_OK) != TCONV_OK;
        }
        if (!final) {
            /* The whole run's index of an input: how many inputs were counted before it, from
             * counts by position summed up (positions are the input list's). */
            gcounts = tconv_xcalloc((size_t)size, sizeof(*gcounts));
            size_t ng = 0, npos = 0;
            for (int q = 0; q < size; q++) {
                ng += (size_t)rk[q].npos;
                for (uint64_t i = 0; i < rk[q].npos; i++)
                    if (rk[q].pos[i] + 1 > npos) npos = (size_t)rk[q].pos[i] + 1;
            }
            uint32_t *before = tconv_xcalloc(npos + 1, sizeof(*before));
            for (int q = 0; q < size; q++)
                for (uint64_t i = 0; i < rk[q].npos; i++)
                    before[rk[q].pos[i] + 1]++;
            for (size_t p = 1; p <= npos; p++)
                before[p] += before[p - 1];
            globals = tconv_xcalloc(ng ? ng : 1, sizeof(*globals));
            for (int q = 0, at = 0; q < size; q++) {
                for (uint64_t i = 0; i < rk[q].npos; i++)
                    globals[at++] = before[rk[q].pos[i]];
                gcounts[q] = (size_t)rk[q].npos * sizeof(uint32_t);
            }
            free(before);
        }
        if (final || word[0]) {
            for (int q = 1; q < size; q++) {
                if (q != first) run_coll_skip_error(&rk[q].w);
                run_coll_take_warnings(r->ctx, &rk[q].w);
            }
        }
        for (int q = 0; q < size; q++)
            free(rk[q].pos);
        free(rk);
    }
    tconv_mpi_bcast(m, word, sizeof(word), 0);
    if (!final) {
        free(r->coll.global_input);
        r->coll.ninputs = cs->npos;
        r->coll.global_input = tconv_xcalloc(cs->npos ? cs->npos : 1, sizeof(uint32_t));
        tconv_mpi_scatterv(m, globals, gcounts, r->coll.global_input, cs->npos * sizeof(uint32_t),
                           0);
    }
    free(globals);
    free(gcounts);
    free(all);
    free(lens);
    free(eight);
    free(counts);
    *usage = word[1];
    return word[0] ? TCONV_FATAL : TCONV_OK;
}

/* One input into the sink: read in line (job NULL or direct), or replayed from a worker's
 * recording. TCONV_FATAL ends the run, with the error on the ctx. */
static tconv_status run_item(tconv_run *r, tconv_sink *sink, const tconv_input_item *it,
                             run_job *job, int *usage)
{
    tconv_ctx *ctx = r->ctx;
    char err[1024];
    int recorded = job && !job->direct;
    uint32_t index = r->stats.inputs;
    tconv_ctx_set_input(ctx, index);
    r->prog.input = index;
    tconv_input *in;
    if (recorded) {
        in = job->in;
        job->in = NULL;
    } else {
        in = tconv_input_open(ctx, it->path, index, r->o.max_input_size);
    }
    tconv_ctx_set_input_name(ctx, in ? tconv_input_name(in) : it->path);
    if (!in && it->dir) {
        /* A folder may hold a file its owner kept to themselves: name it, read the rest. */
        size_t n;
        const char *const *chain = tconv_error_chain(ctx, &n);
        tconv_warning_add(ctx, "core.unreadable", "%s (in '%s'); skipped",
                          n ? chain[n - 1] : it->path, it->dir);
        tconv_error_clear(ctx);
        r->prog.inputs_done++;
        return TCONV_OK;
    }
    if (!in) {
        r->prog.inputs_done++;
        r->tried++;
        return run_input_failed(r, 0) ? TCONV_OK : TCONV_FATAL;
    }
    int fatal = 0;
    const tconv_reader_class *rc = recorded ? job->rc : run_pick_reader(r, in, it, &fatal);
    if (!rc) {
        tconv_input_close(in);
        r->prog.inputs_done++;
        if (fatal) {
            r->tried++;
            if (!run_input_failed(r, 0)) return TCONV_FATAL;
        }
        return TCONV_OK;
    }
    r->stats.inputs++;
    tconv_inputinfo_set_name(ctx, index, tconv_input_name(in));
    r->tried++;
    tconv_options ro;
    if (run_parse_ropts(r, rc, r->fixed != NULL, &ro, err, sizeof(err)) < 0) {
        tconv_error_usage(ctx, "reader %s: %s", rc->name, err);
        *usage = 1;
        tconv_options_free(&ro);
        tconv_input_close(in);
        return TCONV_FATAL;
    }
    tconv_note(ctx, "reading '%s' with the %s reader", tconv_input_name(in), rc->name);
    r->in = in;
    run_report(r);
    run_misread mis;
    if (recorded)
        mis = job->mis;
    else
        run_misread_note(r, in, rc, &mis);
    uint64_t events_before = tconv_sink_accepted(sink);
    /* --keep-going: what the input changes is held or remembered, so that a failure can
     * leave it out whole (its events staged in the sink, its tracks and sample types). */
    uint32_t ntracks = tconv_track_count(ctx);
    tconv_stypes_saved types = {0};
    if (r->o.keep_going) {
        tconv_sampletypes_save(ctx, &types);
        tconv_sink_stage_begin(sink);
    }
    ctx->split = !recorded && r->split.threads > 1 ? &r->split : NULL;
    tconv_status st =
        recorded ? tconv_rec_replay(job->rec, ctx, sink) : rc->read(ctx, in, &ro, sink);
    ctx->split = NULL;
    if (st == TCONV_OK && tconv_sink_accepted(sink) == events_before) {
        run_misread_check(r, in, rc, &mis);
        if (tconv_error_pending(ctx)) st = TCONV_FATAL;
    }
    if (st != TCONV_OK && tconv_error_is_usage(ctx)) *usage = 1;
    if (st != TCONV_OK && !tconv_error_pending(ctx))
        tconv_error_set(ctx, "%s: the %s reader failed without saying why", tconv_input_name(in),
                        rc->name);
    if (st == TCONV_OK) {
        size_t old = r->nread_ok;
        TCONV_GROW(r->read_ok, r->nread_ok, (size_t)index + 1);
        memset(r->read_ok + old, 0, r->nread_ok - old);
        r->read_ok[index] = 1;
    }
    if (r->o.keep_going && st == TCONV_OK) {
        tconv_sampletypes_saved_free(&types);
        st = tconv_sink_stage_commit(sink); /* a failure now is the writer's: the run's */
    } else if (r->o.keep_going) {
        tconv_sink_stage_discard(sink);
        tconv_track_truncate(ctx, ntracks);
        tconv_sampletypes_restore(ctx, &types);
        if (run_input_failed(r, *usage)) st = TCONV_OK;
    }
    r->done_bytes += tconv_input_raw_offset(in);
    r->stats.bytes_read += tconv_input_raw_offset(in);
    r->stats.bytes_plain += tconv_input_offset(in);
    r->in = NULL;
    r->prog.inputs_done++;
    r->stats.events = tconv_sink_events(sink);
    run_report(r);
    tconv_options_free(&ro);
    tconv_input_close(in);
    return st;
}

/* Reads every input into the sink; TCONV_FATAL with the error on the ctx. With more than one
 * thread, workers read inputs ahead into recordings, replayed here in input order: the run's
 * context and the sink see the same calls in the same order as when one thread reads all. */
static tconv_status run_read(tconv_run *r, tconv_sink *sink, int *usage, int *in_finish)
{
    tconv_ctx *ctx = r->ctx;
    tconv_input_list inputs = {0};
    tconv_inputs_expand(ctx, &inputs, r->o.inputs, r->o.ninputs);
    r->prog.ninputs = (uint32_t)inputs.n;
    run_par par = {.r = r, .inputs = &inputs};
    pthread_mutex_init(&par.mu, NULL);
    if (r->mpi) tconv_mpi_plan(r->mpi, &inputs);
    unsigned threads = r->mpi ? 1 : run_threads(r, inputs.n);
    tconv_jobs *jobs = NULL;
    if (threads > 1) { /* the budget (sysconf, the cgroup's files) only where there are jobs */
        uint64_t budget = run_jobs_memory(r);
        par.step = run_budget_step(budget, threads);
        jobs = tconv_jobs_start(inputs.n, threads, budget, run_job_read, &par);
    }
    /* No jobs (one input): the threads may read the input in parts instead. */
    if (!jobs && !r->mpi) run_split_conf(r, &r->split);
    tconv_status st = TCONV_OK;
    run_coll_state cs = {UINT64_MAX, NULL, 0, NULL};
    if (r->coll_on) {
        cs.check = tconv_sink_inputcheck(sink);
        tconv_inputcheck_log_start(cs.check);
    }
    int me = r->mpi ? tconv_mpi_rank(r->mpi) : 0;
    for (size_t i = 0; i < inputs.n && st == TCONV_OK; i++) {
        /* A writer on every rank: each reads its own inputs in line, and no others. */
        if (r->coll_on && tconv_mpi_owner(r->mpi, i) != me) continue;
        run_job *job = jobs                    ? tconv_jobs_take(jobs, i)
                       : r->mpi && !r->coll_on ? run_mpi_take(&par, i)
                                               : NULL;
        uint32_t before = r->stats.inputs;
        run_job_unpartial(job, sink);
        st = run_item(r, sink, &inputs.items[i], job, usage);
        run_job_free(job);
        /* Lanes, and the stack writers' samples of the input's spans while the threads read on:
         * a failure there is the finish's (under per-rank writing, a failed read: the ranks agree
         * on it below, and none goes on to the finish). */
        if (st == TCONV_OK && (st = tconv_sink_input_done(sink)) != TCONV_OK && !r->coll_on)
            *in_finish = 1;
        if (r->coll_on && r->stats.inputs > before) {
            TCONV_GROW(cs.pos, cs.npos, (size_t)before + 1);
            cs.pos[before] = (uint32_t)i;
            if (st == TCONV_OK) tconv_inputcheck_input_end(cs.check, r->ctx, before);
        }
        if (st != TCONV_OK) cs.fail_pos = i;
    }
    cs.npos = r->stats.inputs;
    tconv_jobs_stop(jobs, run_job_free);
    if (r->mpi) tconv_mpi_stop(r->mpi);
    for (size_t i = 0; i < par.nspare; i++)
        tconv_rec_buf_free(par.spare[i]);
    pthread_mutex_destroy(&par.mu);
    if (r->coll_on) st = run_coll_agree(r, &cs, st, usage, 0);
    free(cs.pos);
    tconv_inputs_free(&inputs);
    return r->coll_on ? st : run_read_checks(r, st);
}

/* After reading: nothing read is a failure too. */
static tconv_status run_read_checks(tconv_run *r, tconv_status st)
{
    tconv_ctx *ctx = r->ctx;
    if (st == TCONV_OK && r->stats.inputs_failed && r->stats.inputs_failed == r->tried) {
        tconv_error_set(ctx, "%u of %u inputs failed; nothing was written", r->tried, r->tried);
        st = TCONV_FATAL;
    } else if (st == TCONV_OK && r->stats.inputs == 0) {
        /* Only directories were given, and nothing in them could be read. */
        tconv_error_set(ctx, "no file under '%s' is in a format tconv can read",
                        r->o.ninputs ? r->o.inputs[0] : "-");
        st = TCONV_FATAL;
    }
    return st;
}

static tconv_outcome run_convert(tconv_run *r)
{
    tconv_ctx *ctx = r->ctx;
    const tconv_writer_class *wc = r->wc;
    r->coll_on = run_collective(r);
    if (r->mpi && tconv_mpi_rank(r->mpi) != 0 && !r->coll_on) return run_mpi_serve(r);
    tconv_output_opts oo = {(wc->flags & TCONV_WRITER_DIRECTORY) ? TCONV_OUT_DIR : TCONV_OUT_STREAM,
                            r->o.force, (wc->flags & TCONV_WRITER_BINARY) != 0};
    /* An output that is an input would replace it: refused before anything is read or written. */
    int refused = (!r->mpi || tconv_mpi_rank(r->mpi) == 0) &&
                  tconv_output_check_inputs(ctx, r->o.output, r->o.inputs, r->o.ninputs) < 0;
    if (refused && !r->coll_on) return TCONV_USAGE;
    tconv_output *out = NULL;
    if (r->coll_on) {
        tconv_note(ctx, "every rank runs the %s writer on its own inputs", wc->name);
        out = refused ? NULL : run_coll_output(r, &oo);
        if (refused) run_bcast_wire_none(r->mpi);
        if (!out && tconv_mpi_rank(r->mpi) != 0) return TCONV_DONE;
        if (refused) return TCONV_USAGE;
        r->coll.mpi = r->mpi;
        ctx->coll = &r->coll;
    } else {
        if (r->mpi && (wc->flags & TCONV_WRITER_COLLECTIVE))
            tconv_note(ctx,
                       "the %s writer runs on rank 0 alone: --window, --steps, --rank and "
                       "--keep-going need the whole run",
                       wc->name);
        out = tconv_output_open(ctx, r->o.output, &oo);
    }
    if (!out) return tconv_error_is_usage(ctx) ? TCONV_USAGE : TCONV_FAILED;
    run_apply_needs(r);
    void *ws = NULL;
    tconv_status st = wc->open(ctx, out, &r->wopts, &ws);
    if (st != TCONV_OK) {
        if (!tconv_error_pending(ctx))
            tconv_error_set(ctx, "the %s writer failed to start", wc->name);
        tconv_output_close(out);
        return tconv_error_is_usage(ctx) ? TCONV_USAGE : TCONV_FAILED;
    }
    tconv_sink *sink = tconv_sink_new(ctx, wc, ws);
    tconv_sink_set_progress(sink, run_tick, r);
    int usage = 0, in_finish = 0;
    st = run_read(r, sink, &usage, &in_finish);
    if (st == TCONV_OK && r->o.only_rank &&
        tconv_selection_keep_rank(ctx, &ctx->selection, r->o.rank, r->read_ok, r->nread_ok) < 0) {
        usage = tconv_error_is_usage(ctx);
        st = TCONV_FATAL;
    }
    if (st == TCONV_OK) {
        st = tconv_sink_finish(sink);
        in_finish = 1;
    }
    if (in_finish) {
        if (st != TCONV_OK && !tconv_error_pending(ctx))
            tconv_error_set(ctx, "the %s writer failed without saying why", wc->name);
        /* A writer that learns only now that the inputs cannot be what it was asked for (a
         * diff of two) reports the caller's mistake, not a failed write. */
        if (st != TCONV_OK && tconv_error_is_usage(ctx))
            usage = 1;
        else if (st != TCONV_OK && !tconv_ctx_interrupted(ctx))
            tconv_error_wrap(ctx, "writing '%s' failed", tconv_output_name(out));
        if (r->coll_on) {
            run_coll_state cs = {UINT64_MAX, NULL, 0, NULL};
            st = run_coll_agree(r, &cs, st, &usage, 1);
        }
    }
    r->stats.events = tconv_sink_events(sink);
    tconv_sink_free(sink);
    wc->destroy(ws);
    ctx->coll = NULL;
    free(r->coll.global_input);
    r->coll.global_input = NULL;
    if (r->coll_on && tconv_mpi_rank(r->mpi) != 0) {
        tconv_output_close(out); /* rank 0's to commit or remove */
        return TCONV_DONE;
    }
    /* A signal that came after the last check still wins over the commit. */
    if (st == TCONV_OK && tconv_ctx_interrupted(ctx)) st = TCONV_FATAL;
    if (st == TCONV_OK && tconv_output_commit(out) != 0) st = TCONV_FATAL;
    r->stats.committed = st == TCONV_OK;
    if (st == TCONV_OK && r->stats.inputs_failed) {
        /* Written, and still a failure: the output lacks what the failed inputs held. */
        tconv_error_set(ctx, "%u of %u inputs failed; the output holds the other %u",
                        r->stats.inputs_failed, r->tried, r->tried - r->stats.inputs_failed);
        tconv_output_close(out);
        return TCONV_PARTIAL;
    }
    tconv_output_close(out); /* removes the temporary file or directory if not committed */
    if (st == TCONV_OK) return TCONV_DONE;
    if (atomic_load(&r->interrupt)) return TCONV_INTERRUPTED;
    return usage ? TCONV_USAGE : TCONV_FAILED;
}

TCONV_API tconv_outcome tconv_run_execute(tconv_run *r)
{
    if (r->executed) {
        tconv_error_usage(r->ctx, "a run is executed once; make a new one");
        return TCONV_USAGE;
    }
    r->executed = 1;
    double t0 = run_now();
    r->prog.struct_size = sizeof(r->prog);
    /* Joined before the checks, so that only rank 0 says what is wrong with the command. */
    r->mpi = tconv_mpi_begin();
    tconv_outcome res = run_check(r) < 0 ? TCONV_USAGE : run_convert(r);
    res = (tconv_outcome)tconv_mpi_end(r->mpi, (int)res);
    r->mpi = NULL;
    r->stats.seconds = run_now() - t0;
    return res;
}
