/* UTF-8 well-formedness and repair, one way for the whole project: the JSON lexer, readers that
 * take text from their input and writers that must emit valid text. Well-formed is RFC 3629 /
 * Unicode section 3.9: no overlong forms, no surrogates, nothing above U+10FFFF. Added in
 * ABI 1.1. */
#ifndef TCONV_UTF8_H
#define TCONV_UTF8_H

#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

/* U+FFFD, which stands for bytes that are not UTF-8. */
#define TCONV_UTF8_REPLACEMENT "\xEF\xBF\xBD"

/* Length (1 to 4) of the well-formed sequence starting at s[0] of s[0 .. n), 0 when it is not
 * one (also when n cuts it short). n must be at least 1. */
size_t tconv_utf8_seq(const unsigned char *s, size_t n);

/* Length of the longest prefix of s[0 .. n) that is well-formed. */
size_t tconv_utf8_valid_prefix(const unsigned char *s, size_t n);

/* Copy s[0 .. n) to dst, replacing each invalid sequence (a bad lead byte with the continuation
 * bytes after it) by U+FFFD, as a browser decoding the bytes shows them. dst must hold 3 * n
 * bytes. Returns the bytes written. */
size_t tconv_utf8_repair(char *dst, const unsigned char *s, size_t n);

#ifdef __cplusplus
}
#endif

#endif
