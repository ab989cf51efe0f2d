/* Markers (DIR/traces.marker): the points in time a tool marked on a thread, a process or the
 * whole trace. tconv's OTF2 writer puts the trace's instants there (definition group = the
 * instant's category, "instant" without one; category = its name; the text = its args as
 * JSON), so reading them back gives the instants again. A marker with a duration becomes a
 * span. They are read after the events, once the definitions give their locations. */
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "otf2_reader.h"

typedef struct otf2r_argparse {
    tconv_ctx *ctx;
    const char *text;
    tconv_arg *args;
    size_t n, cap;
    tconv_str key;
    int depth;
    uint64_t nested_at; /* offset of the nested value being skipped */
} otf2r_argparse;

typedef struct otf2r_markdef {
    tconv_str name, cat;
    uint8_t defined;
} otf2r_markdef;

typedef struct otf2r_marks {
    otf2r *r;
    otf2r_markdef *defs;
    size_t ndefs;
    tconv_map loc_index; /* location id -> index in r->locs */
    tconv_str s_instant, s_text;
    otf2r_argparse args;
} otf2r_marks;

static OTF2_CallbackCode otf2r_def_marker(void *user, OTF2_MarkerRef self, const char *group,
                                          const char *category, OTF2_MarkerSeverity severity)
{
    (void)severity;
    otf2r_marks *m = user;
    if (self >= OTF2R_MAX_REF) {
        tconv_error_set(m->r->ctx, "%s: marker definition %" PRIu32 " is out of range",
                        m->r->anchor, self);
        return OTF2_CALLBACK_INTERRUPT;
    }
    if (self >= m->ndefs) {
        size_t n = m->ndefs;
        tconv_array_grow((void **)&m->defs, &m->ndefs, (size_t)self + 1, sizeof(*m->defs));
        memset(m->defs + n, 0, (m->ndefs - n) * sizeof(*m->defs));
    }
    tconv_str cat = tconv_string_intern_cstr(m->r->ctx, group ? group : "");
    m->defs[self] = (otf2r_markdef){tconv_string_intern_cstr(m->r->ctx, category ? category : ""),
                                    cat == m->s_instant ? 0 : cat, 1};
    return OTF2_CALLBACK_SUCCESS;
}

/* The track a marker's scope names: a thread (location), a process (location group), else the
 * whole trace. */
static uint32_t otf2r_marker_track(otf2r_marks *m, OTF2_MarkerScope scope, uint64_t ref,
                                   uint16_t *flags)
{
    otf2r *r = m->r;
    if (scope == OTF2_MARKER_SCOPE_LOCATION) {
        uint32_t i = tconv_map_get(&m->loc_index, ref, 0);
        if (i != TCONV_MAP_NONE && r->locs[i].group < r->nlgroups) {
            char tid[24];
            snprintf(tid, sizeof(tid), "%" PRIu64, ref);
            return tconv_track_get(r->ctx, r->lgroups[r->locs[i].group].pid,
                                   tconv_string_intern_cstr(r->ctx, tid));
        }
    } else if (scope == OTF2_MARKER_SCOPE_LOCATION_GROUP && ref < r->nlgroups &&
               r->lgroups[ref].defined) {
        *flags = TCONV_EVF_SCOPE_PROCESS;
        return tconv_track_get(r->ctx, r->lgroups[ref].pid, r->s_empty);
    }
    *flags = TCONV_EVF_SCOPE_GLOBAL;
    return tconv_track_get(r->ctx, r->s_empty, r->s_empty);
}

/* ---- a marker's text: the instant's args as a JSON object ---------------------------------- */

static void otf2r_arg_add(otf2r_argparse *p, tconv_arg a)
{
    TCONV_ARRAY_GROW(p->args, p->cap, p->n + 1);
    a.key = p->key;
    p->args[p->n++] = a;
}

static int otf2r_arg_begin(void *user, const tconv_json_token *t)
{
    otf2r_argparse *p = user;
    if (p->depth++ == 0) return TCONV_JSON_GO;
    p->nested_at = t->offset; /* a nested value is kept as its JSON text */
    return TCONV_JSON_SKIP;
}

static int otf2r_arg_end(void *user, const tconv_json_token *t)
{
    otf2r_argparse *p = user;
    if (--p->depth == 1)
        otf2r_arg_add(p, (tconv_arg){.type = TCONV_ARG_JSON,
                                     .v.s = tconv_string_intern(p->ctx, p->text + p->nested_at,
                                                                t->end - p->nested_at)});
    return TCONV_JSON_GO;
}

static int otf2r_arg_key(void *user, const tconv_json_token *t)
{
    otf2r_argparse *p = user;
    p->key = tconv_string_intern(p->ctx, t->text, t->len);
    return TCONV_JSON_GO;
}

static int otf2r_arg_scalar(void *user, const tconv_json_token *t)
{
    otf2r_argparse *p = user;
    tconv_arg a = {.type = TCONV_ARG_NULL};
    if (p->depth != 1) return TCONV_JSON_STOP; /* not an object of members */
    switch (t->kind) {
    case TCONV_JSON_STRING:
        a.type = TCONV_ARG_STRING;
        a.v.s = tconv_string_intern(p->ctx, t->text, t->len);
        break;
    case TCONV_JSON_TRUE:
    case TCONV_JSON_FALSE:
        a.type = TCONV_ARG_BOOL;
        a.v.i = t->kind == TCONV_JSON_TRUE;
        break;
    case TCONV_JSON_NUMBER: {
        char num[64];
        size_t n = t->len < sizeof(num) - 1 ? t->len : sizeof(num) - 1;
        memcpy(num, t->text, n);
        num[n] = '\0';
        char *endp;
        errno = 0;
        long long i = strtoll(num, &endp, 10);
        if (!*endp && !errno) {
            a.type = TCONV_ARG_INT;
            a.v.i = i;
        } else {
            a.type = TCONV_ARG_DOUBLE;
            a.v.d = strtod(num, NULL);
        }
        break;
    }
    default:
        break;
    }
    otf2r_arg_add(p, a);
    return TCONV_JSON_GO;
}

