#include "chrome_probe.h"

#include <string.h>

static int chrome_contains(const unsigned char *buf, size_t len, const char *needle)
{
    size_t n = strlen(needle);
    if (n > len) return 0;
    for (size_t i = 0; i + n <= len; i++)
        if (buf[i] == (unsigned char)needle[0] && memcmp(buf + i, needle, n) == 0) return 1;
    return 0;
}

static size_t chrome_skip_ws(const unsigned char *buf, size_t len, size_t i)
{
    while (i < len && (buf[i] == ' ' || buf[i] == '\t' || buf[i] == '\n' || buf[i] == '\r'))
        i++;
    return i;
}

int chrome_probe(const unsigned char *buf, size_t len)
{
    size_t i = 0;
    if (len >= 3 && buf[0] == 0xEF && buf[1] == 0xBB && buf[2] == 0xBF) i = 3;
    i = chrome_skip_ws(buf, len, i);
    if (i >= len) return 0;
    /* Only the member names of trace events count as evidence: many JSON formats are arrays
     * of objects. */
    int has_ph = chrome_contains(buf + i, len - i, "\"ph\"");
    if (buf[i] == '[') {
        i = chrome_skip_ws(buf, len, i + 1);
        if (i >= len) return 30; /* "[" alone: a trace stopped before its first event */
        /* "[]": a trace without events, valid and empty */
        if (buf[i] == ']' && chrome_skip_ws(buf, len, i + 1) >= len) return 30;
        if (buf[i] != '{') return 0;
        return has_ph ? 95 : 30;
    }
    if (buf[i] != '{') return 0;
    if (chrome_contains(buf + i, len - i, "\"traceEvents\"")) return 100;
    /* Kineto writes its device tables before the events, which may not fit in the peek. */
    if (chrome_contains(buf + i, len - i, "\"schemaVersion\"") &&
        (chrome_contains(buf + i, len - i, "\"deviceProperties\"") ||
         chrome_contains(buf + i, len - i, "\"distributedInfo\"") ||
         chrome_contains(buf + i, len - i, "\"computeProperties\"")))
        return 90;
    if (has_ph && (chrome_contains(buf + i, len - i, "\"ts\"") ||
                   chrome_contains(buf + i, len - i, "\"pid\"")))
        return 60;
    return 5;
}
