/* UTF-8 checking, so that every table is valid UTF-8 whatever bytes a reader passed on. */
#ifndef CSV_UTF8_H
#define CSV_UTF8_H

#include <stddef.h>

/* Length of the well-formed UTF-8 sequence starting at s[0] (1 for ASCII), or 0 when s[0]
 * does not start one (a stray continuation byte, an overlong form, a surrogate, a truncated
 * sequence). n > 0. */
size_t csv_utf8_seq(const unsigned char *s, size_t n);

/* The replacement character U+FFFD, written in place of each byte that starts no sequence. */
#define CSV_UTF8_REPLACEMENT "\xEF\xBF\xBD"

#endif
