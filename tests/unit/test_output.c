#include <dirent.h>

#include "testutil.h"

static int count_entries(const char *dir)
{
    DIR *d = opendir(dir);
    int n = 0;
    struct dirent *e;
    while ((e = readdir(d)))
        if (strcmp(e->d_name, ".") && strcmp(e->d_name, "..")) n++;
    closedir(d);
    return n;
}

static void file_replaced_only_on_commit(void **state)
{
    (void)state;
    const char *dir = testutil_tmpdir("output-file");
    char path[4200];
    snprintf(path, sizeof(path), "%s/out.txt", dir);
    testutil_write(path, "old\n", 4);
    tconv_ctx *ctx = tconv_ctx_new();
    tconv_output_opts oo = {TCONV_OUT_STREAM, 0, 0};

    /* A failed run: the old file stays, no temporary is left behind. */
    tconv_output *out = tconv_output_open(ctx, path, &oo);
    assert_non_null(out);
    assert_int_equal(tconv_output_printf(out, "partial %d\n", 1), 0);
    tconv_output_close(out);
    char *s = testutil_slurp(path, NULL);
    assert_string_equal(s, "old\n");
    free(s);
    assert_int_equal(count_entries(dir), 1);

    /* A successful run replaces it in one step. */
    out = tconv_output_open(ctx, path, &oo);
    char big[300000];
    memset(big, 'y', sizeof(big));
    assert_int_equal(tconv_output_write(out, "new\n", 4), 0);
    assert_int_equal(tconv_output_write(out, big, sizeof(big)), 0);
    assert_int_equal(tconv_output_commit(out), 0);
    tconv_output_close(out);
    size_t len;
    s = testutil_slurp(path, &len);
    assert_int_equal(len, 4 + sizeof(big));
    assert_memory_equal(s, "new\nyyy", 7);
    free(s);
    assert_int_equal(count_entries(dir), 1);
    tconv_ctx_free(ctx);
}

static void directory_output(void **state)
{
    (void)state;
    const char *dir = testutil_tmpdir("output-dir");
    char target[4200], file[4300];
    snprintf(target, sizeof(target), "%s/archive", dir);
    tconv_ctx *ctx = tconv_ctx_new();
    tconv_output_opts oo = {TCONV_OUT_DIR, 0, 0};

    tconv_output *out = tconv_output_open(ctx, target, &oo);
    assert_non_null(out);
    snprintf(file, sizeof(file), "%s/a.def", tconv_output_dir(out));
    testutil_write(file, "1", 1);
    assert_int_equal(tconv_output_commit(out), 0);
    tconv_output_close(out);
    snprintf(file, sizeof(file), "%s/a.def", target);
    assert_int_equal(access(file, F_OK), 0);
    assert_int_equal(count_entries(dir), 1);

    /* Non-empty and no --force: refused, and the old archive is untouched. */
    assert_null(tconv_output_open(ctx, target, &oo));
    size_t n;
    const char *const *chain = tconv_error_chain(ctx, &n);
    assert_non_null(strstr(chain[0], "exists and is not empty; use --force to replace it"));

    /* A failed forced run leaves the old archive and nothing else. */
    oo.force = 1;
    out = tconv_output_open(ctx, target, &oo);
    assert_non_null(out);
    snprintf(file, sizeof(file), "%s/b.def", tconv_output_dir(out));
    testutil_write(file, "2", 1);
    tconv_output_close(out);
    assert_int_equal(count_entries(dir), 1);
    assert_int_equal(count_entries(target), 1);

    /* A successful forced run replaces it whole. */
    out = tconv_output_open(ctx, target, &oo);
    snprintf(file, sizeof(file), "%s/c.def", tconv_output_dir(out));
    testutil_write(file, "3", 1);
    assert_int_equal(tconv_output_commit(out), 0);
    tconv_output_close(out);
    assert_int_equal(count_entries(dir), 1);
    snprintf(file, sizeof(file), "%s/c.def", target);
    assert_int_equal(access(file, F_OK), 0);
    snprintf(file, sizeof(file), "%s/a.def", target);
    assert_int_not_equal(access(file, F_OK), 0);
    tconv_ctx_free(ctx);
}

static void devices_are_written_in_place(void **state)
{
    (void)state;
    tconv_ctx *ctx = tconv_ctx_new();
    tconv_output_opts oo = {TCONV_OUT_STREAM, 0, 0};
    tconv_output *out = tconv_output_open(ctx, "/dev/null", &oo);
    assert_non_null(out);
    assert_int_equal(tconv_output_write(out, "x", 1), 0);
    assert_int_equal(tconv_output_commit(out), 0);
    tconv_output_close(out);
    struct stat st;
    assert_int_equal(stat("/dev/null", &st), 0);
    assert_true(S_ISCHR(st.st_mode));
    tconv_ctx_free(ctx);
}

static void symlink_target_replaced_keeping_mode(void **state)
{
    (void)state;
    const char *dir = testutil_tmpdir("output-link");
    char real[4200], link[4200];
    snprintf(real, sizeof(real), "%s/real.txt", dir);
    snprintf(link, sizeof(link), "%s/link.txt", dir);
    testutil_write(real, "old\n", 4);
    assert_int_equal(chmod(real, 0640), 0);
    assert_int_equal(symlink("real.txt", link), 0);
    tconv_ctx *ctx = tconv_ctx_new();
    tconv_output_opts oo = {TCONV_OUT_STREAM, 0, 0};
    tconv_output *out = tconv_output_open(ctx, link, &oo);
    assert_non_null(out);
    assert_string_equal(tconv_output_name(out), link);
    tconv_output_write(out, "new\n", 4);
    assert_int_equal(tconv_output_commit(out), 0);
    tconv_output_close(out);
    struct stat st;
    assert_int_equal(lstat(link, &st), 0);
    assert_true(S_ISLNK(st.st_mode));
    assert_int_equal(stat(real, &st), 0);
    assert_int_equal(st.st_mode & 07777, 0640);
    char *s = testutil_slurp(real, NULL);
    assert_string_equal(s, "new\n");
    free(s);
    tconv_ctx_free(ctx);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(file_replaced_only_on_commit),
        cmocka_unit_test(directory_output),
        cmocka_unit_test(devices_are_written_in_place),
        cmocka_unit_test(symlink_target_replaced_keeping_mode),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
