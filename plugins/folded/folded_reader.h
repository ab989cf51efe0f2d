/* The folded reader: "frame;frame;frame COUNT" lines, or the extended per-sample form
 * "TIMESTAMP_NS COMM PID TID CPU frame;frame;frame" that keeps time and thread. */
#ifndef FOLDED_READER_H
#define FOLDED_READER_H

#include "tconv/tconv.h"

extern const tconv_reader_class folded_reader_class;

#endif
