/* What the run knows about each of its inputs besides events: the name it was opened as, and
 * what the input says about itself in trace-level metadata, its rank in a distributed job and
 * the absolute time of its clock's zero. Kept once, per input, so that every writer reads the
 * same answer instead of parsing readers' metadata on its own. Metadata is rare: the work here
 * is off the per-event path. */
#include <ctype.h>
#include <errno.h>
#include <string.h>

#include "context.h"

static tconv_inputinfo *inputinfo_at(tconv_ctx *ctx, uint32_t input)
{
    if (input >= ctx->inputinfo_cap) {
        size_t old = ctx->inputinfo_cap;
        TCONV_GROW(ctx->inputinfo, ctx->inputinfo_cap, (size_t)input + 1);
        memset(ctx->inputinfo + old, 0, (ctx->inputinfo_cap - old) * sizeof(*ctx->inputinfo));
    }
    if (input >= ctx->ninputinfo) ctx->ninputinfo = input + 1;
    return &ctx->inputinfo[input];
}

static const tconv_inputinfo *inputinfo_get(const tconv_ctx *ctx, uint32_t input)
{
    return input < ctx->ninputinfo ? &ctx->inputinfo[input] : NULL;
}

/* A whole base-10 integer, surrounding blanks allowed. */
static int inputinfo_int(const char *s, int64_t *out)
{
    while (isspace((unsigned char)*s))
        s++;
    const char *p = s;
    if (*p == '-' || *p == '+') p++;
    if (!isdigit((unsigned char)*p)) return 0;
    char *end;
    errno = 0;
    long long v = strtoll(s, &end, 10);
    if (errno) return 0; /* out of range: no value rather than a clamped one */
    while (isspace((unsigned char)*end))
        end++;
    if (*end) return 0;
    *out = v;
    return 1;
}

/* The integer member "rank" of a JSON object's outermost level (Kineto's distributedInfo:
 * {"backend":"nccl","rank":3,"world_size":8}). */
static int inputinfo_json_rank(const char *json, int64_t *rank)
{
    int depth = 0;
    for (const char *p = json; *p;) {
        if (*p == '"') {
            const char *key = ++p;
            while (*p && *p != '"')
                p += (*p == '\\' && p[1]) ? 2 : 1;
            size_t len = (size_t)(p - key);
            if (*p) p++;
            if (depth != 1 || len != 4 || memcmp(key, "rank", 4) != 0) continue;
            while (isspace((unsigned char)*p))
                p++;
            if (*p != ':') continue;
            p++;
            while (isspace((unsigned char)*p))
                p++;
            char *end;
            errno = 0;
            long long v = strtoll(p, &end, 10);
            if (end == p || errno || !strchr(",} \t\r\n", *end)) return 0;
            *rank = v;
            return 1;
        }
        if (*p == '{' || *p == '[') depth++;
        if (*p == '}' || *p == ']') depth--;
        p++;
    }
    return 0;
}

void tconv_inputinfo_set_name(tconv_ctx *ctx, uint32_t input, const char *name)
{
    inputinfo_at(ctx, input)->name = tconv_string_intern_cstr(ctx, name ? name : "");
}

void tconv_inputinfo_apply_metadata(tconv_ctx *ctx, const tconv_event *ev)
{
    /* Most metadata (process and thread names, again and again) sets nothing here. */
    if (ev->name == ctx->info_other[ev->name % 8]) return;
    const char *what = tconv_string_get(ctx, ev->name);
    const char *text = tconv_string_get(ctx, ev->text);
    int64_t v;
    if (strcmp(what, "rank") == 0) {
        if (!inputinfo_int(text, &v)) return;
    } else if (strcmp(what, "distributedInfo") == 0) {
        if (!inputinfo_json_rank(text, &v)) return;
    } else if (strcmp(what, "baseTimeNanoseconds") == 0) {
        if (!inputinfo_int(text, &v)) return;
        tconv_inputinfo *in = inputinfo_at(ctx, ev->input);
        in->has_time_origin = 1;
        in->time_origin_ns = v;
        return;
    } else {
        ctx->info_other[ev->name % 8] = ev->name;
        return;
    }
    tconv_inputinfo *in = inputinfo_at(ctx, ev->input);
    in->has_rank = 1;
    in->rank = v;
}

TCONV_API uint32_t tconv_ctx_input_count(const tconv_ctx *ctx)
{
    return (uint32_t)ctx->ninputinfo;
}

TCONV_API const char *tconv_ctx_input_name(const tconv_ctx *ctx, uint32_t input)
{
    const tconv_inputinfo *in = inputinfo_get(ctx, input);
    return in && in->name ? tconv_string_get(ctx, in->name) : NULL;
}

TCONV_API int tconv_ctx_rank(const tconv_ctx *ctx, uint32_t input, int64_t *rank)
{
    const tconv_inputinfo *in = inputinfo_get(ctx, input);
    if (!in || !in->has_rank) return 0;
    *rank = in->rank;
    return 1;
}

TCONV_API int tconv_ctx_time_origin(const tconv_ctx *ctx, uint32_t input, int64_t *unix_ns)
{
    const tconv_inputinfo *in = inputinfo_get(ctx, input);
    if (!in || !in->has_time_origin) return 0;
    *unix_ns = in->time_origin_ns;
    return 1;
}
