/* Track events as tconv events.
 *
 * Typed events: SLICE_BEGIN/SLICE_END are spans on their track, INSTANT instants, COUNTER a
 * value of the counter track's series (on the track the counter track sits under). Legacy
 * events (no type, a Chrome phase in legacy_event) map as the Chrome reader maps the phase: B E
 * X I i C M, async b e n S T F p on a track per id, flows s t f. Flow ids are flow events at the
 * event's time on its track: an id's first use starts the arrow, later ones step, a
 * terminating id ends it.
 *
 * Debug annotations become args with their types; dicts and arrays become JSON args (the text
 * pf_json.c gives). What tconv writes beyond Perfetto's fields is read back here: the legacy
 * phase and id of an async span or instant, an instant's scope, an instant that stands for a
 * flow point alone (legacy phase s, t or f), a repaired span's measured length, metadata
 * events (legacy phase M) with their value and key, and the records of track identities.
 *
 * An event on a track whose descriptor has not come yet waits (a copy of its bytes) until it
 * comes; some producers write descriptors after the first events. */
#include "pf_reader.h"

#include <inttypes.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pf_fields.h"
#include "pf_json.h"

#define PF_MAX_FLOWS 16
#define PF_MAX_ANNOTS 256
#define PF_MAX_EXTRA 64

void pf_r_identity(pf_reader *r, pf_rtrack *t, int counter, const tconv_arg *args, size_t n);

typedef struct pf_rte {
    int type;
    int has_uuid;
    uint64_t uuid;
    tconv_str name;
    tconv_str cat;
    int has_cat;
    size_t nannots;
    int has_ivalue, has_dvalue;
    int64_t ivalue;
    double dvalue;
    size_t nflows, nterms;
    size_t nxuuid, nxduuid, nxval, nxdval;
    int has_abs_us, has_delta_us;
    int64_t abs_us, delta_us;
    tconv_str src_file, src_function;
    uint32_t src_line;
    int has_src;
    /* legacy_event */
    int phase;
    int64_t dur_us;
    int has_dur;
    uint64_t id;
    tconv_str id_scope;
    int id_kind; /* 'u' unscoped, 'l' local, 'g' global */
    uint64_t bind_id;
    int has_bind, bind_enclosing;
    int flow_dir;
    int scope;
    int has_pid_override, has_tid_override;
    int32_t pid_override, tid_override;
    /* ---- not cleared per event: filled up to the counts above ---- */
    pf_field annots[PF_MAX_ANNOTS];
    uint64_t flows[PF_MAX_FLOWS], terms[PF_MAX_FLOWS];
    uint64_t xuuid[PF_MAX_EXTRA], xduuid[PF_MAX_EXTRA];
    int64_t xval[PF_MAX_EXTRA];
    double xdval[PF_MAX_EXTRA];
} pf_rte;

static const char *pf_r_iid_string(void *user, uint32_t table, uint64_t iid, size_t *len)
{
    const pf_rseq *s = ((void **)user)[1];
    const pf_reader *r = ((void **)user)[0];
    uint32_t v;
    if (!pf_r_lookup(s, iid, table == PF_ID_ANNOT_NAMES ? PF_T_ANNOT : PF_T_SVAL, &v)) return NULL;
    *len = tconv_string_length(r->ctx, v);
    return tconv_string_get(r->ctx, v);
}

/* A repeated integer field, packed or not, into arr (at most max). fixed: 8 for fixed64. */
static int pf_r_repeated(const pf_field *f, unsigned fixed, uint64_t *arr, size_t *n, size_t max)
{
    if (f->wt != PF_LEN) {
        if ((fixed && f->wt != PF_I64) || (!fixed && f->wt != PF_VARINT)) return 0;
        if (*n < max) arr[(*n)++] = f->v;
        return 0;
    }
    pf_cur c = pf_cur_make(f->data, f->len);
    uint64_t v;
    int rc;
    while ((rc = pf_packed_next(&c, fixed, &v)) > 0)
        if (*n < max) arr[(*n)++] = v;
    return rc < 0 ? -1 : 0;
}

