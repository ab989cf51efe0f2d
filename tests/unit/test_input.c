#include <sys/wait.h>
#include <zlib.h>

#include "testutil.h"

/* Reads every line of path through the input layer into one '|'-joined string. */
static char *read_lines(tconv_ctx *ctx, const char *path, uint64_t *lines)
{
    tconv_input *in = tconv_input_open(ctx, path, 0, 0);
    assert_non_null(in);
    size_t cap = 1 << 20, n = 0, len;
    char *all = malloc(cap);
    const char *line;
    while ((line = tconv_input_getline(in, &len))) {
        assert_int_equal(strlen(line), len);
        while (n + len + 2 > cap)
            all = realloc(all, cap *= 2);
        memcpy(all + n, line, len);
        n += len;
        all[n++] = '|';
    }
    all[n] = 0;
    assert_false(tconv_error_pending(ctx));
    *lines = tconv_input_line(in);
    tconv_input_close(in);
    return all;
}

static void write_gzip(const char *path, const char *data, size_t len, int members)
{
    FILE *f = fopen(path, "wb");
    size_t per = len / (size_t)members;
    for (int m = 0; m < members; m++) {
        size_t off = per * (size_t)m, n = m == members - 1 ? len - off : per;
        unsigned char out[1 << 16];
        z_stream zs = {0};
        assert_int_equal(deflateInit2(&zs, 9, Z_DEFLATED, 15 + 16, 8, Z_DEFAULT_STRATEGY), Z_OK);
        zs.next_in = (unsigned char *)data + off;
        zs.avail_in = (uInt)n;
        int rc;
        do {
            zs.next_out = out;
            zs.avail_out = sizeof(out);
            rc = deflate(&zs, Z_FINISH);
            fwrite(out, 1, sizeof(out) - zs.avail_out, f);
        } while (rc != Z_STREAM_END);
        deflateEnd(&zs);
    }
    fclose(f);
}

static void lines_plain_and_gzip_agree(void **state)
{
    (void)state;
    const char *dir = testutil_tmpdir("input");
    /* CRLF, an empty line, a line longer than the input buffer, no final newline. */
    size_t big = 1500 * 1000;
    size_t len = big + 64;
    char *data = malloc(len);
    size_t n = (size_t)sprintf(data, "first\r\n\nsecond\n");
    memset(data + n, 'x', big);
    n += big;
    n += (size_t)sprintf(data + n, "\nlast");
    char plain[4200], gz[4200], gz2[4200];
    snprintf(plain, sizeof(plain), "%s/plain.txt", dir);
    snprintf(gz, sizeof(gz), "%s/data.bin", dir); /* gzip without a .gz name */
    snprintf(gz2, sizeof(gz2), "%s/multi.gz", dir);
    testutil_write(plain, data, n);
    write_gzip(gz, data, n, 1);
    write_gzip(gz2, data, n, 3);

    tconv_ctx *ctx = tconv_ctx_new();
    uint64_t l1, l2, l3;
    char *a = read_lines(ctx, plain, &l1);
    char *b = read_lines(ctx, gz, &l2);
    char *c = read_lines(ctx, gz2, &l3);
    assert_int_equal(l1, 5);
    assert_int_equal(l2, 5);
    assert_int_equal(strlen(a), n - 2 - 3 + 5); /* minus \r and 3 \n ... plus 5 '|' */
    assert_memory_equal(a, "first||second|xxx", 17);
    assert_string_equal(a + strlen(a) - 7, "x|last|");
    assert_string_equal(a, b);
    assert_string_equal(a, c);
    assert_int_equal(l3, 5);
    free(a);
    free(b);
    free(c);

    /* peek does not consume; read sees the same bytes; offsets count decompressed bytes */
    tconv_input *in = tconv_input_open(ctx, gz, 0, 0);
    size_t plen;
    const unsigned char *head = tconv_input_peek(in, &plen);
    assert_true(plen >= 4096);
    assert_memory_equal(head, "first\r\n", 7);
    assert_true(tconv_input_is_gzip(in));
    char buf[10];
    assert_int_equal(tconv_input_read(in, buf, 5), 5);
    assert_memory_equal(buf, "first", 5);
    assert_int_equal(tconv_input_offset(in), 5);
    char *rest = malloc(len);
    size_t total = 5;
    ssize_t r;
    while ((r = tconv_input_read(in, rest, len)) > 0)
        total += (size_t)r;
    assert_int_equal(r, 0);
    assert_int_equal(total, n);
    assert_int_equal(tconv_input_offset(in), n);
    tconv_input_close(in);
    free(rest);
    free(data);
    tconv_ctx_free(ctx);
}

