/* -j: inputs read ahead on worker threads (core/parallel/jobs.c), each into a recording with a
 * context of its own (core/parallel/record.c), or a partial result where the plan allows it;
 * the reader loop (core/run/run_read.c) takes them in input order. */
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "run.h"

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

void run_job_free(void *v)
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
void run_job_unpartial(run_job *j, tconv_sink *sink)
{
    if (j && !j->direct && j->rec && tconv_rec_partial(j->rec) && !tconv_sink_partial_ok(sink))
        run_job_direct(j);
}

static int run_concurrent(const tconv_reader_class *rc)
{
    return TCONV_CLASS_HAS(rc, flags) && (rc->flags & TCONV_READER_CONCURRENT);
}

void *run_job_read(void *user, size_t k, tconv_jobs *jobs, const atomic_int *abandon)
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
    int partial = r->plan.partial;
    tconv_sink *sink = partial ? tconv_sink_new_partial(j->ctx, &r->plan, r->wc, j->rec, abandon)
                               : tconv_sink_new_recording(j->ctx, j->rec, abandon);
    tconv_status st = rc->read(j->ctx, j->in, &ro, sink);
    /* A partial result only of a read that went well and stayed plain: anything else, the main
     * thread reads in line and says as a serial run would. */
    tconv_partial *part = partial && st == TCONV_OK ? tconv_sink_partial_end(sink) : NULL;
    tconv_sink_free(sink);
    tconv_options_free(&ro);
    if (part) tconv_rec_set_partial(j->rec, part);
    /* given up under the budget, or no partial result: the main thread reads it at its turn */
    if (tconv_rec_given_up(j->rec) || (partial && !part)) goto direct;
    tconv_rec_finish(j->rec, st);
    j->rc = rc;
    j->direct = 0;
    return j;
direct:
    run_job_direct(j);
    return j;
}

/* How many threads read: -j, or the online CPUs; never more than the inputs. */
unsigned run_threads(const tconv_run *r, size_t ninputs)
{
    long n = r->o.jobs ? (long)r->o.jobs : sysconf(_SC_NPROCESSORS_ONLN);
    if (n < 1) n = 1;
    if ((size_t)n > ninputs) n = (long)ninputs;
    return n < 1 ? 1 : (unsigned)n;
}

/* The bytes of recordings held at once: --jobs-memory, or a quarter of the memory this process
 * may use (the machine's, or its cgroup's limit if lower), as a recording is the extra -j adds to
 * what a serial run holds. */
uint64_t run_jobs_memory(const tconv_run *r)
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
uint64_t run_budget_step(uint64_t budget, unsigned threads)
{
    uint64_t step = budget / 4 / (threads ? threads : 1);
    if (step < ((uint64_t)64 << 10)) step = (uint64_t)64 << 10;
    if (step > ((uint64_t)4 << 20)) step = (uint64_t)4 << 20;
    return step;
}

/* One input read in parts where no jobs read whole inputs (a single input): by as many threads
 * as -j allows, in parts of 4 MiB, for inputs from 16 MiB on. TCONV_SPLIT_BYTES=N (tests,
 * measurements) reads every input in parts of N bytes; TCONV_SPLIT_READ=N (tests) reads the
 * input N bytes at a time, so that reads end inside strings, escapes and numbers of a small
 * input too. */
void run_split_conf(const tconv_run *r, tconv_split_conf *c)
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
