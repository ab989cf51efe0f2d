/* Recognising a Chrome trace from its first (decompressed) bytes. */
#ifndef CHROME_PROBE_H
#define CHROME_PROBE_H

#include <stddef.h>

int chrome_probe(const unsigned char *buf, size_t len);

#endif
