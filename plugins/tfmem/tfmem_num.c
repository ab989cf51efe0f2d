#include "tfmem_num.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Only what the proto3 JSON printer writes: an optional minus and decimal digits. strtoll
 * alone would also take spaces, a plus sign and trailing garbage. */
static int tfmem_num_is_decimal(const char *s, int allow_minus)
{
    if (allow_minus && *s == '-') s++;
    if (!*s) return 0;
    for (; *s; s++)
        if (*s < '0' || *s > '9') return 0;
    return 1;
}

tfmem_num_status tfmem_num_int64(const json_t *v, int64_t *out)
{
    if (!v || json_is_null(v)) return TFMEM_NUM_ABSENT;
    if (json_is_integer(v)) {
        *out = (int64_t)json_integer_value(v);
        return TFMEM_NUM_OK;
    }
    if (json_is_real(v)) {
        double d = json_real_value(v);
        /* 2^63 is exact in a double; anything at or beyond it does not fit. */
        if (d != floor(d) || d < -9223372036854775808.0 || d >= 9223372036854775808.0)
            return TFMEM_NUM_BAD;
        *out = (int64_t)d;
        return TFMEM_NUM_OK;
    }
    if (!json_is_string(v)) return TFMEM_NUM_BAD;
    const char *s = json_string_value(v);
    if (!tfmem_num_is_decimal(s, 1)) return TFMEM_NUM_BAD;
    errno = 0;
    long long x = strtoll(s, NULL, 10);
    if (errno) return TFMEM_NUM_BAD;
    *out = (int64_t)x;
    return TFMEM_NUM_OK;
}

tfmem_num_status tfmem_num_uint64(const json_t *v, uint64_t *out)
{
    if (!v || json_is_null(v)) return TFMEM_NUM_ABSENT;
    if (json_is_integer(v)) {
        if (json_integer_value(v) < 0) return TFMEM_NUM_BAD;
        *out = (uint64_t)json_integer_value(v);
        return TFMEM_NUM_OK;
    }
    if (json_is_real(v)) {
        double d = json_real_value(v);
        if (d != floor(d) || d < 0 || d >= 18446744073709551616.0) return TFMEM_NUM_BAD;
        *out = (uint64_t)d;
        return TFMEM_NUM_OK;
    }
    if (!json_is_string(v)) return TFMEM_NUM_BAD;
    const char *s = json_string_value(v);
    if (!tfmem_num_is_decimal(s, 0)) return TFMEM_NUM_BAD;
    errno = 0;
    unsigned long long x = strtoull(s, NULL, 10);
    if (errno) return TFMEM_NUM_BAD;
    *out = (uint64_t)x;
    return TFMEM_NUM_OK;
}

tfmem_num_status tfmem_num_double(const json_t *v, double *out)
{
    if (!v || json_is_null(v)) return TFMEM_NUM_ABSENT;
    if (json_is_number(v)) {
        *out = json_number_value(v);
        return TFMEM_NUM_OK;
    }
    if (!json_is_string(v)) return TFMEM_NUM_BAD;
    const char *s = json_string_value(v);
    if (strcmp(s, "NaN") == 0) {
        *out = NAN;
        return TFMEM_NUM_OK;
    }
    if (strcmp(s, "Infinity") == 0 || strcmp(s, "-Infinity") == 0) {
        *out = *s == '-' ? -INFINITY : INFINITY;
        return TFMEM_NUM_OK;
    }
    /* A quoted JSON number; strtod would also read "inf", hex floats and leading spaces. */
    if (!*s || strspn(s, "0123456789+-.eE") != strlen(s)) return TFMEM_NUM_BAD;
    char *end;
    errno = 0;
    double d = strtod(s, &end);
    if (*end || errno == ERANGE) return TFMEM_NUM_BAD;
    *out = d;
    return TFMEM_NUM_OK;
}

const char *tfmem_num_show(const json_t *v, char *buf, size_t cap)
{
    if (!cap) return buf;
    buf[0] = 0;
    if (!v) {
        snprintf(buf, cap, "nothing");
        return buf;
    }
    if (json_is_object(v) || json_is_array(v)) {
        snprintf(buf, cap, "%s", json_is_object(v) ? "an object" : "an array");
        return buf;
    }
    char *text = json_dumps(v, JSON_ENCODE_ANY | JSON_COMPACT);
    if (!text) return buf;
    size_t n = strlen(text);
    if (n >= cap && cap > 4) {
        memcpy(buf, text, cap - 4);
        memcpy(buf + cap - 4, "...", 4);
    } else {
        snprintf(buf, cap, "%s", text);
    }
    free(text);
    return buf;
}

const char *tfmem_num_kind(const json_t *v)
{
    switch (v ? json_typeof(v) : JSON_NULL) {
    case JSON_OBJECT:
        return "an object";
    case JSON_ARRAY:
        return "an array";
    case JSON_STRING:
        return "a string";
    case JSON_INTEGER:
    case JSON_REAL:
        return "a number";
    case JSON_TRUE:
    case JSON_FALSE:
        return "a boolean";
    default:
        return "null";
    }
}

int64_t tfmem_ps_to_ns(int64_t ps, int64_t offset_ns)
{
    int64_t ns = ps / 1000;
    if (ps % 1000 < 0) ns--;
    /* |ns| < 2^54 and the reader refuses offsets beyond 2^62, so the sum cannot overflow; it is
     * kept within 2^62 ns like every reader's times, so that differences fit in int64 too. */
    const int64_t limit = ((int64_t)1 << 62) - 1;
    ns += offset_ns;
    return ns > limit ? limit : ns < -limit ? -limit : ns;
}
