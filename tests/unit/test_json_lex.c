#include "testutil.h"

#include <tconv/json.h>

/* The tokens as text: "{ k:name s:value n:1.5 t f N }", and the error with its offset. */
typedef struct rec {
    char out[8192];
    size_t len;
    int skip_at; /* return SKIP for the BEGIN token with this offset (-1: never) */
} rec;

static void rec_put(rec *r, const char *s, size_t n)
{
    if (r->len + n + 2 > sizeof r->out) n = sizeof r->out - r->len - 2;
    memcpy(r->out + r->len, s, n);
    r->len += n;
    r->out[r->len] = '\0';
}

static int rec_tok(void *user, const tconv_json_token *t)
{
    rec *r = user;
    static const char *const tag[] = {"", "{", "}", "[", "]", "k:", "s:", "n:", "t", "f", "N"};
    if (r->len) rec_put(r, " ", 1);
    rec_put(r, tag[t->kind], strlen(tag[t->kind]));
    if (t->kind == TCONV_JSON_KEY || t->kind == TCONV_JSON_STRING || t->kind == TCONV_JSON_NUMBER)
        rec_put(r, t->text, t->len);
    if ((t->kind == TCONV_JSON_OBJECT_END || t->kind == TCONV_JSON_ARRAY_END) && t->empty)
        rec_put(r, "e", 1);
    if (t->repaired) rec_put(r, "!", 1);
    if ((t->kind == TCONV_JSON_OBJECT_BEGIN || t->kind == TCONV_JSON_ARRAY_BEGIN) &&
        (int)t->offset == r->skip_at)
        return TCONV_JSON_SKIP;
    return TCONV_JSON_GO;
}

static const tconv_json_callbacks rec_cb = {rec_tok, rec_tok, rec_tok, rec_tok};

/* Lex doc fed in pieces cut at the given positions (sorted, ncuts of them); returns the tokens
 * followed by "|" and the error "offset: message" (or "ok"). */
static void lex_cuts(const char *doc, size_t n, const size_t *cuts, size_t ncuts, unsigned flags,
                     int skip_at, char *out, size_t cap)
{
    rec r = {.skip_at = skip_at};
    tconv_json_lexer *lx = tconv_json_new(&rec_cb, &r, flags);
    assert_non_null(lx);
    size_t at = 0;
    int rc = 0;
    for (size_t i = 0; i <= ncuts && !rc; i++) {
        size_t to = i < ncuts ? cuts[i] : n;
        rc = tconv_json_feed(lx, doc + at, to - at);
        at = to;
    }
    if (!rc) rc = tconv_json_end(lx);
    const tconv_json_error *e = tconv_json_error_get(lx);
    if (rc)
        snprintf(out, cap, "%s|%llu: %s", r.out, (unsigned long long)e->offset, e->message);
    else
        snprintf(out, cap, "%s|ok", r.out);
    tconv_json_free(lx);
}

static void lex_doc(const char *doc, size_t n, unsigned flags, char *out, size_t cap)
{
    lex_cuts(doc, n, NULL, 0, flags, -1, out, cap);
}

/* The result of doc, checked to be the same whatever two places it is cut at, and fed one
 * byte at a time; the BEGIN token at offset skip_at (-1: none) asks for a skip. Whole, a skipped
 * container goes through the lexer's one-pass check; cut inside, through its token loop. */
static const char *lex_all_splits_skip(const char *doc, size_t n, int skip_at)
{
    static char whole[9000];
    char other[9000];
    lex_cuts(doc, n, NULL, 0, 0, skip_at, whole, sizeof whole);
    for (size_t a = 0; a <= n; a++)
        for (size_t b = a; b <= n; b++) {
            size_t cuts[2] = {a, b};
            lex_cuts(doc, n, cuts, 2, 0, skip_at, other, sizeof other);
            if (strcmp(whole, other) != 0)
                fail_msg("cut at %zu and %zu of <%s>:\n  %s\nwhole:\n  %s", a, b, doc, other,
                         whole);
        }
    size_t *every = malloc((n + 1) * sizeof *every);
    for (size_t i = 0; i < n; i++)
        every[i] = i;
    lex_cuts(doc, n, every, n, 0, skip_at, other, sizeof other);
    free(every);
    if (strcmp(whole, other) != 0)
        fail_msg("byte by byte <%s>:\n  %s\nwhole:\n  %s", doc, other, whole);
    return whole;
}