static int pf_r_legacy(pf_reader *r, pf_rseq *s, const pf_field *lf, pf_rte *e)
{
    pf_cur c = pf_cur_make(lf->data, lf->len);
    pf_field f;
    int rc;
    while ((rc = pf_next(&c, &f)) > 0) {
        if (f.wt == PF_LEN) {
            if (f.num == PF_LE_ID_SCOPE) e->id_scope = pf_r_intern(r, f.data, f.len);
            continue;
        }
        if (f.wt != PF_VARINT) continue;
        switch (f.num) {
        case PF_LE_NAME_IID: {
            uint32_t v;
            if (!e->name && pf_r_lookup(s, f.v, PF_T_NAME, &v)) e->name = v;
            break;
        }
        case PF_LE_PHASE:
            e->phase = (int)f.v;
            break;
        case PF_LE_DURATION_US:
            e->dur_us = (int64_t)f.v, e->has_dur = 1;
            break;
        case PF_LE_UNSCOPED_ID:
            e->id = f.v, e->id_kind = 'u';
            break;
        case PF_LE_LOCAL_ID:
            e->id = f.v, e->id_kind = 'l';
            break;
        case PF_LE_GLOBAL_ID:
            e->id = f.v, e->id_kind = 'g';
            break;
        case PF_LE_BIND_ID:
            e->bind_id = f.v, e->has_bind = 1;
            break;
        case PF_LE_BIND_TO_ENCLOSING:
            e->bind_enclosing = f.v ? 1 : -1;
            break;
        case PF_LE_FLOW_DIRECTION:
            e->flow_dir = (int)f.v;
            break;
        case PF_LE_INSTANT_SCOPE:
            e->scope = (int)f.v;
            break;
        case PF_LE_PID_OVERRIDE:
            e->pid_override = (int32_t)f.v, e->has_pid_override = 1;
            break;
        case PF_LE_TID_OVERRIDE:
            e->tid_override = (int32_t)f.v, e->has_tid_override = 1;
            break;
        default:
            break;
        }
    }
    return rc < 0 ? -1 : 0;
}

static int pf_r_parse(pf_reader *r, pf_rseq *s, const uint8_t *msg, size_t len, pf_rte *e)
{
    pf_cur c = pf_cur_make(msg, len);
    pf_field f;
    int rc;
    uint64_t cats[8];
    size_t ncats = 0;
    tconv_str catstr[8];
    size_t ncatstr = 0;
    while ((rc = pf_next(&c, &f)) > 0) {
        switch (f.num) {
        case PF_TE_TYPE:
            if (f.wt == PF_VARINT) e->type = (int)f.v;
            break;
        case PF_TE_TRACK_UUID:
            if (f.wt == PF_VARINT) e->uuid = f.v, e->has_uuid = 1;
            break;
        case PF_TE_NAME_IID:
            if (f.wt == PF_VARINT) {
                uint32_t v;
                if (pf_r_lookup(s, f.v, PF_T_NAME, &v)) e->name = v;
            }
            break;
        case PF_TE_NAME:
            if (f.wt == PF_LEN) e->name = pf_r_intern(r, f.data, f.len);
            break;
        case PF_TE_CATEGORY_IIDS:
            if (pf_r_repeated(&f, 0, cats, &ncats, 8) < 0) return -1;
            break;
        case PF_TE_CATEGORIES:
            if (f.wt == PF_LEN && ncatstr < 8) catstr[ncatstr++] = pf_r_intern(r, f.data, f.len);
            break;
        case PF_TE_ANNOTATIONS:
            if (f.wt == PF_LEN && e->nannots < PF_MAX_ANNOTS) e->annots[e->nannots++] = f;
            break;
        case PF_TE_COUNTER_VALUE:
            if (f.wt == PF_VARINT) e->ivalue = (int64_t)f.v, e->has_ivalue = 1;
            break;
        case PF_TE_DOUBLE_COUNTER_VALUE:
            if (f.wt == PF_I64) e->dvalue = pf_double(&f), e->has_dvalue = 1;
            break;
        case PF_TE_EXTRA_COUNTER_UUIDS:
            if (pf_r_repeated(&f, 0, e->xuuid, &e->nxuuid, PF_MAX_EXTRA) < 0) return -1;
            break;
        case PF_TE_EXTRA_COUNTER_VALUES: {
            uint64_t tmp[PF_MAX_EXTRA];
            size_t n = 0;
            if (pf_r_repeated(&f, 0, tmp, &n, PF_MAX_EXTRA) < 0) return -1;
            for (size_t i = 0; i < n && e->nxval < PF_MAX_EXTRA; i++)
                e->xval[e->nxval++] = (int64_t)tmp[i];
            break;
        }
        case PF_TE_EXTRA_DOUBLE_COUNTER_UUIDS:
            if (pf_r_repeated(&f, 0, e->xduuid, &e->nxduuid, PF_MAX_EXTRA) < 0) return -1;
            break;
        case PF_TE_EXTRA_DOUBLE_COUNTER_VALUES: {
            uint64_t tmp[PF_MAX_EXTRA];
            size_t n = 0;
            if (pf_r_repeated(&f, 8, tmp, &n, PF_MAX_EXTRA) < 0) return -1;
            for (size_t i = 0; i < n && e->nxdval < PF_MAX_EXTRA; i++)
                memcpy(&e->xdval[e->nxdval++], &tmp[i], sizeof(double));
            break;
        }
        case PF_TE_FLOW_IDS:
        case 36: /* flow_ids, the older varint form */
            if (pf_r_repeated(&f, f.num == PF_TE_FLOW_IDS ? 8 : 0, e->flows, &e->nflows,
                              PF_MAX_FLOWS) < 0)
                return -1;
            break;
        case PF_TE_TERMINATING_FLOW_IDS:
        case 42: /* terminating_flow_ids, older */
            if (pf_r_repeated(&f, f.num == PF_TE_TERMINATING_FLOW_IDS ? 8 : 0, e->terms, &e->nterms,
                              PF_MAX_FLOWS) < 0)
                return -1;
            break;
        case PF_TE_TS_ABSOLUTE_US:
            if (f.wt == PF_VARINT) e->abs_us = (int64_t)f.v, e->has_abs_us = 1;
            break;
        case PF_TE_TS_DELTA_US:
            if (f.wt == PF_VARINT) e->delta_us = (int64_t)f.v, e->has_delta_us = 1;
            break;
        case PF_TE_SOURCE_LOCATION_IID:
            if (f.wt == PF_VARINT) {
                uint32_t v;
                if (pf_r_lookup(s, f.v, PF_T_SOURCE, &v)) {
                    e->src_file = s->sources[v].file;
                    e->src_function = s->sources[v].function;
                    e->src_line = s->sources[v].line;
                    e->has_src = 1;
                }
            }
            break;
        case PF_TE_SOURCE_LOCATION:
            if (f.wt == PF_LEN) {
                pf_cur d = pf_cur_make(f.data, f.len);
                pf_field g;
                int dr;
                while ((dr = pf_next(&d, &g)) > 0) {
                    if (g.num == PF_SL_FILE && g.wt == PF_LEN)
                        e->src_file = pf_r_intern(r, g.data, g.len);
                    if (g.num == PF_SL_FUNCTION && g.wt == PF_LEN)
                        e->src_function = pf_r_intern(r, g.data, g.len);
                    if (g.num == PF_SL_LINE && g.wt == PF_VARINT) e->src_line = (uint32_t)g.v;
                }
                if (dr < 0) return -1;
                e->has_src = 1;
            }
            break;
        case PF_TE_LEGACY:
            if (f.wt == PF_LEN && pf_r_legacy(r, s, &f, e) < 0) return -1;
            break;
        default:
            break;
        }
    }
    if (rc < 0) return -1;
    /* Several categories read as Chrome writes them: "a,b". */
    char buf[1024];
    size_t n = 0;
    e->has_cat = ncats + ncatstr > 0;
    for (size_t i = 0; i < ncats + ncatstr; i++) {
        tconv_str cs;
        if (i < ncats) {
            uint32_t v;
            if (!pf_r_lookup(s, cats[i], PF_T_CAT, &v)) continue;
            cs = v;
        } else {
            cs = catstr[i - ncats];
        }
        if (!n && i + 1 == ncats + ncatstr) {
            e->cat = cs;
            return 0;
        }
        size_t k = tconv_string_length(r->ctx, cs);
        if (n + k + 1 >= sizeof buf) break;
        if (n) buf[n++] = ',';
        memcpy(buf + n, tconv_string_get(r->ctx, cs), k);
        n += k;
    }
    if (n) e->cat = pf_r_intern(r, buf, n);
    return 0;
}

