#include "pprof_pyframe.h"

#include <string.h>

int pprof_pyframe_parse(const char *name, size_t len, pprof_pyframe *out)
{
    /* The first "(<digits>): " wins: a function name may itself contain parentheses, a path
     * followed by that exact sequence is far less likely. */
    for (size_t i = 1; i < len; i++) {
        if (name[i] != '(') continue;
        size_t j = i + 1;
        uint64_t line = 0;
        while (j < len && name[j] >= '0' && name[j] <= '9' && j - i <= 9) {
            line = line * 10 + (uint64_t)(name[j] - '0');
            j++;
        }
        if (j == i + 1 || j + 3 > len || name[j] != ')' || name[j + 1] != ':' || name[j + 2] != ' ')
            continue;
        if (j + 3 == len) return 0; /* no function name */
        out->path_len = i;
        out->line = (uint32_t)line;
        out->func_off = j + 3;
        out->func_len = len - (j + 3);
        return 1;
    }
    return 0;
}