static void truncated_gzip_is_an_error(void **state)
{
    (void)state;
    const char *dir = testutil_tmpdir("input-trunc");
    char gz[4200];
    snprintf(gz, sizeof(gz), "%s/t.json.gz", dir);
    char data[100000];
    for (size_t i = 0; i < sizeof(data); i++)
        data[i] = (char)('a' + (i * 7919) % 26);
    write_gzip(gz, data, sizeof(data), 1);
    size_t glen = 0;
    char *g = testutil_slurp(gz, &glen);
    testutil_write(gz, g, glen / 2);
    free(g);
    tconv_ctx *ctx = tconv_ctx_new();
    tconv_input *in = tconv_input_open(ctx, gz, 0, 0);
    assert_non_null(in);
    char buf[4096];
    ssize_t r;
    while ((r = tconv_input_read(in, buf, sizeof(buf))) > 0) {
    }
    assert_int_equal(r, -1);
    size_t n;
    const char *const *chain = tconv_error_chain(ctx, &n);
    assert_int_equal(n, 1);
    assert_non_null(strstr(chain[0], "unexpected end of gzip data (the file is truncated)"));
    assert_non_null(strstr(chain[0], "t.json.gz: "));
    tconv_input_close(in);

    /* and a missing file names itself */
    tconv_error_clear(ctx);
    assert_null(tconv_input_open(ctx, "/nonexistent/x.json", 0, 0));
    chain = tconv_error_chain(ctx, &n);
    assert_string_equal(chain[0],
                        "cannot open input '/nonexistent/x.json': No such file or directory");
    tconv_ctx_free(ctx);
}

static void empty_file(void **state)
{
    (void)state;
    const char *dir = testutil_tmpdir("input-empty");
    char p[4200];
    snprintf(p, sizeof(p), "%s/empty", dir);
    testutil_write(p, "", 0);
    tconv_ctx *ctx = tconv_ctx_new();
    tconv_input *in = tconv_input_open(ctx, p, 0, 0);
    size_t len = 99;
    tconv_input_peek(in, &len);
    assert_int_equal(len, 0);
    assert_null(tconv_input_getline(in, &len));
    assert_false(tconv_error_pending(ctx));
    tconv_input_close(in);
    tconv_ctx_free(ctx);
}

/* A reader that reads its file by name counts those bytes as read; the stream's own offset,
 * which messages use, does not move, nor do the bytes the input returns. */