static const char *lex_all_splits(const char *doc, size_t n)
{
    return lex_all_splits_skip(doc, n, -1);
}

#define CHECK(doc, want) assert_string_equal(lex_all_splits(doc, sizeof(doc) - 1), want)
/* doc with its container at offset 1 skipped */
#define CHECK_SKIP(doc, want)                                                                      \
    assert_string_equal(lex_all_splits_skip(doc, sizeof(doc) - 1, 1), want)

static void every_token_kind(void **state)
{
    (void)state;
    CHECK("{\"a\":[1,-2.5e+3,\"x\",true,false,null,{},[]],\"b\":{}}",
          "{ k:a [ n:1 n:-2.5e+3 s:x t f N { }e [ ]e ] k:b { }e }|ok");
    CHECK("  [ ]  ", "[ ]e|ok");
    CHECK("\"lone\"", "s:lone|ok");
    CHECK("12", "n:12|ok"); /* a number ended by the end of input */
    CHECK("\v\f[\t\r\n]", "[ ]e|ok");
}

static void numbers_keep_their_text(void **state)
{
    (void)state;
    CHECK("[1712195495519689.047,551.1320000000001,0,-0,1E400,0.0e-0]",
          "[ n:1712195495519689.047 n:551.1320000000001 n:0 n:-0 n:1E400 n:0.0e-0 ]|ok");
}

static void escapes(void **state)
{
    (void)state;
    CHECK("[\"a\\\"b\\\\c\\/d\\b\\f\\n\\r\\t\"]", "[ s:a\"b\\c/d\b\f\n\r\t ]|ok");
    /* A surrogate pair, an unpaired high surrogate, a lone low one, a high one followed by an
     * escape that is no low one, a BMP character: each unpaired surrogate is U+FFFD. */
    CHECK("[\"\\ud83d\\ude00\",\"x\\ud83dy\",\"\\udc00\",\"\\ud83d\\u0041\",\"\\u00e9\"]",
          "[ s:\xf0\x9f\x98\x80 s:x\xef\xbf\xbdy s:\xef\xbf\xbd s:\xef\xbf\xbd"
          "A s:\xc3\xa9 ]|ok");
    CHECK("{\"k\\u0041\":1}", "{ k:kA n:1 }|ok");
}

static void utf8_raw_or_repaired(void **state)
{
    (void)state;
    static const char doc[] = "[\"caf\xe9\",\"ok \xe2\x82\xac\"]";
    char out[256];
    lex_doc(doc, sizeof doc - 1, 0, out, sizeof out);
    assert_string_equal(out, "[ s:caf\xe9 s:ok \xe2\x82\xac ]|ok");
    lex_doc(doc, sizeof doc - 1, TCONV_JSON_REPAIR_UTF8, out, sizeof out);
    assert_string_equal(out, "[ s:caf\xef\xbf\xbd! s:ok \xe2\x82\xac ]|ok");
}