/* ---- args ---------------------------------------------------------------------------------- */

static tconv_arg *pf_r_arg_slot(pf_reader *r, size_t i)
{
    if (i >= r->args_cap) TCONV_ARRAY_GROW(r->args, r->args_cap, i + 1);
    return &r->args[i];
}

/* The annotations as args in r->args: their count, or -1 when malformed. Those tconv wrote
 * about the event itself (measured, text, key) are taken out into the out-parameters. */
static int pf_r_args(pf_reader *r, pf_rseq *s, const pf_rte *e, int64_t *measured,
                     int *has_measured, tconv_str *text, int *has_text, tconv_str *key)
{
    size_t n = 0;
    void *ctx2[2] = {r, s};
    pf_text json = {0};
    for (size_t i = 0; i < e->nannots; i++) {
        pf_cur c = pf_cur_make(e->annots[i].data, e->annots[i].len);
        pf_field f;
        int rc;
        tconv_arg a = {0, TCONV_ARG_NULL, {0}};
        int nested = 0;
        while ((rc = pf_next(&c, &f)) > 0) {
            switch (f.num) {
            case PF_DA_NAME_IID: {
                uint32_t v;
                if (f.wt == PF_VARINT && pf_r_lookup(s, f.v, PF_T_ANNOT, &v)) a.key = v;
                break;
            }
            case PF_DA_NAME:
                if (f.wt == PF_LEN) a.key = pf_r_intern(r, f.data, f.len);
                break;
            case PF_DA_BOOL:
                if (f.wt == PF_VARINT) a.type = TCONV_ARG_BOOL, a.v.i = f.v != 0;
                break;
            case PF_DA_UINT:
                if (f.wt == PF_VARINT) a.type = TCONV_ARG_UINT, a.v.u = f.v;
                break;
            case PF_DA_INT:
                if (f.wt == PF_VARINT) a.type = TCONV_ARG_INT, a.v.i = (int64_t)f.v;
                break;
            case PF_DA_DOUBLE:
                if (f.wt == PF_I64) a.type = TCONV_ARG_DOUBLE, a.v.d = pf_double(&f);
                break;
            case PF_DA_STRING:
                if (f.wt == PF_LEN)
                    a.type = TCONV_ARG_STRING, a.v.s = pf_r_intern(r, f.data, f.len);
                break;
            case PF_DA_STRING_IID: {
                uint32_t v;
                if (f.wt == PF_VARINT) {
                    a.type = TCONV_ARG_STRING;
                    a.v.s = pf_r_lookup(s, f.v, PF_T_SVAL, &v) ? v : 0;
                }
                break;
            }
            case PF_DA_POINTER:
                if (f.wt == PF_VARINT) {
                    char tmp[24];
                    int k = snprintf(tmp, sizeof tmp, "0x%" PRIx64, f.v);
                    a.type = TCONV_ARG_STRING;
                    a.v.s = pf_r_intern(r, tmp, (size_t)k);
                }
                break;
            case PF_DA_JSON:
                if (f.wt != PF_LEN) break;
                if (f.len == 4 && memcmp(f.data, "null", 4) == 0) {
                    a.type = TCONV_ARG_NULL;
                } else {
                    a.type = f.len && (f.data[0] == '{' || f.data[0] == '[') ? TCONV_ARG_JSON
                                                                             : TCONV_ARG_STRING;
                    a.v.s = pf_r_intern(r, f.data, f.len);
                }
                break;
            case PF_DA_NESTED:
            case PF_DA_DICT:
            case PF_DA_ARRAY:
                if (f.wt == PF_LEN) nested = 1;
                break;
            default:
                break;
            }
        }
        if (rc < 0) {
            pf_text_free(&json);
            return -1;
        }
        if (nested) {
            json.len = 0;
            if (pf_json_of_annotation(&json, e->annots[i].data, e->annots[i].len, pf_r_iid_string,
                                      ctx2, 64) < 0) {
                pf_text_free(&json);
                return -1;
            }
            a.type = TCONV_ARG_JSON;
            a.v.s = json.len ? pf_r_intern(r, json.p, json.len) : 0;
        }
        if (a.key == r->s_measured && a.type == TCONV_ARG_INT && measured) {
            *measured = a.v.i;
            *has_measured = 1;
            continue;
        }
        if (a.key == r->s_text && text &&
            (a.type == TCONV_ARG_STRING || a.type == TCONV_ARG_NULL)) {
            *text = a.type == TCONV_ARG_STRING ? a.v.s : 0;
            *has_text = 1;
            continue;
        }
        if (a.key == r->s_key && key && a.type == TCONV_ARG_STRING) {
            *key = a.v.s;
            continue;
        }
        *pf_r_arg_slot(r, n++) = a;
    }
    pf_text_free(&json);
    if (e->has_src) {
        static const char *const names[] = {"source.file_name", "source.function_name",
                                            "source.line_number"};
        if (e->src_file) {
            tconv_arg *a = pf_r_arg_slot(r, n++);
            *a = (tconv_arg){tconv_string_intern_cstr(r->ctx, names[0]), TCONV_ARG_STRING, {0}};
            a->v.s = e->src_file;
        }
        if (e->src_function) {
            tconv_arg *a = pf_r_arg_slot(r, n++);
            *a = (tconv_arg){tconv_string_intern_cstr(r->ctx, names[1]), TCONV_ARG_STRING, {0}};
            a->v.s = e->src_function;
        }
        if (e->src_line) {
            tconv_arg *a = pf_r_arg_slot(r, n++);
            *a = (tconv_arg){tconv_string_intern_cstr(r->ctx, names[2]), TCONV_ARG_INT, {0}};
            a->v.i = e->src_line;
        }
    }
    return (int)n;
}

