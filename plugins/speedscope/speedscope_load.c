/* The units of the format. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "speedscope.h"

int speedscope_unit(const char *unit, speedscope_class *cls, double *scale)
{
    static const struct {
        const char *name;
        speedscope_class cls;
        double scale;
    } units[] = {
        {"nanoseconds", SPEEDSCOPE_TIME, 1},    {"microseconds", SPEEDSCOPE_TIME, 1e3},
        {"milliseconds", SPEEDSCOPE_TIME, 1e6}, {"seconds", SPEEDSCOPE_TIME, 1e9},
        {"bytes", SPEEDSCOPE_BYTES, 1},         {"none", SPEEDSCOPE_NONE, 1},
    };
    for (size_t i = 0; unit && i < sizeof units / sizeof units[0]; i++)
        if (strcmp(unit, units[i].name) == 0) {
            *cls = units[i].cls;
            *scale = units[i].scale;
            return 0;
        }
    return -1;
}
