/* SAMPLING_CALLCHAINS in key order on a thread of its own, beside the samples.
 *
 * The scan that meets each CPU sample's frames (nsys_samples.c) is SQLite's work for most of a
 * sampled export's read: 2.2 rows of frames for each sample row, each an index step and a table
 * search. When the run has a thread to spare for this input (tconv_split_possible: -j, one
 * input, a large file), a second connection (sqlin_open's spare) runs that scan on a thread and
 * hands its rows over in blocks, in scan order, so the calling thread reads exactly the rows it
 * would have stepped through itself, and meets a failed step at the same row, with SQLite's
 * message. Memory: NSYS_CHAIN_BLOCKS blocks of rows, whatever the table's size. */
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "nsys_reader.h"

enum { NSYS_CHAIN_BLOCK = 4096, NSYS_CHAIN_BLOCKS = 64 };

struct nsys_chains {
    pthread_t thread;
    pthread_mutex_t mu;
    pthread_cond_t filled, emptied;
    sqlite3 *db;
    sqlite3_stmt *st;
    nsys_chain_row *rows; /* NSYS_CHAIN_BLOCKS blocks of NSYS_CHAIN_BLOCK */
    size_t count[NSYS_CHAIN_BLOCKS];
    uint64_t produced, consumed; /* blocks; block k is rows + k % NSYS_CHAIN_BLOCKS */
    int rc;                      /* 0 while the scan runs; SQLITE_DONE or its error */
    char *errmsg;                /* SQLite's, when rc is an error */
    int stop;                    /* the reader is done with the scan */
    /* the calling thread's place: a block it holds, and the row in it */
    int holding;
    size_t pos, avail;
};

nsys_chain_row nsys_chain_row_read(sqlite3_stmt *st)
{
    nsys_chain_row row;
    int ok;
    /* A row whose id is not an integer matches no sample (nor did it by `id = ?`); it reads as
     * the smallest id, so that it is passed over. */
    row.id = sqlin_int(st, 0, &ok);
    if (!ok) row.id = INT64_MIN;
    row.f = nsys_raw_frame_read(st, 1);
    return row;
}

static void *nsys_chains_main(void *arg)
{
    nsys_chains *c = arg;
    for (;;) {
        pthread_mutex_lock(&c->mu);
        while (!c->stop && c->produced - c->consumed == NSYS_CHAIN_BLOCKS)
            pthread_cond_wait(&c->emptied, &c->mu);
        int stop = c->stop;
        uint64_t k = c->produced;
        pthread_mutex_unlock(&c->mu);
        if (stop) return NULL;
        nsys_chain_row *block = c->rows + (size_t)(k % NSYS_CHAIN_BLOCKS) * NSYS_CHAIN_BLOCK;
        size_t n = 0;
        int rc = SQLITE_ROW;
        while (n < NSYS_CHAIN_BLOCK && (rc = sqlite3_step(c->st)) == SQLITE_ROW)
            block[n++] = nsys_chain_row_read(c->st);
        char *msg = NULL;
        if (rc != SQLITE_ROW && rc != SQLITE_DONE) msg = strdup(sqlite3_errmsg(c->db));
        pthread_mutex_lock(&c->mu);
        c->count[k % NSYS_CHAIN_BLOCKS] = n;
        c->produced++;
        if (rc != SQLITE_ROW) {
            c->rc = rc;
            c->errmsg = msg;
        }
        pthread_cond_signal(&c->filled);
        pthread_mutex_unlock(&c->mu);
        if (rc != SQLITE_ROW) return NULL;
    }
}

/* All but the connection, which is the caller's or the scan's. */
static void nsys_chains_free(nsys_chains *c)
{
    pthread_cond_destroy(&c->emptied);
    pthread_cond_destroy(&c->filled);
    pthread_mutex_destroy(&c->mu);
    sqlite3_finalize(c->st);
    free(c->errmsg);
    free(c->rows);
    free(c);
}

nsys_chains *nsys_chains_start(nsys_reader *r, const char *sql)
{
    if (!r->d.spare) return NULL;
    nsys_chains *c = calloc(1, sizeof(*c));
    if (!c) return NULL;
    pthread_mutex_init(&c->mu, NULL);
    pthread_cond_init(&c->filled, NULL);
    pthread_cond_init(&c->emptied, NULL);
    c->rows = malloc(sizeof(*c->rows) * NSYS_CHAIN_BLOCK * NSYS_CHAIN_BLOCKS);
    c->db = r->d.spare;
    if (!c->rows || sqlite3_prepare_v2(c->db, sql, -1, &c->st, NULL) != SQLITE_OK ||
        pthread_create(&c->thread, NULL, nsys_chains_main, c) != 0) {
        /* The caller reads on its own connection, and closes the spare with it. */
        nsys_chains_free(c);
        return NULL;
    }
    /* The connection is the scan's from here on, and closed with it. */
    r->d.spare = NULL;
    return c;
}

int nsys_chains_next(nsys_reader *r, nsys_chains *c, nsys_chain_row *row)
{
    while (c->pos == c->avail) {
        pthread_mutex_lock(&c->mu);
        if (c->holding) {
            c->consumed++;
            c->holding = 0;
            pthread_cond_signal(&c->emptied);
        }
        while (c->produced == c->consumed && !c->rc)
            pthread_cond_wait(&c->filled, &c->mu);
        int more = c->produced != c->consumed;
        if (more) {
            c->holding = 1;
            c->pos = 0;
            c->avail = c->count[c->consumed % NSYS_CHAIN_BLOCKS];
        }
        pthread_mutex_unlock(&c->mu);
        if (!more) {
            if (c->rc == SQLITE_DONE) return 0;
            sqlin_step_error(&r->d, "SAMPLING_CALLCHAINS", c->rc,
                             c->errmsg ? c->errmsg : sqlite3_errstr(c->rc));
            return -1;
        }
    }
    *row = c->rows[(size_t)(c->consumed % NSYS_CHAIN_BLOCKS) * NSYS_CHAIN_BLOCK + c->pos++];
    return 1;
}

void nsys_chains_stop(nsys_chains *c)
{
    if (!c) return;
    pthread_mutex_lock(&c->mu);
    c->stop = 1;
    pthread_cond_signal(&c->emptied);
    pthread_mutex_unlock(&c->mu);
    pthread_join(c->thread, NULL);
    sqlite3_close_v2(c->db);
    nsys_chains_free(c);
}
