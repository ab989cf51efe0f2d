/* The run context: owns the tables every plugin shares for one conversion. */
#include <string.h>

#include "context.h"

static const char *const ctx_kind_names[TCONV_EV_KIND_MAX] = {
    [TCONV_EV_BEGIN] = "begin",         [TCONV_EV_END] = "end",
    [TCONV_EV_COMPLETE] = "complete",   [TCONV_EV_INSTANT] = "instant",
    [TCONV_EV_COUNTER] = "counter",     [TCONV_EV_FLOW_START] = "flow-start",
    [TCONV_EV_FLOW_STEP] = "flow-step", [TCONV_EV_FLOW_END] = "flow-end",
    [TCONV_EV_METADATA] = "metadata",   [TCONV_EV_SAMPLE] = "sample",
};

TCONV_API const char *tconv_event_kind_name(unsigned kind)
{
    return kind < TCONV_EV_KIND_MAX && ctx_kind_names[kind] ? ctx_kind_names[kind] : "unknown";
}

tconv_ctx *tconv_ctx_new(void)
{
    tconv_ctx *ctx = tconv_xcalloc(1, sizeof(*ctx));
    tconv_strtab_init(&ctx->strings);
    return ctx;
}

tconv_ctx *tconv_ctx_new_worker(const tconv_ctx *run, uint32_t index)
{
    tconv_ctx *w = tconv_ctx_new();
    tconv_ctx_set_verbosity(w, run->verbosity);
    w->all_spans = run->all_spans;
    w->ignore_args = run->ignore_args;
    w->gpu_attribute = run->gpu_attribute;
    w->need_corr = run->need_corr;
    w->interrupt = run->interrupt;
    w->input = index;
    return w;
}

static void ctx_free_stypes(tconv_ctx *ctx)
{
    for (size_t i = 0; i < ctx->nstypes; i++) {
        free((char *)ctx->stypes[i].type);
        free((char *)ctx->stypes[i].unit);
    }
    free(ctx->stypes);
    ctx->stypes = NULL;
    ctx->nstypes = 0;
}

void tconv_ctx_free(tconv_ctx *ctx)
{
    if (!ctx) return;
    tconv_strtab_free(&ctx->strings);
    tconv_tracktab_free(&ctx->tracks);
    tconv_error_clear(ctx);
    for (size_t i = 0; i < ctx->nwarnings; i++) {
        free(ctx->warnings[i].kind);
        free(ctx->warnings[i].first);
    }
    free(ctx->warnings);
    ctx_free_stypes(ctx);
    free(ctx->launch_tol);
    free(ctx->str_class);
    free(ctx->inputinfo);
    free(ctx->input_name);
    free(ctx);
}

void tconv_ctx_set_input(tconv_ctx *ctx, uint32_t input)
{
    ctx->input = input;
}

void tconv_ctx_set_input_name(tconv_ctx *ctx, const char *name)
{
    free(ctx->input_name);
    ctx->input_name = name ? tconv_xstrdup(name) : NULL;
}

void tconv_ctx_set_verbosity(tconv_ctx *ctx, int v)
{
    ctx->verbosity = v;
}

TCONV_API int tconv_ctx_verbosity(const tconv_ctx *ctx)
{
    return ctx->verbosity;
}

TCONV_API void tconv_args_ignore(tconv_ctx *ctx)
{
    ctx->ignore_args = 1;
}

int tconv_ctx_ignores_args(const tconv_ctx *ctx)
{
    return ctx->ignore_args;
}

TCONV_API int tconv_args_wanted(const tconv_ctx *ctx)
{
    /* Correlation ids come from the args of readers that do not set tconv_event.corr. */
    return !ctx->ignore_args || ctx->gpu_attribute || ctx->need_corr;
}

void tconv_ctx_note_time(tconv_ctx *ctx, int64_t t)
{
    if (!ctx->have_bounds) {
        ctx->first_ns = ctx->last_ns = t;
        ctx->have_bounds = 1;
    } else if (t < ctx->first_ns) {
        ctx->first_ns = t;
    } else if (t > ctx->last_ns) {
        ctx->last_ns = t;
    }
}

