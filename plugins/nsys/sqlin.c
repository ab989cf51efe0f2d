/* An input as a read-only SQLite database (sqlin.h says why a copy is sometimes needed).
 *
 * Checks before SQLite sees the file: the header string, and the size the header promises
 * (page size times page count) against the bytes there are, so a truncated export is named as
 * such rather than as "database disk image is malformed" at some later row. */
#include "sqlin.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static const char sqlin_magic[16] = "SQLite format 3";

/* Read-only through an immutable URI; each connection is one thread's at a time. */
#define SQLIN_OPEN_FLAGS (SQLITE_OPEN_READONLY | SQLITE_OPEN_URI | SQLITE_OPEN_NOMUTEX)

int sqlin_is_sqlite(const unsigned char *buf, size_t len)
{
    return len >= 16 && memcmp(buf, sqlin_magic, 16) == 0;
}

int sqlin_contains(const unsigned char *buf, size_t len, const char *needle)
{
    size_t n = strlen(needle);
    if (!n || n > len) return 0;
    for (const unsigned char *p = buf, *end = buf + len - n + 1; p < end; p++) {
        p = memchr(p, needle[0], (size_t)(end - p));
        if (!p) return 0;
        if (memcmp(p, needle, n) == 0) return 1;
    }
    return 0;
}

static uint32_t sqlin_be32(const unsigned char *p)
{
    return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 | p[3];
}

/* The size the header promises, or 0 when it does not say (the count is only trusted when the
 * change counter matches "version valid for", as SQLite itself trusts it). */
static uint64_t sqlin_promised(const unsigned char *h, size_t len)
{
    if (len < 100) return 0;
    uint32_t page = (uint32_t)h[16] << 8 | h[17];
    if (page == 1) page = 65536;
    uint32_t pages = sqlin_be32(h + 28);
    if (page < 512 || (page & (page - 1)) || !pages) return 0;
    if (sqlin_be32(h + 24) != sqlin_be32(h + 92)) return 0;
    return (uint64_t)page * pages;
}

