/* What a span stands for, decided in one place. A reader that knows its format sets
 * tconv_event.role; for the rest (readers that left it 0, plugins built for ABI 1.0) the sink
 * asks this table, keyed by category. Every stage and writer then reads the role, so a GPU kernel
 * is a kernel to GPU attribution, the CSV kernel table, the summary and OTF2 alike, and no one
 * matches category strings again.
 *
 * The categories are the ones profilers write: Kineto's (CUDA, ROCm and MTIA, 2021 to now), the
 * CUPTI-style names of older exporters, and Chrome's async phases. Case is ignored, as producers
 * disagree on it ("kernel", "Kernel"). The correlation id is found the same way: a reader that
 * does not set tconv_event.corr gets it from the args producers use for it. */
#include <string.h>
#include <strings.h>

#include "context.h"

static const struct {
    const char *cat;
    unsigned char role;
} role_table[] = {
    {"cpu_op", TCONV_ROLE_CPU},
    {"operator", TCONV_ROLE_CPU},
    {"python_function", TCONV_ROLE_PYTHON},
    {"python", TCONV_ROLE_PYTHON}, /* the Python ops of the older profiler */
    {"user_annotation", TCONV_ROLE_ANNOTATION},
    {"cuda_runtime", TCONV_ROLE_RUNTIME},
    {"runtime", TCONV_ROLE_RUNTIME},
    {"mtia_runtime", TCONV_ROLE_RUNTIME},
    {"cuda_driver", TCONV_ROLE_DRIVER},
    {"driver", TCONV_ROLE_DRIVER},
    {"kernel", TCONV_ROLE_KERNEL},
    {"gpu_kernel", TCONV_ROLE_KERNEL},
    {"mtia_ccp_events", TCONV_ROLE_KERNEL},
    {"gpu_memcpy", TCONV_ROLE_MEMCPY},
    {"memcpy", TCONV_ROLE_MEMCPY},
    {"memcopy", TCONV_ROLE_MEMCPY},
    {"gpu_memset", TCONV_ROLE_MEMSET},
    {"memset", TCONV_ROLE_MEMSET},
    {"gpu_user_annotation", TCONV_ROLE_GPU_ANNOTATION},
    {"cuda_sync", TCONV_ROLE_SYNC},
    {"overhead", TCONV_ROLE_OVERHEAD},
    {"trace", TCONV_ROLE_WINDOW}, /* Kineto's "PyTorch Profiler (N)" recording window */
};

static const char *const role_names[TCONV_ROLE_MAX] = {
    [TCONV_ROLE_UNSET] = "unset",
    [TCONV_ROLE_CPU] = "cpu",
    [TCONV_ROLE_PYTHON] = "python",
    [TCONV_ROLE_ANNOTATION] = "annotation",
    [TCONV_ROLE_STEP] = "step",
    [TCONV_ROLE_RUNTIME] = "runtime",
    [TCONV_ROLE_DRIVER] = "driver",
    [TCONV_ROLE_KERNEL] = "kernel",
    [TCONV_ROLE_MEMCPY] = "memcpy",
    [TCONV_ROLE_MEMSET] = "memset",
    [TCONV_ROLE_GPU_ANNOTATION] = "gpu_annotation",
    [TCONV_ROLE_SYNC] = "sync",
    [TCONV_ROLE_OVERHEAD] = "overhead",
    [TCONV_ROLE_WINDOW] = "window",
    [TCONV_ROLE_ASYNC] = "async",
    [TCONV_ROLE_MARKER] = "marker",
};

/* CUPTI counts correlation ids from 1; producers spell the key three ways. */
static const char *const role_corr_keys[] = {"correlation", "correlationId", "correlation_id"};

TCONV_API const char *tconv_role_name(unsigned role)
{
    return role < TCONV_ROLE_MAX ? role_names[role] : "";
}

static int role_ends_with(const char *s, const char *suffix)
{
    size_t n = strlen(s), m = strlen(suffix);
    return n > m && strcasecmp(s + n - m, suffix) == 0;
}