static void bytes_read_by_name(void **state)
{
    (void)state;
    const char *dir = testutil_tmpdir("input-by-name");
    char p[4200];
    snprintf(p, sizeof(p), "%s/db", dir);
    testutil_write(p, "SQLite format 3", 15);
    tconv_ctx *ctx = tconv_ctx_new();
    tconv_input *in = tconv_input_open(ctx, p, 0, 0);
    size_t len;
    tconv_input_peek(in, &len);
    assert_int_equal(len, 15);
    uint64_t raw = tconv_input_raw_offset(in);
    tconv_input_add_read(in, 1000);
    tconv_input_add_read(in, 24);
    assert_int_equal(tconv_input_raw_offset(in), raw + 1024);
    assert_int_equal(tconv_input_by_name(in), 1024);
    assert_int_equal(tconv_input_offset(in), 0);
    char buf[16];
    assert_int_equal(tconv_input_read(in, buf, sizeof(buf)), 15);
    assert_memory_equal(buf, "SQLite format 3", 15);
    assert_int_equal(tconv_input_offset(in), 15);
    tconv_input_close(in);

    /* The input's own file read whole by name: the head peeked at is taken, the rest added, so
     * that the decompressed and the raw counts are the file's size, each byte once. */
    size_t big = 3u << 20;
    char *data = malloc(big);
    assert_non_null(data);
    memset(data, 'x', big);
    memcpy(data, "SQLite format 3", 15);
    testutil_write(p, data, big);
    in = tconv_input_open(ctx, p, 0, 0);
    tconv_input_peek(in, &len);
    assert_true(len >= 15 && len < big);
    tconv_input_add_file(in);
    assert_int_equal(tconv_input_raw_offset(in), big);
    assert_int_equal(tconv_input_offset(in) + tconv_input_by_name(in), big);
    tconv_input_close(in);

    /* its gzip is read through the input (into a copy): nothing is added */
    char gz[4300];
    snprintf(gz, sizeof(gz), "%s/db.gz", dir);
    write_gzip(gz, data, big, 1);
    in = tconv_input_open(ctx, gz, 0, 0);
    tconv_input_peek(in, &len);
    raw = tconv_input_raw_offset(in);
    tconv_input_add_file(in);
    assert_int_equal(tconv_input_by_name(in), 0);
    assert_int_equal(tconv_input_raw_offset(in), raw);
    assert_int_equal(tconv_input_offset(in), 0);
    tconv_input_close(in);
    free(data);
    tconv_ctx_free(ctx);
}

static void limits(void **state)
{
    (void)state;
    const char *dir = testutil_tmpdir("input-limits");
    char p[4200];
    tconv_ctx *ctx = tconv_ctx_new();
    size_t n;

    /* the size cap */
    size_t len = 3 << 20;
    char *data = malloc(len);
    for (size_t i = 0; i < len; i++)
        data[i] = (char)('a' + (i * 7919 + i / 13) % 26);
    snprintf(p, sizeof(p), "%s/big.gz", dir);
    write_gzip(p, data, len, 1);
    tconv_input *in = tconv_input_open(ctx, p, 0, 1 << 20);
    char buf[65536];
    ssize_t r;
    while ((r = tconv_input_read(in, buf, sizeof(buf))) > 0) {
    }
    assert_int_equal(r, -1);
    assert_non_null(strstr(tconv_error_chain(ctx, &n)[0],
                           "decompresses to more than 1048576 bytes, the limit; raise it with "
                           "--max-input-bytes"));
    tconv_input_close(in);
    tconv_error_clear(ctx);

    /* a gzip bomb: 300 MiB of zeros at the highest compression */
    size_t zlen = 300u << 20;
    char *zeros = calloc(1, zlen);
    snprintf(p, sizeof(p), "%s/bomb.gz", dir);
    write_gzip(p, zeros, zlen, 1);
    free(zeros);
    in = tconv_input_open(ctx, p, 0, 0);
    while ((r = tconv_input_read(in, buf, sizeof(buf))) > 0) {
    }
    assert_int_equal(r, -1);
    assert_non_null(strstr(tconv_error_chain(ctx, &n)[0], "a gzip bomb, not a trace"));
    tconv_input_close(in);
    tconv_error_clear(ctx);

    /* a line longer than any text format has: an error at that line, memory stays bounded */
    snprintf(p, sizeof(p), "%s/long.txt", dir);
    FILE *f = fopen(p, "wb");
    fputs("short\n", f);
    for (int i = 0; i < 70; i++)
        fwrite(data, 1, 1 << 20, f);
    fclose(f);
    in = tconv_input_open(ctx, p, 0, 0);
    size_t l;
    assert_non_null(tconv_input_getline(in, &l));
    assert_null(tconv_input_getline(in, &l));
    assert_non_null(strstr(tconv_error_chain(ctx, &n)[0],
                           "long.txt:2: line longer than 64 MiB: this is not a line-oriented text "
                           "file"));
    tconv_input_close(in);
    free(data);
    tconv_ctx_free(ctx);
}

