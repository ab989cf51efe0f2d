/* UTF-8 repair for strings taken from the input. */
#ifndef CHROME_UTF8_H
#define CHROME_UTF8_H

#include <stddef.h>

/* Length of the longest prefix of s[0..n) that is valid UTF-8. */
size_t chrome_utf8_valid_prefix(const unsigned char *s, size_t n);

/* Copy s[0..n) to dst, replacing each invalid sequence with U+FFFD, as a browser decoding the
 * file would. dst must hold 3 * n bytes. Returns the bytes written. */
size_t chrome_utf8_repair(char *dst, const unsigned char *s, size_t n);

#endif
