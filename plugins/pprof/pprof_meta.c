/* The pprof.<field> metadata events, kept until the profile is written. */
#include "pprof_meta.h"

#include <stdlib.h>
#include <string.h>

#include <tconv/map.h>

static int pprof_meta_int(const tconv_ctx *ctx, tconv_str text, int64_t *v)
{
    char *end;
    const char *s = tconv_string_get(ctx, text);
    long long n = strtoll(s, &end, 10);
    if (!*s || *end) return 0;
    *v = n;
    return 1;
}

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
        m->has_duration = pprof_meta_int(ctx, ev->text, &m->duration) && m->duration > 0;
    } else if (strcmp(what, "period_type") == 0 && !m->period_type) {
        m->period_type = ev->text;
    } else if (strcmp(what, "period") == 0 && !m->has_period) {
        m->has_period = pprof_meta_int(ctx, ev->text, &m->period);
    }
}

void pprof_meta_free(pprof_meta *m)
{
    free(m->comments);
    memset(m, 0, sizeof *m);
}
