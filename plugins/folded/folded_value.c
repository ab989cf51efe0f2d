/* Exact decimal handling for folded counts: no floating point, so a file's totals survive a
 * round trip digit for digit. */
#include "folded_value.h"

#include <stdio.h>
#include <string.h>

int64_t folded_value_pow10(int k)
{
    int64_t p = 1;
    while (k-- > 0)
        p *= 10;
    return p;
}

int folded_value_parse(const char *s, size_t n, int64_t *mant, int *decimals)
{
    int64_t m = 0;
    int digits = 0, dec = 0, seen_dot = 0, fine = 0, big = 0;
    for (size_t i = 0; i < n; i++) {
        char c = s[i];
        if (c == '.') {
            if (seen_dot) return 0;
            seen_dot = 1;
            continue;
        }
        if (c < '0' || c > '9') return 0;
        digits++;
        if (seen_dot) {
            /* Zeros past the precision tconv keeps change nothing; any other digit would be
             * lost, and a count is exact or refused. */
            if (dec >= FOLDED_VALUE_MAX_DECIMALS) {
                fine |= c != '0';
                continue;
            }
            dec++;
        }
        if (m > (INT64_MAX - (c - '0')) / 10)
            big = 1;
        else
            m = m * 10 + (c - '0');
    }
    if (!digits) return 0;
    if (big) return FOLDED_VALUE_TOO_BIG;
    if (fine) return FOLDED_VALUE_TOO_FINE;
    *mant = m;
    *decimals = dec;
    return 1;
}

int folded_value_unit_decimals(const char *unit)
{
    if (!unit) return 0;
    const char *p = strstr(unit, "*1e-");
    if (!p || !p[4] || p[4] < '1' || p[4] > '9' || p[5]) return 0;
    return p[4] - '0';
}

const char *folded_value_unit(int decimals, char *buf)
{
    if (decimals <= 0) return "count";
    memcpy(buf, "count*1e-", 9);
    buf[9] = (char)('0' + (decimals > 9 ? 9 : decimals));
    buf[10] = 0;
    return buf;
}

size_t folded_value_format(char *out, int64_t v, int decimals)
{
    if (decimals <= 0) return (size_t)snprintf(out, 24, "%lld", (long long)v);
    if (decimals > FOLDED_VALUE_MAX_DECIMALS) decimals = FOLDED_VALUE_MAX_DECIMALS;
    int64_t p = folded_value_pow10(decimals);
    uint64_t a = v < 0 ? (uint64_t)0 - (uint64_t)v : (uint64_t)v;
    uint64_t ip = a / (uint64_t)p, fp = a % (uint64_t)p;
    int len = snprintf(out, 24, "%s%llu", v < 0 ? "-" : "", (unsigned long long)ip);
    if (fp) {
        char frac[FOLDED_VALUE_MAX_DECIMALS];
        for (int i = decimals; i > 0; i--) {
            frac[i - 1] = (char)('0' + fp % 10);
            fp /= 10;
        }
        int fl = decimals;
        while (fl && frac[fl - 1] == '0')
            fl--;
        out[len++] = '.';
        memcpy(out + len, frac, (size_t)fl);
        len += fl;
    }
    return (size_t)len;
}

int64_t folded_value_round_ns(int64_t v, int64_t div)
{
    if (div <= 1) return v;
    if (v >= 0) return v / div + (v % div >= (div + 1) / 2 ? 1 : 0);
    return -((-v) / div + ((-v) % div >= (div + 1) / 2 ? 1 : 0));
}
