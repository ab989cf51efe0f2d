/* The checks of a pushed event that need nothing but the event and its input's strings and
 * tracks: every sink makes them first (the run's, core/pipeline/sink.c; a worker's,
 * core/parallel/worker_sink.c), so an event that passes is one no stage or writer can trip on,
 * whichever thread checked it. The checks against the other inputs come after, in the run's sink
 * only (core/pipeline/inputcheck.c). */
#include <string.h>

#include "pipeline.h"

/* The first string id of the event that the string table never gave out, or NULL. Writers key
 * tables by id (a folded writer's frame tree, OTF2's region table), so one invalid id from an
 * out-of-tree plugin would make them index past their tables or never find a match. */
static const char *push_bad_string(const tconv_ctx *ctx, const tconv_event *e, tconv_str *id)
{
    const uint32_t n = tconv_string_count(ctx);
    const tconv_str fields[] = {e->name, e->cat, e->key, e->unit, e->text};
    static const char *const what[] = {"name", "cat", "key", "unit", "text"};
    for (size_t i = 0; i < sizeof(fields) / sizeof(fields[0]); i++)
        if (fields[i] >= n) return *id = fields[i], what[i];
    for (uint32_t i = 0; i < e->nargs; i++) {
        const tconv_arg *a = &e->args[i];
        if (a->key >= n) return *id = a->key, "arg key";
        if ((a->type == TCONV_ARG_STRING || a->type == TCONV_ARG_JSON) && a->v.s >= n)
            return *id = a->v.s, "arg value";
    }
    for (uint32_t i = 0; i < e->nframes; i++) {
        const tconv_frame *f = &e->frames[i];
        if (f->name >= n || f->module >= n || f->file >= n)
            return *id = f->name >= n ? f->name : f->module >= n ? f->module : f->file, "frame";
    }
    return NULL;
}

tconv_status tconv_push_check(tconv_ctx *ctx, const tconv_event *in, tconv_event *out)
{
    if (in->struct_size >= sizeof(*out)) {
        /* The common case, a plugin of this minor: a copy of fixed size. */
        *out = *in;
    } else {
        /* A plugin built for an older minor knows a shorter event: read only that much. */
        size_t size = in->struct_size;
        if (size < offsetof(tconv_event, args)) {
            tconv_error_set(ctx,
                            "a plugin pushed an event with struct_size %u; initialise events "
                            "with TCONV_EVENT_INIT",
                            in->struct_size);
            return TCONV_FATAL;
        }
        *out = (tconv_event)TCONV_EVENT_INIT;
        memcpy(out, in, size);
    }
    out->struct_size = sizeof(*out);
    if (out->kind == 0 || out->kind >= TCONV_EV_KIND_MAX) {
        tconv_warning_add(ctx, "core.bad-kind", "an event of unknown kind %u was pushed; skipped",
                          out->kind);
        return TCONV_RECORD;
    }
    if (out->track >= tconv_track_count(ctx)) {
        tconv_error_set(ctx,
                        "a reader pushed an event on track %u, which does not exist; get "
                        "tracks from tconv_track_get",
                        out->track);
        return TCONV_FATAL;
    }
    /* Times within 2^62 ns (146 years) of 0 keep every sum and difference of two times inside
     * int64 in the stages; the in-tree readers already stay there, out-of-tree ones may not. */
    const int64_t lim = (int64_t)1 << 62;
    if (out->ts <= -lim || out->ts >= lim ||
        (out->kind == TCONV_EV_COMPLETE &&
         (out->dur < 0 ? out->dur <= -lim : out->dur >= lim - out->ts))) {
        tconv_warning_add(ctx, "core.time-range",
                          "an event at %lld ns (dur %lld) lies beyond 2^62 ns; skipped",
                          (long long)out->ts, (long long)out->dur);
        return TCONV_RECORD;
    }
    tconv_str bad_id;
    const char *bad = push_bad_string(ctx, out, &bad_id);
    if (bad) {
        tconv_error_set(ctx,
                        "a reader pushed a %s event whose %s is string id %u, which does not "
                        "exist (%u strings); get ids from tconv_string_intern",
                        tconv_event_kind_name(out->kind), bad, bad_id, tconv_string_count(ctx));
        return TCONV_FATAL;
    }
    out->input = ctx->input;
    /* Readers look track names up as they go (to push a name only when it changes). */
    if (out->kind == TCONV_EV_METADATA) tconv_track_apply_metadata(ctx, out);
    return TCONV_OK;
}

int tconv_push_stopped(tconv_ctx *ctx, const atomic_int *abandon)
{
    if (tconv_ctx_interrupted(ctx)) return 1;
    if (!abandon || !atomic_load_explicit(abandon, memory_order_relaxed)) return 0;
    if (!tconv_error_pending(ctx)) tconv_error_set(ctx, "abandoned");
    return 1;
}
