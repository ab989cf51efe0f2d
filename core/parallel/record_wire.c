/* A recording as bytes, and back, in the wire codec (core/util/wire.h). The receiving side rebuilds
 * the worker's context as far as the replay reads it (string and track tables, warnings, the
 * error), so the replay (core/parallel/record.c) cannot tell a recording that came over the wire
 * from one made on a thread of its own process. */
#include <string.h>

#include "record_impl.h"
#include "wire.h"

/* An event's args, frames and values, in one block of the arena (core/parallel/record.c). */
static size_t rec_payload_size(const rec_ev *e)
{
    return e->nargs * sizeof(tconv_arg) + e->nframes * sizeof(tconv_frame) +
           e->nvalues * sizeof(int64_t);
}

void tconv_rec_encode(const tconv_rec *rec, tconv_wire *w)
{
    const tconv_ctx *c = rec->w;
    tconv_wire_u64(w, (uint64_t)rec->status);
    tconv_wire_u64(w, c->strings.n);
    for (size_t i = 1; i < c->strings.n; i++) /* id 0 is "" in every context */
        tconv_wire_bytes(w, c->strings.str[i], c->strings.len[i]);
    tconv_wire_u64(w, c->tracks.n);
    for (size_t i = 0; i < c->tracks.n; i++) {
        tconv_wire_u64(w, c->tracks.tracks[i].pid);
        tconv_wire_u64(w, c->tracks.tracks[i].tid);
    }
    tconv_wire_u64(w, c->nwarnings);
    for (size_t i = 0; i < c->nwarnings; i++) {
        tconv_wire_str(w, c->warnings[i].kind);
        tconv_wire_str(w, c->warnings[i].first);
    }
    tconv_wire_u64(w, c->nerrors);
    for (size_t i = 0; i < c->nerrors; i++)
        tconv_wire_str(w, c->errors[i]);
    tconv_wire_u64(w, (uint64_t)c->error_usage);
    tconv_wire_str(w, c->error_hint);
    tconv_wire_u64(w, rec->nops);
    for (size_t i = 0; i < rec->nops; i++) {
        const rec_op *op = &rec->ops[i];
        tconv_wire_u64(w, op->type);
        tconv_wire_u64(w, op->a);
        tconv_wire_u64(w, op->at);
        tconv_wire_u64(w, (uint64_t)op->b);
        if (op->type == REC_STYPES) {
            const tconv_stypes_saved *sv = op->p;
            tconv_wire_u64(w, sv->n);
            tconv_wire_u64(w, sv->def);
            for (size_t k = 0; k < sv->n; k++) {
                tconv_wire_str(w, sv->types[k].type);
                tconv_wire_str(w, sv->types[k].unit);
            }
        } else if (op->type == REC_NOTICE) {
            tconv_wire_str(w, op->p);
        }
    }
    tconv_wire_u64(w, rec->nev);
    for (size_t i = 0; i < rec->nev; i++) {
        rec_ev e = rec->ev[i];
        e.payload = NULL;
        tconv_wire_put(w, &e, sizeof(e));
        tconv_wire_put(w, rec->ev[i].payload, rec_payload_size(&e));
    }
    const tconv_partial *p = rec->part;
    tconv_wire_u64(w, p != NULL);
    if (!p) return;
    /* integers and flags as they are in memory: both ends are the same build */
    tconv_partial flat = *p;
    memset(&flat.warnings, 0, sizeof(flat.warnings));
    tconv_wire_put(w, &flat, sizeof(flat));
    tconv_wire_u64(w, p->warnings.n);
    for (size_t i = 0; i < p->warnings.n; i++) {
        const tconv_warning *x = &p->warnings.w[i];
        tconv_wire_str(w, x->kind);
        tconv_wire_str(w, x->first);
        tconv_wire_u64(w, x->count);
        tconv_wire_u64(w, ((uint64_t)x->track << 32) | x->track_at);
    }
}

static tconv_partial *wire_get_partial(tconv_wire *w, uint64_t nev)
{
    if (!tconv_wire_get_u64(w) || w->bad) return NULL;
    tconv_partial *p = tconv_xcalloc(1, sizeof(*p));
    tconv_wire_get(w, p, sizeof(*p));
    memset(&p->warnings, 0, sizeof(p->warnings));
    if (p->sums_at > nev) w->bad = 1;
    size_t n = tconv_wire_get_count(w, 32);
    p->warnings.w = n ? tconv_xcalloc(n, sizeof(*p->warnings.w)) : NULL;
    p->warnings.n = p->warnings.cap = n;
    for (size_t i = 0; i < n; i++) {
        tconv_warning *x = &p->warnings.w[i];
        x->kind = tconv_wire_get_str(w, NULL);
        x->first = tconv_wire_get_str(w, NULL);
        x->count = tconv_wire_get_u64(w);
        uint64_t t = tconv_wire_get_u64(w);
        x->track = (uint32_t)(t >> 32);
        x->track_at = (uint32_t)t;
        if (!x->kind || !x->first) w->bad = 1;
    }
    return p;
}