TCONV_API int tconv_ctx_bounds(const tconv_ctx *ctx, int64_t *first_ns, int64_t *last_ns)
{
    *first_ns = ctx->have_bounds ? ctx->first_ns : 0;
    *last_ns = ctx->have_bounds ? ctx->last_ns : 0;
    return ctx->have_bounds;
}

TCONV_API int tconv_sampletypes_set(tconv_ctx *ctx, size_t n, const tconv_sample_type *types,
                                    size_t default_index)
{
    if (n == 0 || default_index >= n) return -1;
    ctx_free_stypes(ctx);
    ctx->stypes = tconv_xcalloc(n, sizeof(*ctx->stypes));
    for (size_t i = 0; i < n; i++) {
        ctx->stypes[i].type = tconv_xstrdup(types[i].type ? types[i].type : "");
        ctx->stypes[i].unit = tconv_xstrdup(types[i].unit ? types[i].unit : "");
    }
    ctx->nstypes = n;
    ctx->stype_default = default_index;
    ctx->stypes_input = ctx->input;
    if (ctx->obs) ctx->obs->sampletypes(ctx->obs_user);
    return 0;
}

void tconv_sampletypes_save(const tconv_ctx *ctx, tconv_stypes_saved *sv)
{
    sv->n = ctx->nstypes;
    sv->def = ctx->stype_default;
    sv->types = sv->n ? tconv_xcalloc(sv->n, sizeof(*sv->types)) : NULL;
    for (size_t i = 0; i < sv->n; i++) {
        sv->types[i].type = tconv_xstrdup(ctx->stypes[i].type);
        sv->types[i].unit = tconv_xstrdup(ctx->stypes[i].unit);
    }
}

void tconv_sampletypes_saved_free(tconv_stypes_saved *sv)
{
    for (size_t i = 0; i < sv->n; i++) {
        free((char *)sv->types[i].type);
        free((char *)sv->types[i].unit);
    }
    free(sv->types);
    *sv = (tconv_stypes_saved){0};
}

void tconv_sampletypes_restore(tconv_ctx *ctx, tconv_stypes_saved *sv)
{
    if (sv->n)
        tconv_sampletypes_set(ctx, sv->n, sv->types, sv->def);
    else
        ctx_free_stypes(ctx);
    tconv_sampletypes_saved_free(sv);
}

TCONV_API const tconv_sample_type *tconv_sampletypes_get(const tconv_ctx *ctx, size_t *n,
                                                         size_t *default_index)
{
    if (n) *n = ctx->nstypes;
    if (default_index) *default_index = ctx->stype_default;
    return ctx->stypes;
}

void tconv_ctx_observe(tconv_ctx *ctx, const tconv_ctx_observer *obs, void *user)
{
    ctx->obs = obs;
    ctx->obs_user = user;
}

/* What a writer asks of the run (GPU attribution) and what an input says of itself (launch
 * stacks) are the context's: the stages read them (core/stages/gpu.c). */
TCONV_API void tconv_gpu_attribute(tconv_ctx *ctx)
{
    ctx->gpu_attribute = 1;
}

TCONV_API void tconv_launchstacks_declare(tconv_ctx *ctx, int64_t tolerance_ns)
{
    size_t old = ctx->nlaunch_tol;
    TCONV_GROW(ctx->launch_tol, ctx->nlaunch_tol, (size_t)ctx->input + 1);
    for (size_t i = old; i < ctx->nlaunch_tol; i++)
        ctx->launch_tol[i] = -1;
    ctx->launch_tol[ctx->input] = tolerance_ns < 0 ? 0 : tolerance_ns;
    if (ctx->obs) ctx->obs->launchstacks(ctx->obs_user, tolerance_ns);
}

int tconv_ctx_interrupted(tconv_ctx *ctx)
{
    if (!ctx->interrupt || !atomic_load_explicit(ctx->interrupt, memory_order_relaxed)) return 0;
    if (!tconv_error_pending(ctx)) tconv_error_set(ctx, "interrupted");
    return 1;
}
