/* Fields of a profile that the event model has no place for, carried as metadata events
 * named pprof.<field> (the pprof reader's), so that pprof -> pprof keeps them: drop_frames,
 * keep_frames, the comments, the duration and the period with its type. The first input that
 * gives one wins, comments add up. */
#ifndef PPROF_META_H
#define PPROF_META_H

#include <stdint.h>

#include <tconv/tconv.h>

typedef struct pprof_meta {
    tconv_str drop_frames, keep_frames;
    tconv_str *comments;
    size_t ncomments, comments_cap;
    int has_duration;
    int64_t duration;
    tconv_str period_type; /* "TYPE/UNIT" */
    int has_period;
    int64_t period;
} pprof_meta;

void pprof_meta_event(pprof_meta *m, const tconv_ctx *ctx, const tconv_event *ev);
void pprof_meta_free(pprof_meta *m);

#endif
