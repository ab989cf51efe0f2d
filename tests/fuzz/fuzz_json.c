/* libFuzzer target for the JSON lexer alone (tconv/json.h): the input is lexed whole and again
 * in pieces whose sizes come from its own bytes, and both runs must hand over the same tokens
 * and end with the same error at the same offset. A token cut by a buffer's end is the lexer's
 * hardest case; this makes every input exercise it. The whole input is also lexed with each
 * scan path the CPU has (portable, SSE2, AVX2), with the same result as the default. A document
 * it accepts is also given to the structural index (core/util/json_index.c). */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "util.h"
#include <tconv/json.h>

typedef struct fuzz_log {
    uint64_t hash, count;
} fuzz_log;

static int fuzz_tok(void *user, const tconv_json_token *t)
{
    fuzz_log *l = user;
    uint64_t h = l->hash ^ (uint64_t)t->kind;
    for (size_t i = 0; i < t->len; i++)
        h = (h ^ (unsigned char)t->text[i]) * 0x100000001b3ull;
    h = (h ^ t->offset ^ (t->end << 32) ^ (uint64_t)t->empty << 63) * 0x100000001b3ull;
    l->hash = h;
    l->count++;
    /* Skip every third container, so that skipping is fuzzed too (the same in both runs). */
    if ((t->kind == TCONV_JSON_OBJECT_BEGIN || t->kind == TCONV_JSON_ARRAY_BEGIN) &&
        t->offset % 3 == 0)
        return TCONV_JSON_SKIP;
    return TCONV_JSON_GO;
}

static const tconv_json_callbacks fuzz_cb = {fuzz_tok, fuzz_tok, fuzz_tok, fuzz_tok};

static void fuzz_run(const uint8_t *data, size_t size, int split, unsigned flags, fuzz_log *l,
                     char *err, size_t cap)
{
    tconv_json_lexer *lx = tconv_json_new(&fuzz_cb, l, flags);
    if (!lx) abort();
    int rc = 0;
    size_t at = 0, k = 0;
    while (at < size && !rc) {
        size_t n = size - at;
        if (split) {
            n = (size_t)(data[k++ % size] % 13) + 1;
            if (n > size - at) n = size - at;
        }
        rc = tconv_json_feed(lx, data + at, n);
        at += n;
    }
    if (!rc) rc = tconv_json_end(lx);
    const tconv_json_error *e = tconv_json_error_get(lx);
    snprintf(err, cap, "%d %d %llu %s", rc, (int)e->code, (unsigned long long)e->offset,
             rc ? e->message : "");
    tconv_json_free(lx);
}

/* The structural index on a document the lexer accepted: the ',' at depth 1 as a byte-by-byte
 * reading finds them, on each path, whole and in pieces of 1 to 13 bytes. */
static void fuzz_index(const uint8_t *data, size_t size)
{
    uint64_t *want = malloc((size + 1) * sizeof(*want)), *got = malloc((size + 1) * sizeof(*got));
    size_t nw = 0;
    int in = 0, esc = 0;
    int64_t depth = 0;
    for (size_t i = 0; i < size; i++) {
        uint8_t c = data[i];
        if (in) {
            if (esc)
                esc = 0;
            else if (c == '\\')
                esc = 1;
            else if (c == '"')
                in = 0;
        } else if (c == '"') {
            in = 1;
        } else if (c == '{' || c == '[') {
            depth++;
        } else if (c == '}' || c == ']') {
            depth--;
        } else if (c == ',' && depth == 1) {
            want[nw++] = i;
        }
    }
    for (int path = TCONV_JSON_SCAN_PORTABLE; path <= TCONV_JSON_SCAN_AVX2; path++) {
        if (tconv_json_scan_use(path)) break;
        for (int split = 0; split < 2; split++) {
            tconv_json_index ix;
            tconv_json_index_init(&ix);
            size_t ng = 0, k = 0;
            for (size_t at = 0; at < size;) {
                size_t n = split ? (size_t)(data[k++ % size] % 13) + 1 : size;
                if (n > size - at) n = size - at;
                ng += tconv_json_index_commas(&ix, data + at, n, 1, got + ng);
                at += n;
            }
            if (ng != nw || memcmp(got, want, nw * sizeof(*want)) != 0) {
                fprintf(stderr, "index path %d split %d: %zu separators, bytes: %zu\n", path, split,
                        ng, nw);
                abort();
            }
        }
        tconv_json_scan_use(-1);
    }
    free(want);
    free(got);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    unsigned flags = size && (data[0] & 1) ? TCONV_JSON_REPAIR_UTF8 : 0;
    fuzz_log a = {0}, b = {0};
    char ea[512], eb[512];
    fuzz_run(data, size, 0, flags, &a, ea, sizeof ea);
    fuzz_run(data, size, 1, flags, &b, eb, sizeof eb);
    if (a.hash != b.hash || a.count != b.count || strcmp(ea, eb) != 0) {
        fprintf(stderr, "whole: %llu tokens, %s\npieces: %llu tokens, %s\n",
                (unsigned long long)a.count, ea, (unsigned long long)b.count, eb);
        abort();
    }
    for (int path = TCONV_JSON_SCAN_PORTABLE; path <= TCONV_JSON_SCAN_AVX2; path++) {
        if (tconv_json_scan_use(path)) break;
        fuzz_log c = {0};
        char ec[512];
        fuzz_run(data, size, 0, flags, &c, ec, sizeof ec);
        tconv_json_scan_use(-1);
        if (a.hash != c.hash || a.count != c.count || strcmp(ea, ec) != 0) {
            fprintf(stderr, "default path: %llu tokens, %s\npath %d: %llu tokens, %s\n",
                    (unsigned long long)a.count, ea, path, (unsigned long long)c.count, ec);
            abort();
        }
    }
    if (ea[0] == '0') fuzz_index(data, size);
    return 0;
}
