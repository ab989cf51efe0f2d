/* The event array read in parts on other threads (tconv/split.h): the driver's side. A part's
 * reader is a reader of its own (its own context, lexer, caches and track flags) put inside the
 * event array by chrome_parse_prime; it maps every element that needs nothing of the elements
 * before it, and hands the others to the calling thread (chrome_emit.c, chrome_hand_over): a
 * track's first kind, an async track's name, a TensorFlow host's metadata, [memory] counters (a
 * running sum), samples (sample types, stackFrames). So the calling thread's reader state is
 * always what a read of the whole input has at that point: what the parts change is only the
 * context, which the core's replay keeps. */
#include <locale.h>
#include <stdlib.h>
#include <string.h>

#include "chrome_reader.h"

/* What a part's reader takes from the calling thread's, which does not change it meanwhile. */
typedef struct chrome_split_snap {
    const char *input_name;
    int strict, args_wanted, form;
    tconv_str host;
} chrome_split_snap;

/* A part's reader, with the "C" numeric locale its thread reads numbers in (strtod) while it
 * lives: made, used and freed on one worker thread. */
typedef struct chrome_part {
    chrome_reader r; /* first: the state the core hands back is the reader */
    locale_t cloc, old;
} chrome_part;

static void chrome_part_free(void *state);

static void *chrome_part_new(void *user, tconv_ctx *ctx, tconv_sink *sink)
{
    const chrome_split_snap *snap = user;
    chrome_part *p = calloc(1, sizeof *p);
    if (!p) return NULL;
    p->cloc = newlocale(LC_NUMERIC_MASK, "C", (locale_t)0);
    p->old = p->cloc ? uselocale(p->cloc) : (locale_t)0;
    chrome_reader *r = &p->r;
    r->ctx = ctx;
    r->sink = sink;
    r->input_name = snap->input_name;
    r->strict = snap->strict;
    r->args_wanted = snap->args_wanted;
    r->form = snap->form;
    /* Nonzero is all a part needs: a track's host metadata is the calling thread's. */
    r->host = snap->host;
    r->part = 1;
    for (unsigned i = 0; i < CHROME_TRACK_CACHE; i++)
        r->tcache[i].track = UINT32_MAX;
    r->flow_catlen = SIZE_MAX;
    if (chrome_parse_init(r)) {
        chrome_part_free(p);
        return NULL;
    }
    return p;
}

static void chrome_part_free(void *state)
{
    chrome_part *p = state;
    chrome_parse_free(&p->r);
    chrome_emit_free(&p->r);
    chrome_frames_free(&p->r);
    if (p->cloc) {
        uselocale(p->old);
        freelocale(p->cloc);
    }
    free(p);
}

static int chrome_blank(unsigned char c)
{
    return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\v' || c == '\f';
}

/* Elements of the event array, with a part's reader or the calling thread's. A part's bytes end
 * with the ',' after its last element, which completes a number there. The bytes were whole
 * elements when the walk is back in the event array and their last token ends at the last
 * element's last byte. */
static tconv_status chrome_part_read(void *state, const unsigned char *buf, size_t len,
                                     uint64_t offset, int expect_value)
{
    chrome_reader *r = state;
    if (chrome_parse_prime(r, offset, expect_value)) {
        tconv_error_set(r->ctx, "chrome: out of memory");
        return TCONV_FATAL;
    }
    if (chrome_parse_chunk(r, buf, len) == TCONV_FATAL) return TCONV_FATAL;
    /* The lexer may still hold whole tokens: fed a piece at a time (the fast path's turns), it
     * lexes a long token again only when its carry has doubled. Its end lexes them all, and
     * then finds the array open, which here is what is expected. */
    if (tconv_json_end(r->lex)) {
        const tconv_json_error *e = tconv_json_error_get(r->lex);
        if (e->code != TCONV_JSON_ERR_TRUNCATED) {
            chrome_error_json(r, e);
            return TCONV_FATAL;
        }
    }
    if (r->failed) return TCONV_FATAL;
    size_t end = len;
    while (end && chrome_blank(buf[end - 1]))
        end--;
    if (end && buf[end - 1] == ',') end--;
    while (end && chrome_blank(buf[end - 1]))
        end--;
    if (r->lv[r->nlv - 1] != CHROME_LV_EVENTS || r->cap_depth || r->last_tok_end != offset + end) {
        tconv_error_at(r->ctx, r->input_name, offset,
                       "internal: a part of the event array does not end between two events");
        return TCONV_FATAL;
    }
    return r->failed ? TCONV_FATAL : TCONV_OK;
}

tconv_status chrome_split_read(chrome_reader *r, const unsigned char *have, size_t nhave)
{
    chrome_split_snap snap = {r->input_name, r->strict, r->args_wanted, r->form, r->host};
    tconv_split_desc d = {
        .struct_size = sizeof(d),
        .offset = r->split_at,
        .have = have,
        .nhave = nhave,
        .depth = r->form == '{' ? 2 : 1,
        .part_new = chrome_part_new,
        .user = &snap,
        .part_read = chrome_part_read,
        .part_free = chrome_part_free,
        .main = r,
    };
    tconv_split_resume res = {.struct_size = sizeof(res)};
    if (tconv_split_array(r->ctx, r->in, r->sink, &d, &res) == TCONV_FATAL) {
        r->failed = 1;
        return TCONV_FATAL;
    }
    if (chrome_parse_prime(r, res.offset, res.after_bracket)) {
        tconv_error_set(r->ctx, "chrome: out of memory");
        return TCONV_FATAL;
    }
    return TCONV_OK;
}