static unsigned role_lookup(const char *cat)
{
    for (size_t i = 0; i < sizeof(role_table) / sizeof(role_table[0]); i++)
        if (strcasecmp(cat, role_table[i].cat) == 0) return role_table[i].role;
    /* Each new accelerator brings its own: hip_runtime, xpu_runtime, mtia_driver, ... */
    if (role_ends_with(cat, "_runtime")) return TCONV_ROLE_RUNTIME;
    if (role_ends_with(cat, "_driver")) return TCONV_ROLE_DRIVER;
    return TCONV_ROLE_CPU;
}

/* What is known about string id s, looked up once per id (few categories and keys, many events):
 * the role it names as a category + 1 in the low bits, and whether it is a correlation key. */
enum { ROLE_C_ROLE = 0x1f, ROLE_C_KEY_KNOWN = 0x40, ROLE_C_KEY_CORR = 0x80 };

static unsigned char *role_class(tconv_ctx *ctx, tconv_str s)
{
    if (s >= ctx->nstr_class) {
        size_t old = ctx->nstr_class;
        TCONV_GROW(ctx->str_class, ctx->nstr_class, (size_t)s + 1);
        memset(ctx->str_class + old, 0, ctx->nstr_class - old);
    }
    return &ctx->str_class[s];
}

TCONV_API unsigned tconv_role_of_category(tconv_ctx *ctx, tconv_str cat)
{
    unsigned char *c = role_class(ctx, cat);
    if (!(*c & ROLE_C_ROLE)) *c |= (unsigned char)(role_lookup(tconv_string_get(ctx, cat)) + 1);
    return (*c & ROLE_C_ROLE) - 1u;
}

static int role_is_corr_key(tconv_ctx *ctx, tconv_str key)
{
    unsigned char *c = role_class(ctx, key);
    if (!(*c & ROLE_C_KEY_KNOWN)) {
        const char *k = tconv_string_get(ctx, key);
        *c |= ROLE_C_KEY_KNOWN;
        for (size_t i = 0; i < sizeof(role_corr_keys) / sizeof(role_corr_keys[0]); i++)
            if (strcmp(k, role_corr_keys[i]) == 0) *c |= ROLE_C_KEY_CORR;
    }
    return (*c & ROLE_C_KEY_CORR) != 0;
}

/* A correlation id as producers write it: an integer, or its decimal text. 0 means none. */
static uint64_t role_corr_value(const tconv_ctx *ctx, const tconv_arg *a)
{
    switch (a->type) {
    case TCONV_ARG_INT:
        return a->v.i > 0 ? (uint64_t)a->v.i : 0;
    case TCONV_ARG_UINT:
        return a->v.u;
    case TCONV_ARG_DOUBLE:
        return a->v.d >= 1 && a->v.d < 1.8e19 && a->v.d == (double)(uint64_t)a->v.d
                   ? (uint64_t)a->v.d
                   : 0;
    case TCONV_ARG_STRING: {
        const char *s = tconv_string_get(ctx, a->v.s);
        uint64_t v = 0;
        if (!*s) return 0;
        for (; *s; s++) {
            if (*s < '0' || *s > '9' || v > (UINT64_MAX - 9) / 10) return 0;
            v = v * 10 + (uint64_t)(*s - '0');
        }
        return v;
    }
    default:
        return 0;
    }
}

TCONV_API int tconv_span_is_work(const tconv_ctx *ctx, const tconv_event *ev)
{
    return ctx->all_spans || tconv_role_is_work(ev->role);
}

void tconv_role_fill(tconv_ctx *ctx, tconv_event *e)
{
    if (e->kind != TCONV_EV_BEGIN && e->kind != TCONV_EV_END && e->kind != TCONV_EV_COMPLETE)
        return;
    if (e->role >= TCONV_ROLE_MAX) e->role = TCONV_ROLE_UNSET; /* from a newer minor: guess */
    if (!e->role)
        e->role = (uint16_t)(e->flags & TCONV_EVF_ASYNC ? TCONV_ROLE_ASYNC
                                                        : tconv_role_of_category(ctx, e->cat));
    for (uint32_t i = 0; i < e->nargs && !e->corr; i++)
        if (role_is_corr_key(ctx, e->args[i].key)) e->corr = role_corr_value(ctx, &e->args[i]);
}
