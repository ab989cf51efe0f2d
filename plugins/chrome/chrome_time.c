#include "chrome_time.h"

#include <string.h>

static int chrome_is_blank(char c)
{
    return c == ' ' || c == '\t' || c == '\n' || c == '\r';
}

/* Plain "123" or "123.456" with at most 16 integer digits (µs since 1970 have 16), scaled by at
 * most 10^3, is nearly every time in a trace: one pass, in a uint64 that cannot overflow. 0 when
 * s is not of that form or the result does not fit (the general code below then decides), else
 * 1 with *out as the general code would set it. */
static int chrome_num_plain(const char *s, size_t n, int shift, int64_t *out)
{
    if (shift < 0 || shift > 3) return 0;
    size_t i = 0;
    uint64_t v = 0;
    while (i < n && (unsigned)(s[i] - '0') <= 9)
        v = v * 10 + (uint64_t)(s[i++] - '0');
    if (i == 0 || i > 16) return 0;
    int left = shift; /* digits still to move left of the point */
    if (i < n) {
        if (s[i++] != '.') return 0;
        size_t k = i;
        for (; i < n; i++)
            if ((unsigned)(s[i] - '0') > 9) return 0;
        for (; left && k < n; k++, left--)
            v = v * 10 + (uint64_t)(s[k] - '0');
        /* Only the first digit dropped decides the rounding. */
        if (k < n && s[k] >= '5') v++;
    }
    for (; left; left--)
        v *= 10;
    if (v > (uint64_t)INT64_MAX) return 0;
    *out = (int64_t)v;
    return 1;
}

chrome_num_status chrome_num_scaled(const char *s, size_t n, int shift, int64_t *out)
{
    if (chrome_num_plain(s, n, shift, out)) return CHROME_NUM_OK;
    size_t i = 0;
    while (n > 0 && chrome_is_blank(s[n - 1]))
        n--;
    while (i < n && chrome_is_blank(s[i]))
        i++;
    int neg = 0;
    if (i < n && (s[i] == '-' || s[i] == '+')) neg = s[i++] == '-';

    /* The significant digits, without the point: value = 0.DIGITS * 10^point_pos. */
    size_t int_begin = i;
    while (i < n && s[i] >= '0' && s[i] <= '9')
        i++;
    size_t int_end = i;
    size_t frac_begin = i, frac_end = i;
    if (i < n && s[i] == '.') {
        frac_begin = ++i;
        while (i < n && s[i] >= '0' && s[i] <= '9')
            i++;
        frac_end = i;
    }
    if (int_end == int_begin && frac_end == frac_begin) return CHROME_NUM_INVALID;
    long exp10 = 0;
    if (i < n && (s[i] == 'e' || s[i] == 'E')) {
        i++;
        int eneg = 0;
        if (i < n && (s[i] == '-' || s[i] == '+')) eneg = s[i++] == '-';
        if (i == n || s[i] < '0' || s[i] > '9') return CHROME_NUM_INVALID;
        /* Saturate: beyond a few hundred the answer is 0 or out of range anyway. */
        while (i < n && s[i] >= '0' && s[i] <= '9') {
            if (exp10 < 100000) exp10 = exp10 * 10 + (s[i] - '0');
            i++;
        }
        if (eneg) exp10 = -exp10;
    }
    if (i != n) return CHROME_NUM_INVALID;

    /* Leading zeros of the integer part carry no value; skipping them keeps point_pos honest
     * for the overflow test. */
    while (int_begin < int_end && s[int_begin] == '0')
        int_begin++;
    size_t nint = int_end - int_begin;
    size_t nfrac = frac_end - frac_begin;
    /* How many of the digits (integer digits then fraction digits) land left of the point
     * after scaling. */
    long point = (long)nint + exp10 + shift;
    size_t ndig = nint + nfrac;

    uint64_t acc = 0;
    int round_up = 0;
    int nonzero = 0;
    for (size_t k = 0; k < ndig; k++) {
        char c = k < nint ? s[int_begin + k] : s[frac_begin + (k - nint)];
        unsigned d = (unsigned)(c - '0');
        if (d) nonzero = 1;
        if ((long)k < point) {
            if (acc > (UINT64_MAX - d) / 10) return CHROME_NUM_RANGE;
            acc = acc * 10 + d;
        } else {
            if ((long)k == point) round_up = d >= 5;
            break;
        }
    }
    if (point > 0 && (size_t)point > ndig) {
        if (nonzero || acc) {
            for (long k = (long)ndig; k < point; k++) {
                if (acc > UINT64_MAX / 10) return CHROME_NUM_RANGE;
                acc *= 10;
            }
        }
    }
    if (round_up) {
        if (acc == UINT64_MAX) return CHROME_NUM_RANGE;
        acc++;
    }
    if (neg) {
        if (acc > (uint64_t)INT64_MAX + 1u) return CHROME_NUM_RANGE;
        *out = acc == (uint64_t)INT64_MAX + 1u ? INT64_MIN : -(int64_t)acc;
    } else {
        if (acc > (uint64_t)INT64_MAX) return CHROME_NUM_RANGE;
        *out = (int64_t)acc;
    }
    return CHROME_NUM_OK;
}
