/* Text from a trace as XML: a trace is untrusted input, so every byte of a name goes through here
 * before it reaches the SVG, and what comes out is character data that cannot end an element, an
 * attribute or a CDATA section, nor make the document ill-formed. */
#ifndef FLAMEGRAPH_XML_H
#define FLAMEGRAPH_XML_H

#include <stddef.h>

/* A growing output buffer. */
typedef struct flamegraph_buf {
    char *p;
    size_t len, cap;
} flamegraph_buf;

void flamegraph_buf_put(flamegraph_buf *b, const char *s, size_t n);
void flamegraph_buf_puts(flamegraph_buf *b, const char *s);
void flamegraph_buf_printf(flamegraph_buf *b, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 2, 3)))
#endif
    ;
void flamegraph_buf_free(flamegraph_buf *b);

/* The characters of s[0..n) as the SVG shows them: invalid UTF-8 counts one per byte. */
size_t flamegraph_xml_chars(const char *s, size_t n);

/* Append at most max characters of s[0..n), escaped for text and double- or single-quoted
 * attributes: & < > " ' become references; control characters and bytes that are not UTF-8
 * become U+FFFD (tab and line breaks a space), as XML 1.0 allows neither. */
void flamegraph_xml_escape(flamegraph_buf *b, const char *s, size_t n, size_t max);

#endif
