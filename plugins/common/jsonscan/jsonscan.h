/* What the readers' fast paths for JSON records (the chrome reader's flat events, the rocprof
 * reader's rocprofv3 records) take straight from the input bytes, where the core's lexer would
 * take a token at a time: each takes only what the lexer would read the same way and say nothing
 * about, and leaves the rest to it. Inline, for the loops that call it once a value. */
#ifndef TCONV_COMMON_JSONSCAN_H
#define TCONV_COMMON_JSONSCAN_H

#include <stddef.h>

#ifdef __SSE2__
#include <emmintrin.h>
#endif

/* The first byte of p[0 .. end) that is not a blank. '\v' and '\f', blanks to the lexer too (as
 * to yajl), are left to it: a fast path that stops there hands the record over. */
static inline const unsigned char *jsonscan_blanks(const unsigned char *p, const unsigned char *end)
{
    while (p < end && (*p == ' ' || *p == '\n' || *p == '\r' || *p == '\t'))
        p++;
    return p;
}

/* The closing quote of the string whose text starts at p, or NULL when the text holds an escape,
 * a control character or a byte that is not ASCII (the lexer checks those), or does not end
 * before end. */
static inline const unsigned char *jsonscan_plain_string(const unsigned char *p,
                                                         const unsigned char *end)
{
#ifdef __SSE2__
    const __m128i quote = _mm_set1_epi8('"'), bslash = _mm_set1_epi8('\\');
    const __m128i ctl = _mm_set1_epi8(0x1f);
    while (end - p >= 16) {
        __m128i v = _mm_loadu_si128((const __m128i *)(const void *)p);
        __m128i hit =
            _mm_or_si128(_mm_or_si128(_mm_cmpeq_epi8(v, quote), _mm_cmpeq_epi8(v, bslash)),
                         _mm_cmpeq_epi8(_mm_min_epu8(v, ctl), v));
        /* The high bit of a byte above 0x7f is its own mark. */
        unsigned m = (unsigned)_mm_movemask_epi8(hit) | (unsigned)_mm_movemask_epi8(v);
        if (m) {
            p += __builtin_ctz(m);
            return *p == '"' ? p : NULL;
        }
        p += 16;
    }
#endif
    for (; p < end; p++) {
        unsigned char c = *p;
        if (c == '"') return p;
        if (c == '\\' || c < 0x20 || c > 0x7f) return NULL;
    }
    return NULL;
}

#endif