/* The value a lone arg gives a metadata event that does not say its own (pf_wtrack.c writes
 * it only where this would not give it). */
static tconv_str pf_r_meta_text(pf_reader *r, const tconv_arg *args, int n)
{
    if (n != 1) return 0;
    char tmp[24];
    int k;
    switch (args[0].type) {
    case TCONV_ARG_STRING:
        return args[0].v.s;
    case TCONV_ARG_INT:
        k = snprintf(tmp, sizeof tmp, "%" PRId64, args[0].v.i);
        break;
    case TCONV_ARG_UINT:
        k = snprintf(tmp, sizeof tmp, "%" PRIu64, args[0].v.u);
        break;
    default:
        return 0;
    }
    return pf_r_intern(r, tmp, (size_t)k);
}

/* ---- pending events ------------------------------------------------------------------------ */

static tconv_status pf_r_defer(pf_reader *r, pf_rseq *s, uint64_t uuid, const uint8_t *msg,
                               size_t len, int64_t ts)
{
    if (r->npending == r->pending_cap)
        TCONV_ARRAY_GROW(r->pending, r->pending_cap, r->npending + 1);
    size_t off = r->pending_bytes.len;
    if (!pf_buf_reserve(&r->pending_bytes, len)) {
        tconv_error_set(r->ctx, "perfetto: out of memory");
        return TCONV_FATAL;
    }
    memcpy(r->pending_bytes.p + off, msg, len);
    r->pending_bytes.len += len;
    r->pending[r->npending++] =
        (pf_rpending){uuid, off, len, (uint32_t)(s - r->seqs), ts, r->pkt_off};
    return TCONV_OK;
}

