/* One large input read on several threads (include/tconv/split.h): the elements of one JSON
 * array, cut into parts at the ',' between them, read by worker threads into recordings
 * (core/parallel/record.c) and replayed on the calling thread in input order, as -j replays whole
 * inputs.
 *
 * Invariant: the run's context and sink get the same calls in the same order as when the reader
 * reads the array itself. Three things keep it:
 *   - a part is cut only at a ',' that the structural index (core/util/json_index.c) finds outside
 *     strings at the array's depth, reading every byte of the array in order from its '['; the
 *     index is exact on valid JSON, and a part reader answers TCONV_OK only when its bytes read
 *     as whole elements, so a part whose start the index got wrong (the JSON before it was not
 *     valid) is never replayed;
 *   - a part is replayed only once every part before it was, and the first part that failed
 *     (for whatever reason: a JSON error, a bad event under strict, a cut the reader did not
 *     confirm) ends the split: the reader reads on from that part's first byte, in line, and so
 *     says whatever a whole read says, in its place; later parts are dropped unread or unused;
 *   - what an element needs of the elements before it (the reader's own state) the part
 *     reader does not guess: it hands the element to the calling thread (tconv_split_defer),
 *     which reads it in its place during the replay, with the reader's own state.
 *
 * The calling thread makes the parts (it reads the input: decompression, when there is any,
 * stays on its one thread or on the input's read-ahead thread), reads a part in line itself when
 * no worker has begun it (no recording, no replay), replays the parts workers recorded, and
 * records a later part itself rather than wait. At most `window` parts exist at once (read,
 * being read, or waiting for their replay), and while the budget is spent only the part the
 * calling thread takes next is made: the parts' bytes and their recordings stay within about
 * the budget plus one part. */
#include <pthread.h>
#include <string.h>
#include <time.h>

#include "parallel.h"

enum { PART_READY = 1, PART_BUSY, PART_DONE, PART_MAIN };
enum { SPLIT_READ = 1 << 20, SPLIT_SPARE = 16 };

typedef struct split_part {
    unsigned char *buf; /* the input's bytes [off, off + len), from the ',' (or just after the '[')
                         * before the first element to the ',' after the last one */
    size_t len, cap;    /* cap: buf's capacity, for the parts after it to reuse */
    uint64_t off;
    int expect_value; /* the first part: it follows the '[' */
    int state;
    tconv_ctx *w; /* the worker's context, made with the part */
    tconv_rec *rec;
    tconv_status st; /* what the part reader answered */
    uint64_t held;   /* bytes counted against the budget: the buffer, then the recording too */
} split_part;

typedef struct split {
    tconv_ctx *ctx;
    tconv_input *in;
    tconv_sink *sink;
    const tconv_split_desc *d;
    uint64_t part_bytes, budget;
    size_t read; /* bytes asked of the input at a time */
    pthread_mutex_t mu;
    pthread_cond_t cv;
    split_part *ring; /* part k is ring[k % window] */
    size_t window;
    uint64_t produced, next; /* parts made; the part the calling thread takes next */
    int done;                /* no part is left to make */
    int stop;
    atomic_int abandon;
    uint64_t held;
    tconv_rec_buf spare[SPLIT_SPARE]; /* event arrays of replayed recordings, to record into */
    size_t nspare;
    /* Buffers of replayed parts, to read the next parts into: fresh ones cost a page fault per
     * 4 KiB, a third of the time it took to make a part. */
    unsigned char *bufs[SPLIT_SPARE];
    size_t bufcap[SPLIT_SPARE], nbufs;
    pthread_t *threads;
    size_t nthreads;
    /* The making of parts (calling thread only): the bytes read past the last part, how many of
     * them the index went over, and the index. */
    unsigned char *carry;
    size_t ncarry, capcarry, indexed;
    uint64_t carry_off;
    tconv_json_index ix;
    int64_t depth;
    int eof;
    /* For TCONV_SPLIT_TRACE: parts read in line and replayed, and the seconds the calling
     * thread spent on each of its tasks (CPU, but wall for the waits) and the workers' CPU. */
    uint64_t inline_parts, replayed, main_records;
    double t_make, t_inline, t_replay, t_record, t_wait, t_workers;
} split;

