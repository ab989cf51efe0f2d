/* Errors carry a chain of causes, outermost first, so "could not read x.json" can say why down to
 * "x.json:1234: expected ','". Warnings are counted per kind and summarised once. */
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "context.h"

static char *error_vformat(const char *prefix, const char *fmt, va_list ap)
{
    va_list ap2;
    va_copy(ap2, ap);
    int n = vsnprintf(NULL, 0, fmt, ap2);
    va_end(ap2);
    size_t plen = prefix ? strlen(prefix) : 0;
    char *s = tconv_xmalloc(plen + (size_t)(n < 0 ? 0 : n) + 1);
    if (plen) memcpy(s, prefix, plen);
    vsnprintf(s + plen, (size_t)(n < 0 ? 0 : n) + 1, fmt, ap);
    return s;
}

TCONV_API void tconv_error_clear(tconv_ctx *ctx)
{
    for (size_t i = 0; i < ctx->nerrors; i++)
        free(ctx->errors[i]);
    free(ctx->errors);
    ctx->errors = NULL;
    ctx->nerrors = 0;
    ctx->error_usage = 0;
    free(ctx->error_hint);
    ctx->error_hint = NULL;
}

static void error_push_front(tconv_ctx *ctx, char *msg)
{
    ctx->errors = tconv_xrealloc(ctx->errors, (ctx->nerrors + 1) * sizeof(*ctx->errors));
    memmove(ctx->errors + 1, ctx->errors, ctx->nerrors * sizeof(*ctx->errors));
    ctx->errors[0] = msg;
    ctx->nerrors++;
}

/* The error, in place of any pending one (its hint and usage flag included). */
static void error_vset(tconv_ctx *ctx, const char *prefix, const char *fmt, va_list ap)
{
    char *msg = error_vformat(prefix, fmt, ap);
    tconv_error_clear(ctx);
    error_push_front(ctx, msg);
}

TCONV_API void tconv_error_set(tconv_ctx *ctx, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    error_vset(ctx, NULL, fmt, ap);
    va_end(ap);
}

TCONV_API void tconv_error_at(tconv_ctx *ctx, const char *name, uint64_t offset, const char *fmt,
                              ...)
{
    char prefix[4096];
    snprintf(prefix, sizeof(prefix), "%s:%llu: ", name ? name : "<input>",
             (unsigned long long)offset);
    va_list ap;
    va_start(ap, fmt);
    error_vset(ctx, prefix, fmt, ap);
    va_end(ap);
}

TCONV_API void tconv_error_wrap(tconv_ctx *ctx, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    char *msg = error_vformat(NULL, fmt, ap);
    va_end(ap);
    error_push_front(ctx, msg);
}

void tconv_error_move(tconv_ctx *to, tconv_ctx *from)
{
    tconv_error_clear(to);
    to->errors = from->errors;
    to->nerrors = from->nerrors;
    to->error_usage = from->error_usage;
    to->error_hint = from->error_hint;
    from->errors = NULL;
    from->nerrors = 0;
    from->error_usage = 0;
    from->error_hint = NULL;
}

TCONV_API int tconv_error_pending(const tconv_ctx *ctx)
{
    return ctx->nerrors > 0;
}

TCONV_API const char *const *tconv_error_chain(const tconv_ctx *ctx, size_t *n)
{
    *n = ctx->nerrors;
    return (const char *const *)ctx->errors;
}

TCONV_API void tconv_error_usage(tconv_ctx *ctx, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    error_vset(ctx, NULL, fmt, ap);
    va_end(ap);
    ctx->error_usage = 1;
}

int tconv_error_is_usage(const tconv_ctx *ctx)
{
    return ctx->nerrors > 0 && ctx->error_usage;
}

TCONV_API void tconv_error_hint(tconv_ctx *ctx, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    char *hint = error_vformat(NULL, fmt, ap);
    va_end(ap);
    free(ctx->error_hint);
    ctx->error_hint = hint;
}

TCONV_API const char *tconv_error_hint_get(const tconv_ctx *ctx)
{
    return ctx->nerrors ? ctx->error_hint : NULL;
}

/* A warning of a kind already made: counted, and 1. */
static int warning_seen(tconv_ctx *ctx, const char *kind)
{
    for (size_t i = ctx->nwarnings; i-- > 0;) {
        if (strcmp(ctx->warnings[i].kind, kind) == 0) {
            ctx->warnings[i].count++;
            if (ctx->obs) ctx->obs->warning(ctx->obs_user, i);
            return 1;
        }
    }
    return 0;
}

/* The first warning of its kind, with its message (taken). */
static tconv_warning *warning_first(tconv_ctx *ctx, const char *kind, char *first)
{
    TCONV_GROW(ctx->warnings, ctx->capwarnings, ctx->nwarnings + 1);
    tconv_warning *w = &ctx->warnings[ctx->nwarnings++];
    w->first = first;
    w->kind = tconv_xstrdup(kind);
    w->count = 1;
    w->track_at = UINT32_MAX;
    if (ctx->obs) ctx->obs->warning(ctx->obs_user, ctx->nwarnings - 1);
    return w;
}

TCONV_API void tconv_warning_add(tconv_ctx *ctx, const char *kind, const char *fmt, ...)
{
    if (warning_seen(ctx, kind)) return;
    va_list ap;
    va_start(ap, fmt);
    char *first = error_vformat(NULL, fmt, ap);
    va_end(ap);
    warning_first(ctx, kind, first);
}