static void errors_and_offsets(void **state)
{
    (void)state;
    CHECK("[{\"name\":\"a\" q}]",
          "[ { k:name s:a|13: expected ',' or '}' after the value of \"name\", found 'q'");
    CHECK("[1,]", "[ n:1|3: expected a value after ',', found ']'");
    CHECK("[1 , x]", "[ n:1|5: expected a value after ',', found 'x'");
    CHECK("[1 x]", "[ n:1|3: expected ',' or ']' after an array element, found 'x'");
    CHECK("[x]", "[|1: expected a value or ']', found 'x'");
    CHECK("{1}", "{|1: expected a member name in double quotes or '}', found '1'");
    CHECK("{\"a\":1,}",
          "{ k:a n:1|7: expected a member name in double quotes after ',', found '}'");
    CHECK("{\"a\" 1}", "{ k:a|5: expected a value for \"a\", found '1'");
    CHECK("{\"a\": }", "{ k:a|4: expected a value for \"a\", found ':'");
    CHECK("[] x", "[ ]e|3: expected the end of input after the JSON value, found 'x'");
    CHECK(" ]", "|1: expected a JSON value, found ']'");
    CHECK("[1 \v x]", "[ n:1|3: expected ',' or ']' after an array element, found byte 0x0b");
    CHECK("['a']", "[|1: expected a value or ']', found \"'\"");
    CHECK("[\"a\x01\"]", "[|1: invalid character inside string");
    CHECK("[\"\\x\"]", "[|1: inside a string, '\\' occurs before a character which it may not");
    CHECK("[\"\\u12g4\"]", "[|1: invalid (non-hex) character occurs after '\\u' inside string");
    CHECK("[-a]", "[|1: malformed number, a digit is required after the minus sign");
    CHECK("[1.e]", "[|1: malformed number, a digit is required after the decimal point");
    CHECK("[1e+]", "[|1: malformed number, a digit is required after the exponent");
    CHECK("[/*c*/]", "[|1: probable comment found in input text, comments are not enabled");
    CHECK("[tru]", "[|1: expected a value or ']', found 't'");
    /* Found by the end of input: at its offset. */
    CHECK("[tru", "[|4: expected a value or ']', found the end of the data read");
    CHECK("[1,-", "[ n:1|4: malformed number, a digit is required after the minus sign");
    CHECK("[{\"a\":", "[ { k:a|6: unexpected end of input: expected a value for \"a\"");
    CHECK("[[1,\"ab", "[ [ n:1|7: unexpected end of input: 2 JSON value(s) not closed");
    CHECK("   ", "|3: unexpected end of input: no JSON value");
    CHECK("", "|0: unexpected end of input: no JSON value");
}

static void long_keys_are_cut_in_messages(void **state)
{
    (void)state;
    CHECK("{\"0123456789012345678901234567890123456789012345678901234567890\":1 2}",
          "{ k:0123456789012345678901234567890123456789012345678901234567890 n:1|67: expected "
          "',' or '}' after the value of \"0123456789012345678901234567890123456789012345\", "
          "found '2'");
}

static void skip_checks_but_hides(void **state)
{
    (void)state;
    char out[256];
    static const char doc[] = "[{\"a\":[1,{\"b\":2}]},3]";
    lex_cuts(doc, sizeof doc - 1, NULL, 0, 0, 1, out, sizeof out);
    assert_string_equal(out, "[ { } n:3 ]|ok");
    static const char bad[] = "[{\"a\":[1,{\"b\" 2}]},3]";
    lex_cuts(bad, sizeof bad - 1, NULL, 0, 0, 1, out, sizeof out);
    assert_string_equal(out, "[ {|14: expected a value for \"b\", found '2'");
}

/* A skipped container checked in one pass (whole) ends, or fails, exactly as when lexed token by
 * token (cut): what follows it, the END token, each kind of error inside with its offset and
 * message, and what the one pass leaves to the token loop (empty, too deep, cut numbers). */