/* The args of a marker whose text is a JSON object, as the writer writes them; any other text
 * is one arg, "text". Returns the number of args in p->args. */
static size_t otf2r_marker_args(otf2r_argparse *p, tconv_str s_text, const char *text)
{
    size_t len = strlen(text);
    p->n = 0;
    p->depth = 0;
    p->text = text;
    if (len && text[0] == '{') {
        static const tconv_json_callbacks cb = {otf2r_arg_begin, otf2r_arg_end, otf2r_arg_key,
                                                otf2r_arg_scalar};
        tconv_json_lexer *lx = tconv_json_new(&cb, p, TCONV_JSON_REPAIR_UTF8);
        if (!lx) otf2r_oom();
        int ok = tconv_json_feed(lx, text, len) == 0 && tconv_json_end(lx) == 0;
        tconv_json_free(lx);
        if (ok) return p->n;
        p->n = 0;
    }
    p->key = s_text;
    otf2r_arg_add(
        p, (tconv_arg){.type = TCONV_ARG_STRING, .v.s = tconv_string_intern(p->ctx, text, len)});
    return p->n;
}

static OTF2_CallbackCode otf2r_marker(void *user, OTF2_TimeStamp time, OTF2_TimeStamp duration,
                                      OTF2_MarkerRef def, OTF2_MarkerScope scope, uint64_t ref,
                                      const char *text)
{
    otf2r_marks *m = user;
    otf2r *r = m->r;
    tconv_event ev = TCONV_EVENT_INIT;
    int64_t end;
    /* The end in 64 bits: a sum that wraps would end the marker before it starts. */
    if (duration > UINT64_MAX - time) {
        tconv_error_set(r->ctx,
                        "%s: a marker at %" PRIu64 " ticks lasts %" PRIu64
                        " ticks, which ends past what 64-bit times hold",
                        r->anchor, time, duration);
        return OTF2_CALLBACK_INTERRUPT;
    }
    if (otf2r_time(r, time, &ev.ts) < 0 || otf2r_time(r, time + duration, &end) < 0)
        return OTF2_CALLBACK_INTERRUPT;
    if (def < m->ndefs && m->defs[def].defined) {
        ev.name = m->defs[def].name;
        ev.cat = m->defs[def].cat;
    }
    ev.kind = duration ? TCONV_EV_COMPLETE : TCONV_EV_INSTANT;
    ev.dur = duration ? end - ev.ts : 0;
    ev.track = otf2r_marker_track(m, scope, ref, &ev.flags);
    if (text && *text && r->args) {
        ev.nargs = (uint32_t)otf2r_marker_args(&m->args, m->s_text, text);
        ev.args = m->args.args;
    }
    if (tconv_sink_push(r->sink, &ev) == TCONV_FATAL) {
        r->status = TCONV_FATAL;
        return OTF2_CALLBACK_INTERRUPT;
    }
    return OTF2_CALLBACK_SUCCESS;
}

tconv_status otf2r_markers_read(otf2r *r)
{
    char path[4096];
    snprintf(path, sizeof(path), "%s/%s.marker", r->dir, r->base);
    int there = otf2r_file_there(r, path, "the archive's marker file");
    if (there < 0) return TCONV_FATAL;
    if (!there && errno == ENOENT) return TCONV_OK; /* a trace without markers has no file */
    otf2r_marks m = {.r = r, .args = {.ctx = r->ctx}};
    m.s_instant = tconv_string_intern_cstr(r->ctx, "instant");
    m.s_text = tconv_string_intern_cstr(r->ctx, "text");
    for (size_t i = 0; i < r->nlocs; i++)
        tconv_map_put(&m.loc_index, r->locs[i].id, 0, (uint32_t)i);
    tconv_status st = TCONV_OK;
    OTF2_MarkerReader *mr = OTF2_Reader_GetMarkerReader(r->reader);
    OTF2_MarkerReaderCallbacks *cb = OTF2_MarkerReaderCallbacks_New();
    if (!cb) otf2r_oom();
    OTF2_MarkerReaderCallbacks_SetDefMarkerCallback(cb, otf2r_def_marker);
    OTF2_MarkerReaderCallbacks_SetMarkerCallback(cb, otf2r_marker);
    uint64_t n = 0;
    OTF2_ErrorCode e =
        mr ? OTF2_Reader_RegisterMarkerCallbacks(r->reader, mr, cb, &m) : OTF2_ERROR_INVALID;
    if (e == OTF2_SUCCESS) e = OTF2_Reader_ReadAllMarkers(r->reader, mr, &n);
    OTF2_MarkerReaderCallbacks_Delete(cb);
    if (mr) OTF2_Reader_CloseMarkerReader(r->reader, mr);
    if (r->status == TCONV_FATAL || tconv_error_pending(r->ctx)) {
        st = TCONV_FATAL;
    } else if (e != OTF2_SUCCESS) {
        tconv_error_set(r->ctx, "%s: its markers cannot be read: %s", path,
                        r->lib_error ? r->lib_msg : OTF2_Error_GetDescription(e));
        st = TCONV_FATAL;
    }
    free(m.defs);
    free(m.args.args);
    tconv_map_free(&m.loc_index);
    return st;
}