static tconv_status pf_r_event_on(pf_reader *r, pf_rseq *s, const uint8_t *msg, size_t len,
                                  int64_t ts, int replay);

tconv_status pf_r_replay(pf_reader *r, uint64_t uuid)
{
    size_t kept = 0;
    tconv_status st = TCONV_OK;
    if (!r->npending) return TCONV_OK;
    uint64_t save = r->pkt_off;
    for (size_t i = 0; i < r->npending; i++) {
        pf_rpending p = r->pending[i];
        if (p.uuid != uuid || st != TCONV_OK) {
            r->pending[kept++] = p;
            continue;
        }
        r->pkt_off = p.input_off;
        st = pf_r_event_on(r, &r->seqs[p.seq], r->pending_bytes.p + p.off, p.len, p.ts, 1);
    }
    r->npending = kept;
    if (!kept) r->pending_bytes.len = 0;
    r->pkt_off = save;
    return st;
}

/* At the end: events whose track never had a descriptor, each such track one of its own. */
tconv_status pf_r_replay_left(pf_reader *r)
{
    while (r->npending) {
        uint64_t uuid = r->pending[0].uuid;
        size_t before = r->npending;
        pf_rtrack *t = pf_r_track_find(r, uuid);
        if (!t) {
            /* An empty descriptor: a named track at the top, named after its uuid. */
            uint8_t tmp[16];
            pf_buf b = {tmp, 0, sizeof tmp, 0};
            pf_put_uint(&b, PF_TD_UUID, uuid);
            size_t was = r->npending;
            r->npending = 0; /* not replayed from inside */
            tconv_status st = pf_r_descriptor(r, b.p, b.len);
            r->npending = was;
            if (st != TCONV_OK) return st;
        }
        if (pf_r_replay(r, uuid) != TCONV_OK) return TCONV_FATAL;
        r->pending_left += before - r->npending;
    }
    return TCONV_OK;
}

/* ---- events -------------------------------------------------------------------------------- */

static tconv_status pf_r_flow(pf_reader *r, uint32_t track, int64_t ts, uint64_t id, int kind,
                              uint16_t flags, tconv_str name, tconv_str cat)
{
    tconv_event ev = TCONV_EVENT_INIT;
    ev.kind = (uint16_t)kind;
    ev.track = track;
    ev.ts = ts;
    ev.id = id;
    ev.flags = flags;
    ev.name = name;
    ev.cat = cat;
    return pf_r_push(r, &ev);
}

static tconv_status pf_r_counter(pf_reader *r, pf_rtrack *c, int64_t ts, double v, int has_cat,
                                 tconv_str cat, const tconv_arg *args, int nargs)
{
    uint32_t track;
    pf_rtrack *parent = c->parent ? pf_r_track_find(r, c->parent) : NULL;
    track = parent ? pf_r_track_use(r, parent, 1) : pf_r_global_track(r);
    if (track == UINT32_MAX) return TCONV_FATAL;
    if (parent && parent->type == PF_RT_PROCESS && !parent->has_ident)
        tconv_track_set_kind(r->ctx, track, TCONV_TRACK_PROCESS);
    v *= (double)c->multiplier;
    if (c->incremental) v = c->last += v;
    tconv_event ev = TCONV_EVENT_INIT;
    ev.kind = TCONV_EV_COUNTER;
    ev.track = track;
    ev.ts = ts;
    ev.name = c->has_cident ? c->cname : c->name;
    ev.key = c->has_cident ? c->ckey : 0;
    ev.id = c->has_cident ? c->cid : 0;
    ev.unit = c->unit;
    ev.cat = has_cat ? cat : c->cat;
    ev.value = v;
    ev.args = nargs > 0 ? args : NULL;
    ev.nargs = nargs > 0 ? (uint32_t)nargs : 0;
    return pf_r_push(r, &ev);
}

