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

/* One decimal; a share that is not 0 but would show as 0.0% keeps its first digit (a GPU busy
 * 0.04% of a long capture ran kernels: "0.0%" says it did not). The HTML report's pct() says
 * the same. */
const char *summary_pct(double part, double whole, char *out, size_t cap)
{
    double p = whole > 0 ? 100.0 * part / whole : 0.0;
    if (whole <= 0)
        snprintf(out, cap, "-");
    else if (p > 0 && p < 0.001)
        snprintf(out, cap, "<0.001%%");
    else if (p > 0 && p < 0.05)
        snprintf(out, cap, "%.1g%%", p);
    else
        snprintf(out, cap, "%.1f%%", p);
    return out;
}

/* Names come from the input and the report goes to a terminal: control bytes (C0, DEL and
 * UTF-8 encoded C1) are shown as \xHH, never sent raw. */
static void summary_put_safe(csv_buf *b, const char *s, size_t n)
{
    const unsigned char *u = (const unsigned char *)s;
    size_t run = 0;
    for (size_t i = 0; i < n; i++) {
        int c1 = u[i] == 0xC2 && i + 1 < n && u[i + 1] >= 0x80 && u[i + 1] <= 0x9F;
        if (u[i] >= 0x20 && u[i] != 0x7f && !c1) continue;
        csv_buf_put(b, s + run, i - run);
        if (c1) i++;
        csv_buf_printf(b, "\\x%02x", u[i]);
        run = i + 1;
    }
    csv_buf_put(b, s + run, n - run);
}

void summary_name(csv_buf *b, const char *s, size_t n, size_t max, int keep_end)
{
    if (n <= max) {
        summary_put_safe(b, s, n);
        return;
    }
    size_t keep = max > 3 ? max - 3 : 0;
    if (keep_end) {
        size_t from = n - keep;
        /* Do not start inside a UTF-8 sequence. */
        while (from < n && ((unsigned char)s[from] & 0xC0) == 0x80)
            from++;
        csv_buf_cstr(b, "...");
        summary_put_safe(b, s + from, n - from);
    } else {
        while (keep > 0 && ((unsigned char)s[keep] & 0xC0) == 0x80)
            keep--;
        summary_put_safe(b, s, keep);
        csv_buf_cstr(b, "...");
    }
}
