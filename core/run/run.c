/* One conversion: choose the writer and check every option before anything is read or
 * written, open the output (a temporary until the end), read each input with its reader into
 * the sink (core/run/run_read.c), finish the writer, and commit the output only when all of it
 * worked. Every way out but success leaves the output as it was. */
#include <string.h>
#include <strings.h>
#include <time.h>

#include "run.h"

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
    atomic_init(&r->signo, 0);
    r->ctx = tconv_ctx_new();
    tconv_plan_init(&r->plan);
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
    tconv_plan_free(&r->plan);
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

TCONV_API void tconv_run_signal(tconv_run *r, int sig)
{
    atomic_store_explicit(&r->signo, sig, memory_order_relaxed);
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
char *run_names(const tconv_host *h, int writers)
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
int run_parse_ropts(const tconv_run *r, const tconv_reader_class *rc, int named, tconv_options *ro,
                    char *err, size_t cap)
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
    tconv_selection *sel = &r->plan.sel;
    if (tconv_selection_parse(sel, r->o.window, r->o.steps, r->o.step_name, err, sizeof(err)) < 0) {
        tconv_error_usage(ctx, "%s", err);
        return -1;
    }
    ctx->step_name = sel->step_name;
    if (r->o.only_input) sel->input = r->o.input;
    sel->by_rank = r->o.only_rank != 0;
    tconv_plan_set_writer(&r->plan, r->wc);
    if (tconv_plan_check(&r->plan, ctx) < 0) return -1;
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

void run_report(tconv_run *r)
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

static tconv_outcome run_convert(tconv_run *r)
{
    tconv_ctx *ctx = r->ctx;
    const tconv_writer_class *wc = r->wc;
    /* What the writer wants of the readers, asked once, before open(), so that a writer's
     * declaration and its ABI 1.0 calls in open() add up; every rank decides alike. */
    tconv_plan_needs(&r->plan, ctx, &r->wopts, r->o.keep_going, r->mpi != NULL);
    if (r->mpi && tconv_mpi_rank(r->mpi) != 0 && !r->plan.collective) return run_mpi_serve(r);
    tconv_output_opts oo = {(wc->flags & TCONV_WRITER_DIRECTORY) ? TCONV_OUT_DIR : TCONV_OUT_STREAM,
                            r->o.force, (wc->flags & TCONV_WRITER_BINARY) != 0};
    /* An output that is an input would replace it: refused before anything is read or written. */
    int refused = (!r->mpi || tconv_mpi_rank(r->mpi) == 0) &&
                  tconv_output_check_inputs(ctx, r->o.output, r->o.inputs, r->o.ninputs, r->host,
                                            r->fixed) < 0;
    if (refused && !r->plan.collective) return TCONV_USAGE;
    tconv_output *out = NULL;
    if (r->plan.collective) {
        tconv_note(ctx, "every rank runs the %s writer on its own inputs", wc->name);
        out = refused ? NULL : run_coll_output(r, &oo);
        if (refused) run_bcast_wire_none(r->mpi);
        if (!out && tconv_mpi_rank(r->mpi) != 0) return TCONV_DONE;
        if (refused) return TCONV_USAGE;
        r->coll.mpi = r->mpi;
        ctx->coll = &r->coll;
    } else {
        if (r->mpi && (r->plan.sched & TCONV_WRITER_COLLECTIVE))
            tconv_note(ctx,
                       "the %s writer runs on rank 0 alone: --window, --steps, --rank and "
                       "--keep-going need the whole run",
                       wc->name);
        out = tconv_output_open(ctx, r->o.output, &oo);
    }
    if (!out) return tconv_error_is_usage(ctx) ? TCONV_USAGE : TCONV_FAILED;
    void *ws = NULL;
    tconv_status st = wc->open(ctx, out, &r->wopts, &ws);
    if (st != TCONV_OK) {
        if (!tconv_error_pending(ctx))
            tconv_error_set(ctx, "the %s writer failed to start", wc->name);
        tconv_output_close(out);
        return tconv_error_is_usage(ctx) ? TCONV_USAGE : TCONV_FAILED;
    }
    tconv_plan_opened(&r->plan, ctx);
    tconv_sink *sink = tconv_sink_new(ctx, &r->plan, wc, ws);
    tconv_sink_set_progress(sink, run_tick, r);
    int usage = 0, in_finish = 0;
    st = run_read(r, sink, &usage, &in_finish);
    if (st == TCONV_OK && r->o.only_rank &&
        tconv_selection_keep_rank(ctx, &r->plan.sel, r->o.rank, r->read_ok, r->nread_ok) < 0) {
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
        if (r->plan.collective) {
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
    if (r->plan.collective && tconv_mpi_rank(r->mpi) != 0) {
        tconv_output_close(out); /* rank 0's to commit or remove */
        return TCONV_DONE;
    }
    if (r->mpi) { /* committed once every rank said it was not stopped (run_mpi_settle) */
        r->held = out;
        r->held_st = st;
        r->held_usage = usage;
        return TCONV_DONE;
    }
    return run_commit(r, out, st, usage);
}

/* The run's end on the process that writes: the output moved into place if the run succeeded
 * and no signal came, else removed. */
tconv_outcome run_commit(tconv_run *r, tconv_output *out, tconv_status st, int usage)
{
    tconv_ctx *ctx = r->ctx;
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
    if (r->mpi) res = run_mpi_settle(r, res);
    res = (tconv_outcome)tconv_mpi_end(r->mpi, (int)res);
    r->stats.signal = res == TCONV_INTERRUPTED ? atomic_load(&r->signo) : 0;
    r->mpi = NULL;
    r->stats.seconds = run_now() - t0;
    return res;
}