static void skip_in_one_pass_or_not(void **state)
{
    (void)state;
    CHECK_SKIP("[{\"a\":[1,{\"b\":2}],\"c\":\"x\\\"y\",\"d\":[true,false,null,-1.5e3]},3]",
               "[ { } n:3 ]|ok");
    CHECK_SKIP("[[1,[2,[3]],{}],\"z\"]", "[ [ ] s:z ]|ok");
    CHECK_SKIP("[{} ,1]", "[ { }e n:1 ]|ok");
    CHECK_SKIP("[[ ]\v]", "[ [ ]e ]|ok");
    CHECK_SKIP("[{\"a\" :\t1 \n} x]",
               "[ { }|13: expected ',' or ']' after an array element, found 'x'");
    CHECK_SKIP("[{\"a\":1,}]",
               "[ {|8: expected a member name in double quotes after ',', found '}'");
    CHECK_SKIP("[{\"a\":1 \"b\":2}]",
               "[ {|8: expected ',' or '}' after the value of \"a\", found '\"'");
    CHECK_SKIP("[{\"a\":[1,]}]", "[ {|9: expected a value after ',', found ']'");
    CHECK_SKIP("[{\"a\":[1}]}]", "[ {|8: expected ',' or ']' after an array element, found '}'");
    CHECK_SKIP("[{\"a\":-}]", "[ {|5: malformed number, a digit is required after the minus sign");
    CHECK_SKIP("[{\"a\":1.}]",
               "[ {|5: malformed number, a digit is required after the decimal point");
    CHECK_SKIP("[{\"a\":tru}]", "[ {|5: expected a value for \"a\", found ':'");
    CHECK_SKIP("[{\"a\":\"\\q\"}]",
               "[ {|5: inside a string, '\\' occurs before a character which it may not");
    CHECK_SKIP("[{\"a\":\"\x01\"}]", "[ {|5: invalid character inside string");
    CHECK_SKIP("[{\"a\"/1}]",
               "[ {|5: probable comment found in input text, comments are not enabled");
    CHECK_SKIP("[{\"a\":1}", "[ { }|8: unexpected end of input: 1 JSON value(s) not closed");
    CHECK_SKIP("[{\"a\":1", "[ {|7: unexpected end of input: 2 JSON value(s) not closed");
    CHECK_SKIP("[{\"a\":12", "[ {|8: unexpected end of input: 2 JSON value(s) not closed");
    /* 70 levels: deeper than the one pass goes */
    char deep[160];
    size_t n = 0;
    deep[n++] = '[';
    for (int i = 0; i < 70; i++)
        deep[n++] = '[';
    deep[n++] = '1';
    for (int i = 0; i < 70; i++)
        deep[n++] = ']';
    memcpy(deep + n, ",2]", 3);
    assert_string_equal(lex_all_splits_skip(deep, n + 3, 1), "[ [ ] n:2 ]|ok");
    /* an object 2 levels down closed by ']', below 66 more levels */
    n = 0;
    memcpy(deep + n, "[[{\"k\":", 7);
    n += 7;
    for (int i = 0; i < 66; i++)
        deep[n++] = '[';
    for (int i = 0; i < 66; i++)
        deep[n++] = ']';
    memcpy(deep + n, "]],2]", 5);
    assert_string_equal(lex_all_splits_skip(deep, n + 5, 1),
                        "[ [|139: expected ',' or '}' after the value of \"k\", found ']'");
}

static int stop_at_number(void *user, const tconv_json_token *t)
{
    (void)user;
    return t->kind == TCONV_JSON_NUMBER ? TCONV_JSON_STOP : TCONV_JSON_GO;
}

static void a_callback_stops(void **state)
{
    (void)state;
    tconv_json_callbacks cb = {.scalar = stop_at_number};
    tconv_json_lexer *lx = tconv_json_new(&cb, NULL, 0);
    assert_int_equal(tconv_json_feed(lx, "[\"a\", 17, 2]", 12), -1);
    assert_int_equal(tconv_json_error_get(lx)->code, TCONV_JSON_ERR_STOPPED);
    assert_int_equal(tconv_json_error_get(lx)->offset, 8);
    assert_int_equal(tconv_json_feed(lx, "]", 1), -1);
    tconv_json_free(lx);
}

static void offsets_start_where_told(void **state)
{
    (void)state;
    tconv_json_lexer *lx = tconv_json_new(NULL, NULL, 0);
    tconv_json_set_offset(lx, 3); /* a byte order mark the reader dropped */
    assert_int_equal(tconv_json_feed(lx, "[1 x]", 5), -1);
    assert_int_equal(tconv_json_error_get(lx)->offset, 6);
    assert_int_equal(tconv_json_error_get(lx)->code, TCONV_JSON_ERR_UNEXPECTED);
    tconv_json_free(lx);
}