/* A legacy async event's track: one per (process, scope, id), named after its first event. */
static uint32_t pf_r_async_track(pf_reader *r, uint32_t base, const pf_rte *e)
{
    const tconv_track *b = tconv_track_describe(r->ctx, base);
    tconv_str pid = b->pid;
    char tmp[600];
    const char *scope = e->id_scope ? tconv_string_get(r->ctx, e->id_scope) : "";
    int n = snprintf(tmp, sizeof tmp, "async:%c:%.500s:%" PRIx64, e->id_kind ? e->id_kind : 'u',
                     scope, e->id);
    uint32_t t = tconv_track_get(r->ctx, pid, pf_r_intern(r, tmp, (size_t)(n < 0 ? 0 : n)));
    tconv_track_set_kind(r->ctx, t, TCONV_TRACK_ASYNC);
    return t;
}

/* Spans pass through here, so that the ones the writer's ordering stage repaired are given back
 * as that stage saw them, and this one repairs them the same way: a span that outlived its
 * parent (it ends before its measured length) as the whole span, to be clipped again; a span
 * never ended (it ends at its measured length, the track's last time) without its end. Which of
 * the two is known at the end, so the begin waits for it. */
static tconv_status pf_r_span(pf_reader *r, const tconv_event *ev, int has_measured,
                              int64_t measured)
{
    if (ev->kind != TCONV_EV_BEGIN && ev->kind != TCONV_EV_END) return pf_r_push(r, ev);
    pf_r_grow_tconv(r, ev->track);
    pf_ropen *o = &r->opens[ev->track];
    if (ev->kind == TCONV_EV_BEGIN) {
        pf_rheld *h = NULL;
        if (has_measured) {
            h = malloc(sizeof *h);
            tconv_arg *args = ev->nargs ? malloc(ev->nargs * sizeof *args) : NULL;
            if (!h || (ev->nargs && !args)) {
                free(h);
                free(args);
                tconv_error_set(r->ctx, "perfetto: out of memory");
                return TCONV_FATAL;
            }
            if (ev->nargs) memcpy(args, ev->args, ev->nargs * sizeof *args);
            h->ev = *ev;
            h->ev.args = args;
            h->args = args;
            h->measured = measured;
        }
        if (o->n == o->cap) TCONV_ARRAY_GROW(o->v, o->cap, o->n + 1);
        o->v[o->n++] = h;
        return h ? TCONV_OK : pf_r_push(r, ev);
    }
    pf_rheld *h = o->n ? o->v[--o->n] : NULL;
    if (!h) return pf_r_push(r, ev);
    tconv_event b = h->ev;
    tconv_status st;
    if (ev->ts < b.ts + h->measured) {
        b.kind = TCONV_EV_COMPLETE;
        b.dur = h->measured;
        st = pf_r_push(r, &b);
    } else {
        st = pf_r_push(r, &b);
    }
    free(h->args);
    free(h);
    return st;
}

/* Begins still waiting at the end of the input: spans never ended. */
tconv_status pf_r_spans_left(pf_reader *r)
{
    tconv_status st = TCONV_OK;
    for (size_t t = 0; t < r->opens_cap; t++) {
        pf_ropen *o = &r->opens[t];
        for (size_t i = 0; i < o->n; i++) {
            pf_rheld *h = o->v[i];
            if (h && st == TCONV_OK) st = pf_r_push(r, &h->ev);
            if (h) free(h->args);
            free(h);
        }
        free(o->v);
    }
    free(r->opens);
    r->opens = NULL;
    r->opens_cap = 0;
    return st;
}

