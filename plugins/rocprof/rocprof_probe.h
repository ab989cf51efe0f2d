/* Is this rocprofv3 JSON or an rpd database? */
#ifndef ROCPROF_PROBE_H
#define ROCPROF_PROBE_H

#include <stddef.h>

int rocprof_probe(const unsigned char *buf, size_t len);

#endif