static void deep_nesting_and_long_tokens(void **state)
{
    (void)state;
    enum { DEPTH = 100000 };
    char *doc = malloc(2 * DEPTH + 1);
    memset(doc, '[', DEPTH);
    memset(doc + DEPTH, ']', DEPTH);
    tconv_json_lexer *lx = tconv_json_new(NULL, NULL, 0);
    assert_int_equal(tconv_json_feed(lx, doc, DEPTH), 0);
    assert_int_equal(tconv_json_depth(lx), DEPTH);
    assert_int_equal(tconv_json_feed(lx, doc + DEPTH, DEPTH), 0);
    assert_int_equal(tconv_json_end(lx), 0);
    assert_int_equal(tconv_json_depth(lx), 0);
    tconv_json_free(lx);
    free(doc);

    /* A 4 MB string fed in 7-byte pieces arrives whole. */
    size_t n = (size_t)4 << 20;
    char *big = malloc(n + 4);
    big[0] = '[';
    big[1] = '"';
    memset(big + 2, 'x', n);
    big[n + 2] = '"';
    big[n + 3] = ']';
    rec r = {.skip_at = -1};
    lx = tconv_json_new(&rec_cb, &r, 0);
    for (size_t at = 0; at < n + 4; at += 7)
        assert_int_equal(tconv_json_feed(lx, big + at, n + 4 - at < 7 ? n + 4 - at : 7), 0);
    assert_int_equal(tconv_json_end(lx), 0);
    assert_int_equal(r.len, sizeof r.out - 2); /* "[ s:xxxx..." filled the record */
    tconv_json_free(lx);
    free(big);
}

/* The portable, SSE2 and AVX2 scans of string text, digits and blanks give the same tokens and
 * errors: each special byte (a quote, a backslash, a control character, the bytes around them)
 * at each place of runs long enough to cross several 16- and 32-byte blocks, and at each
 * alignment. */
static void lex_path(int path, const char *doc, size_t n, size_t cut, char *out, size_t cap)
{
    assert_int_equal(tconv_json_scan_use(path), 0);
    lex_cuts(doc, n, &cut, 1, 0, -1, out, cap);
}

/* The vector paths this build and CPU have (the portable one always runs). */
static int vector_paths(int *paths)
{
    int n = 0;
    for (int p = TCONV_JSON_SCAN_SSE2; p <= TCONV_JSON_SCAN_AVX2; p++)
        if (tconv_json_scan_use(p) == 0) paths[n++] = p;
    tconv_json_scan_use(-1);
    return n;
}

