/* The checks of an input's events against the inputs before it, and their log for an MPI run
 * whose writer runs on every rank (inputcheck.h). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "inputcheck.h"

enum { IC_SAMPLE, IC_SPAN, IC_END };

/* The sample types of an input that declared none, as the messages name them. */
static const char ic_no_types[] = "no declared types";

/* What the checks were given: an input's first sample (its types, whether its own), its first
 * span, its end (the types it leaves to the next input, if it declared any). launch: the input
 * had declared launch stacks by then, which a message's hint tells. */
typedef struct ic_entry {
    uint64_t input; /* the run's position, once encoded */
    size_t seq;     /* in the order made: a rank's entries keep it */
    unsigned char kind, own, launch;
    char *name, *types;
} ic_entry;

struct tconv_inputcheck_log {
    ic_entry *e;
    size_t n, cap;
};

struct tconv_inputcheck {
    char *writer;
    int stacks, gpu;
    /* One output holds one set of sample types: those of the first input whose samples reached
     * the writer, checked again at each new input's first sample; and for a profile writer,
     * the first input with spans, whose samples are self times. An input that would mix units
     * is refused, never silently summed. */
    uint32_t sample_input, sample_last, span_input;
    char *sample_from, *sample_types, *span_from;
    int logging; /* keeps the log, and checks nothing: rank 0 will */
    tconv_inputcheck_log log;
    /* replaying: per position, whether its input had declared launch stacks (else the ctx's) */
    unsigned char *launch_of;
    size_t nlaunch_of;
};

tconv_inputcheck *tconv_inputcheck_new(const char *writer, int stacks, int gpu)
{
    tconv_inputcheck *c = tconv_xcalloc(1, sizeof(*c));
    c->writer = tconv_xstrdup(writer);
    c->stacks = stacks;
    c->gpu = gpu;
    return c;
}

static void ic_log_clear(tconv_inputcheck_log *l, size_t from)
{
    for (size_t i = from; i < l->n; i++) {
        free(l->e[i].name);
        free(l->e[i].types);
    }
    l->n = from;
}

void tconv_inputcheck_free(tconv_inputcheck *c)
{
    if (!c) return;
    ic_log_clear(&c->log, 0);
    free(c->log.e);
    free(c->writer);
    free(c->sample_from);
    free(c->sample_types);
    free(c->span_from);
    free(c->launch_of);
    free(c);
}

char *tconv_inputcheck_types_text(const tconv_sample_type *t, size_t n)
{
    size_t len = sizeof(ic_no_types);
    for (size_t i = 0; i < n; i++)
        len += strlen(t[i].type ? t[i].type : "") + strlen(t[i].unit ? t[i].unit : "") + 3;
    char *s = tconv_xmalloc(len), *p = s;
    if (!n) return memcpy(s, ic_no_types, sizeof(ic_no_types));
    for (size_t i = 0; i < n; i++)
        p += sprintf(p, "%s%s/%s", i ? ", " : "", t[i].type ? t[i].type : "",
                     t[i].unit ? t[i].unit : "");
    return s;
}

static int ic_launch(const tconv_inputcheck *c, const tconv_ctx *ctx, uint32_t input)
{
    if (c->launch_of) return input < c->nlaunch_of && c->launch_of[input];
    return input < ctx->nlaunch_tol && ctx->launch_tol[input] >= 0;
}

static void ic_log(tconv_inputcheck *c, const tconv_ctx *ctx, unsigned kind, uint32_t input,
                   const char *name, const char *types, int own)
{
    tconv_inputcheck_log *l = &c->log;
    TCONV_GROW(l->e, l->cap, l->n + 1);
    l->e[l->n++] = (ic_entry){input,
                              0,
                              (unsigned char)kind,
                              (unsigned char)own,
                              (unsigned char)ic_launch(c, ctx, input),
                              name ? tconv_xstrdup(name) : NULL,
                              types ? tconv_xstrdup(types) : NULL};
}

/* For a profile writer: spans of one input and samples of another can share an output only when
 * the samples already carry what spans become (count, self time). Other writers keep spans as
 * spans: nothing to mix. */
