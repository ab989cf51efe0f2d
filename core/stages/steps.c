/* The steps stage (include/tconv/steps.h): which frames are steps, the one name they share and
 * each one's number. A step is recognised by its name alone, not by the role of its span: the
 * frames reach the writers without roles (summed samples, stacks of readers that never had
 * spans), and Kineto's steps are not all marked alike (an "Operator" before 2022, a
 * "user_annotation" since, and a "gpu_user_annotation" of the same name on the GPU streams the
 * step's kernels ran on). The rule is --steps's (tconv_step_number): the run's step name, then
 * separators and a number; a name without a number is one frame already and stays as it is.
 *
 * Each name id is looked at once; its answer is kept in a byte per id, so a writer asks per
 * frame of every sample at the cost of an array read. */
#include <string.h>

#include "stages.h"
#include "tconv/steps.h"

enum { STEPS_UNKNOWN = 0, STEPS_NOT = 1, STEPS_STEP = 2 };

struct tconv_steps {
    tconv_ctx *ctx;
    const char *prefix;
    size_t prefix_len;
    tconv_str merged;        /* the shared name, interned on the first step found */
    unsigned char *class_of; /* per name id: STEPS_* */
    size_t nclass;
};

TCONV_API tconv_steps *tconv_steps_new(tconv_ctx *ctx)
{
    tconv_steps *s = tconv_xcalloc(1, sizeof(*s));
    s->ctx = ctx;
    s->prefix = ctx->step_name ? ctx->step_name : "ProfilerStep#";
    s->prefix_len = strlen(s->prefix);
    return s;
}

TCONV_API void tconv_steps_destroy(tconv_steps *s)
{
    if (!s) return;
    free(s->class_of);
    free(s);
}

/* The step's number; 0 when the name is not the step name with a number. */
static int steps_parse(const tconv_steps *s, const char *name, int64_t *n)
{
    return tconv_step_number(name, s->prefix, n) && *n >= 0;
}

static tconv_str steps_merged_name(tconv_steps *s)
{
    if (!s->merged) {
        size_t n = s->prefix_len;
        while (n > 1 && strchr("# _-:", s->prefix[n - 1]))
            n--;
        s->merged = tconv_string_intern(s->ctx, s->prefix, n);
    }
    return s->merged;
}

TCONV_API int tconv_steps_name(tconv_steps *s, tconv_str name, tconv_str *merged, int64_t *number)
{
    if (name >= s->nclass) {
        size_t old = s->nclass;
        TCONV_GROW(s->class_of, s->nclass, (size_t)name + 1);
        memset(s->class_of + old, 0, s->nclass - old);
    }
    unsigned char *c = &s->class_of[name];
    if (*c == STEPS_NOT) return 0;
    int64_t n = 0;
    int step = steps_parse(s, tconv_string_get(s->ctx, name), &n);
    *c = step ? STEPS_STEP : STEPS_NOT;
    if (!step) return 0;
    if (merged) *merged = steps_merged_name(s);
    if (number) *number = n;
    return 1;
}

TCONV_API int tconv_steps_merge(tconv_steps *s, const tconv_frame *frames, size_t n,
                                tconv_frame *out, int64_t *number)
{
    int found = 0;
    for (size_t i = 0; i < n; i++) {
        tconv_str merged;
        int64_t k;
        if (out != frames) out[i] = frames[i];
        if (!tconv_steps_name(s, frames[i].name, &merged, &k)) continue;
        out[i].name = merged;
        if (!found && number) *number = k;
        found = 1;
    }
    return found;
}

TCONV_API int tconv_steps_merged(const tconv_options *opts)
{
    const char *v = tconv_option_get_string(opts, "steps");
    return !v || strcmp(v, "keep") != 0;
}
