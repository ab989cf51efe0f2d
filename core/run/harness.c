/* The plugin kit's harness (include/tconv/harness.h): a reader or a writer in a test's own
 * process, through the pipeline a conversion uses. It is a host of the pipeline as the run
 * (core/run/run.c) is, without what a run adds around it (plugin search, detection, jobs, the
 * user's output): the same plan, push checks, stages and writer calls, so a plugin that passes its
 * harness tests behaves the same under tconv.
 *
 * Inputs and outputs are files in a temporary folder of the harness's own: the input layer
 * (gzip included) and the output layer (a temporary name, committed at the finish) are the
 * conversion's. Kept events live in one array with their args, frames and values in an arena. */
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "run.h"
#include "tconv/harness.h"

struct tconv_harness {
    tconv_ctx *ctx;
    char *dir;       /* the temporary folder */
    uint32_t inputs; /* read so far */
    unsigned outputs;
    /* the events kept: a collecting writer's sink, created at the first read without a writer */
    tconv_plan keep_plan;
    tconv_sink *keep;
    tconv_event *ev;
    size_t nev, cap;
    tconv_arena data;
    /* the writer open, and what it wrote */
    const tconv_writer_class *wc;
    void *ws;
    tconv_options wopts;
    tconv_plan plan;
    tconv_output *out;
    tconv_sink *sink;
    char *out_path;
    unsigned char *bytes;
    size_t nbytes;
};

TCONV_API tconv_harness *tconv_harness_new(void)
{
    const char *tmp = getenv("TMPDIR");
    char templ[4096];
    snprintf(templ, sizeof(templ), "%s/tconv-harness-XXXXXX", tmp && *tmp ? tmp : "/tmp");
    if (!mkdtemp(templ)) return NULL;
    tconv_harness *h = tconv_xcalloc(1, sizeof(*h));
    h->dir = tconv_xstrdup(templ);
    h->ctx = tconv_ctx_new();
    return h;
}

TCONV_API tconv_ctx *tconv_harness_ctx(tconv_harness *h)
{
    return h->ctx;
}

static char *harness_path(const tconv_harness *h, const char *what, unsigned n)
{
    size_t cap = strlen(h->dir) + strlen(what) + 32;
    char *p = tconv_xmalloc(cap);
    snprintf(p, cap, "%s/%s.%u", h->dir, what, n);
    return p;
}

/* ---- kept events ------------------------------------------------------------------------- */

static tconv_status harness_keep(void *state, const tconv_event *e)
{
    tconv_harness *h = state;
    TCONV_GROW(h->ev, h->cap, h->nev + 1);
    tconv_event *c = &h->ev[h->nev++];
    *c = *e;
    c->args = e->nargs ? tconv_arena_dup(&h->data, e->args, e->nargs * sizeof(*e->args)) : NULL;
    c->frames =
        e->nframes ? tconv_arena_dup(&h->data, e->frames, e->nframes * sizeof(*e->frames)) : NULL;
    c->values =
        e->nvalues ? tconv_arena_dup(&h->data, e->values, e->nvalues * sizeof(*e->values)) : NULL;
    return TCONV_OK;
}

static tconv_status harness_keep_open(tconv_ctx *ctx, tconv_output *out, const tconv_options *o,
                                      void **state)
{
    (void)ctx, (void)out, (void)o, (void)state;
    return TCONV_OK;
}

static void harness_keep_destroy(void *state)
{
    (void)state;
}

/* A writer of every kind, as events come: what a reader's events are, checked. */
static const tconv_writer_class harness_keeper = {
    .struct_size = sizeof(tconv_writer_class),
    .name = "harness",
    .accepts = TCONV_KINDS_ALL,
    .open = harness_keep_open,
    .event = harness_keep,
    .destroy = harness_keep_destroy,
};

static tconv_sink *harness_keep_sink(tconv_harness *h)
{
    if (h->keep) return h->keep;
    tconv_plan_init(&h->keep_plan);
    tconv_plan_set_writer(&h->keep_plan, &harness_keeper);
    tconv_plan_opened(&h->keep_plan, h->ctx);
    h->keep = tconv_sink_new(h->ctx, &h->keep_plan, &harness_keeper, h);
    return h->keep;
}

