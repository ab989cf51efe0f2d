/* The reader loop of a run: each input, in order, opened and read in line by the reader named
 * or detected, or replayed from what a worker thread (core/run/run_jobs.c) or another rank
 * (core/run/run_mpi.c) read of it, into the sink; what a wrong reader or a failed input means
 * for the run (--keep-going). The run's context and sink see the same calls in the same order
 * however the input was read. */
#include <string.h>
#include <sys/stat.h>

#include "run.h"

void run_misread_note(const tconv_run *r, tconv_input *in, const tconv_reader_class *rc,
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
 * (core/plugin/formats.c) that no loaded reader claims as surely, which no reader then reads. */
const tconv_reader_class *run_detect(const tconv_run *r, const unsigned char *head, size_t hlen,
                                     const char *name, const tconv_known_format **known)
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
    r->stats.bytes_plain += tconv_input_offset(in) + tconv_input_by_name(in);
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
tconv_status run_read(tconv_run *r, tconv_sink *sink, int *usage, int *in_finish)
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
        /* Sizes of the files (a .gz one's compressed size; 0 for a pipe): the largest inputs
         * are begun first where the order allows it. */
        uint64_t *size = tconv_xcalloc(inputs.n ? inputs.n : 1, sizeof(*size));
        for (size_t i = 0; i < inputs.n; i++) {
            struct stat sb;
            if (strcmp(inputs.items[i].path, "-") != 0 && stat(inputs.items[i].path, &sb) == 0 &&
                S_ISREG(sb.st_mode))
                size[i] = (uint64_t)sb.st_size;
        }
        jobs = tconv_jobs_start_sized(inputs.n, threads, budget, size, run_job_read, &par);
        free(size);
    }
    /* No jobs (one input): the threads may read the input in parts instead. */
    if (!jobs && !r->mpi) run_split_conf(r, &r->split);
    tconv_status st = TCONV_OK;
    run_coll_state cs = {UINT64_MAX, NULL, 0, NULL};
    if (r->plan.collective) {
        cs.check = tconv_sink_inputcheck(sink);
        tconv_inputcheck_log_start(cs.check);
    }
    int me = r->mpi ? tconv_mpi_rank(r->mpi) : 0;
    for (size_t i = 0; i < inputs.n && st == TCONV_OK; i++) {
        /* A writer on every rank: each reads its own inputs in line, and no others. */
        if (r->plan.collective && tconv_mpi_owner(r->mpi, i) != me) continue;
        run_job *job = jobs                            ? tconv_jobs_take(jobs, i)
                       : r->mpi && !r->plan.collective ? run_mpi_take(&par, i)
                                                       : NULL;
        uint32_t before = r->stats.inputs;
        run_job_unpartial(job, sink);
        st = run_item(r, sink, &inputs.items[i], job, usage);
        run_job_free(job);
        /* Lanes, and the stack writers' samples of the input's spans while the threads read on:
         * a failure there is the finish's (under per-rank writing, a failed read: the ranks agree
         * on it below, and none goes on to the finish). */
        if (st == TCONV_OK && (st = tconv_sink_input_done(sink)) != TCONV_OK && !r->plan.collective)
            *in_finish = 1;
        if (r->plan.collective && r->stats.inputs > before) {
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
    if (r->plan.collective) st = run_coll_agree(r, &cs, st, usage, 0);
    free(cs.pos);
    tconv_inputs_free(&inputs);
    return r->plan.collective ? st : run_read_checks(r, st);
}

/* After reading: nothing read is a failure too. */
tconv_status run_read_checks(tconv_run *r, tconv_status st)
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