/* Inflating on the read-ahead thread or in line gives the same bytes, errors and counts. */
static void with_and_without_the_thread(void **state)
{
    (void)state;
    const char *dir = testutil_tmpdir("input-thread");
    size_t n = 3u << 20;
    char *data = malloc(n);
    for (size_t i = 0; i < n; i++)
        data[i] = (i % 61 == 60) ? '\n' : (char)('a' + (i * 7919 + i / 977) % 26);
    char gz[4200], cut[4200];
    snprintf(gz, sizeof(gz), "%s/multi.gz", dir);
    snprintf(cut, sizeof(cut), "%s/cut.gz", dir);
    write_gzip(gz, data, n, 3);
    size_t glen = 0;
    char *g = testutil_slurp(gz, &glen);
    testutil_write(cut, g, glen - 100);
    free(g);
    tconv_ctx *ctx = tconv_ctx_new();
    char *lines[2];
    for (int thread = 0; thread < 2; thread++) {
        setenv("TCONV_INFLATE_THREAD", thread ? "1" : "0", 1);
        uint64_t nl;
        lines[thread] = read_lines(ctx, gz, &nl);
        assert_int_equal(nl, n / 61 + 1); /* the last line has no newline */

        /* read() and getline() mixed, after a peek; the compressed count is the file's size */
        tconv_input *in = tconv_input_open(ctx, gz, 0, 0);
        size_t plen;
        tconv_input_peek(in, &plen);
        size_t len;
        assert_non_null(tconv_input_getline(in, &len));
        char *back = malloc(n);
        size_t total = len + 1;
        memcpy(back, data, total);
        ssize_t r;
        while ((r = tconv_input_read(in, back + total, 100000)) > 0)
            total += (size_t)r;
        assert_int_equal(r, 0);
        assert_int_equal(total, n);
        assert_memory_equal(back, data, n);
        assert_int_equal(tconv_input_offset(in), n);
        assert_int_equal(tconv_input_raw_offset(in), glen);
        tconv_input_close(in);
        free(back);

        /* a truncated member fails after the bytes before the cut */
        in = tconv_input_open(ctx, cut, 0, 0);
        char buf[65536];
        total = 0;
        while ((r = tconv_input_read(in, buf, sizeof(buf))) > 0)
            total += (size_t)r;
        assert_int_equal(r, -1);
        assert_true(total > n / 2 && total < n);
        size_t nerr;
        assert_non_null(strstr(tconv_error_chain(ctx, &nerr)[0],
                               "cut.gz: unexpected end of gzip data (the file is truncated)"));
        assert_int_equal(tconv_input_read(in, buf, sizeof(buf)), -1);
        tconv_input_close(in);
        tconv_error_clear(ctx);

        /* the size cap, after the bytes below it */
        in = tconv_input_open(ctx, gz, 0, 1 << 20);
        total = 0;
        while ((r = tconv_input_read(in, buf, sizeof(buf))) > 0)
            total += (size_t)r;
        assert_int_equal(r, -1);
        assert_true(total <= 1 << 20);
        assert_non_null(strstr(tconv_error_chain(ctx, &nerr)[0],
                               "decompresses to more than 1048576 bytes, the limit"));
        tconv_input_close(in);
        tconv_error_clear(ctx);

        /* closed early, with the thread ahead of the reader */
        in = tconv_input_open(ctx, gz, 0, 0);
        assert_int_equal(tconv_input_read(in, buf, 10), 10);
        tconv_input_close(in);
    }
    unsetenv("TCONV_INFLATE_THREAD");
    assert_string_equal(lines[0], lines[1]);
    free(lines[0]);
    free(lines[1]);
    free(data);
    tconv_ctx_free(ctx);
}

