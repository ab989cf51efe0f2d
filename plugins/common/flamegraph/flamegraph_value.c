/* Formatting uses integer arithmetic where the result is text a test compares (counts), and one
 * printf of a double where it is a rounded display (times, percentages): both are the same bytes
 * for the same value on every run. */
#include "flamegraph_value.h"

#include <inttypes.h>
#include <stdio.h>
#include <string.h>

flamegraph_unit flamegraph_value_unit(const char *type, const char *unit)
{
    flamegraph_unit u = {0, 0, "samples"};
    if (unit && strcmp(unit, "nanoseconds") == 0) {
        u.time = 1;
        return u;
    }
    if (unit && strncmp(unit, "count*1e-", 9) == 0) {
        int d = 0;
        for (const char *p = unit + 9; *p >= '0' && *p <= '9' && d < 100; p++)
            d = d * 10 + (*p - '0');
        u.decimals = d <= 18 ? d : 0;
    }
    if (unit && *unit && strcmp(unit, "count") != 0 && strncmp(unit, "count*", 6) != 0)
        u.name = unit; /* "bytes" */
    else if (type && *type)
        u.name = type; /* "samples", "cycles" */
    return u;
}

/* v >= 0 in decimal with a ',' every three digits of the integer part. */
static size_t flamegraph_value_grouped(char *out, uint64_t v)
{
    char digits[24];
    int n = snprintf(digits, sizeof(digits), "%" PRIu64, v);
    size_t o = 0;
    for (int i = 0; i < n; i++) {
        if (i && (n - i) % 3 == 0) out[o++] = ',';
        out[o++] = digits[i];
    }
    out[o] = 0;
    return o;
}

size_t flamegraph_value_format(char *out, int64_t v, const flamegraph_unit *u)
{
    if (v < 0) v = 0;
    if (u->time) {
        if (v < 1000) return (size_t)snprintf(out, 64, "%" PRId64 " ns", v);
        if (v < 1000000) return (size_t)snprintf(out, 64, "%.2f \xC2\xB5s", (double)v / 1e3);
        if (v < 1000000000) return (size_t)snprintf(out, 64, "%.2f ms", (double)v / 1e6);
        return (size_t)snprintf(out, 64, "%.3f s", (double)v / 1e9);
    }
    uint64_t scale = 1;
    for (int i = 0; i < u->decimals; i++)
        scale *= 10;
    size_t o = flamegraph_value_grouped(out, (uint64_t)v / scale);
    uint64_t frac = (uint64_t)v % scale;
    if (frac) {
        int d = u->decimals;
        while (frac % 10 == 0) {
            frac /= 10;
            d--;
        }
        o += (size_t)snprintf(out + o, 24, ".%0*" PRIu64, d, frac);
    }
    /* the name is a sample type's: short, and it was made safe by the caller */
    return o + (size_t)snprintf(out + o, 64 - o, " %.30s", u->name);
}

size_t flamegraph_value_percent(char *out, int64_t v, int64_t total)
{
    double p = total > 0 ? 100.0 * (double)v / (double)total : 0;
    return (size_t)snprintf(out, 16, "%.2f%%", p);
}
