/* Is it a speedscope file? A JSON object whose $schema names speedscope's file format; older
 * writers and hand-made files may leave $schema out, and are known by their members. Every
 * score stays below the Chrome reader's for a trace (no "traceEvents", no "ph" here), and a
 * Chrome trace scores 0 here: a trace converted by speedscope is no longer one. */
#include <string.h>

#include "jsondoc.h"
#include "speedscope.h"

int speedscope_probe(const unsigned char *buf, size_t len)
{
    size_t i = 0;
    if (len >= 3 && memcmp(buf, "\xef\xbb\xbf", 3) == 0) i = 3;
    while (i < len && (buf[i] == ' ' || buf[i] == '\t' || buf[i] == '\n' || buf[i] == '\r'))
        i++;
    if (i >= len || buf[i] != '{') return 0;
    buf += i;
    len -= i;
    if (jsondoc_has(buf, len, "\"traceEvents\"") || jsondoc_has(buf, len, "\"ph\"")) return 0;
    if (jsondoc_has(buf, len, "speedscope.app/file-format-schema.json")) return 100;
    int profiles = jsondoc_has(buf, len, "\"profiles\"");
    int typed = jsondoc_has(buf, len, "\"sampled\"") || jsondoc_has(buf, len, "\"evented\"");
    if (profiles && typed &&
        (jsondoc_has(buf, len, "\"shared\"") || jsondoc_has(buf, len, "\"weights\"") ||
         jsondoc_has(buf, len, "\"startValue\"")))
        return 80;
    return 0;
}