/* Everything an input gives, bytes then the error if any, with TCONV_INFLATE=how. */
static char *read_all(tconv_ctx *ctx, const char *path, const char *how, size_t *len)
{
    setenv("TCONV_INFLATE", how, 1);
    tconv_input *in = tconv_input_open(ctx, path, 0, 0);
    assert_non_null(in);
    size_t cap = 1 << 16, n = 0;
    char *all = malloc(cap);
    ssize_t r;
    for (;;) {
        if (n + 65536 > cap) all = realloc(all, cap *= 2);
        if ((r = tconv_input_read(in, all + n, 65536)) <= 0) break;
        n += (size_t)r;
    }
    if (r < 0) {
        size_t ne;
        const char *e = tconv_error_chain(ctx, &ne)[0];
        size_t el = strlen(e);
        all = realloc(all, n + el + 8);
        memcpy(all + n, "\nERROR:", 7);
        memcpy(all + n + 7, e, el);
        n += el + 7;
        tconv_error_clear(ctx);
    }
    tconv_input_close(in);
    unsetenv("TCONV_INFLATE");
    *len = n;
    return all;
}

/* ISA-L (where the build has it) and zlib give the same bytes, and the same error at the same
 * place on damaged files: a flipped byte anywhere, a cut, garbage after the last member. */
static void isal_and_zlib_agree(void **state)
{
    (void)state;
    const char *dir = testutil_tmpdir("input-isal");
    size_t n = 1u << 20;
    char *data = malloc(n);
    for (size_t i = 0; i < n; i++)
        data[i] = (char)('a' + (i * 7919 + i / 977) % 26);
    char gz[4200], bad[4200];
    snprintf(gz, sizeof(gz), "%s/multi.gz", dir);
    snprintf(bad, sizeof(bad), "%s/bad.gz", dir);
    write_gzip(gz, data, n, 3);
    size_t glen = 0;
    char *g = testutil_slurp(gz, &glen);
    tconv_ctx *ctx = tconv_ctx_new();
    size_t la, lb;
    char *a = read_all(ctx, gz, "isal", &la), *b = read_all(ctx, gz, "zlib", &lb);
    assert_int_equal(la, n);
    assert_int_equal(lb, n);
    assert_memory_equal(a, data, n);
    assert_memory_equal(b, data, n);
    free(a);
    free(b);
    char *d = malloc(glen + 16);
    for (size_t k = 0; k < 40; k++) {
        memcpy(d, g, glen);
        size_t len = glen;
        if (k < 30) { /* a flipped byte: in the header, the data, a trailer */
            size_t at = k < 10 ? k : k < 20 ? (glen / 10) * (k - 10) + 11 : glen - 1 - (k - 20);
            d[at] ^= (char)(0x55 + k);
        } else if (k < 35) { /* cut */
            len = glen - 1 - (k - 30) * glen / 7;
        } else { /* garbage or padding and garbage after the last member */
            memcpy(d + glen, k & 1 ? "\0\0\0x" : "\x1f\x8b\x08\xff", 4);
            len = glen + 4;
        }
        testutil_write(bad, d, len);
        a = read_all(ctx, bad, "isal", &la);
        b = read_all(ctx, bad, "zlib", &lb);
        assert_int_equal(la, lb);
        assert_memory_equal(a, b, la);
        free(a);
        free(b);
    }
    free(d);
    free(g);
    free(data);
    tconv_ctx_free(ctx);
}

/* A gzip stream on a pipe whose writer neither writes more nor closes: the reader takes what
 * came, and closing the input does not wait for the writer. */
