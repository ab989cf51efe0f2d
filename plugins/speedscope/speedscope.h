/* The speedscope plugin: its reader and writer classes, and what they share. */
#ifndef SPEEDSCOPE_H
#define SPEEDSCOPE_H

#include <stddef.h>
#include <stdint.h>

#include <jansson.h>
#include <tconv/tconv.h>

extern const tconv_reader_class speedscope_reader_class;
extern const tconv_writer_class speedscope_writer_class;

int speedscope_probe(const unsigned char *buf, size_t len);

/* A unit of the file format: how many nanoseconds (or bytes, or counts) one unit is, and the
 * class of value it measures. */
typedef enum { SPEEDSCOPE_TIME, SPEEDSCOPE_BYTES, SPEEDSCOPE_NONE } speedscope_class;
int speedscope_unit(const char *unit, speedscope_class *cls, double *scale);

#endif
