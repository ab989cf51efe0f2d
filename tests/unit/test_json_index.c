/* The structural index (core/util/json_index.c) against a byte-by-byte reading of the same text:
 * the same separators at every depth, on every path, whatever the buffer cuts, with strings,
 * escaped quotes and runs of backslashes across 64-byte blocks and buffers. */
#include "testutil.h"

/* The ',' outside strings at each depth, byte by byte: the answer the index must give. */
static size_t reference(const char *s, size_t n, int64_t want, uint64_t *out)
{
    int in = 0, esc = 0;
    int64_t depth = 0;
    size_t k = 0;
    for (size_t i = 0; i < n; i++) {
        char c = s[i];
        if (in) {
            if (esc)
                esc = 0;
            else if (c == '\\')
                esc = 1;
            else if (c == '"')
                in = 0;
            continue;
        }
        if (c == '"')
            in = 1;
        else if (c == '{' || c == '[')
            depth++;
        else if (c == '}' || c == ']')
            depth--;
        else if (c == ',' && depth == want)
            out[k++] = i;
    }
    return k;
}

/* The index's answer for s cut into pieces of at most piece bytes. */
static size_t indexed(const char *s, size_t n, int64_t want, size_t piece, uint64_t *out)
{
    tconv_json_index ix;
    tconv_json_index_init(&ix);
    size_t k = 0;
    for (size_t at = 0; at < n; at += piece) {
        size_t len = n - at < piece ? n - at : piece;
        k += tconv_json_index_commas(&ix, (const unsigned char *)s + at, len, want, out + k);
    }
    return k;
}

/* A trace-like text whose strings hold quotes, backslash runs of every length and the
 * structural characters, in events of varying length so that all fall on every offset of a
 * block. */
static char *make_doc(unsigned seed, size_t events, size_t *len)
{
    size_t cap = events * 200 + 16, n = 0;
    char *s = malloc(cap);
    n += (size_t)sprintf(s + n, "{\"traceEvents\": [");
    for (size_t e = 0; e < events; e++) {
        seed = seed * 1103515245u + 12345u;
        unsigned r = seed >> 8;
        n += (size_t)sprintf(s + n, "%s{\"name\": \"", e ? ", " : "");
        size_t slen = r % 40;
        for (size_t i = 0; i < slen; i++) {
            seed = seed * 1103515245u + 12345u;
            unsigned c = (seed >> 16) % 12;
            if (c == 0) {
                s[n++] = '\\';
                s[n++] = '"';
            } else if (c == 1) { /* a run of backslashes, escaped in pairs */
                size_t run = 2 * (1 + (seed >> 24) % 40);
                for (size_t b = 0; b < run; b++)
                    s[n++] = '\\';
            } else if (c < 6) {
                s[n++] = ",{}[]:"[c];
            } else {
                s[n++] = (char)('a' + c);
            }
        }
        n += (size_t)sprintf(
            s + n, "\", \"ts\": %u, \"args\": {\"a\": [1, {\"b\": \"}\"}], \"c\": \"\\\\\"}}",
            r % 100000);
    }
    n += (size_t)sprintf(s + n, "], \"x\": [1, 2]}");
    *len = n;
    return s;
}

static void agrees_with_bytes(void **state)
{
    (void)state;
    int paths[3] = {TCONV_JSON_SCAN_PORTABLE}, np = 1;
    for (int p = TCONV_JSON_SCAN_SSE2; p <= TCONV_JSON_SCAN_AVX2; p++)
        if (tconv_json_scan_use(p) == 0) paths[np++] = p;
    static const size_t pieces[] = {1, 3, 63, 64, 65, 100, 4096, 1 << 20};
    for (unsigned seed = 1; seed <= 8; seed++) {
        size_t n;
        char *doc = make_doc(seed, 300, &n);
        uint64_t *want = malloc((n + 1) * sizeof(*want)), *got = malloc((n + 1) * sizeof(*got));
        for (int64_t depth = 0; depth <= 4; depth++) {
            size_t nw = reference(doc, n, depth, want);
            if (depth == 2) assert_int_equal(nw, 300); /* the events' separators, and "x"'s */
            for (int p = 0; p < np; p++) {
                assert_int_equal(tconv_json_scan_use(paths[p]), 0);
                for (size_t c = 0; c < sizeof pieces / sizeof *pieces; c++) {
                    size_t ng = indexed(doc, n, depth, pieces[c], got);
                    assert_int_equal(ng, nw);
                    assert_memory_equal(got, want, nw * sizeof(*want));
                }
            }
        }
        tconv_json_scan_use(-1);
        free(want);
        free(got);
        free(doc);
    }
}