static void a_silent_pipe_does_not_block_close(void **state)
{
    (void)state;
    const char *dir = testutil_tmpdir("input-pipe");
    char gz[4200];
    snprintf(gz, sizeof(gz), "%s/p.gz", dir);
    static char data[200000];
    for (size_t i = 0; i < sizeof(data); i++)
        data[i] = (char)('a' + (i * 31 + i / 7) % 26);
    write_gzip(gz, data, sizeof(data), 1);
    size_t glen = 0;
    char *g = testutil_slurp(gz, &glen);
    int fds[2];
    assert_int_equal(pipe(fds), 0);
    size_t half = glen / 2;
    assert_int_equal(write(fds[1], g, half), (ssize_t)half);
    char path[64];
    snprintf(path, sizeof(path), "/dev/fd/%d", fds[0]);
    tconv_ctx *ctx = tconv_ctx_new();
    tconv_input *in = tconv_input_open(ctx, path, 0, 0);
    assert_non_null(in);
    assert_true(tconv_input_is_gzip(in));
    char buf[100];
    assert_int_equal(tconv_input_read(in, buf, sizeof(buf)), (ssize_t)sizeof(buf));
    assert_memory_equal(buf, data, sizeof(buf));
    alarm(20); /* a close that waited for the writer would hang here */
    tconv_input_close(in);
    alarm(0);
    close(fds[0]);
    close(fds[1]);
    free(g);
    tconv_ctx_free(ctx);
}

/* Every byte of path through tconv_input_view, pieces of at most cap, after a peek and a first
 * read of 7 bytes; the pieces never exceed cap and the offset follows them. */
static void view_all(tconv_ctx *ctx, const char *path, const char *data, size_t n, size_t cap)
{
    tconv_input *in = tconv_input_open(ctx, path, 0, 0);
    assert_non_null(in);
    size_t plen;
    const unsigned char *head = tconv_input_peek(in, &plen);
    assert_true(plen >= 7);
    assert_memory_equal(head, data, 7);
    char first[7];
    assert_int_equal(tconv_input_read(in, first, 7), 7);
    size_t total = 7;
    ssize_t r;
    const void *p;
    char copy[3000];
    for (unsigned k = 1;; k++) {
        if (k % 5 == 0) { /* a read among the views takes the bytes that come next */
            r = tconv_input_read(in, copy, sizeof(copy));
            if (r <= 0) break;
            assert_memory_equal(copy, data + total, (size_t)r);
            total += (size_t)r;
            continue;
        }
        if ((r = tconv_input_view(in, &p, cap)) <= 0) break;
        assert_true((size_t)r <= cap);
        assert_true(total + (size_t)r <= n);
        assert_memory_equal(p, data + total, (size_t)r);
        total += (size_t)r;
        assert_int_equal(tconv_input_offset(in), total);
    }
    assert_int_equal(r, 0);
    assert_int_equal(total, n);
    assert_int_equal(tconv_input_view(in, &p, cap), 0);
    assert_false(tconv_error_pending(ctx));
    tconv_input_close(in);
}

/* tconv_input_view gives the bytes tconv_input_read does: plain files below and above the size
 * that is mapped, mapped or not, gzip, and a pipe. */
static void view_gives_the_bytes_read_does(void **state)
{
    (void)state;
    const char *dir = testutil_tmpdir("input-view");
    size_t n = (3u << 20) + 12345;
    char *data = malloc(n);
    for (size_t i = 0; i < n; i++)
        data[i] = (char)('a' + (i * 7919 + i / 977) % 26);
    char big[4200], small[4200], gz[4200];
    snprintf(big, sizeof(big), "%s/big.json", dir);
    snprintf(small, sizeof(small), "%s/small.json", dir);
    snprintf(gz, sizeof(gz), "%s/big.json.gz", dir);
    testutil_write(big, data, n);
    testutil_write(small, data, 100000);
    write_gzip(gz, data, n, 2);
    tconv_ctx *ctx = tconv_ctx_new();
    for (int map = 0; map < 2; map++) {
        setenv("TCONV_MMAP", map ? "1" : "0", 1);
        view_all(ctx, big, data, n, 1u << 18);
        view_all(ctx, big, data, n, 1000); /* smaller than any buffer of the input's */
        view_all(ctx, small, data, 100000, 1u << 18);
        view_all(ctx, gz, data, n, 1u << 18);
    }
    unsetenv("TCONV_MMAP");

    /* a pipe: pieces as the writer's chunks come */
    int fds[2];
    assert_int_equal(pipe(fds), 0);
    pid_t pid = fork();
    assert_true(pid >= 0);
    if (pid == 0) {
        close(fds[0]);
        for (size_t off = 0; off < 500000; off += 4096)
            if (write(fds[1], data + off, off + 4096 > 500000 ? 500000 - off : 4096) < 0) _exit(1);
        _exit(0);
    }
    close(fds[1]);
    char path[64];
    snprintf(path, sizeof(path), "/dev/fd/%d", fds[0]);
    view_all(ctx, path, data, 500000, 1u << 18);
    close(fds[0]);
    int status;
    waitpid(pid, &status, 0);
    assert_int_equal(status, 0);
    free(data);
    tconv_ctx_free(ctx);
}