/* "file:PATH?immutable=1" with PATH percent-encoded but for the characters URIs keep. */
static char *sqlin_uri(const char *path)
{
    static const char hex[] = "0123456789ABCDEF";
    size_t n = strlen(path);
    char *u = malloc(n * 3 + 32);
    if (!u) return NULL;
    char *p = u;
    memcpy(p, "file:", 5);
    p += 5;
    for (const unsigned char *s = (const unsigned char *)path; *s; s++) {
        unsigned char c = *s;
        if ((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
            c == '/' || c == '.' || c == '_' || c == '-' || c == '~') {
            *p++ = (char)c;
        } else {
            *p++ = '%';
            *p++ = hex[c >> 4];
            *p++ = hex[c & 15];
        }
    }
    strcpy(p, "?immutable=1");
    return u;
}

/* Is the input the plain regular file its name says, whose bytes SQLite may read directly? */
static int sqlin_plain(tconv_input *in, const unsigned char *head, size_t hlen, uint64_t *size)
{
    const char *name = tconv_input_name(in);
    if (tconv_input_is_gzip(in) || !name || strcmp(name, "<stdin>") == 0) return 0;
    int fd = open(name, O_RDONLY | O_CLOEXEC);
    if (fd < 0) return 0;
    struct stat st;
    unsigned char first[100];
    size_t want = hlen < sizeof(first) ? hlen : sizeof(first);
    int same = fstat(fd, &st) == 0 && S_ISREG(st.st_mode) &&
               pread(fd, first, want, 0) == (ssize_t)want && memcmp(first, head, want) == 0;
    close(fd);
    if (same) *size = (uint64_t)st.st_size;
    return same;
}

/* Copy the whole input to a new temporary file; its path in *path (to unlink), or -1. */
static int sqlin_spool(sqlin_db *d, tconv_input *in, char **path)
{
    const char *dir = getenv("TMPDIR");
    if (!dir || !*dir) dir = P_tmpdir;
    size_t n = strlen(dir) + 32;
    char *p = malloc(n);
    if (!p) {
        tconv_error_set(d->ctx, "%s: out of memory", d->name);
        return -1;
    }
    snprintf(p, n, "%s/tconv-sqlite-XXXXXX", dir);
    int fd = mkstemp(p);
    if (fd < 0) {
        tconv_error_set(d->ctx, "%s: cannot create a temporary copy in '%s': %s", d->name, dir,
                        strerror(errno));
        tconv_error_hint(d->ctx, "SQLite reads a file, not a stream: set TMPDIR to a folder "
                                 "with room, or give the database as a plain file");
        free(p);
        return -1;
    }
    unsigned char *chunk = malloc(1 << 20);
    int rc = chunk ? 0 : -1;
    if (!chunk) tconv_error_set(d->ctx, "%s: out of memory", d->name);
    while (rc == 0) {
        ssize_t got = tconv_input_read(in, chunk, 1 << 20);
        if (got < 0) {
            rc = -1;
            break;
        }
        if (got == 0) break;
        for (ssize_t off = 0; off < got;) {
            ssize_t w = write(fd, chunk + off, (size_t)(got - off));
            if (w < 0 && errno == EINTR) continue;
            if (w <= 0) {
                tconv_error_set(d->ctx, "%s: cannot write the temporary copy in '%s': %s", d->name,
                                dir, strerror(w < 0 ? errno : ENOSPC));
                rc = -1;
                break;
            }
            off += w;
        }
        d->bytes += (uint64_t)got;
    }
    free(chunk);
    if (close(fd) != 0 && rc == 0) {
        tconv_error_set(d->ctx, "%s: cannot write the temporary copy in '%s': %s", d->name, dir,
                        strerror(errno));
        rc = -1;
    }
    if (rc != 0) {
        unlink(p);
        free(p);
        return -1;
    }
    *path = p;
    return 0;
}

static int sqlin_cmp(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

/* The list of tables; also the first read of the file, where SQLite says whether it is a
 * database at all. */
static int sqlin_list(sqlin_db *d, const char *what)
{
    sqlite3_stmt *st = NULL;
    int rc = sqlite3_prepare_v2(d->db,
                                "SELECT name FROM sqlite_master WHERE type IN ('table','view') "
                                "ORDER BY name",
                                -1, &st, NULL);
    size_t cap = 0;
    while (rc == SQLITE_OK || rc == SQLITE_ROW) {
        if ((rc = sqlite3_step(st)) != SQLITE_ROW) break;
        const unsigned char *s = sqlite3_column_text(st, 0);
        if (!s) continue;
        if (d->ntables == cap) {
            cap = cap ? cap * 2 : 64;
            char **t = realloc(d->tables, cap * sizeof(*t));
            if (!t) {
                rc = SQLITE_NOMEM;
                break;
            }
            d->tables = t;
        }
        char *copy = strdup((const char *)s);
        if (!copy) {
            rc = SQLITE_NOMEM;
            break;
        }
        d->tables[d->ntables++] = copy;
    }
    if (rc != SQLITE_DONE) {
        const char *msg = rc == SQLITE_NOMEM ? "out of memory" : sqlite3_errmsg(d->db);
        tconv_error_set(d->ctx, "%s: cannot read the SQLite database: %s", d->name, msg);
        if (rc == SQLITE_NOTADB || rc == SQLITE_CORRUPT)
            tconv_error_hint(d->ctx, "the file is damaged or not %s", what);
        sqlite3_finalize(st);
        return -1;
    }
    sqlite3_finalize(st);
    /* sqlite_master is ordered by SQLite's collation, which is memcmp's for these names. */
    if (d->ntables > 1) qsort(d->tables, d->ntables, sizeof(*d->tables), sqlin_cmp);
    return 0;
}

/* A second connection that has read the file once, so that it holds it open; NULL if not. */
static sqlite3 *sqlin_open_spare(const char *uri)
{
    sqlite3 *db = NULL;
    sqlite3_stmt *st = NULL;
    int ok =
        sqlite3_open_v2(uri, &db, SQLIN_OPEN_FLAGS, NULL) == SQLITE_OK &&
        sqlite3_prepare_v2(db, "SELECT 1 FROM sqlite_master LIMIT 1", -1, &st, NULL) == SQLITE_OK;
    int rc = ok ? sqlite3_step(st) : SQLITE_ERROR;
    sqlite3_finalize(st);
    if (rc == SQLITE_ROW || rc == SQLITE_DONE) return db;
    sqlite3_close_v2(db);
    return NULL;
}

int sqlin_open(sqlin_db *d, tconv_ctx *ctx, tconv_input *in, const char *what, const char *wal_kind,
               unsigned flags)
{
    memset(d, 0, sizeof(*d));
    d->ctx = ctx;
    d->name = tconv_input_name(in);
    size_t hlen;
    const unsigned char *head = tconv_input_peek(in, &hlen);
    if (tconv_error_pending(ctx)) return -1;
    if (!sqlin_is_sqlite(head, hlen)) {
        tconv_error_at(ctx, d->name, 0,
                       "not a SQLite database (no 'SQLite format 3' header), so "
                       "not %s",
                       what);
        return -1;
    }
    uint64_t promised = sqlin_promised(head, hlen);
    char *tmp = NULL;
    const char *path = d->name;
    if (!sqlin_plain(in, head, hlen, &d->bytes)) {
        if (sqlin_spool(d, in, &tmp) != 0) return -1;
        d->spooled = 1;
        path = tmp;
    }
    if (promised && d->bytes < promised) {
        tconv_error_at(ctx, d->name, d->bytes,
                       "the SQLite database is truncated: its header says %llu bytes, there are "
                       "%llu",
                       (unsigned long long)promised, (unsigned long long)d->bytes);
        if (tmp) unlink(tmp);
        free(tmp);
        return -1;
    }
    /* A database in WAL mode may keep its latest rows in NAME-wal, which an immutable open does
     * not read (reading it would mean writing a -shm file beside the input). */
    if (hlen > 19 && head[18] == 2 && !d->spooled) {
        size_t n = strlen(d->name) + 5;
        char *wal = malloc(n);
        if (wal) {
            snprintf(wal, n, "%s-wal", d->name);
            if (access(wal, F_OK) == 0)
                tconv_warning_add(ctx, wal_kind,
                                  "%s: '%s' is left unread: rows a writer had not yet copied into "
                                  "the database are missing (open it once with sqlite3 to fold "
                                  "them in)",
                                  d->name, wal);
            free(wal);
        }
    }
    char *uri = sqlin_uri(path);
    int rc = uri ? sqlite3_open_v2(uri, &d->db, SQLIN_OPEN_FLAGS, NULL) : SQLITE_NOMEM;
    if (rc != SQLITE_OK) {
        tconv_error_set(ctx, "%s: cannot open the SQLite database: %s", d->name,
                        d->db ? sqlite3_errmsg(d->db) : sqlite3_errstr(rc));
        sqlin_close(d);
        free(uri);
        if (tmp) unlink(tmp);
        free(tmp);
        return -1;
    }
    int listed = sqlin_list(d, what);
    if (listed == 0 && (flags & SQLIN_SPARE)) d->spare = sqlin_open_spare(uri);
    free(uri);
    /* SQLite holds the copy open from its first read on: the name can go now, so nothing is
     * left behind however the run ends. */
    if (tmp) unlink(tmp);
    free(tmp);
    if (listed != 0) {
        sqlin_close(d);
        return -1;
    }
    /* SQLite reads a plain file by name: the input counts it as read (a spooled copy was read
     * through it). */
    if (!d->spooled) tconv_input_add_file(in);
    return 0;
}

void sqlin_close(sqlin_db *d)
{
    if (d->db) sqlite3_close_v2(d->db);
    if (d->spare) sqlite3_close_v2(d->spare);
    d->db = d->spare = NULL;
    for (size_t i = 0; i < d->ntables; i++)
        free(d->tables[i]);
    free(d->tables);
    d->tables = NULL;
    d->ntables = 0;
}

static sqlite3_stmt *sqlin_prepare_as(sqlin_db *d, const char *table, const char *sql, int opt)
{
    sqlite3_stmt *st = NULL;
    int rc = sqlite3_prepare_v2(d->db, sql, -1, &st, NULL);
    if (rc == SQLITE_OK) return st;
    sqlite3_finalize(st);
    if (opt && rc == SQLITE_ERROR) return NULL;
    tconv_error_set(d->ctx, "%s: cannot read table %s: %s", d->name, table, sqlite3_errmsg(d->db));
    d->failed = 1;
    return NULL;
}

sqlite3_stmt *sqlin_prepare(sqlin_db *d, const char *table, const char *sql)
{
    return sqlin_prepare_as(d, table, sql, 0);
}

sqlite3_stmt *sqlin_prepare_opt(sqlin_db *d, const char *table, const char *sql)
{
    return sqlin_prepare_as(d, table, sql, 1);
}

const char *sqlin_text(sqlin_db *d, sqlite3_stmt *st, int i, size_t *len)
{
    const unsigned char *t = sqlite3_column_text(st, i);
    if (len) *len = t ? (size_t)sqlite3_column_bytes(st, i) : 0;
    if (!t && sqlite3_column_type(st, i) != SQLITE_NULL) {
        tconv_error_set(d->ctx, "%s: out of memory", d->name);
        d->failed = 1;
    }
    return (const char *)t;
}

int sqlin_step(sqlin_db *d, sqlite3_stmt *st, const char *table)
{
    int rc = sqlite3_step(st);
    if (rc == SQLITE_ROW || rc == SQLITE_DONE) return rc;
    sqlin_step_error(d, table, rc, sqlite3_errmsg(d->db));
    return -1;
}

void sqlin_step_error(sqlin_db *d, const char *table, int rc, const char *msg)
{
    d->failed = 1;
    tconv_error_set(d->ctx, "%s: cannot read table %s: %s", d->name, table, msg);
    if (rc == SQLITE_CORRUPT || rc == SQLITE_NOTADB || rc == SQLITE_IOERR)
        tconv_error_hint(d->ctx, "the database is damaged; a copy cut short or changed while "
                                 "it was written reads like this");
}

int sqlin_has_table(const sqlin_db *d, const char *table)
{
    size_t lo = 0, hi = d->ntables;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        int c = strcmp(d->tables[mid], table);
        if (c == 0) return 1;
        if (c < 0)
            lo = mid + 1;
        else
            hi = mid;
    }
    return 0;
}

int sqlin_has_column(sqlin_db *d, const char *table, const char *column)
{
    if (!sqlin_has_table(d, table)) return 0;
    sqlite3_stmt *st =
        sqlin_prepare(d, table, "SELECT 1 FROM pragma_table_info(?1) WHERE name = ?2");
    if (!st) return 0;
    sqlite3_bind_text(st, 1, table, -1, SQLITE_STATIC);
    sqlite3_bind_text(st, 2, column, -1, SQLITE_STATIC);
    int found = sqlin_step(d, st, table) == SQLITE_ROW;
    sqlite3_finalize(st);
    return found;
}

/* Through the column's value: sqlite3_column_type and sqlite3_column_int64 each enter the
 * statement and leave it again, which twice over cost more than the read of a row's integers
 * (the connection is one thread's, so the unprotected value is safe to read). */
int64_t sqlin_int(sqlite3_stmt *st, int i, int *ok)
{
    sqlite3_value *v = sqlite3_column_value(st, i);
    int type = sqlite3_value_type(v);
    if (type == SQLITE_INTEGER) {
        if (ok) *ok = 1;
        return sqlite3_value_int64(v);
    }
    int64_t n;
    if (type == SQLITE_FLOAT && sqlin_whole(sqlite3_value_double(v), &n)) {
        if (ok) *ok = 1;
        return n;
    }
    if (ok) *ok = 0;
    return 0;
}
