/* The processes of an MPI run (core/parallel/mpi.c): the ranks but 0 read their inputs into
 * recordings for rank 0 to replay; or, under collective writing, every rank runs the whole
 * pipeline on its own inputs and the ranks agree on the outcome, the checks across inputs and
 * the input numbers. */
#include <string.h>

#include "run.h"

/* ---- MPI: inputs read by other processes (core/parallel/mpi.c)
 * ------------------------------------ */

/* A job as bytes: whether it was read there, by which reader, what of the input the replay
 * needs (its name, how far it was read, what a -r reader made of its head), the recording. */
static void run_job_encode(const run_job *j, tconv_wire *w)
{
    tconv_wire_u64(w, (uint64_t)j->direct);
    if (j->direct) return;
    tconv_wire_str(w, j->rc->name);
    tconv_wire_str(w, tconv_input_name(j->in));
    tconv_wire_u64(w, tconv_input_offset(j->in));
    tconv_wire_u64(w, tconv_input_raw_offset(j->in) - tconv_input_by_name(j->in));
    tconv_wire_u64(w, tconv_input_by_name(j->in));
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
    uint64_t by_name = tconv_wire_get_u64(w);
    j->mis.unrecognised = (int)tconv_wire_get_u64(w);
    j->mis.blank = (int)tconv_wire_get_u64(w);
    j->mis.hlen = (size_t)tconv_wire_get_u64(w);
    char *other = tconv_wire_get_str(w, NULL);
    j->rc = rc ? tconv_host_reader(r->host, rc) : NULL;
    j->mis.other = other ? tconv_host_reader(r->host, other) : NULL;
    if (j->rc && name && !w->bad) j->rec = tconv_rec_decode(w, &j->ctx);
    if (j->rec) {
        j->in = tconv_input_read_elsewhere(r->ctx, name, (uint32_t)k, off, raw, by_name);
        j->direct = 0;
    }
    free(rc);
    free(name);
    free(other);
    return j;
}

/* Rank 0: input k as its rank sent it, or NULL: read it in line (it is rank 0's own). */
run_job *run_mpi_take(run_par *p, size_t k)
{
    tconv_wire w = {0};
    run_job *j = NULL;
    if (tconv_mpi_recv(p->r->mpi, k, &w) == 0) j = run_job_decode(p, k, &w);
    free(w.p);
    return j;
}

/* A rank but 0: reads the inputs rank 0 gives it into recordings and sends them, in input
 * order, until all are sent or rank 0 needs no more. It opens no output. */
tconv_outcome run_mpi_serve(tconv_run *r)
{
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
void run_bcast_wire_none(tconv_mpi *m)
{
    tconv_wire w = {0};
    tconv_wire_u64(&w, 0);
    run_bcast_wire(m, &w);
    free(w.p);
}

/* Rank 0 makes the temporary directory and every rank writes into it (the output is on a file
 * system every rank sees); rank 0 alone commits it, once every rank's writer succeeded. NULL
 * on every rank when rank 0 could not make it (its error on rank 0's ctx). */
tconv_output *run_coll_output(tconv_run *r, const tconv_output_opts *oo)
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
 * input order (core/pipeline/inputcheck.c). A failure no later than the earliest failed read
 * (first: its rank, or -1) is the run's, as one process would have stopped there, with its message.
 */
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
tconv_status run_coll_agree(tconv_run *r, run_coll_state *cs, tconv_status st, int *usage,
                            int final)
{
    tconv_mpi *m = r->mpi;
    int me = tconv_mpi_rank(m), size = tconv_mpi_size(m);
    if (st != TCONV_OK && cs->fail_pos == UINT64_MAX) cs->fail_pos = 0;
    tconv_wire w = {0};
    run_coll_encode(r, cs, *usage, &w);
    unsigned char *all;
    size_t *counts;
    tconv_mpi_gather_bytes(m, w.p, w.len, 0, &all, &counts);
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
    free(counts);
    *usage = word[1];
    return word[0] ? TCONV_FATAL : TCONV_OK;
}

/* An MPI run's one outcome. A signal may reach any rank (a user's kill, mpirun passing on its
 * own), at any time: decided by each rank alone, the run could commit rank 0's output and
 * still end with the signal's status, or lose a signal that came in time. So every rank, once
 * it has done its part, says whether it was stopped and by which signal; rank 0 commits only
 * if none was, and every rank then knows the signal the run ends with. A signal after this
 * comes after the decision too: the output stands, and the run ends as if it came late. */
tconv_outcome run_mpi_settle(tconv_run *r, tconv_outcome res)
{
    int vote[2] = {0, 0};
    tconv_mpi_settle(r->mpi, &r->interrupt, &r->signo, vote);
    if (vote[0]) {
        int none = 0;
        atomic_compare_exchange_strong(&r->signo, &none, vote[1]);
        atomic_store(&r->interrupt, 1);
    }
    if (r->held) {
        res = run_commit(r, r->held, r->held_st, r->held_usage);
        r->held = NULL;
    }
    return vote[0] && res != TCONV_DONE && res != TCONV_PARTIAL ? TCONV_INTERRUPTED : res;
}
