/* The probe of the ROCm profiler formats.
 *
 * rocprofv3 JSON: an object whose first member is "rocprofiler-sdk-tool", certain. rocprof v1
 * and Kineto write Chrome trace JSON ({"traceEvents": ...}), which is the chrome reader's and
 * scores 0 here. rpd: the SQLite header, then the same reasoning as the nsys probe (see
 * nsys_probe.c): rocpd's table names make it certain, nsys's make it someone else's, neither
 * leaves a middle score for the file name's extension to settle. */
#include "rocprof_probe.h"

#include <string.h>

#include "../nsys/sqlin.h"

static size_t rocprof_blanks(const unsigned char *buf, size_t len, size_t i)
{
    while (i < len && (buf[i] == ' ' || buf[i] == '\t' || buf[i] == '\n' || buf[i] == '\r'))
        i++;
    return i;
}

int rocprof_probe(const unsigned char *buf, size_t len)
{
    if (sqlin_is_sqlite(buf, len)) {
        int rocpd = sqlin_contains(buf, len, "rocpd_");
        int nsys = sqlin_contains(buf, len, "Serialized GlobalId") ||
                   sqlin_contains(buf, len, "CUPTI_ACTIVITY_KIND_") ||
                   sqlin_contains(buf, len, "CREATE TABLE StringIds");
        if (rocpd && !nsys) return 100;
        if (nsys && !rocpd) return 0;
        return 40;
    }
    size_t i = 0;
    if (len >= 3 && buf[0] == 0xEF && buf[1] == 0xBB && buf[2] == 0xBF) i = 3;
    i = rocprof_blanks(buf, len, i);
    if (i >= len || buf[i] != '{') return 0;
    i = rocprof_blanks(buf, len, i + 1);
    static const char key[] = "\"rocprofiler-sdk-tool\"";
    size_t n = sizeof(key) - 1;
    return len - i >= n && memcmp(buf + i, key, n) == 0 ? 100 : 0;
}
