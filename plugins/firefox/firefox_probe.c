/* Is it a Firefox profile? A JSON object with a "meta" member that says which format it is
 * (preprocessedProfileVersion: processed; version with Gecko's members: Gecko), or a DevTools
 * recording that wraps one. The libraries' breakpadId is Firefox's alone. Every score is 0 for
 * a Chrome trace ("traceEvents", "ph"), which the Chrome reader takes. */
#include <string.h>

#include "firefox_reader.h"
#include "jsondoc.h"

int firefox_probe(const unsigned char *buf, size_t len)
{
    size_t i = 0;
    if (len >= 3 && memcmp(buf, "\xef\xbb\xbf", 3) == 0) i = 3;
    while (i < len && (buf[i] == ' ' || buf[i] == '\t' || buf[i] == '\n' || buf[i] == '\r'))
        i++;
    if (i >= len || buf[i] != '{') return 0;
    buf += i;
    len -= i;
    if (jsondoc_has(buf, len, "\"traceEvents\"") || jsondoc_has(buf, len, "\"ph\"")) return 0;
    int meta = jsondoc_has(buf, len, "\"meta\"");
    if (meta && jsondoc_has(buf, len, "\"preprocessedProfileVersion\"")) return 100;
    int breakpad = jsondoc_has(buf, len, "\"breakpadId\"");
    int gecko = jsondoc_has(buf, len, "\"stackwalk\"") || jsondoc_has(buf, len, "\"interval\"") ||
                jsondoc_has(buf, len, "\"threads\"");
    if (meta && (breakpad || gecko) && jsondoc_has(buf, len, "\"version\"")) return 90;
    /* DevTools' wrapper: {"label": .., "duration": .., ..., "profile": {"libs": [...]}} */
    if (jsondoc_has(buf, len, "\"profile\"") && breakpad) return 80;
    return 0;
}