TCONV_API void tconv_harness_input(tconv_harness *h, uint32_t input)
{
    tconv_ctx_set_input(h->ctx, input);
    h->inputs = input;
}

TCONV_API const tconv_event *tconv_harness_events(const tconv_harness *h, size_t *n)
{
    *n = h->nev;
    return h->ev;
}

/* ---- reading ----------------------------------------------------------------------------- */

/* Options given as "key=value" against descriptors desc: -1 with a usage error on ctx. */
static int harness_options(tconv_ctx *ctx, const char *what, const char *name,
                           const tconv_option_desc *desc, const char *const *kv, size_t n,
                           tconv_options *o)
{
    char err[1024];
    if (tconv_options_parse(o, desc, (char *const *)kv, n, err, sizeof(err)) == 0) return 0;
    tconv_error_usage(ctx, "%s %s: %s", what, name, err);
    return -1;
}

static tconv_status harness_read_input(tconv_harness *h, const tconv_reader_class *rc,
                                       const char *path, const char *name,
                                       const char *const *options, size_t noptions)
{
    tconv_ctx *ctx = h->ctx;
    tconv_error_clear(ctx);
    uint32_t index = h->inputs++;
    tconv_ctx_set_input(ctx, index);
    tconv_options ro = {0};
    if (harness_options(ctx, "reader", rc->name, rc->options, options, noptions, &ro) < 0) {
        tconv_options_free(&ro);
        return TCONV_FATAL;
    }
    tconv_input *in = tconv_input_open(ctx, path, index, 0);
    if (!in) {
        tconv_options_free(&ro);
        return TCONV_FATAL;
    }
    if (name) tconv_input_set_name(in, name);
    tconv_ctx_set_input_name(ctx, tconv_input_name(in));
    tconv_inputinfo_set_name(ctx, index, tconv_input_name(in));
    tconv_sink *sink = h->sink ? h->sink : harness_keep_sink(h);
    tconv_status st = rc->read(ctx, in, &ro, sink);
    if (st != TCONV_OK && !tconv_error_pending(ctx))
        tconv_error_set(ctx, "%s: the %s reader failed without saying why", tconv_input_name(in),
                        rc->name);
    /* As a conversion ends an input: lanes, and the early flush where the plan has one. */
    if (st == TCONV_OK) st = tconv_sink_input_done(sink);
    tconv_input_close(in);
    tconv_options_free(&ro);
    return st == TCONV_OK ? TCONV_OK : TCONV_FATAL;
}

TCONV_API tconv_status tconv_harness_read(tconv_harness *h, const tconv_reader_class *rc,
                                          const char *name, const void *data, size_t len,
                                          const char *const *options, size_t noptions)
{
    char *path = harness_path(h, "input", h->inputs);
    FILE *f = fopen(path, "wb");
    int ok = f && fwrite(data, 1, len, f) == len;
    if (f && fclose(f) != 0) ok = 0;
    tconv_status st = TCONV_FATAL;
    if (ok)
        st = harness_read_input(h, rc, path, name ? name : "<input>", options, noptions);
    else
        tconv_error_set(h->ctx, "harness: cannot write the input to '%s'", path);
    unlink(path);
    free(path);
    return st;
}

TCONV_API tconv_status tconv_harness_read_file(tconv_harness *h, const tconv_reader_class *rc,
                                               const char *path, const char *const *options,
                                               size_t noptions)
{
    return harness_read_input(h, rc, path, NULL, options, noptions);
}

/* ---- writing ----------------------------------------------------------------------------- */

static void harness_close(tconv_harness *h)
{
    tconv_sink_free(h->sink);
    h->sink = NULL;
    if (h->wc) h->wc->destroy(h->ws);
    h->wc = NULL;
    h->ws = NULL;
    tconv_output_close(h->out); /* removes what was not committed */
    h->out = NULL;
    tconv_options_free(&h->wopts);
    memset(&h->wopts, 0, sizeof(h->wopts));
    tconv_plan_free(&h->plan);
}

