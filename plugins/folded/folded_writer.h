/* The folded writer: one "frame;frame;frame value" line per distinct stack, sorted bytewise. */
#ifndef FOLDED_WRITER_H
#define FOLDED_WRITER_H

#include "tconv/tconv.h"

extern const tconv_writer_class folded_writer_class;

#endif
