/* Values as the graph's titles show them: times scaled to a readable unit, counts with thousands
 * separators and the sample type's name. The exact integer goes into the SVG beside them. */
#ifndef FLAMEGRAPH_VALUE_H
#define FLAMEGRAPH_VALUE_H

#include <stddef.h>
#include <stdint.h>

typedef struct flamegraph_unit {
    int time;         /* values are nanoseconds */
    int decimals;     /* fixed-point counts "count*1e-N" (the folded reader's decimals) */
    const char *name; /* what a count counts: "samples", "cycles", "bytes" */
} flamegraph_unit;

/* The unit of sample type (type, unit) as tconv_sample_type names them. */
flamegraph_unit flamegraph_value_unit(const char *type, const char *unit);

/* "1.25 ms", "1,234 samples", "12.5 samples"; out holds 64 bytes. Returns the length. */
size_t flamegraph_value_format(char *out, int64_t v, const flamegraph_unit *u);

/* "12.34%" of total; out holds 16 bytes. */
size_t flamegraph_value_percent(char *out, int64_t v, int64_t total);

#endif
