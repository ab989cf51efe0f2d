/* Is this an Nsight Systems export? The SQLite header, and then the tables' names where the
 * peeked pages hold them. */
#ifndef NSYS_PROBE_H
#define NSYS_PROBE_H

#include <stddef.h>

int nsys_probe(const unsigned char *buf, size_t len);

#endif
