/* Shared helpers for the core unit tests (cmocka). */
#ifndef TCONV_TESTUTIL_H
#define TCONV_TESTUTIL_H

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "run.h"

/* A scratch directory for files a test writes; created fresh for each call. */
static inline const char *testutil_tmpdir(const char *name)
{
    static char path[2048];
    const char *base = getenv("TCONV_TEST_TMP");
    snprintf(path, sizeof(path), "%s/%s", base ? base : "/tmp/tconv-test", name);
    char cmd[4200 + 2048];
    snprintf(cmd, sizeof(cmd), "rm -rf '%s' && mkdir -p '%s'", path, path);
    if (system(cmd) != 0) fail_msg("cannot create %s", path);
    return path;
}

static inline char *testutil_slurp(const char *path, size_t *len)
{
    FILE *f = fopen(path, "rb");
    if (!f) return NULL;
    fseek(f, 0, SEEK_END);
    long n = ftell(f);
    fseek(f, 0, SEEK_SET);
    char *buf = malloc((size_t)n + 1);
    size_t got = fread(buf, 1, (size_t)n, f);
    fclose(f);
    buf[got] = 0;
    if (len) *len = got;
    return buf;
}

static inline void testutil_write(const char *path, const char *data, size_t len)
{
    FILE *f = fopen(path, "wb");
    assert_non_null(f);
    assert_int_equal(fwrite(data, 1, len, f), len);
    fclose(f);
}

#endif