static tconv_status ic_check_spans(tconv_inputcheck *c, tconv_ctx *ctx)
{
    if (!c->stacks || !c->span_from || !c->sample_types || c->span_input == c->sample_input)
        return TCONV_OK;
    char *spans = c->gpu ? tconv_inputcheck_types_text(tconv_gpu_sample_types, 3)
                         : tconv_inputcheck_types_text(tconv_stack_sample_types, 2);
    tconv_status st = TCONV_OK;
    if (strcmp(spans, c->sample_types) != 0) {
        tconv_error_set(ctx,
                        "input '%s' has spans, which the %s writer gets as samples of %s, and "
                        "input '%s' has stack samples of %s: one output cannot hold both "
                        "without mixing units",
                        c->span_from, c->writer, spans, c->sample_from, c->sample_types);
        if (ic_launch(c, ctx, c->sample_input))
            tconv_error_hint(ctx, "these are stacks sampled at GPU launch calls: to charge "
                                  "the trace's GPU time to them, ask the writer with -W "
                                  "value=gpu (folded) or -W gpu=attribute (pprof)");
        else
            tconv_error_hint(ctx, "convert them separately");
        st = TCONV_FATAL;
    }
    free(spans);
    return st;
}

int tconv_inputcheck_wants_sample(const tconv_inputcheck *c, uint32_t input)
{
    return !c->sample_types || input != c->sample_last;
}

int tconv_inputcheck_wants_span(const tconv_inputcheck *c)
{
    return c->stacks && !c->span_from;
}

/* The check itself, of sample types given as text (taken). */
static tconv_status ic_sample(tconv_inputcheck *c, tconv_ctx *ctx, uint32_t input, const char *name,
                              char *types)
{
    c->sample_last = input;
    if (!c->sample_types) {
        c->sample_types = types;
        c->sample_input = input;
        c->sample_from = tconv_xstrdup(name);
        return ic_check_spans(c, ctx);
    }
    tconv_status st = TCONV_OK;
    if (strcmp(types, c->sample_types) != 0) {
        tconv_error_set(ctx,
                        "inputs '%s' and '%s' have different sample types (%s; %s): one output "
                        "cannot hold both without mixing units",
                        c->sample_from, name, c->sample_types, types);
        tconv_error_hint(ctx, "convert them separately");
        st = TCONV_FATAL;
    }
    free(types);
    return st;
}

tconv_status tconv_inputcheck_sample(tconv_inputcheck *c, tconv_ctx *ctx, uint32_t input,
                                     const char *name, int own)
{
    size_t n = 0;
    const tconv_sample_type *t = tconv_sampletypes_get(ctx, &n, NULL);
    char *types = tconv_inputcheck_types_text(t, n);
    if (!c->logging) return ic_sample(c, ctx, input, name, types);
    /* A rank's inputs alone may disagree where the run's do not (an input that declares no
     * types inherits another rank's): the rank logs each input's first sample, no more. */
    ic_log(c, ctx, IC_SAMPLE, input, name, types, own);
    c->sample_last = input;
    if (!c->sample_types)
        c->sample_types = types;
    else
        free(types);
    return TCONV_OK;
}

tconv_status tconv_inputcheck_span(tconv_inputcheck *c, tconv_ctx *ctx, uint32_t input,
                                   const char *name)
{
    if (c->span_from) return TCONV_OK;
    c->span_input = input;
    c->span_from = tconv_xstrdup(name);
    if (!c->logging) return ic_check_spans(c, ctx);
    ic_log(c, ctx, IC_SPAN, input, name, NULL, 0);
    return TCONV_OK;
}

void tconv_inputcheck_save(const tconv_inputcheck *c, tconv_inputcheck_mark *m)
{
    m->had_samples = c->sample_types != NULL;
    m->had_spans = c->span_from != NULL;
    m->sample_last = c->sample_last;
    m->nlog = c->log.n;
}

void tconv_inputcheck_restore(tconv_inputcheck *c, const tconv_inputcheck_mark *m)
{
    c->sample_last = m->sample_last;
    if (!m->had_samples) {
        free(c->sample_types);
        free(c->sample_from);
        c->sample_types = c->sample_from = NULL;
    }
    if (!m->had_spans) {
        free(c->span_from);
        c->span_from = NULL;
    }
    ic_log_clear(&c->log, m->nlog);
}

/* ---- MPI -------------------------------------------------------------------------------- */

void tconv_inputcheck_log_start(tconv_inputcheck *c)
{
    c->logging = 1;
}

void tconv_inputcheck_input_end(tconv_inputcheck *c, tconv_ctx *ctx, uint32_t input)
{
    if (!c->logging) return;
    size_t n = 0;
    const tconv_sample_type *t = tconv_sampletypes_get(ctx, &n, NULL);
    int own = n && ctx->stypes_input == input;
    char *types = own ? tconv_inputcheck_types_text(t, n) : NULL;
    ic_log(c, ctx, IC_END, input, NULL, types, own);
    free(types);
}

