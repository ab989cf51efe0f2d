/* An input as a read-only SQLite database, for the readers of profilers that export SQLite
 * (Nsight Systems, rpd). SQLite needs a file it can seek in, while a tconv input is a stream: a
 * plain regular file is opened by its path; anything else (gzip, stdin, a pipe) is first copied
 * to a private temporary file (mode 0600 in $TMPDIR) that is unlinked as soon as SQLite holds it
 * open. Either way the database is opened read-only and immutable: nothing is ever written next
 * to the input (no journal, no lock, no WAL file), and a WAL file beside it is not read.
 * Shared by the nsys and rocprof plugins. */
#ifndef SQLIN_H
#define SQLIN_H

#include <sqlite3.h>
#include <stdint.h>

#include <tconv/tconv.h>

typedef struct sqlin_db {
    sqlite3 *db;
    tconv_ctx *ctx;
    const char *name; /* the input's name, for messages */
    int spooled;      /* read from a temporary copy */
    uint64_t bytes;   /* the database's size in bytes */
    char **tables;    /* names of its tables and views, sorted */
    size_t ntables;
    sqlite3 *spare; /* a second connection, for a thread of the reader's (SQLIN_SPARE) */
    int failed;     /* a read failed, its error is on the ctx: the reader must fail too */
} sqlin_db;

/* Flags of sqlin_open. SQLIN_SPARE: also open a second connection to the database (d->spare),
 * for a scan on a thread of the reader's own. It is opened with the first, before a temporary
 * copy's name goes; NULL when that fails, which only means the reader reads on one thread. */
enum { SQLIN_SPARE = 1u };

/* Does buf start with SQLite's 16-byte header string? */
int sqlin_is_sqlite(const unsigned char *buf, size_t len);
/* Does buf[0..len) hold needle? For probes, which look for table names in the pages that a
 * peek holds. */
int sqlin_contains(const unsigned char *buf, size_t len, const char *needle);

/* Open in as a database and list its tables. what names the format for messages ("an Nsight
 * Systems export"), wal_kind the warning kind of a WAL file left unread ("nsys.wal"). 0, or -1
 * with the error on the ctx: not SQLite, truncated, unreadable, no room for the copy. */
int sqlin_open(sqlin_db *d, tconv_ctx *ctx, tconv_input *in, const char *what, const char *wal_kind,
               unsigned flags);
void sqlin_close(sqlin_db *d);

/* Every failure below is put on the ctx and sets d->failed: out of memory, I/O, a damaged page
 * are never read as "nothing there", which would lose names or rows without a word.
 *
 * A statement, or NULL with the error on the ctx ("NAME: cannot read table T: ..."). */
sqlite3_stmt *sqlin_prepare(sqlin_db *d, const char *table, const char *sql);
/* The same for a query of what an export may lack: NULL without an error when SQLite says the
 * query does not fit the schema (a table or column missing). */
sqlite3_stmt *sqlin_prepare_opt(sqlin_db *d, const char *table, const char *sql);
/* Column i of the current row as text (its length in *len when len is given), or NULL when the
 * value is NULL, or when SQLite had no memory to convert it (then with the error). */
const char *sqlin_text(sqlin_db *d, sqlite3_stmt *st, int i, size_t *len);
/* One step: SQLITE_ROW, SQLITE_DONE, or -1 with the error on the ctx. */
int sqlin_step(sqlin_db *d, sqlite3_stmt *st, const char *table);
/* The error sqlin_step puts on the ctx, for a step that failed with rc and msg on another
 * connection (the spare, on another thread). */
void sqlin_step_error(sqlin_db *d, const char *table, int rc, const char *msg);

/* Does the database have this table (or view)? Exact name. */
int sqlin_has_table(const sqlin_db *d, const char *table);
/* Does table have this column? 0 also when the table is absent. */
int sqlin_has_column(sqlin_db *d, const char *table, const char *column);

/* Column i of the current row as an int64 when it holds an integer (or a real with an integral
 * value); 0 and *ok = 0 otherwise (NULL, text). ok may be NULL. */
int64_t sqlin_int(sqlite3_stmt *st, int i, int *ok);

/* A real that holds a whole int64 (a time written as 1.5e9): 1 with it in *n, else 0. */
static inline int sqlin_whole(double d, int64_t *n)
{
    if (!(d >= -9.2e18 && d <= 9.2e18) || d != (double)(int64_t)d) return 0;
    *n = (int64_t)d;
    return 1;
}

#endif
