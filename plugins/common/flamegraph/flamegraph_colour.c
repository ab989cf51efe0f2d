/* The palettes are flamegraph.pl's (hot, green, yellow, blue, aqua, purple, red, grey), so a
 * graph looks like the ones people know; CPU work keeps the classic warm colours, and so does a
 * frame nothing is known about, only kept to red and orange so that runtime calls stand out. The
 * shade comes from an FNV-1a hash of the name, never from the frame's position or from randomness,
 * which keeps the bytes deterministic. */
#include "flamegraph_colour.h"

#include <stdint.h>
#include <stdio.h>

#include "tconv/tconv.h"

unsigned flamegraph_colour_of_role(unsigned role)
{
    switch (role) {
    case TCONV_ROLE_PYTHON:
        return FLAMEGRAPH_HUE_PYTHON;
    case TCONV_ROLE_ANNOTATION:
    case TCONV_ROLE_STEP:
    case TCONV_ROLE_GPU_ANNOTATION:
        return FLAMEGRAPH_HUE_ANNOTATION;
    case TCONV_ROLE_RUNTIME:
    case TCONV_ROLE_DRIVER:
        return FLAMEGRAPH_HUE_RUNTIME;
    case TCONV_ROLE_KERNEL:
        return FLAMEGRAPH_HUE_KERNEL;
    case TCONV_ROLE_MEMCPY:
        return FLAMEGRAPH_HUE_MEMCPY;
    case TCONV_ROLE_MEMSET:
        return FLAMEGRAPH_HUE_MEMSET;
    case TCONV_ROLE_SYNC:
        return FLAMEGRAPH_HUE_SYNC;
    case TCONV_ROLE_OVERHEAD:
        return FLAMEGRAPH_HUE_OVERHEAD;
    default:
        return FLAMEGRAPH_HUE_CPU;
    }
}

void flamegraph_colour(unsigned hue, const char *name, size_t n, char *out)
{
    uint32_t h = 2166136261u;
    for (size_t i = 0; i < n; i++)
        h = (h ^ (unsigned char)name[i]) * 16777619u;
    /* three shades from three parts of the hash, each in 0..1 */
    double a = (h & 0x3FF) / 1023.0, b = (h >> 10 & 0x3FF) / 1023.0, c = (h >> 20 & 0x3FF) / 1023.0;
    int r, g, bl;
    switch (hue) {
    case FLAMEGRAPH_HUE_PYTHON: /* green */
        r = 50 + (int)(60 * a), g = 200 + (int)(55 * a), bl = 50 + (int)(60 * a);
        break;
    case FLAMEGRAPH_HUE_ANNOTATION: /* pale pink: ranges users named, steps */
        r = 230 + (int)(25 * a), g = 150 + (int)(40 * b), bl = 190 + (int)(40 * b);
        break;
    case FLAMEGRAPH_HUE_RUNTIME: /* yellow */
        r = 200 + (int)(40 * a), g = r, bl = 50 + (int)(30 * b);
        break;
    case FLAMEGRAPH_HUE_KERNEL: /* blue */
        r = 80 + (int)(60 * a), g = r, bl = 190 + (int)(55 * b);
        break;
    case FLAMEGRAPH_HUE_MEMCPY: /* aqua */
        r = 50 + (int)(60 * a), g = 165 + (int)(55 * a), bl = g;
        break;
    case FLAMEGRAPH_HUE_MEMSET: /* purple */
        r = 190 + (int)(65 * a), g = 80 + (int)(60 * a), bl = r;
        break;
    case FLAMEGRAPH_HUE_SYNC: /* red */
        r = 200 + (int)(55 * a), g = 50 + (int)(80 * a), bl = g;
        break;
    case FLAMEGRAPH_HUE_OVERHEAD: /* grey */
        r = 160 + (int)(50 * a), g = r, bl = r;
        break;
    case FLAMEGRAPH_HUE_STREAM: /* slate: a device and stream, no work of its own */
        r = 150 + (int)(20 * a), g = r + 15, bl = r + 45;
        break;
    default: /* hot: CPU work, and frames nothing is known about; kept off the runtime's yellow */
        r = 205 + (int)(50 * c), g = (int)(170 * a), bl = (int)(55 * b);
        break;
    }
    snprintf(out, 24, "rgb(%d,%d,%d)", r, g, bl);
}

const char *flamegraph_colour_name(unsigned hue)
{
    static const char *const names[FLAMEGRAPH_NHUES] = {
        [FLAMEGRAPH_HUE_HASH] = "other",           [FLAMEGRAPH_HUE_CPU] = "CPU",
        [FLAMEGRAPH_HUE_PYTHON] = "Python",        [FLAMEGRAPH_HUE_ANNOTATION] = "annotation, step",
        [FLAMEGRAPH_HUE_RUNTIME] = "runtime call", [FLAMEGRAPH_HUE_KERNEL] = "kernel",
        [FLAMEGRAPH_HUE_MEMCPY] = "memcpy",        [FLAMEGRAPH_HUE_MEMSET] = "memset",
        [FLAMEGRAPH_HUE_SYNC] = "synchronisation", [FLAMEGRAPH_HUE_OVERHEAD] = "profiler overhead",
        [FLAMEGRAPH_HUE_STREAM] = "GPU stream",
    };
    return hue < FLAMEGRAPH_NHUES ? names[hue] : "";
}
