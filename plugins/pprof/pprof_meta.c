/* The pprof.<field> metadata events, kept until the profile is written. */
#include "pprof_meta.h"

#include <stdlib.h>
#include <string.h>

#include <tconv/map.h>

void pprof_meta_event(pprof_meta *m, const tconv_ctx *ctx, const tconv_event *ev)
{
    const char *what = tconv_string_get(ctx, ev->name);
    if (strncmp(what, "pprof.", 6) != 0 || !ev->text) return;
    what += 6;
    if (strcmp(what, "drop_frames") == 0 && !m->drop_frames) {
        m->drop_frames = ev->text;
    } else if (strcmp(what, "keep_frames") == 0 && !m->keep_frames) {
        m->keep_frames = ev->text;
    } else if (strcmp(what, "comment") == 0) {
        TCONV_ARRAY_GROW(m->comments, m->comments_cap, m->ncomments + 1);
        m->comments[m->ncomments++] = ev->text;
    } else if (strcmp(what, "duration_nanos") == 0 && !m->has_duration) {
        char *end;
        long long v = strtoll(tconv_string_get(ctx, ev->text), &end, 10);
        if (!*end && v > 0) {
            m->duration = v;
            m->has_duration = 1;
        }
    }
}

void pprof_meta_free(pprof_meta *m)
{
    free(m->comments);
    memset(m, 0, sizeof *m);
}
