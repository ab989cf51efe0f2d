/* Helpers for the ordering and stack stage tests: build events, record what a stage emits. */
#ifndef TCONV_STAGE_UTIL_H
#define TCONV_STAGE_UTIL_H

#include "testutil.h"

typedef struct rec {
    tconv_ctx *ctx;
    char text[16384];
    size_t len;
    int64_t wall_sum;
    int count_only; /* for streams too large to spell out */
} rec;

/* Unused by tests that read a stage directly (test_spanwalk.c). */
__attribute__((unused)) static tconv_status rec_emit(void *user, const tconv_event *ev)
{
    rec *r = user;
    if (r->count_only) {
        if (ev->kind == TCONV_EV_SAMPLE) r->wall_sum += ev->values[1];
        return TCONV_OK;
    }
    const char *name = tconv_string_get(r->ctx, ev->name);
    char kind = ev->kind == TCONV_EV_BEGIN      ? 'B'
                : ev->kind == TCONV_EV_END      ? 'E'
                : ev->kind == TCONV_EV_INSTANT  ? 'i'
                : ev->kind == TCONV_EV_COUNTER  ? 'C'
                : ev->kind == TCONV_EV_SAMPLE   ? 'P'
                : ev->kind == TCONV_EV_COMPLETE ? 'X'
                                                : '?';
    r->len += (size_t)snprintf(r->text + r->len, sizeof(r->text) - r->len, "%sT%u %c%lld %s",
                               r->len ? " | " : "", ev->track, kind, (long long)ev->ts, name);
    if (ev->kind == TCONV_EV_SAMPLE) {
        r->len += (size_t)snprintf(r->text + r->len, sizeof(r->text) - r->len, " [");
        for (uint32_t i = 0; i < ev->nframes; i++)
            r->len += (size_t)snprintf(r->text + r->len, sizeof(r->text) - r->len, "%s%s",
                                       i ? ";" : "", tconv_string_get(r->ctx, ev->frames[i].name));
        r->len += (size_t)snprintf(r->text + r->len, sizeof(r->text) - r->len, "] %lld",
                                   (long long)ev->values[1]);
        r->wall_sum += ev->values[1];
    }
    return TCONV_OK;
}

static uint64_t stage_seq;

static tconv_event mk(tconv_ctx *ctx, uint32_t track, int kind, int64_t ts, int64_t dur,
                      const char *name)
{
    tconv_event e = TCONV_EVENT_INIT;
    e.kind = (uint16_t)kind;
    e.track = track;
    e.ts = ts;
    e.dur = dur;
    e.name = tconv_string_intern_cstr(ctx, name);
    e.seq = stage_seq++;
    return e;
}

#endif