tconv_rec *tconv_rec_decode(tconv_wire *w, tconv_ctx **wctx)
{
    tconv_ctx *c = tconv_ctx_new();
    tconv_rec *rec = tconv_xcalloc(1, sizeof(*rec));
    rec->next_hold = UINT64_MAX; /* never recorded into */
    rec->w = c;
    rec->status = (tconv_status)tconv_wire_get_u64(w);
    size_t nstr = tconv_wire_get_count(w, 8);
    for (size_t i = 1; i < nstr && !w->bad; i++) {
        size_t len;
        char *s = tconv_wire_get_str(w, &len);
        /* The worker's strings are distinct: each takes the next id, as it did there. */
        if (!s || tconv_string_intern(c, s, len) != i) w->bad = 1;
        free(s);
    }
    size_t ntrack = tconv_wire_get_count(w, 16);
    c->tracks.tracks = ntrack ? tconv_xcalloc(ntrack, sizeof(*c->tracks.tracks)) : NULL;
    c->tracks.n = c->tracks.cap = ntrack;
    for (size_t i = 0; i < ntrack; i++) {
        c->tracks.tracks[i].pid = (tconv_str)tconv_wire_get_u64(w);
        c->tracks.tracks[i].tid = (tconv_str)tconv_wire_get_u64(w);
        if (c->tracks.tracks[i].pid >= nstr || c->tracks.tracks[i].tid >= nstr) w->bad = 1;
    }
    size_t nwarn = tconv_wire_get_count(w, 16);
    c->warnings = nwarn ? tconv_xcalloc(nwarn, sizeof(*c->warnings)) : NULL;
    c->nwarnings = c->capwarnings = nwarn;
    for (size_t i = 0; i < nwarn; i++) {
        c->warnings[i].kind = tconv_wire_get_str(w, NULL);
        c->warnings[i].first = tconv_wire_get_str(w, NULL);
        c->warnings[i].track_at = UINT32_MAX;
        if (!c->warnings[i].kind || !c->warnings[i].first) w->bad = 1;
    }
    size_t nerr = tconv_wire_get_count(w, 8);
    c->errors = nerr ? tconv_xcalloc(nerr, sizeof(*c->errors)) : NULL;
    c->nerrors = nerr;
    for (size_t i = 0; i < nerr; i++)
        if (!(c->errors[i] = tconv_wire_get_str(w, NULL))) w->bad = 1;
    c->error_usage = (int)tconv_wire_get_u64(w);
    c->error_hint = tconv_wire_get_str(w, NULL);
    size_t nops = tconv_wire_get_count(w, 32);
    rec->ops = nops ? tconv_xcalloc(nops, sizeof(*rec->ops)) : NULL;
    rec->nops = rec->capops = nops;
    for (size_t i = 0; i < nops && !w->bad; i++) {
        rec_op *op = &rec->ops[i];
        op->type = (uint32_t)tconv_wire_get_u64(w);
        op->a = (uint32_t)tconv_wire_get_u64(w);
        op->at = tconv_wire_get_u64(w);
        op->b = (int64_t)tconv_wire_get_u64(w);
        if (op->type == REC_STYPES) {
            tconv_stypes_saved *sv = tconv_xcalloc(1, sizeof(*sv));
            op->p = sv;
            sv->n = tconv_wire_get_count(w, 16);
            sv->def = (size_t)tconv_wire_get_u64(w);
            sv->types = sv->n ? tconv_xcalloc(sv->n, sizeof(*sv->types)) : NULL;
            for (size_t k = 0; k < sv->n; k++) {
                sv->types[k].type = tconv_wire_get_str(w, NULL);
                sv->types[k].unit = tconv_wire_get_str(w, NULL);
                if (!sv->types[k].type || !sv->types[k].unit) w->bad = 1;
            }
        } else if (op->type == REC_NOTICE) {
            if (!(op->p = tconv_wire_get_str(w, NULL))) w->bad = 1;
        }
        /* What the replay indexes with must be in range. */
        if ((op->type == REC_SYNC && (op->a > nstr || (uint64_t)op->b > ntrack)) ||
            (op->type == REC_WARNING && op->a >= nwarn) ||
            ((op->type == REC_KIND || op->type == REC_LANE) && op->a >= ntrack) ||
            (i && op->at < rec->ops[i - 1].at) || op->type < REC_SYNC || op->type > REC_LANE)
            w->bad = 1;
    }
    size_t nev = tconv_wire_get_count(w, sizeof(rec_ev));
    tconv_rec_ev_reserve(rec, nev);
    rec->nev = nev;
    for (size_t i = 0; i < nev && !w->bad; i++) {
        rec_ev *e = &rec->ev[i];
        tconv_wire_get(w, e, sizeof(*e));
        e->payload = tconv_wire_get_dup(w, &rec->data, rec_payload_size(e));
    }
    if (nops && rec->ops[nops - 1].at > nev) w->bad = 1;
    rec->part = wire_get_partial(w, nev);
    rec->nstr = (uint32_t)nstr;
    rec->ntrack = (uint32_t)ntrack;
    if (w->bad || w->pos != w->len) {
        tconv_rec_buf_free(tconv_rec_free(rec));
        tconv_ctx_free(c);
        *wctx = NULL;
        return NULL;
    }
    *wctx = c;
    return rec;
}