/* What the last writer made: removed, with its bytes. */
static void harness_forget_output(tconv_harness *h)
{
    if (h->out_path) tconv_outsafe_rm_tree(h->out_path);
    free(h->out_path);
    h->out_path = NULL;
    free(h->bytes);
    h->bytes = NULL;
    h->nbytes = 0;
}

TCONV_API tconv_sink *tconv_harness_open(tconv_harness *h, const tconv_writer_class *wc,
                                         const char *const *options, size_t noptions)
{
    tconv_ctx *ctx = h->ctx;
    tconv_error_clear(ctx);
    harness_close(h);
    harness_forget_output(h);
    if (harness_options(ctx, "writer", wc->name, wc->options, options, noptions, &h->wopts) < 0)
        return NULL;
    tconv_plan_init(&h->plan);
    tconv_plan_set_writer(&h->plan, wc);
    tconv_plan_needs(&h->plan, ctx, &h->wopts, 0, 0);
    h->out_path = harness_path(h, "output", h->outputs++);
    tconv_output_opts oo = {(wc->flags & TCONV_WRITER_DIRECTORY) ? TCONV_OUT_DIR : TCONV_OUT_STREAM,
                            0, 0};
    h->out = tconv_output_open(ctx, h->out_path, &oo);
    if (!h->out) return NULL;
    if (wc->open(ctx, h->out, &h->wopts, &h->ws) != TCONV_OK) {
        if (!tconv_error_pending(ctx))
            tconv_error_set(ctx, "the %s writer failed to start", wc->name);
        tconv_output_close(h->out);
        h->out = NULL;
        return NULL;
    }
    h->wc = wc;
    tconv_plan_opened(&h->plan, ctx);
    h->sink = tconv_sink_new(ctx, &h->plan, wc, h->ws);
    return h->sink;
}

static void harness_slurp(tconv_harness *h)
{
    FILE *f = fopen(h->out_path, "rb");
    if (!f) return;
    size_t cap = 0;
    for (;;) {
        TCONV_GROW(h->bytes, cap, h->nbytes + 65536);
        size_t k = fread(h->bytes + h->nbytes, 1, cap - h->nbytes, f);
        h->nbytes += k;
        if (k == 0) break;
    }
    fclose(f);
}

TCONV_API tconv_status tconv_harness_finish(tconv_harness *h)
{
    tconv_ctx *ctx = h->ctx;
    if (!h->sink) {
        tconv_error_set(ctx, "harness: no writer is open");
        return TCONV_FATAL;
    }
    tconv_status st = tconv_sink_finish(h->sink);
    if (st != TCONV_OK && !tconv_error_pending(ctx))
        tconv_error_set(ctx, "the %s writer failed without saying why", h->wc->name);
    if (st == TCONV_OK && tconv_output_commit(h->out) != 0) st = TCONV_FATAL;
    int dir = (h->wc->flags & TCONV_WRITER_DIRECTORY) != 0;
    harness_close(h);
    if (st == TCONV_OK && !dir) harness_slurp(h);
    return st == TCONV_OK ? TCONV_OK : TCONV_FATAL;
}

TCONV_API const unsigned char *tconv_harness_output(const tconv_harness *h, size_t *len)
{
    *len = h->nbytes;
    return h->bytes;
}

TCONV_API const char *tconv_harness_output_path(const tconv_harness *h)
{
    return h->out_path;
}

TCONV_API void tconv_harness_free(tconv_harness *h)
{
    if (!h) return;
    harness_close(h);
    harness_forget_output(h);
    tconv_sink_free(h->keep);
    if (h->keep) tconv_plan_free(&h->keep_plan);
    free(h->ev);
    tconv_arena_free(&h->data);
    tconv_ctx_free(h->ctx);
    rmdir(h->dir);
    free(h->dir);
    free(h);
}