static tconv_status pf_r_event_on(pf_reader *r, pf_rseq *s, const uint8_t *msg, size_t len,
                                  int64_t ts, int replay)
{
    if (!r->rte && !(r->rte = malloc(sizeof(pf_rte)))) {
        tconv_error_set(r->ctx, "perfetto: out of memory");
        return TCONV_FATAL;
    }
    pf_rte *e = r->rte;
    memset(e, 0, offsetof(pf_rte, annots));
    tconv_status st = TCONV_OK;
    if (pf_r_parse(r, s, msg, len, e) < 0) {
        st = pf_r_error(r, "malformed track event");
        goto done;
    }
    /* The older producers' times (a replayed event's time was worked out when it came). */
    if (!replay && e->has_abs_us) {
        ts = pf_us(e->abs_us);
        s->ref_us = e->abs_us;
    } else if (!replay && e->has_delta_us) {
        s->ref_us = pf_add(s->ref_us, e->delta_us);
        ts = pf_us(s->ref_us);
    }
    int meta = !e->type && e->phase == PF_PHASE_METADATA;
    pf_rtrack *t = NULL;
    uint64_t uuid = e->has_uuid ? e->uuid : s->track_uuid;
    int by_uuid = e->has_uuid || (s->has_track && !e->has_pid_override && !e->has_tid_override);
    if (by_uuid) {
        t = pf_r_track_find(r, uuid);
        if (!t) {
            st = pf_r_defer(r, s, uuid, msg, len, ts);
            goto done;
        }
    }

    /* tconv's records of what a track is. */
    if (meta && t && (e->name == r->s_track || e->name == r->s_counter)) {
        int n = pf_r_args(r, s, e, NULL, NULL, NULL, NULL, NULL);
        if (n < 0) {
            st = pf_r_error(r, "malformed debug annotation");
            goto done;
        }
        pf_r_identity(r, t, e->name == r->s_counter, r->args, (size_t)n);
        goto done;
    }

    int64_t measured = 0;
    int has_measured = 0, has_text = 0;
    tconv_str text = 0, key = 0;
    int nargs = pf_r_args(r, s, e, &measured, &has_measured, meta ? &text : NULL, &has_text,
                          meta ? &key : NULL);
    if (nargs < 0) {
        st = pf_r_error(r, "malformed debug annotation");
        goto done;
    }

    /* Counters, and the values of other counter tracks the event carries. */
    if (e->type == PF_TYPE_COUNTER || (t && t->type == PF_RT_COUNTER && !meta && !e->type)) {
        if (t && (e->has_ivalue || e->has_dvalue)) {
            double v = e->has_dvalue ? e->dvalue : (double)e->ivalue;
            st = pf_r_counter(r, t, ts, v, e->has_cat, e->cat, r->args, nargs);
        } else {
            r->bad_events++;
        }
        if (st != TCONV_OK) goto done;
    }
    size_t nx = e->nxuuid ? e->nxuuid : s->nextra;
    for (size_t i = 0; i < e->nxval && i < nx && st == TCONV_OK; i++) {
        pf_rtrack *c = pf_r_track_find(r, e->nxuuid ? e->xuuid[i] : s->extra[i]);
        if (c) st = pf_r_counter(r, c, ts, (double)e->xval[i], 0, 0, NULL, 0);
    }
    nx = e->nxduuid ? e->nxduuid : s->nextra_d;
    for (size_t i = 0; i < e->nxdval && i < nx && st == TCONV_OK; i++) {
        pf_rtrack *c = pf_r_track_find(r, e->nxduuid ? e->xduuid[i] : s->extra_d[i]);
        if (c) st = pf_r_counter(r, c, ts, e->xdval[i], 0, 0, NULL, 0);
    }
    if (st != TCONV_OK || e->type == PF_TYPE_COUNTER) goto done;

    uint32_t track;
    if (t)
        track = pf_r_track_use(r, t, !meta);
    else if (e->has_pid_override || e->has_tid_override || s->has_thread)
        track = pf_r_thread_track(r, e->has_pid_override ? e->pid_override : s->pid,
                                  e->has_tid_override ? e->tid_override : s->tid, !meta);
    else
        track = pf_r_global_track(r);
    if (track == UINT32_MAX) {
        st = TCONV_FATAL;
        goto done;
    }

    tconv_event ev = TCONV_EVENT_INIT;
    ev.track = track;
    ev.ts = ts;
    ev.name = e->name;
    ev.cat = e->cat;
    ev.args = nargs ? r->args : NULL;
    ev.nargs = (uint32_t)nargs;
    ev.id = e->id;
    if (meta) {
        ev.kind = TCONV_EV_METADATA;
        ev.text = has_text ? text : pf_r_meta_text(r, r->args, nargs);
        ev.key = key;
        if (e->name == tconv_string_intern_cstr(r->ctx, "baseTimeNanoseconds")) r->origin_said = 1;
        pf_r_meta_explicit(r, track, t, e->name);
        st = pf_r_push(r, &ev);
        goto done;
    }
    int phase = e->phase;
    int flow_point = 0;
    switch (e->type) {
    case PF_TYPE_SLICE_BEGIN:
        ev.kind = TCONV_EV_BEGIN;
        break;
    case PF_TYPE_SLICE_END:
        ev.kind = TCONV_EV_END;
        break;
    case PF_TYPE_INSTANT:
        ev.kind = TCONV_EV_INSTANT;
        flow_point = phase == 's' || phase == 't' || phase == 'f';
        break;
    default:
        switch (phase) {
        case 'B':
            ev.kind = TCONV_EV_BEGIN;
            break;
        case 'E':
            ev.kind = TCONV_EV_END;
            break;
        case 'X':
            ev.kind = TCONV_EV_COMPLETE;
            ev.dur = pf_us(e->dur_us);
            break;
        case 'I':
        case 'i':
        case 'R':
            ev.kind = TCONV_EV_INSTANT;
            break;
        case 'b':
        case 'S':
            ev.kind = TCONV_EV_BEGIN;
            break;
        case 'e':
        case 'F':
            ev.kind = TCONV_EV_END;
            break;
        case 'n':
        case 'T':
        case 'p':
            ev.kind = TCONV_EV_INSTANT;
            break;
        case 's':
        case 't':
        case 'f':
            flow_point = 1;
            break;
        case 'C':
            /* Each numeric arg is a series of the counter named after the event. */
            for (int i = 0; i < nargs && st == TCONV_OK; i++) {
                const tconv_arg *a = &r->args[i];
                double v = a->type == TCONV_ARG_INT      ? (double)a->v.i
                           : a->type == TCONV_ARG_UINT   ? (double)a->v.u
                           : a->type == TCONV_ARG_DOUBLE ? a->v.d
                                                         : 0;
                if (a->type != TCONV_ARG_INT && a->type != TCONV_ARG_UINT &&
                    a->type != TCONV_ARG_DOUBLE)
                    continue;
                tconv_event c = TCONV_EVENT_INIT;
                c.kind = TCONV_EV_COUNTER;
                c.track = track;
                c.ts = ts;
                c.name = e->name;
                c.cat = e->cat;
                c.key = a->key;
                c.value = v;
                c.id = e->id;
                st = pf_r_push(r, &c);
            }
            goto done;
        default:
            r->bad_events++;
            if (r->strict) {
                char what[96];
                snprintf(what, sizeof what, "a track event of no type and legacy phase %d", phase);
                st = pf_r_error(r, what);
                goto done;
            }
            tconv_warning_add(r->ctx, "perfetto.unknown-event",
                              "%s:%" PRIu64 ": a track event of no type and legacy phase %d; "
                              "skipped",
                              r->name, r->pkt_off, phase);
            goto done;
        }
        /* Legacy async events: a track per id. */
        if (strchr("beSFnTp", phase) && phase) {
            uint32_t at = pf_r_async_track(r, track, e);
            pf_r_grow_tconv(r, at);
            if (!r->used[at]) {
                r->used[at] = 1;
                tconv_event m = TCONV_EVENT_INIT;
                m.kind = TCONV_EV_METADATA;
                m.track = at;
                m.name = r->s_thread_name;
                m.text = e->name;
                if (e->name && pf_r_push(r, &m) != TCONV_OK) {
                    st = TCONV_FATAL;
                    goto done;
                }
            }
            ev.track = at;
            ev.flags |= TCONV_EVF_ASYNC;
        }
    }
    if (phase == 'b' || phase == 'e' || phase == 'n') ev.flags |= TCONV_EVF_ASYNC;
    if (e->scope == PF_SCOPE_GLOBAL) ev.flags |= TCONV_EVF_SCOPE_GLOBAL;
    if (e->scope == PF_SCOPE_PROCESS) ev.flags |= TCONV_EVF_SCOPE_PROCESS;
    uint16_t bind = e->bind_enclosing > 0   ? TCONV_EVF_BIND_ENCLOSING
                    : e->bind_enclosing < 0 ? TCONV_EVF_BIND_NEXT
                                            : 0;
    if (flow_point) {
        /* A point that stands for a flow alone. */
        int kind = phase == 's'   ? TCONV_EV_FLOW_START
                   : phase == 't' ? TCONV_EV_FLOW_STEP
                                  : TCONV_EV_FLOW_END;
        uint64_t id = e->nflows    ? e->flows[0]
                      : e->nterms  ? e->terms[0]
                      : e->bind_id ? e->bind_id
                                   : e->id;
        ev.kind = (uint16_t)kind;
        ev.id = id;
        ev.flags = (uint16_t)(ev.flags & ~TCONV_EVF_ASYNC) | bind;
        tconv_map_put(&r->flows, id, 1, 1);
        st = pf_r_push(r, &ev);
        goto done;
    }
    st = pf_r_span(r, &ev, has_measured, measured);
    /* The arrows the event starts, continues or ends. */
    for (size_t i = 0; i < e->nflows && st == TCONV_OK; i++) {
        int kind = TCONV_EV_FLOW_START;
        if (tconv_map_get(&r->flows, e->flows[i], 1) != TCONV_MAP_NONE) kind = TCONV_EV_FLOW_STEP;
        tconv_map_put(&r->flows, e->flows[i], 1, 1);
        st = pf_r_flow(r, track, ts, e->flows[i], kind, TCONV_EVF_BIND_ENCLOSING, 0, 0);
    }
    for (size_t i = 0; i < e->nterms && st == TCONV_OK; i++)
        st =
            pf_r_flow(r, track, ts, e->terms[i], TCONV_EV_FLOW_END, TCONV_EVF_BIND_ENCLOSING, 0, 0);
    if (e->has_bind && st == TCONV_OK) {
        int kind = e->flow_dir == PF_FLOW_IN      ? TCONV_EV_FLOW_END
                   : e->flow_dir == PF_FLOW_INOUT ? TCONV_EV_FLOW_STEP
                                                  : TCONV_EV_FLOW_START;
        st = pf_r_flow(r, track, ts, e->bind_id, kind, TCONV_EVF_BIND_ENCLOSING, 0, 0);
    }
done:
    return st;
}

tconv_status pf_r_track_event(pf_reader *r, pf_rseq *s, const uint8_t *msg, size_t len, int64_t ts)
{
    return pf_r_event_on(r, s, msg, len, ts, 0);
}
