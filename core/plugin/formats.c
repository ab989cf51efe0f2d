/* Formats tconv knows by their first bytes but may have no reader for: a pprof profile, a
 * Perfetto trace, an Nsight Systems or rocprof database, a speedscope or Firefox profile, an
 * archive or a compression tconv does not undo. When no loaded reader claims an input, "cannot
 * tell the format; name it with -r" sends the user after a reader that does not exist; this
 * table says what the input is and what to do instead.
 *
 * The table never picks a reader: it speaks only where no reader's probe scores the input at
 * least as high as the table does (tconv_format_known's score). The scores are low on purpose,
 * under what a reader gives its own format, so that a reader of one of these formats, once
 * loaded, wins without a change here; and above the few points a reader gives any input of its
 * syntax (the chrome reader's 5 for a JSON object it finds no trace in), so that a speedscope
 * file is not read as an empty Chrome trace. */
#include <string.h>

#include "plugin.h"

/* Within n bytes of s? */
static int formats_has(const unsigned char *s, size_t n, const char *needle)
{
    size_t k = strlen(needle);
    for (size_t i = 0; k <= n && i <= n - k; i++)
        if (s[i] == (unsigned char)needle[0] && memcmp(s + i, needle, k) == 0) return 1;
    return 0;
}

static int formats_starts(const unsigned char *s, size_t n, const char *magic, size_t k)
{
    return n >= k && memcmp(s, magic, k) == 0;
}

/* A protobuf varint at *p (before end); -1 when it runs past end or past 10 bytes. */
static int formats_varint(const unsigned char **p, const unsigned char *end, uint64_t *v)
{
    *v = 0;
    for (int shift = 0; shift < 70 && *p < end; shift += 7) {
        unsigned char b = *(*p)++;
        *v |= (uint64_t)(b & 0x7f) << shift;
        if (!(b & 0x80)) return 0;
    }
    return -1;
}

/* A ValueType message (type = 1, unit = 2, both varints) filling [p, end) exactly. */
static int formats_value_type(const unsigned char *p, const unsigned char *end)
{
    uint64_t v;
    while (p < end) {
        unsigned char tag = *p++;
        if ((tag != 0x08 && tag != 0x10) || formats_varint(&p, end, &v) < 0) return 0;
    }
    return 1;
}

/* pprof's Profile (gzip already undone by the input layer): the top-level fields the head holds
 * have Profile's numbers and wire types, each sample_type (field 1) is a whole ValueType, and
 * some field other than sample_type comes, which a Perfetto trace (field 1 only) never has. */
static int formats_pprof(const unsigned char *s, size_t n)
{
    const unsigned char *p = s, *end = s + n;
    int fields = 0, other = 0;
    while (p < end) {
        uint64_t tag, len;
        if (formats_varint(&p, end, &tag) < 0) break;
        uint64_t f = tag >> 3, wt = tag & 7;
        int length = f <= 6 || f == 11 || (f == 13 && wt == 2);
        int varint = (f >= 7 && f <= 10) || f == 12 || f == 14 || (f == 13 && wt == 0);
        if (f == 0 || (length && wt != 2) || (varint && wt != 0) || (!length && !varint)) return 0;
        if (varint) {
            if (formats_varint(&p, end, &len) < 0) break;
        } else {
            if (formats_varint(&p, end, &len) < 0) break;
            if (len > (uint64_t)(end - p)) { /* runs past the head: judged by what came */
                fields++;
                other |= f != 1;
                break;
            }
            if (f == 1 && !formats_value_type(p, p + len)) return 0;
            p += len;
        }
        fields++;
        other |= f != 1;
    }
    return fields >= 2 && other;
}

/* [p, end) as the fields of a protobuf message: valid tags and wire types, lengths that fit;
 * with cut, the head stops inside it and the last field may run past end. Text fails it within a
 * few bytes. */
static int formats_fields(const unsigned char *p, const unsigned char *end, int cut)
{
    while (p < end) {
        uint64_t tag, v;
        if (formats_varint(&p, end, &tag) < 0) return cut;
        if (tag >> 3 == 0) return 0;
        size_t left = (size_t)(end - p), skip;
        switch (tag & 7) {
        case 0:
            if (formats_varint(&p, end, &v) < 0) return cut;
            continue;
        case 1:
            skip = 8;
            break;
        case 2:
            if (formats_varint(&p, end, &v) < 0) return cut;
            left = (size_t)(end - p);
            skip = v > left ? SIZE_MAX : (size_t)v;
            break;
        case 5:
            skip = 4;
            break;
        default:
            return 0;
        }
        if (skip > left) return cut;
        p += skip;
    }
    return 1;
}

/* A Perfetto trace: TracePacket fields (1, length-delimited) and nothing else, each a whole
 * message, the first starting with a field a TracePacket has but a ValueType (pprof's first
 * field) does not; two whole packets in the head, or one that is the whole input. */
