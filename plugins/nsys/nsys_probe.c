/* The probe of nsys exports.
 *
 * Every SQLite file starts with the same 100-byte header, and page 1 of an export with many
 * tables is an interior page of the schema's b-tree: the table names are on later pages, which
 * a peek of the first 4 KiB may not reach (the input layer usually gives more). So: names that
 * only nsys writes (its column comment "Serialized GlobalId", its table names) make it certain;
 * rocpd's table names make it someone else's; neither leaves a middle score, where the file
 * name's extension (.sqlite for nsys, .rpd/.db for rocprof) breaks the tie with the rocprof
 * reader, and the reader itself names what it found when it was the wrong one. */
#include "nsys_probe.h"

#include "sqlin.h"

int nsys_probe(const unsigned char *buf, size_t len)
{
    static const char *const marks[] = {
        "Serialized GlobalId",    "CUPTI_ACTIVITY_KIND_", "TARGET_INFO_", "NVTX_EVENTS",
        "CREATE TABLE StringIds", "COMPOSITE_EVENTS",     "ThreadNames",  "OSRT_API"};
    if (!sqlin_is_sqlite(buf, len)) return 0;
    int nsys = 0;
    for (size_t i = 0; i < sizeof(marks) / sizeof(marks[0]) && !nsys; i++)
        nsys = sqlin_contains(buf, len, marks[i]);
    int rocpd = sqlin_contains(buf, len, "rocpd_");
    if (nsys && !rocpd) return 100;
    if (rocpd && !nsys) return 0;
    return 40;
}
