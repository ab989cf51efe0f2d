/* PyTorch's profiler names Python frames "path/to/file.py(123): func". pprof's source views
 * need the parts: function name, file and line. */
#ifndef PPROF_PYFRAME_H
#define PPROF_PYFRAME_H

#include <stddef.h>
#include <stdint.h>

typedef struct pprof_pyframe {
    size_t path_len; /* the path is the name's first path_len bytes */
    uint32_t line;
    size_t func_off, func_len;
} pprof_pyframe;

/* 1 and the parts when name has that shape, else 0. */
int pprof_pyframe_parse(const char *name, size_t len, pprof_pyframe *out);

#endif
