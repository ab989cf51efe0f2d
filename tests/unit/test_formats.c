/* Formats known without a reader (core/plugin/formats.c): each recognised from real first bytes,
 * text and other formats not mistaken for them, and no read past the head whatever the bytes. */
#include "testutil.h"

static const char *name_of(const void *head, size_t n)
{
    /* a copy of exactly n bytes, so that ASan sees a read past the head */
    unsigned char *copy = malloc(n ? n : 1);
    memcpy(copy, head, n);
    const tconv_known_format *k = tconv_format_known(copy, n);
    free(copy);
    return k ? k->name : "";
}

static void known_heads(void **state)
{
    (void)state;
    /* the first bytes of a pprof profile as go and tconv write it: sample types first */
    static const unsigned char pprof[] = {0x0a, 0x04, 0x08, 0x01, 0x10, 0x02, 0x0a, 0x04,
                                          0x08, 0x03, 0x10, 0x04, 0x12, 0x0f, 0x0a, 0x04};
    assert_string_equal(name_of(pprof, sizeof(pprof)), "pprof");
    /* an older layout, time_nanos before the sample types */
    static const unsigned char pprof_time[] = {0x48, 0xd6, 0xdd, 0xe5, 0x92, 0x85, 0x8c, 0xbf,
                                               0xaa, 0x15, 0x0a, 0x04, 0x08, 0x01, 0x10, 0x02};
    assert_string_equal(name_of(pprof_time, sizeof(pprof_time)), "pprof");
    /* Perfetto: a packet holding a clock snapshot (6), one holding a track event (11) */
    static const unsigned char perfetto[] = {0x0a, 0x08, 0x32, 0x06, 0x0a, 0x04, 0x08, 0x06, 0x10,
                                             0x01, 0x0a, 0x05, 0x5a, 0x03, 0x48, 0x01, 0x00};
    assert_string_equal(name_of(perfetto, sizeof(perfetto)), "perfetto");
    static const char sqlite[] = "SQLite format 3\0....CREATE TABLE TARGET_INFO_GPU";
    assert_string_equal(name_of(sqlite, sizeof(sqlite)), "nsys");
    static const char rocpd[] = "SQLite format 3\0....CREATE TABLE \"rocpd_op\"";
    assert_string_equal(name_of(rocpd, sizeof(rocpd)), "rocpd");
    assert_string_equal(name_of("SQLite format 3\0", 16), "sqlite");
    const char *speedscope =
        "{\"$schema\":\"https://www.speedscope.app/file-format-schema.json\",\"shared\":{}}";
    assert_string_equal(name_of(speedscope, strlen(speedscope)), "speedscope");
    const char *gecko = "{\n  \"meta\": {\n    \"startTime\": 1460221352723.438, \"interval\": 1";
    assert_string_equal(name_of(gecko, strlen(gecko)), "firefox");
    const char *rocprofv3 = "{\"rocprofiler-sdk-tool\":[{\"metadata\":{}}]}";
    assert_string_equal(name_of(rocprofv3, strlen(rocprofv3)), "rocprofv3");
    assert_string_equal(name_of("PK\3\4\24\0", 6), "zip");
    assert_string_equal(name_of("\xfd"
                                "7zXZ\0\0\4",
                                8),
                        "xz");
    assert_string_equal(name_of("BZh91AY&SY", 10), "bzip2");
    assert_string_equal(name_of("\x28\xb5\x2f\xfd\x24\x00", 6), "zstd");
}

static void not_mistaken(void **state)
{
    (void)state;
    static const char *const others[] = {
        "",
        "\n\nhello world, a text file that starts with blank lines\n",
        "\nabcdefghijklmnopqrstuvwxyz\n",
        "{\"traceEvents\":[{\"ph\":\"X\",\"name\":\"a\",\"ts\":1,\"dur\":2}]}",
        "[{\"ph\":\"X\",\"name\":\"a\",\"ts\":1,\"dur\":2,\"pid\":1,\"tid\":1}]",
        "{\"meta\": 1}",
        "main;foo;bar 12\nmain;foo 3\n",
        "java 12688/12764 [002] 6544038.708352:   10309278 cpu-clock:\n",
        "PERFILE2",
        "BZh0",
    };
    for (size_t i = 0; i < sizeof(others) / sizeof(others[0]); i++)
        assert_string_equal(name_of(others[i], strlen(others[i])), "");
}

static void any_bytes(void **state)
{
    (void)state;
    /* Prefixes of every head, and noise: whatever the answer, no read past the bytes given. */
    unsigned char buf[512];
    uint64_t x = 0x9e3779b97f4a7c15ull;
    for (int round = 0; round < 4000; round++) {
        size_t n = (size_t)(x % sizeof(buf));
        for (size_t i = 0; i < n; i++) {
            x ^= x << 13, x ^= x >> 7, x ^= x << 17;
            /* mostly protobuf-looking bytes: small tags and lengths */
            buf[i] = (unsigned char)(round & 1 ? x : (x % 4 == 0 ? 0x0a : x % 0x80));
        }
        x ^= x << 13, x ^= x >> 7, x ^= x << 17;
        (void)name_of(buf, n);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(known_heads),
        cmocka_unit_test(not_mistaken),
        cmocka_unit_test(any_bytes),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