static int formats_perfetto(const unsigned char *s, size_t n)
{
    const unsigned char *p = s, *end = s + n;
    int whole = 0;
    while (p < end) {
        uint64_t len;
        if (*p++ != 0x0a || formats_varint(&p, end, &len) < 0 || len == 0) return 0;
        if (whole == 0 && p < end && (*p == 0x08 || *p == 0x10)) return 0;
        if (len > (uint64_t)(end - p)) { /* the head stops inside it */
            if (!formats_fields(p, end, 1)) return 0;
            break;
        }
        if (!formats_fields(p, p + len, 0)) return 0;
        whole++;
        p += len;
    }
    return whole >= 2 || (whole == 1 && p == end);
}

/* A JSON object whose first member is `key`, after blanks. */
static int formats_json_first(const unsigned char *s, size_t n, const char *key)
{
    size_t i = 0;
    while (i < n && (s[i] == ' ' || s[i] == '\t' || s[i] == '\n' || s[i] == '\r'))
        i++;
    if (i >= n || s[i++] != '{') return 0;
    while (i < n && (s[i] == ' ' || s[i] == '\t' || s[i] == '\n' || s[i] == '\r'))
        i++;
    return formats_starts(s + i, n - i, key, strlen(key));
}

static const tconv_known_format formats_table[] = {
    {"pprof", "a pprof profile", 50,
     "go tool pprof opens it (go tool pprof -http=: FILE); tconv writes pprof, and reads it only "
     "with a pprof reader plugin"},
    {"perfetto", "a Perfetto trace (protobuf)", 50,
     "Perfetto's traceconv turns it into Chrome JSON, which the chrome reader reads: "
     "traceconv json FILE FILE.json"},
    {"nsys", "an Nsight Systems SQLite export", 50,
     "it needs a reader for Nsight Systems exports on the plugin path"},
    {"rocpd", "a rocprof (rocpd) SQLite database", 50,
     "it needs a reader for rocprof databases on the plugin path"},
    {"sqlite", "an SQLite database", 50,
     "Nsight Systems and rocprof write SQLite; it needs a reader for its tables on the plugin "
     "path"},
    {"speedscope", "a speedscope profile (JSON)", 40,
     "speedscope opens it; it needs a speedscope reader on the plugin path"},
    {"firefox", "a Firefox Profiler (Gecko) profile (JSON)", 40,
     "profiler.firefox.com opens it; it needs a reader for it on the plugin path"},
    {"rocprofv3", "a rocprofv3 JSON output", 40,
     "it needs a reader for rocprofv3 output on the plugin path"},
    {"zip", "a zip archive", 50, "unpack it and convert the files inside"},
    {"xz", "an xz-compressed file", 50, "tconv undoes gzip only: xz -dc FILE | tconv ..."},
    {"bzip2", "a bzip2-compressed file", 50, "tconv undoes gzip only: bzip2 -dc FILE | tconv ..."},
    {"zstd", "a zstd-compressed file", 50, "tconv undoes gzip only: zstd -dc FILE | tconv ..."},
};

const tconv_known_format *tconv_format_named(const char *name)
{
    for (size_t i = 0; i < sizeof(formats_table) / sizeof(formats_table[0]); i++)
        if (strcmp(formats_table[i].name, name) == 0) return &formats_table[i];
    return NULL;
}

const tconv_known_format *tconv_format_known(const unsigned char *s, size_t n)
{
    if (formats_starts(s, n, "SQLite format 3", 16)) {
        /* The schema is on the first page, when it fits: the tables say who wrote it. */
        if (formats_has(s, n, "rocpd_")) return tconv_format_named("rocpd");
        if (formats_has(s, n, "TARGET_INFO_") || formats_has(s, n, "CUPTI_ACTIVITY_KIND_") ||
            formats_has(s, n, "ANALYSIS_DETAILS") || formats_has(s, n, "NVTX_EVENTS"))
            return tconv_format_named("nsys");
        return tconv_format_named("sqlite");
    }
    if (formats_starts(s, n, "PK\x03\x04", 4)) return tconv_format_named("zip");
    if (formats_starts(s, n,
                       "\xfd"
                       "7zXZ",
                       6))
        return tconv_format_named("xz");
    if (formats_starts(s, n, "BZh", 3) && n > 3 && s[3] >= '1' && s[3] <= '9')
        return tconv_format_named("bzip2");
    if (formats_starts(s, n, "\x28\xb5\x2f\xfd", 4)) return tconv_format_named("zstd");
    if (formats_has(s, n, "\"https://www.speedscope.app/file-format-schema.json\""))
        return tconv_format_named("speedscope");
    if (formats_json_first(s, n, "\"rocprofiler-sdk-tool\""))
        return tconv_format_named("rocprofv3");
    if (formats_json_first(s, n, "\"meta\"") &&
        (formats_has(s, n, "\"interval\"") || formats_has(s, n, "\"categories\"") ||
         formats_has(s, n, "\"startTime\"")))
        return tconv_format_named("firefox");
    if (formats_pprof(s, n)) return tconv_format_named("pprof");
    if (formats_perfetto(s, n)) return tconv_format_named("perfetto");
    return NULL;
}
