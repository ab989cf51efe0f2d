#include "tfmem_probe.h"

#include <string.h>

static int tfmem_probe_has(const unsigned char *buf, size_t len, const char *needle)
{
    size_t n = strlen(needle);
    for (size_t i = 0; i + n <= len; i++)
        if (buf[i] == '"' && memcmp(buf + i, needle, n) == 0) return 1;
    return 0;
}

static size_t tfmem_probe_ws(const unsigned char *buf, size_t len, size_t i)
{
    while (i < len && (buf[i] == ' ' || buf[i] == '\t' || buf[i] == '\n' || buf[i] == '\r'))
        i++;
    return i;
}

/* The protobuf JSON printer writes fields in field-number order, so a profile from TensorFlow
 * starts with memoryProfilePerAllocator (field 1). Other writers may order members freely; the
 * allocator map can then lie beyond the peek, and the snapshot list names it instead. */
int tfmem_probe(const unsigned char *buf, size_t len)
{
    static const char key[] = "\"memoryProfilePerAllocator\"";
    size_t i = 0;
    if (len >= 3 && buf[0] == 0xEF && buf[1] == 0xBB && buf[2] == 0xBF) i = 3;
    i = tfmem_probe_ws(buf, len, i);
    if (i >= len || buf[i] != '{') return 0;
    i = tfmem_probe_ws(buf, len, i + 1);
    if (len - i >= sizeof(key) - 1 && memcmp(buf + i, key, sizeof(key) - 1) == 0) return 100;
    if (tfmem_probe_has(buf + i, len - i, key)) return 95;
    if (tfmem_probe_has(buf + i, len - i, "\"memoryProfileSnapshots\"") ||
        tfmem_probe_has(buf + i, len - i, "\"sampledTimelineSnapshots\""))
        return 70;
    return 0;
}