static double split_cpu(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static double split_wall(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

TCONV_API int tconv_split_possible(tconv_ctx *ctx, tconv_input *in)
{
    const tconv_split_conf *c = ctx->split;
    if (!c || c->threads < 2 || ctx->obs || !in) return 0;
    uint64_t size = tconv_input_file_size(in);
    /* A gzip file's decompressed size is not known before it is read; traces compress 5 to 50
     * times, and a small file read in parts costs a few thread starts, no more. */
    if (tconv_input_is_gzip(in)) size *= 8;
    return size && size >= c->min_size;
}

TCONV_API int tconv_split_defer(tconv_sink *sink, uint64_t offset, uint64_t len)
{
    tconv_rec *rec = tconv_sink_recording(sink);
    if (!rec) return -1;
    tconv_rec_defer(rec, offset, len);
    return 0;
}

static split_part *split_at(split *sp, uint64_t k)
{
    return &sp->ring[k % sp->window];
}

/* ---- making parts (the calling thread) ----------------------------------------------------- */

/* A carry that holds have bytes, with room for a part and the read that ends it: grown by
 * realloc, a part of 4 MiB was copied three times over while it was read. have is rounded up to
 * whole reads so that the buffers of a run have one size and each can be reused. */
static size_t split_room(const split *sp, size_t have)
{
    uint64_t part = sp->part_bytes < ((uint64_t)64 << 20) ? sp->part_bytes : (uint64_t)64 << 20;
    size_t reads = (have + SPLIT_READ - 1) / SPLIT_READ;
    return (reads + 2) * SPLIT_READ + (size_t)part;
}

/* A buffer for the carry, with room for have bytes and a part: one a replayed part left if it is
 * large enough. */
static void split_new_carry(split *sp, size_t have)
{
    size_t want = split_room(sp, have);
    pthread_mutex_lock(&sp->mu);
    for (size_t i = sp->nbufs; i-- > 0;)
        if (sp->bufcap[i] >= want) {
            sp->carry = sp->bufs[i];
            sp->capcarry = sp->bufcap[i];
            sp->bufs[i] = sp->bufs[--sp->nbufs];
            sp->bufcap[i] = sp->bufcap[sp->nbufs];
            pthread_mutex_unlock(&sp->mu);
            return;
        }
    pthread_mutex_unlock(&sp->mu);
    sp->carry = tconv_xmalloc(want);
    sp->capcarry = want;
}

/* Reads the next bytes of the input into carry; 0 once there are none to read (the array
 * closed, the input ended, or a read failed: the reader then meets the failure where it reads
 * it, tconv_input_reraise). */
static int split_fill(split *sp)
{
    if (sp->ix.closed != UINT64_MAX || sp->eof) return 0;
    TCONV_GROW(sp->carry, sp->capcarry, sp->ncarry + sp->read);
    ssize_t n = tconv_input_read(sp->in, sp->carry + sp->ncarry, sp->read);
    if (n <= 0) {
        if (n < 0) tconv_input_reraise(sp->in);
        sp->eof = 1;
        return 0;
    }
    sp->ncarry += (size_t)n;
    return 1;
}

/* The next part into p (1), cut at the first separator part_bytes or more past its start; 0
 * when the array ends (or the input) before one: what is left is the reader's to read in line,
 * at most a part's bytes and the ']'. */
static int split_make(split *sp, split_part *p)
{
    uint64_t want = sp->carry_off + sp->part_bytes, cut;
    for (;;) {
        if (sp->indexed < sp->ncarry) {
            int found = tconv_json_index_find(&sp->ix, sp->carry + sp->indexed,
                                              sp->ncarry - sp->indexed, sp->depth, want, &cut);
            sp->indexed = (size_t)(sp->ix.offset - sp->carry_off);
            if (found) break;
        }
        if (!split_fill(sp)) return 0;
    }
    size_t len = (size_t)(cut - sp->carry_off), tail = sp->ncarry - len;
    memset(p, 0, sizeof(*p));
    p->buf = sp->carry;
    p->len = len + 1; /* the ',' too, which the next part begins with as well */
    p->off = sp->carry_off;
    p->expect_value = sp->produced == 0;
    p->cap = sp->capcarry;
    p->held = sp->capcarry;
    /* The carry goes on from the cut, which is the next part's first byte, with room for a part
     * and the read that ends it. */
    split_new_carry(sp, tail);
    memcpy(sp->carry, p->buf + len, tail);
    sp->ncarry = tail;
    sp->indexed -= len;
    sp->carry_off = cut;
    p->w = tconv_ctx_new_worker(sp->ctx, sp->ctx->input);
    tconv_ctx_set_input_name(p->w, sp->ctx->input_name);
    return 1;
}

/* ---- reading parts ------------------------------------------------------------------------- */

static tconv_rec_buf split_spare_take(split *sp)
{
    tconv_rec_buf buf = {0};
    pthread_mutex_lock(&sp->mu);
    if (sp->nspare) buf = sp->spare[--sp->nspare];
    pthread_mutex_unlock(&sp->mu);
    return buf;
}

/* A part into a recording, on whichever thread took it. */
static void split_record(split *sp, split_part *p)
{
    const tconv_split_desc *d = sp->d;
    p->rec = tconv_rec_new(p->w, split_spare_take(sp));
    tconv_sink *sink = tconv_sink_new_recording(p->w, p->rec, &sp->abandon);
    void *state = d->part_new(d->user, p->w, sink);
    p->st = TCONV_FATAL;
    if (state) {
        p->st = d->part_read(state, p->buf, p->len, p->off, p->expect_value);
        d->part_free(state);
    }
    tconv_sink_free(sink);
    tconv_rec_finish(p->rec, p->st);
}

/* With mu held: the last part made that no one has begun, after the calling thread's next. The
 * workers take parts from the far end of the window and the calling thread reads them in line
 * from the near end: each reads as much as it has time for, and the parts the calling thread
 * replays were recorded well before it needs them. */
static split_part *split_ready(split *sp)
{
    for (uint64_t k = sp->produced; k-- > sp->next + 1;)
        if (split_at(sp, k)->state == PART_READY) return split_at(sp, k);
    return NULL;
}

/* With mu held: a part read, its recording counted. */
static void split_recorded(split *sp, split_part *p)
{
    uint64_t bytes = tconv_rec_bytes(p->rec);
    p->held += bytes;
    sp->held += bytes;
    p->state = PART_DONE;
    pthread_cond_broadcast(&sp->cv);
}

static void *split_worker(void *arg)
{
    split *sp = arg;
    double t0 = split_cpu();
    pthread_mutex_lock(&sp->mu);
    while (!sp->stop) {
        split_part *p = split_ready(sp);
        if (!p) {
            pthread_cond_wait(&sp->cv, &sp->mu);
            continue;
        }
        p->state = PART_BUSY;
        pthread_mutex_unlock(&sp->mu);
        split_record(sp, p);
        pthread_mutex_lock(&sp->mu);
        split_recorded(sp, p);
    }
    sp->t_workers += split_cpu() - t0;
    pthread_mutex_unlock(&sp->mu);
    return NULL;
}

/* A part's memory, given back; its event array kept for the next recordings. */
static void split_release(split *sp, split_part *p)
{
    tconv_rec_buf buf = tconv_rec_free(p->rec);
    tconv_ctx_free(p->w);
    unsigned char *bytes = p->buf;
    pthread_mutex_lock(&sp->mu);
    sp->held -= p->held;
    if (bytes && sp->nbufs < SPLIT_SPARE) {
        sp->bufs[sp->nbufs] = bytes;
        sp->bufcap[sp->nbufs++] = p->cap; /* not held: that counts the recording too */
        bytes = NULL;
    }
    if (buf.ev && sp->nspare < SPLIT_SPARE) {
        sp->spare[sp->nspare++] = buf;
        buf.ev = NULL;
    }
    memset(p, 0, sizeof(*p));
    pthread_mutex_unlock(&sp->mu);
    free(bytes);
    tconv_rec_buf_free(buf);
}

/* The replay's REC_DEFER: the element, read on this thread with the reader's own state. */
typedef struct split_defer_at {
    split *sp;
    const split_part *p;
} split_defer_at;

static tconv_status split_deferred(void *user, uint64_t offset, uint64_t len)
{
    const split_defer_at *at = user;
    const split_part *p = at->p;
    if (offset < p->off || len > p->len || offset - p->off > p->len - len) {
        tconv_error_set(at->sp->ctx, "a reader deferred bytes %llu to %llu, outside its part",
                        (unsigned long long)offset, (unsigned long long)(offset + len));
        return TCONV_FATAL;
    }
    const tconv_split_desc *d = at->sp->d;
    return d->part_read(d->main, p->buf + (offset - p->off), (size_t)len, offset, 1);
}

/* ---- the calling thread -------------------------------------------------------------------- */

/* May another part be made now? Within the window, and within the budget unless none is in
 * flight (the calling thread always gets the part it needs next). */
static int split_may_make(const split *sp)
{
    if (sp->done || sp->produced - sp->next >= sp->window) return 0;
    return sp->produced == sp->next || sp->held + 2 * sp->part_bytes <= sp->budget;
}

enum { SPLIT_GO, SPLIT_FATAL, SPLIT_RESUME };

/* Takes the parts in order until none is left (SPLIT_GO), a part failed (SPLIT_RESUME: the
 * reader reads on from sp->next's first byte) or the run must stop (SPLIT_FATAL). */
static int split_loop(split *sp)
{
    int res = SPLIT_GO;
    pthread_mutex_lock(&sp->mu);
    for (;;) {
        if (split_may_make(sp)) {
            split_part made;
            pthread_mutex_unlock(&sp->mu);
            double t0 = split_cpu();
            int got = split_make(sp, &made);
            sp->t_make += split_cpu() - t0;
            pthread_mutex_lock(&sp->mu);
            if (!got) {
                sp->done = 1;
                continue;
            }
            made.state = PART_READY;
            sp->held += made.held;
            *split_at(sp, sp->produced++) = made;
            pthread_cond_broadcast(&sp->cv);
            continue;
        }
        if (sp->next == sp->produced) break; /* and done: every part was taken */
        split_part *p = split_at(sp, sp->next);
        if (p->state == PART_READY || p->state == PART_DONE) {
            int inline_read = p->state == PART_READY;
            if (inline_read) p->state = PART_MAIN;
            pthread_mutex_unlock(&sp->mu);
            tconv_status st;
            double t0 = split_cpu();
            if (inline_read) {
                sp->inline_parts++;
                st = sp->d->part_read(sp->d->main, p->buf, p->len, p->off, p->expect_value);
                sp->t_inline += split_cpu() - t0;
            } else if (p->st != TCONV_OK) {
                pthread_mutex_lock(&sp->mu);
                res = SPLIT_RESUME;
                break;
            } else {
                sp->replayed++;
                split_defer_at at = {sp, p};
                tconv_rec_on_defer(p->rec, split_deferred, &at);
                st = tconv_rec_replay(p->rec, sp->ctx, sp->sink);
                sp->t_replay += split_cpu() - t0;
            }
            split_release(sp, p);
            pthread_mutex_lock(&sp->mu);
            sp->next++;
            pthread_cond_broadcast(&sp->cv);
            if (st != TCONV_OK) {
                res = SPLIT_FATAL;
                break;
            }
            continue;
        }
        /* A worker is reading the part needed next: read a later one meanwhile, or wait. */
        split_part *q = split_ready(sp);
        if (q) {
            q->state = PART_BUSY;
            pthread_mutex_unlock(&sp->mu);
            double t0 = split_cpu();
            split_record(sp, q);
            sp->t_record += split_cpu() - t0;
            sp->main_records++;
            pthread_mutex_lock(&sp->mu);
            split_recorded(sp, q);
            continue;
        }
        double t0 = split_wall();
        pthread_cond_wait(&sp->cv, &sp->mu);
        sp->t_wait += split_wall() - t0;
    }
    pthread_mutex_unlock(&sp->mu);
    return res;
}

static void split_stop(split *sp)
{
    pthread_mutex_lock(&sp->mu);
    sp->stop = 1;
    atomic_store(&sp->abandon, 1);
    pthread_cond_broadcast(&sp->cv);
    pthread_mutex_unlock(&sp->mu);
    for (size_t i = 0; i < sp->nthreads; i++)
        pthread_join(sp->threads[i], NULL);
}

/* TCONV_SPLIT_TRACE=FILE (tests): a line per array read in parts, appended to FILE, which says
 * how: the parts made, read in line, replayed, and where the reader read on. */
static void split_trace(const split *sp, int how)
{
    const char *path = getenv("TCONV_SPLIT_TRACE");
    FILE *f = path && *path ? fopen(path, "a") : NULL;
    if (!f) return;
    fprintf(f,
            "parts %llu inline %llu replayed %llu %s %llu main: make %.3f inline %.3f replay "
            "%.3f record %.3f (%llu parts) wait %.3f workers %.3f\n",
            (unsigned long long)sp->produced, (unsigned long long)sp->inline_parts,
            (unsigned long long)sp->replayed,
            how == SPLIT_GO       ? "done"
            : how == SPLIT_RESUME ? "resumed-at"
                                  : "failed-at",
            (unsigned long long)sp->next, sp->t_make, sp->t_inline, sp->t_replay, sp->t_record,
            (unsigned long long)sp->main_records, sp->t_wait, sp->t_workers);
    fclose(f);
}

TCONV_API tconv_status tconv_split_array(tconv_ctx *ctx, tconv_input *in, tconv_sink *sink,
                                         const tconv_split_desc *d, tconv_split_resume *res)
{
    const tconv_split_conf *c = ctx->split;
    split *sp = tconv_xcalloc(1, sizeof(*sp));
    sp->ctx = ctx;
    sp->in = in;
    sp->sink = sink;
    sp->d = d;
    sp->part_bytes = c && c->part ? c->part : 1;
    sp->budget = c ? c->budget : 0;
    sp->read = c && c->read ? c->read : SPLIT_READ;
    unsigned threads = c && c->threads > 1 ? c->threads : 1;
    /* A part per thread being read and one read and waiting for its replay: with two per
     * thread, a part's bytes and its recording (~14 MB for 4 MiB of small events) took 67 MB
     * at -j 2 where -j 1 takes 5. */
    sp->window = (size_t)threads + 1;
    sp->ring = tconv_xcalloc(sp->window, sizeof(*sp->ring));
    pthread_mutex_init(&sp->mu, NULL);
    pthread_cond_init(&sp->cv, NULL);
    atomic_init(&sp->abandon, 0);
    sp->depth = d->depth;
    tconv_json_index_init(&sp->ix);
    sp->ix.depth = d->depth;
    sp->ix.offset = d->offset;
    sp->ix.stop_at_close = 1;
    sp->carry_off = d->offset;
    split_new_carry(sp, d->nhave);
    memcpy(sp->carry, d->have, d->nhave);
    sp->ncarry = d->nhave;
    sp->threads = tconv_xcalloc(threads, sizeof(*sp->threads));
    for (unsigned i = 1; i < threads; i++)
        if (pthread_create(&sp->threads[sp->nthreads], NULL, split_worker, sp) == 0) sp->nthreads++;

    int how = split_loop(sp);
    split_stop(sp);
    split_trace(sp, how);

    tconv_status st = how == SPLIT_FATAL ? TCONV_FATAL : TCONV_OK;
    if (st == TCONV_OK) {
        /* The bytes from where the reader reads on go back to the input: the parts not used
         * (after a failed one), then what was read past them. */
        uint64_t k = how == SPLIT_RESUME ? sp->next : sp->produced;
        res->offset = k < sp->produced ? split_at(sp, k)->off : sp->carry_off;
        res->after_bracket = k < sp->produced ? split_at(sp, k)->expect_value : sp->produced == 0;
        tconv_input_unread(in, sp->carry, sp->ncarry);
        for (uint64_t j = sp->produced; j-- > k;) /* each but its last ',', the next one's first */
            tconv_input_unread(in, split_at(sp, j)->buf, split_at(sp, j)->len - 1);
    }
    for (uint64_t j = sp->next; j < sp->produced; j++)
        split_release(sp, split_at(sp, j));
    for (size_t i = 0; i < sp->nspare; i++)
        tconv_rec_buf_free(sp->spare[i]);
    for (size_t i = 0; i < sp->nbufs; i++)
        free(sp->bufs[i]);
    free(sp->threads);
    free(sp->ring);
    free(sp->carry);
    pthread_cond_destroy(&sp->cv);
    pthread_mutex_destroy(&sp->mu);
    free(sp);
    return st;
}