static void scan_paths_agree(void **state)
{
    (void)state;
    static const unsigned char special[] = {'"',  '\\', 0x00, 0x01, 0x1f, 0x20, 0x21, 0x2f,
                                            0x30, 0x39, 0x3a, 0x5b, 0x7f, 0x80, 0xb0, 0xff};
    char doc[128], a[9000], b[9000];
    int paths[2], npaths = vector_paths(paths);
    size_t checked = 0;
    for (size_t pad = 0; pad < 33; pad++)
        for (size_t len = 0; len < 72; len++)
            for (size_t at = 0; at <= len; at++)
                for (size_t k = 0; k < sizeof special; k++)
                    for (int num = 0; num < 2; num++) {
                        /* ["<len bytes>"] or [<pad blanks>1<len digits>.5], one byte replaced */
                        size_t n = 0;
                        doc[n++] = '[';
                        for (size_t i = 0; i < pad; i++)
                            doc[n++] = ' ';
                        size_t body = n + 1; /* the first byte after the quote or the leading 1 */
                        doc[n++] = num ? '1' : '"';
                        for (size_t i = 0; i < len; i++)
                            doc[n++] = num ? (char)('0' + i % 10) : (char)('a' + i % 26);
                        if (at < len) doc[body + at] = (char)special[k];
                        if (num) {
                            doc[n++] = '.';
                            doc[n++] = '5';
                        } else {
                            doc[n++] = '"';
                        }
                        doc[n++] = ']';
                        size_t cut = n - (at % 7);
                        lex_path(TCONV_JSON_SCAN_PORTABLE, doc, n, cut, a, sizeof a);
                        for (int i = 0; i < npaths; i++) {
                            lex_path(paths[i], doc, n, cut, b, sizeof b);
                            if (strcmp(a, b) != 0)
                                fail_msg("portable and path %d scans differ on <%.*s>:\n  %s\n  %s",
                                         paths[i], (int)n, doc, a, b);
                            checked++;
                        }
                    }
    /* Runs of blanks (all six kinds) before a value, one byte replaced by a blank's neighbour,
     * a token or a byte no JSON has there. */
    static const char blanks[] = " \t\n\v\f\r";
    static const unsigned char odd[] = {0x08, 0x09, 0x0d, 0x0e, 0x1f, 0x20, 0x21,
                                        ',',  '"',  '1',  ']',  0x00, 0x80, 0xff};
    for (size_t len = 1; len < 72; len++)
        for (size_t at = 0; at <= len; at++)
            for (size_t k = 0; k < sizeof odd; k++) {
                size_t n = 0;
                doc[n++] = '[';
                for (size_t i = 0; i < len; i++)
                    doc[n++] = blanks[(i * 7 + k) % 6];
                if (at < len) doc[1 + at] = (char)odd[k];
                doc[n++] = '1';
                doc[n++] = ']';
                size_t cut = n - (at % 5);
                lex_path(TCONV_JSON_SCAN_PORTABLE, doc, n, cut, a, sizeof a);
                for (int i = 0; i < npaths; i++) {
                    lex_path(paths[i], doc, n, cut, b, sizeof b);
                    if (strcmp(a, b) != 0)
                        fail_msg("portable and path %d scans differ on blanks <%.*s>:\n  %s\n  %s",
                                 paths[i], (int)n, doc, a, b);
                    checked++;
                }
            }
    tconv_json_scan_use(-1);
    /* On x86-64 SSE2 is always there, and AVX2 is tested wherever the CPU has it. */
    assert_true(checked > 10000 * (size_t)npaths);
#if defined(__x86_64__)
    assert_true(npaths >= 1);
#endif
}

static int path_setup(void **state, int path)
{
    (void)state;
    return tconv_json_scan_use(path);
}

static int portable_scan(void **state)
{
    return path_setup(state, TCONV_JSON_SCAN_PORTABLE);
}

static int sse2_scan(void **state)
{
    return path_setup(state, TCONV_JSON_SCAN_SSE2);
}

static int avx2_scan(void **state)
{
    return path_setup(state, TCONV_JSON_SCAN_AVX2);
}

static int default_scan(void **state)
{
    return path_setup(state, -1);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(every_token_kind),
        cmocka_unit_test(numbers_keep_their_text),
        cmocka_unit_test(escapes),
        cmocka_unit_test(utf8_raw_or_repaired),
        cmocka_unit_test(errors_and_offsets),
        cmocka_unit_test(long_keys_are_cut_in_messages),
        cmocka_unit_test(skip_checks_but_hides),
        cmocka_unit_test(skip_in_one_pass_or_not),
        cmocka_unit_test(a_callback_stops),
        cmocka_unit_test(offsets_start_where_told),
        cmocka_unit_test(deep_nesting_and_long_tokens),
    };
    const struct CMUnitTest paths[] = {
        cmocka_unit_test(scan_paths_agree),
    };
    /* Every case with each path this build and CPU have; a path the CPU lacks is said so and
     * skipped. */
    int failed = cmocka_run_group_tests_name("portable scans", tests, portable_scan, default_scan);
    if (tconv_json_scan_use(TCONV_JSON_SCAN_SSE2) == 0)
        failed += cmocka_run_group_tests_name("SSE2 scans", tests, sse2_scan, default_scan);
    else
        printf("SSE2 scans: not in this build\n");
    if (tconv_json_scan_use(TCONV_JSON_SCAN_AVX2) == 0)
        failed += cmocka_run_group_tests_name("AVX2 scans", tests, avx2_scan, default_scan);
    else
        printf("AVX2 scans: not in this build or CPU\n");
    tconv_json_scan_use(-1);
    failed += cmocka_run_group_tests_name("all scans", paths, NULL, NULL);
    return failed;
}