void tconv_inputcheck_log_encode(const tconv_inputcheck *c, const uint32_t *pos, size_t npos,
                                 tconv_wire *w)
{
    const tconv_inputcheck_log *l = &c->log;
    tconv_wire_u64(w, l->n);
    for (size_t i = 0; i < l->n; i++) {
        const ic_entry *e = &l->e[i];
        tconv_wire_u64(w, e->input < npos ? pos[e->input] : UINT64_MAX);
        tconv_wire_u64(w, (uint64_t)e->kind | (uint64_t)e->own << 8 | (uint64_t)e->launch << 9);
        tconv_wire_str(w, e->name);
        tconv_wire_str(w, e->types);
    }
}

tconv_inputcheck_log *tconv_inputcheck_log_new(void)
{
    return tconv_xcalloc(1, sizeof(tconv_inputcheck_log));
}

void tconv_inputcheck_log_decode(tconv_inputcheck_log *l, tconv_wire *w)
{
    uint64_t n = tconv_wire_get_u64(w);
    for (uint64_t i = 0; i < n && !w->bad; i++) {
        uint64_t input = tconv_wire_get_u64(w), bits = tconv_wire_get_u64(w);
        char *name = tconv_wire_get_str(w, NULL), *types = tconv_wire_get_str(w, NULL);
        if (w->bad || (bits & 0xff) > IC_END || input > UINT32_MAX) {
            free(name);
            free(types);
            w->bad = 1;
            break;
        }
        TCONV_GROW(l->e, l->cap, l->n + 1);
        l->e[l->n] = (ic_entry){input,
                                l->n,
                                (unsigned char)(bits & 0xff),
                                (unsigned char)(bits >> 8 & 1),
                                (unsigned char)(bits >> 9 & 1),
                                name,
                                types};
        l->n++;
    }
}

void tconv_inputcheck_log_free(tconv_inputcheck_log *l)
{
    if (!l) return;
    ic_log_clear(l, 0);
    free(l->e);
    free(l);
}

static int ic_entry_cmp(const void *a, const void *b)
{
    const ic_entry *x = a, *y = b;
    if (x->input != y->input) return x->input < y->input ? -1 : 1;
    return x->seq < y->seq ? -1 : x->seq > y->seq;
}

tconv_status tconv_inputcheck_replay(const tconv_inputcheck *c, tconv_ctx *ctx,
                                     tconv_inputcheck_log *l, uint64_t limit, uint64_t *at)
{
    /* An input is read by one rank, which logs it in order: sorting by position, then by the
     * order logged, puts every input's entries where one process makes them. */
    qsort(l->e, l->n, sizeof(*l->e), ic_entry_cmp);
    tconv_inputcheck *r = tconv_inputcheck_new(c->writer, c->stacks, c->gpu);
    size_t npos = 0;
    for (size_t i = 0; i < l->n; i++)
        if (l->e[i].input + 1 > npos) npos = (size_t)l->e[i].input + 1;
    r->launch_of = tconv_xcalloc(npos ? npos : 1, 1);
    r->nlaunch_of = npos;
    /* What an input that declares no sample types of its own inherits: the last declared. */
    char *carried = NULL;
    tconv_status st = TCONV_OK;
    for (size_t i = 0; i < l->n && st == TCONV_OK; i++) {
        ic_entry *e = &l->e[i];
        if (e->input > limit) break;
        uint32_t input = (uint32_t)e->input;
        r->launch_of[input] = e->launch;
        const char *name = e->name ? e->name : "<input>";
        if (e->kind == IC_SAMPLE) {
            const char *types = e->own && e->types ? e->types : carried ? carried : ic_no_types;
            if (tconv_inputcheck_wants_sample(r, input))
                st = ic_sample(r, ctx, input, name, tconv_xstrdup(types));
        } else if (e->kind == IC_SPAN) {
            if (tconv_inputcheck_wants_span(r)) st = tconv_inputcheck_span(r, ctx, input, name);
        } else if (e->own && e->types) {
            free(carried);
            carried = tconv_xstrdup(e->types);
        }
        if (st != TCONV_OK) *at = e->input;
    }
    free(carried);
    tconv_inputcheck_free(r);
    return st;
}
