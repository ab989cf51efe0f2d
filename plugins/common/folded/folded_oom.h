/* Out of memory deep inside the reader's tables, where no status can travel back: the run ends
 * as the core ends it (core/util/memory.c), with the same message and exit status 1, and the core's
 * exit handler removes the temporary output. Better than abort(), which reads as a crash. */
#ifndef FOLDED_OOM_H
#define FOLDED_OOM_H

#include <stdio.h>
#include <stdlib.h>

_Noreturn static inline void folded_oom(size_t n)
{
    fprintf(stderr, "tconv: error: out of memory (allocating %zu bytes)\n", n);
    exit(1);
}

#endif
