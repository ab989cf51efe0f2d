/* A cache from the text of a call-chain line ("sym+0x1f (dso)", address left out) to the frames
 * it resolves to. Real captures repeat the same few thousand lines millions of times, so the
 * naming rules and string interning run once per distinct line. Memory is bounded by the number
 * of distinct lines, and by a hard cap after which lines are resolved every time. */
#ifndef PERF_CACHE_H
#define PERF_CACHE_H

#include <stddef.h>
#include <stdint.h>

#include "tconv/event.h"

typedef struct perf_cache perf_cache;

/* One resolved line: frames in root-first order (a Java "a->b->c" line gives three). A line that
 * the naming rules drop (a process name in parentheses) has nframes == 0. */
typedef struct perf_cache_hit {
    const tconv_frame *frames;
    uint32_t nframes;
} perf_cache_hit;

perf_cache *perf_cache_new(void);
void perf_cache_free(perf_cache *c);
uint64_t perf_cache_hash(const char *key, size_t n, uint32_t salt);
/* 1 and *hit filled when the key is known. */
int perf_cache_find(const perf_cache *c, const char *key, size_t n, uint64_t hash,
                    perf_cache_hit *hit);
void perf_cache_put(perf_cache *c, const char *key, size_t n, uint64_t hash,
                    const tconv_frame *frames, uint32_t nframes);

#endif