/* A mapped file cut short while it is read: the run ends with exit 1 and the file named, not
 * with SIGBUS (in a child: the ending is the process's). */
static void a_mapped_file_cut_short(void **state)
{
    (void)state;
    const char *dir = testutil_tmpdir("input-cut");
    char path[4200], err[4200], outp[4200];
    snprintf(path, sizeof(path), "%s/cut.json", dir);
    snprintf(err, sizeof(err), "%s/stderr", dir);
    snprintf(outp, sizeof(outp), "%s/out.pb", dir);
    size_t n = 4u << 20;
    char *data = malloc(n);
    memset(data, ' ', n);
    testutil_write(path, data, n);
    free(data);
    pid_t pid = fork();
    assert_true(pid >= 0);
    if (pid == 0) {
        if (!freopen(err, "w", stderr)) _exit(3);
        tconv_ctx *ctx = tconv_ctx_new();
        /* an output being written, whose temporary must not stay behind */
        tconv_output_opts oo = {TCONV_OUT_STREAM, 0, 0};
        tconv_output *out = tconv_output_open(ctx, outp, &oo);
        if (!out || tconv_output_write(out, "partial", 7) != 0) _exit(7);
        tconv_input *in = tconv_input_open(ctx, path, 0, 0);
        const void *p;
        volatile unsigned char sum = 0;
        /* the sniffing read's bytes, then the first piece of the mapping */
        if (!in || tconv_input_view(in, &p, 1 << 20) <= 0 || tconv_input_view(in, &p, 4096) <= 0)
            _exit(4);
        if (truncate(path, 0) != 0) _exit(5);
        ssize_t r;
        while ((r = tconv_input_view(in, &p, 1 << 20)) > 0)
            for (ssize_t i = 0; i < r; i += 4096)
                sum += ((const unsigned char *)p)[i];
        _exit(6); /* the mapping was not used, or its end went unnoticed */
    }
    int status;
    assert_int_equal(waitpid(pid, &status, 0), pid);
    char *said = testutil_slurp(err, NULL);
    if (!WIFEXITED(status) || WEXITSTATUS(status) != 1) fprintf(stderr, "child: %s\n", said);
    assert_true(WIFEXITED(status));
    assert_int_equal(WEXITSTATUS(status), 1);
    assert_non_null(strstr(said, "cut.json: the file was cut short while it was read; nothing "
                                 "was written"));
    free(said);
    /* nothing but the input and the messages in the folder: no output, no temporary */
    char cmd[4300];
    snprintf(cmd, sizeof(cmd), "test \"$(ls -A '%s' | tr '\\n' ' ')\" = 'cut.json stderr '", dir);
    assert_int_equal(system(cmd), 0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(lines_plain_and_gzip_agree),
        cmocka_unit_test(truncated_gzip_is_an_error),
        cmocka_unit_test(empty_file),
        cmocka_unit_test(bytes_read_by_name),
        cmocka_unit_test(limits),
        cmocka_unit_test(with_and_without_the_thread),
        cmocka_unit_test(a_silent_pipe_does_not_block_close),
        cmocka_unit_test(isal_and_zlib_agree),
        cmocka_unit_test(view_gives_the_bytes_read_does),
        cmocka_unit_test(a_mapped_file_cut_short),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
