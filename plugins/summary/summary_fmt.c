/* Report formats. */
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "summary_fmt.h"

const char *summary_dur(int64_t ns, char *out, size_t cap)
{
    if (ns < -INT64_MAX) ns = -INT64_MAX; /* INT64_MIN, a saturated total, has no opposite */
    int64_t a = ns < 0 ? -ns : ns;
    if (a < 1000) {
        snprintf(out, cap, "%" PRId64 " ns", ns);
    } else {
        static const struct {
            int64_t scale;
            const char *unit;
        } units[] = {{1000000000, "s"}, {1000000, "ms"}, {1000, "us"}};
        size_t u = 0;
        while (a < units[u].scale)
            u++;
        /* Fixed point from integers, so the text never depends on floating-point rounding. */
        int64_t scale = units[u].scale;
        int64_t milli = scale == 1000000000 ? a / 1000000 + (a % 1000000 >= 500000)
                                            : (a * 1000 + scale / 2) / scale;
        snprintf(out, cap, "%s%" PRId64 ".%03" PRId64 " %s", ns < 0 ? "-" : "", milli / 1000,
                 milli % 1000, units[u].unit);
    }
    return out;
}

const char *summary_pct(double part, double whole, char *out, size_t cap)
{
    if (whole <= 0)
        snprintf(out, cap, "-");
    else
        snprintf(out, cap, "%.1f%%", 100.0 * part / whole);
    return out;
}

void summary_name(csv_buf *b, const char *s, size_t n, size_t max, int keep_end)
{
    if (n <= max) {
        csv_buf_put(b, s, n);
        return;
    }
    size_t keep = max > 3 ? max - 3 : 0;
    if (keep_end) {
        size_t from = n - keep;
        /* Do not start inside a UTF-8 sequence. */
        while (from < n && ((unsigned char)s[from] & 0xC0) == 0x80)
            from++;
        csv_buf_cstr(b, "...");
        csv_buf_put(b, s + from, n - from);
    } else {
        while (keep > 0 && ((unsigned char)s[keep] & 0xC0) == 0x80)
            keep--;
        csv_buf_put(b, s, keep);
        csv_buf_cstr(b, "...");
    }
}