void tconv_warning_add_track(tconv_ctx *ctx, const char *kind, uint32_t track, const char *after,
                             const char *fmt, ...)
{
    if (warning_seen(ctx, kind)) return; /* formatted for the first only, as any warning */
    va_list ap;
    va_start(ap, fmt);
    char *before = error_vformat(NULL, fmt, ap);
    va_end(ap);
    size_t at = strlen(before);
    char num[16];
    int k = snprintf(num, sizeof(num), "%u", track);
    char *first = tconv_xmalloc(at + (size_t)k + strlen(after) + 1);
    memcpy(first, before, at);
    memcpy(first + at, num, (size_t)k);
    strcpy(first + at + (size_t)k, after);
    free(before);
    tconv_warning *w = warning_first(ctx, kind, first);
    w->track = track;
    w->track_at = (uint32_t)at;
}

/* The new entry, or NULL where the kind was there and counted in. */
static tconv_warning *warning_merge(tconv_warning **ws, size_t *n, size_t *cap, const char *kind,
                                    const char *first, uint64_t count)
{
    for (size_t i = 0; i < *n; i++) {
        if (strcmp((*ws)[i].kind, kind) == 0) {
            (*ws)[i].count += count;
            return NULL;
        }
    }
    TCONV_GROW(*ws, *cap, *n + 1);
    tconv_warning *w = &(*ws)[(*n)++];
    w->kind = tconv_xstrdup(kind);
    w->first = tconv_xstrdup(first);
    w->count = count;
    w->track_at = UINT32_MAX;
    return w;
}

void tconv_warning_merge(tconv_ctx *ctx, const char *kind, const char *first, uint64_t count)
{
    warning_merge(&ctx->warnings, &ctx->nwarnings, &ctx->capwarnings, kind, first, count);
}

void tconv_warnings_swap(tconv_ctx *ctx, tconv_warning_set *aside)
{
    tconv_warning_set cur = {ctx->warnings, ctx->nwarnings, ctx->capwarnings};
    ctx->warnings = aside->w;
    ctx->nwarnings = aside->n;
    ctx->capwarnings = aside->cap;
    *aside = cur;
}

void tconv_warnings_free(tconv_warning_set *set)
{
    for (size_t i = 0; i < set->n; i++) {
        free(set->w[i].kind);
        free(set->w[i].first);
    }
    free(set->w);
    memset(set, 0, sizeof(*set));
}

/* Counts every warning of aside into the set (ws, n, cap), then empties aside. Mapped, a new
 * kind's first message gets tmap[track] for the worker's track number; else it keeps where its
 * number is, for a later mapping. */
static void warnings_merge_all(tconv_warning **ws, size_t *n, size_t *cap, tconv_warning_set *aside,
                               int mapped, const uint32_t *tmap, size_t ntmap)
{
    for (size_t i = 0; i < aside->n; i++) {
        const tconv_warning *a = &aside->w[i];
        const char *first = a->first;
        char *text = NULL;
        size_t len = strlen(first);
        if (mapped && a->track_at < len && a->track < ntmap) {
            /* the digits of the worker's number, then the run's in their place */
            size_t end = a->track_at;
            while (first[end] >= '0' && first[end] <= '9')
                end++;
            char num[16];
            int k = snprintf(num, sizeof(num), "%u", tmap[a->track]);
            text = tconv_xmalloc(len - (end - a->track_at) + (size_t)k + 1);
            memcpy(text, first, a->track_at);
            memcpy(text + a->track_at, num, (size_t)k);
            strcpy(text + a->track_at + k, first + end);
            first = text;
        }
        tconv_warning *w = warning_merge(ws, n, cap, a->kind, first, a->count);
        if (w && !mapped) {
            w->track = a->track;
            w->track_at = a->track_at;
        }
        free(text);
    }
    tconv_warnings_free(aside);
}

void tconv_warnings_give(tconv_ctx *ctx, tconv_warning_set *aside)
{
    warnings_merge_all(&ctx->warnings, &ctx->nwarnings, &ctx->capwarnings, aside, 0, NULL, 0);
}

void tconv_warnings_give_mapped(tconv_warning_set *to, tconv_warning_set *aside,
                                const uint32_t *tmap, size_t ntmap)
{
    warnings_merge_all(&to->w, &to->n, &to->cap, aside, 1, tmap, ntmap);
}

TCONV_API uint64_t tconv_warning_count(const tconv_ctx *ctx, const char *kind)
{
    for (size_t i = 0; i < ctx->nwarnings; i++)
        if (strcmp(ctx->warnings[i].kind, kind) == 0) return ctx->warnings[i].count;
    return 0;
}

TCONV_API int tconv_warning_get(const tconv_ctx *ctx, size_t i, const char **kind,
                                const char **first, uint64_t *count)
{
    if (i >= ctx->nwarnings) return -1;
    if (kind) *kind = ctx->warnings[i].kind;
    if (first) *first = ctx->warnings[i].first;
    if (count) *count = ctx->warnings[i].count;
    return 0;
}

static void error_notice(tconv_ctx *ctx, tconv_notice_level level, const char *fmt, va_list ap)
{
    char *msg = error_vformat(NULL, fmt, ap);
    if (ctx->notice)
        ctx->notice(ctx->notice_user, level, msg);
    else
        fprintf(stderr, "tconv: %s%s\n", level == TCONV_NOTICE_NOTE ? "note: " : "", msg);
    free(msg);
}

TCONV_API void tconv_note(tconv_ctx *ctx, const char *fmt, ...)
{
    if (ctx->verbosity <= 0) return;
    va_list ap;
    va_start(ap, fmt);
    error_notice(ctx, TCONV_NOTICE_INFO, fmt, ap);
    va_end(ap);
}

TCONV_API void tconv_note_show(tconv_ctx *ctx, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    error_notice(ctx, TCONV_NOTICE_NOTE, fmt, ap);
    va_end(ap);
}

void tconv_notice(tconv_ctx *ctx, tconv_notice_level level, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    error_notice(ctx, level, fmt, ap);
    va_end(ap);
}
