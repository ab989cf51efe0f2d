/* Out of memory in the writer's tables, where no status can travel back: the run ends as the
 * core ends it (core/util/memory.c), with the same message and exit status 1, and the core's exit
 * handler removes the temporary archive directory. Better than abort(), which reads as a
 * crash. */
#ifndef TCONV_OTF2_OOM_H
#define TCONV_OTF2_OOM_H

#include <stdio.h>
#include <stdlib.h>

_Noreturn static inline void otf2_oom(void)
{
    fputs("tconv: error: out of memory in the OTF2 writer\n", stderr);
    exit(1);
}

#endif
