/* Recognising a TensorFlow memory profile from its first bytes. */
#ifndef TFMEM_PROBE_H
#define TFMEM_PROBE_H

#include <stddef.h>

int tfmem_probe(const unsigned char *buf, size_t len);

#endif