/* Indexing the event array from just after its '[' with its depth, told to stop at its close:
 * its separators only (not "x"'s, which sit at the same depth after it), and the offset of its
 * ']', whatever the pieces. */
static void stops_at_close(void **state)
{
    (void)state;
    static const size_t pieces[] = {1, 7, 64, 65, 4096, 1 << 20};
    for (unsigned seed = 1; seed <= 4; seed++) {
        size_t n;
        char *doc = make_doc(seed, 200, &n);
        uint64_t *want = malloc((n + 1) * sizeof(*want)), *got = malloc((n + 1) * sizeof(*got));
        size_t nw = reference(doc, n, 2, want) - 1; /* all but "x"'s one */
        const char *a = strstr(doc, "\"traceEvents\": [") + 16, *z = strstr(doc, "], \"x\"");
        for (size_t c = 0; c < sizeof pieces / sizeof *pieces; c++) {
            tconv_json_index ix;
            tconv_json_index_init(&ix);
            ix.depth = 2;
            ix.offset = (uint64_t)(a - doc);
            ix.stop_at_close = 1;
            size_t k = 0;
            for (const char *p = a; p < doc + n; p += pieces[c]) {
                size_t len = (size_t)(doc + n - p) < pieces[c] ? (size_t)(doc + n - p) : pieces[c];
                k += tconv_json_index_commas(&ix, (const unsigned char *)p, len, 2, got + k);
            }
            assert_int_equal(k, nw);
            assert_memory_equal(got, want, nw * sizeof(*want));
            assert_int_equal(ix.closed, (uint64_t)(z - doc));
        }
        free(want);
        free(got);
        free(doc);
    }
}

/* tconv_json_index_find as the splitting of an array uses it: from its '[' on, the first
 * separator at least `step` bytes past the last one found, again and again, fed in pieces (after a
 * find, the bytes past the separator are fed again): the same separators as the reference's,
 * on every path, and the array's close. */
static void finds_from(void **state)
{
    (void)state;
    int paths[3] = {TCONV_JSON_SCAN_PORTABLE}, np = 1;
    for (int p = TCONV_JSON_SCAN_SSE2; p <= TCONV_JSON_SCAN_AVX2; p++)
        if (tconv_json_scan_use(p) == 0) paths[np++] = p;
    static const size_t steps[] = {1, 50, 333, 5000, 1 << 30};
    static const size_t pieces[] = {1, 64, 100, 1 << 20};
    size_t n;
    char *doc = make_doc(5, 300, &n);
    uint64_t *want = malloc((n + 1) * sizeof(*want));
    size_t nw = reference(doc, n, 2, want) - 1;
    uint64_t a = (uint64_t)(strstr(doc, "\"traceEvents\": [") + 16 - doc);
    uint64_t z = (uint64_t)(strstr(doc, "], \"x\"") - doc);
    for (int p = 0; p < np; p++) {
        assert_int_equal(tconv_json_scan_use(paths[p]), 0);
        for (size_t s = 0; s < sizeof steps / sizeof *steps; s++)
            for (size_t c = 0; c < sizeof pieces / sizeof *pieces; c++) {
                tconv_json_index ix;
                tconv_json_index_init(&ix);
                ix.depth = 2;
                ix.offset = a;
                ix.stop_at_close = 1;
                uint64_t last = a, at;
                size_t k = 0; /* the next reference separator */
                while (ix.closed == UINT64_MAX && ix.offset < n) {
                    size_t len = n - ix.offset < pieces[c] ? n - ix.offset : pieces[c];
                    if (!tconv_json_index_find(&ix, (const unsigned char *)doc + ix.offset, len, 2,
                                               last + steps[s], &at))
                        continue;
                    while (k < nw && want[k] < last + steps[s])
                        k++;
                    assert_true(k < nw);
                    assert_int_equal(at, want[k]);
                    last = at;
                }
                while (k < nw && want[k] < last + steps[s])
                    k++;
                assert_int_equal(k, nw); /* none was missed before the close */
                assert_int_equal(ix.closed, z);
            }
    }
    tconv_json_scan_use(-1);
    free(want);
    free(doc);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(agrees_with_bytes),
        cmocka_unit_test(stops_at_close),
        cmocka_unit_test(finds_from),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
