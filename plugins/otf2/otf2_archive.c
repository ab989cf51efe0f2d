/* Writing the archive in the order OTF2 needs: the event files one location at a time (each
 * location's buffer is freed as soon as it is written, and only one event writer with its
 * chunk is open at a time), the markers, a local definition file per location (otf2-print
 * expects one), and the global definitions last, when every event count is known. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "otf2_oom.h"
#include "otf2_writer.h"

/* The event chunk: OTF2's least, which holds the largest event record (OTF2W_MAX_ARGS
 * attributes, otf2_collect.c); OTF2 clears a writer's whole chunk when it closes, once per
 * location. The definition chunk is sized to the archive (otf2_def_chunk_for); OTF2W_DEF_CHUNK
 * only if an MPI run's ranks could not agree on one. */
enum { OTF2W_EVT_CHUNK = 256 * 1024, OTF2W_DEF_CHUNK = 4 * 1024 * 1024 };

/* The one communicator that carries the flow messages, and its two groups. */
enum { OTF2W_FLOW_COMM = 0, OTF2W_FLOW_GROUP_LOCATIONS = 0, OTF2W_FLOW_GROUP_RANKS = 1 };

/* The Parameter of a flow event written as one (OTF2W_FLOW_* - 1): "flow start", "flow step",
 * "flow end". */
static const char *const otf2_flow_params[3] = {"flow start", "flow step", "flow end"};

#define OTF2W_TRY(st, what, call)                                                                  \
    do {                                                                                           \
        OTF2_ErrorCode otf2_try_code = (call);                                                     \
        if (otf2_try_code != OTF2_SUCCESS) return otf2_error_fail((st), (what), otf2_try_code);    \
    } while (0)

static OTF2_FlushType otf2_pre_flush(void *user, OTF2_FileType type, OTF2_LocationRef location,
                                     void *caller, bool final)
{
    (void)user;
    (void)type;
    (void)location;
    (void)caller;
    (void) final;
    return OTF2_FLUSH;
}

/* No post-flush callback: OTF2 would add a BufferFlush record the input never had. */
static OTF2_FlushCallbacks otf2_flush_callbacks = {.otf2_pre_flush = otf2_pre_flush,
                                                   .otf2_post_flush = NULL};

static uint64_t otf2_time(const otf2_state *st, int64_t ts)
{
    return (uint64_t)ts - (uint64_t)st->shift;
}

/* Decode an attribute list into al; NULL when there is none. */
static OTF2_AttributeList *otf2_read_attrs(otf2_state *st, otf2_cursor *c, OTF2_AttributeList *al)
{
    uint64_t n = otf2_get_uv(c);
    for (uint64_t i = 0; i < n; i++) {
        uint32_t a = (uint32_t)otf2_get_uv(c);
        OTF2_Type type = st->attrs[a].type;
        uint32_t id = st->xl ? st->xl->attr[a] : a;
        OTF2_AttributeValue v;
        switch (type) {
        case OTF2_TYPE_UINT8:
            v.uint8 = otf2_get_u8(c);
            break;
        case OTF2_TYPE_INT64:
            v.int64 = otf2_get_sv(c);
            break;
        case OTF2_TYPE_UINT64:
            v.uint64 = otf2_get_uv(c);
            break;
        case OTF2_TYPE_DOUBLE:
            v.float64 = otf2_get_f64(c);
            break;
        default:
            v.stringRef = (OTF2_StringRef)otf2_get_uv(c);
            if (st->xl) v.stringRef = st->xl->string[v.stringRef];
        }
        OTF2_AttributeList_AddAttribute(al, id, type, v);
    }
    return n ? al : NULL;
}

/* Copies an attribute list of c to b with the run's attribute and string ids. */
static void otf2_xlate_attrs(const otf2_state *st, otf2_cursor *c, otf2_bytes *b)
{
    uint64_t n = otf2_get_uv(c);
    otf2_put_uv(b, n);
    for (uint64_t i = 0; i < n; i++) {
        otf2_bytes_reserve(b, 20);
        uint32_t a = (uint32_t)otf2_get_uv(c);
        otf2_put_uv(b, st->xl->attr[a]);
        switch (st->attrs[a].type) {
        case OTF2_TYPE_UINT8:
            otf2_put_u8(b, otf2_get_u8(c));
            break;
        case OTF2_TYPE_INT64:
            otf2_put_sv(b, otf2_get_sv(c));
            break;
        case OTF2_TYPE_UINT64:
            otf2_put_uv(b, otf2_get_uv(c));
            break;
        case OTF2_TYPE_DOUBLE:
            otf2_put_f64(b, otf2_get_f64(c));
            break;
        default:
            otf2_put_uv(b, st->xl->string[otf2_get_uv(c)]);
        }
    }
}

/* A location's own hash (otf2_traceid.c), over its records as the given bytes. */
static uint64_t otf2_loc_hash(const otf2_loc *l, const void *records, size_t len)
{
    uint64_t h = otf2_traceid_hash(0, &l->id, sizeof(l->id));
    h = otf2_traceid_hash(h, &l->base_ts, sizeof(l->base_ts));
    return otf2_traceid_hash(h, records, len);
}

/* A location's hash when it was collected with this rank's ids: that of its records as one
 * writer holds them, with the run's ids, so that the archive's identifier is one writer's. */
static uint64_t otf2_xlate_hash(const otf2_state *st, const otf2_loc *l)
{
    otf2_bytes b = {0};
    otf2_cursor c = {l->buf.p, l->buf.p + l->buf.len};
    while (c.p < c.end) {
        otf2_bytes_reserve(&b, 1 + 10 + 10 + 8);
        uint8_t tag = otf2_get_u8(&c);
        otf2_put_u8(&b, tag);
        otf2_put_uv(&b, otf2_get_uv(&c));
        switch (tag & OTF2W_REC_KIND_MASK) {
        case OTF2W_REC_ENTER:
        case OTF2W_REC_LEAVE:
            otf2_put_uv(&b, st->xl->region[otf2_get_uv(&c)]);
            break;
        case OTF2W_REC_METRIC:
            otf2_put_uv(&b, st->xl->metric[otf2_get_uv(&c)] - st->xl->nseries);
            otf2_put_f64(&b, otf2_get_f64(&c));
            break;
        default:
            otf2_put_uv(&b, st->xl->flow_tag[otf2_get_uv(&c)]);
        }
        if (tag & OTF2W_REC_ATTRS) otf2_xlate_attrs(st, &c, &b);
    }
    uint64_t h = otf2_loc_hash(l, b.p, b.len);
    otf2_bytes_free(&b);
    return h;
}

static tconv_status otf2_write_location(otf2_state *st, OTF2_Archive *ar, uint32_t track,
                                        OTF2_AttributeList *al)
{
    otf2_loc *l = &st->locs[track];
    OTF2_EvtWriter *w = OTF2_Archive_GetEvtWriter(ar, l->id);
    if (!w) return otf2_error_fail(st, "opening an event writer", OTF2_ERROR_INVALID);
    otf2_cursor c = {l->buf.p, l->buf.p + l->buf.len};
    int64_t ts = l->base_ts;
    while (c.p < c.end) {
        uint8_t tag = otf2_get_u8(&c);
        ts = (int64_t)((uint64_t)ts + otf2_get_uv(&c));
        uint64_t t = otf2_time(st, ts);
        switch (tag & OTF2W_REC_KIND_MASK) {
        case OTF2W_REC_ENTER: {
            OTF2_RegionRef region = (OTF2_RegionRef)otf2_get_uv(&c);
            if (st->xl) region = st->xl->region[region];
            OTF2_AttributeList *list = tag & OTF2W_REC_ATTRS ? otf2_read_attrs(st, &c, al) : NULL;
            OTF2W_TRY(st, "writing an Enter event", OTF2_EvtWriter_Enter(w, list, t, region));
            break;
        }
        case OTF2W_REC_LEAVE: {
            OTF2_RegionRef region = (OTF2_RegionRef)otf2_get_uv(&c);
            if (st->xl) region = st->xl->region[region];
            OTF2W_TRY(st, "writing a Leave event", OTF2_EvtWriter_Leave(w, NULL, t, region));
            break;
        }
        case OTF2W_REC_METRIC: {
            uint64_t inst = otf2_get_uv(&c);
            OTF2_MetricRef metric =
                (OTF2_MetricRef)(st->xl ? st->xl->metric[inst] : st->nseries + inst);
            int whole = st->xl ? st->xl->metric_int[inst]
                               : !st->series[st->instances[inst].series].fraction;
            double v = otf2_get_f64(&c);
            OTF2_Type type = whole ? OTF2_TYPE_INT64 : OTF2_TYPE_DOUBLE;
            OTF2_MetricValue value;
            if (whole)
                value.signed_int = (int64_t)v;
            else
                value.floating_point = v;
            OTF2W_TRY(st, "writing a Metric event",
                      OTF2_EvtWriter_Metric(w, NULL, t, metric, 1, &type, &value));
            break;
        }
        case OTF2W_REC_FLOW: {
            uint64_t f = otf2_get_uv(&c);
            if (st->opt_flows == OTF2W_FLOWS_PARAMETERS) {
                /* Numbered from 1: a flow id of 0 is none in tconv's model. */
                uint64_t chain = 1u + (st->xl ? st->xl->flow_tag[st->chain[f]] : st->chain[f]);
                OTF2_AttributeList *list =
                    tag & OTF2W_REC_ATTRS ? otf2_read_attrs(st, &c, al) : NULL;
                OTF2W_TRY(st, "writing a ParameterUnsignedInt event",
                          OTF2_EvtWriter_ParameterUnsignedInt(
                              w, list, t, (OTF2_ParameterRef)(st->phase[f] - 1), chain));
                break;
            }
            const otf2_link *k = &st->links[f];
            uint32_t recv_tag = st->xl ? st->xl->flow_tag[k->recv_tag] : k->recv_tag;
            uint32_t send_tag = st->xl ? st->xl->flow_tag[k->send_tag] : k->send_tag;
            OTF2_AttributeList *list = tag & OTF2W_REC_ATTRS ? otf2_read_attrs(st, &c, al) : NULL;
            /* A step both receives the incoming link and sends the outgoing one; the args go
             * with the first message written. */
            if (k->recv_from != OTF2W_NO_PEER) {
                uint32_t from = (uint32_t)st->locs[k->recv_from].id;
                OTF2W_TRY(st, "writing an MpiRecv event",
                          OTF2_EvtWriter_MpiRecv(w, list, t, from, OTF2W_FLOW_COMM, recv_tag, 0));
                list = NULL;
            }
            if (k->send_to != OTF2W_NO_PEER) {
                uint32_t to = (uint32_t)st->locs[k->send_to].id;
                OTF2W_TRY(st, "writing an MpiSend event",
                          OTF2_EvtWriter_MpiSend(w, list, t, to, OTF2W_FLOW_COMM, send_tag, 0));
                list = NULL;
            }
            if (list) OTF2_AttributeList_RemoveAllAttributes(list);
            break;
        }
        default:
            tconv_error_set(st->ctx, "otf2: corrupt event buffer of track %u", track);
            return TCONV_FATAL;
        }
    }
    OTF2W_TRY(st, "counting events", OTF2_EvtWriter_GetNumberOfEvents(w, &l->nevents));
    OTF2W_TRY(st, "closing an event writer", OTF2_Archive_CloseEvtWriter(ar, w));
    /* The location's own hash, then that into the archive's (otf2_traceid.c); a rank's goes to
     * rank 0, which makes the archive's. */
    if (st->xl) {
        l->hash = otf2_xlate_hash(st, l);
    } else {
        uint64_t h = otf2_loc_hash(l, l->buf.p, l->buf.len);
        otf2_traceid_mix(st, &h, sizeof(h));
    }
    otf2_bytes_free(&l->buf);
    return TCONV_OK;
}

static tconv_status otf2_write_events(otf2_state *st, OTF2_Archive *ar)
{
    OTF2W_TRY(st, "opening the event files", OTF2_Archive_OpenEvtFiles(ar));
    OTF2_AttributeList *al = OTF2_AttributeList_New();
    if (!al) return otf2_error_fail(st, "creating an attribute list", OTF2_ERROR_MEM_ALLOC_FAILED);
    tconv_status s = TCONV_OK;
    for (size_t i = 0; i < st->nlocations && s == TCONV_OK; i++)
        s = otf2_write_location(st, ar, st->order[i], al);
    OTF2_AttributeList_Delete(al);
    if (s != TCONV_OK) return s;
    OTF2W_TRY(st, "closing the event files", OTF2_Archive_CloseEvtFiles(ar));
    return TCONV_OK;
}

static tconv_status otf2_write_markers(otf2_state *st, OTF2_Archive *ar)
{
    if (!st->nmarkers) return TCONV_OK;
    OTF2_MarkerWriter *mw = OTF2_Archive_GetMarkerWriter(ar);
    if (!mw) return otf2_error_fail(st, "opening the marker writer", OTF2_ERROR_INVALID);
    /* Only the definitions some marker uses: those of [memory] instants that a metric carries
     * (otf2_memory.c) may have none left. */
    uint8_t *used = calloc(st->nmarkdefs ? st->nmarkdefs : 1, 1);
    if (!used) otf2_oom();
    for (otf2_cursor u = {st->markers.p, st->markers.p + st->markers.len}; u.p < u.end;) {
        otf2_get_u8(&u);
        otf2_get_uv(&u);
        uint64_t def = otf2_get_uv(&u);
        otf2_get_sv(&u);
        u.p += (size_t)otf2_get_uv(&u);
        if (def < st->nmarkdefs) used[def] = 1;
    }
    for (size_t d = 0; d < st->nmarkdefs; d++) {
        const otf2_markdef *m = &st->markdefs[d];
        if (!used[d]) continue;
        const char *group =
            m->cat ? tconv_string_get(st->ctx, otf2_str_nul_free(st, m->cat)) : "instant";
        OTF2_ErrorCode code = OTF2_MarkerWriter_WriteDefMarker(
            mw, (OTF2_MarkerRef)d, group, tconv_string_get(st->ctx, otf2_str_nul_free(st, m->name)),
            OTF2_SEVERITY_NONE);
        if (code != OTF2_SUCCESS) {
            free(used);
            return otf2_error_fail(st, "writing a marker definition", code);
        }
    }
    free(used);
    otf2_bytes text = {0};
    otf2_cursor c = {st->markers.p, st->markers.p + st->markers.len};
    tconv_status s = TCONV_OK;
    while (c.p < c.end && s == TCONV_OK) {
        OTF2_MarkerScope scope = otf2_get_u8(&c);
        const otf2_loc *l = &st->locs[otf2_get_uv(&c)];
        OTF2_MarkerRef def = (OTF2_MarkerRef)otf2_get_uv(&c);
        uint64_t t = otf2_time(st, otf2_get_sv(&c));
        size_t len = (size_t)otf2_get_uv(&c);
        text.len = 0;
        otf2_bytes_reserve(&text, len + 1);
        otf2_put_raw(&text, c.p, len);
        otf2_put_u8(&text, 0);
        c.p += len;
        uint64_t ref = scope == OTF2_MARKER_SCOPE_LOCATION         ? l->id
                       : scope == OTF2_MARKER_SCOPE_LOCATION_GROUP ? l->group
                                                                   : OTF2_UNDEFINED_UINT64;
        /* Hashed as written (location and group ids, not track ids, which differ between one
         * writer and the ranks of an MPI run). */
        uint64_t fields[4] = {(uint64_t)scope, ref, def, t};
        otf2_traceid_mix(st, fields, sizeof(fields));
        otf2_traceid_mix(st, text.p, text.len);
        OTF2_ErrorCode code =
            OTF2_MarkerWriter_WriteMarker(mw, t, 0, def, scope, ref, (const char *)text.p);
        if (code != OTF2_SUCCESS) s = otf2_error_fail(st, "writing a marker", code);
    }
    otf2_bytes_free(&text);
    if (s != TCONV_OK) return s;
    otf2_bytes_free(&st->markers);
    OTF2W_TRY(st, "closing the marker writer", OTF2_Archive_CloseMarkerWriter(ar, mw));
    return TCONV_OK;
}

/* otf2-print wants a (here empty) local definition file for every location. */
static tconv_status otf2_write_local_defs(otf2_state *st, OTF2_Archive *ar)
{
    OTF2W_TRY(st, "opening the definition files", OTF2_Archive_OpenDefFiles(ar));
    for (size_t i = 0; i < st->nlocations; i++) {
        OTF2_DefWriter *dw = OTF2_Archive_GetDefWriter(ar, st->locs[st->order[i]].id);
        if (!dw) return otf2_error_fail(st, "opening a definition writer", OTF2_ERROR_INVALID);
        OTF2W_TRY(st, "closing a definition writer", OTF2_Archive_CloseDefWriter(ar, dw));
    }
    OTF2W_TRY(st, "closing the definition files", OTF2_Archive_CloseDefFiles(ar));
    return TCONV_OK;
}

/* String refs of the global definitions, taken before the strings are written. */
typedef struct otf2_defrefs {
    OTF2_StringRef empty;
    OTF2_StringRef *region_name, *region_desc;
    OTF2_StringRef *attr_name;
    OTF2_StringRef *series_name, *series_unit, *series_key;
    OTF2_StringRef cuda, hip, mpi;
    OTF2_StringRef flow_param[3];
    OTF2_StringRef pid, tid;
    OTF2_StringRef comm_name, comm_locations, comm_ranks;
    int uses_cuda, uses_hip;
} otf2_defrefs;

static OTF2_StringRef *otf2_refs_alloc(size_t n)
{
    OTF2_StringRef *p = malloc((n ? n : 1) * sizeof(*p));
    if (!p) otf2_oom();
    return p;
}

/* A series' metric name: the counter's name, and its series key when that adds something
 * (a Chrome counter is one series per arg), joined by a space as Perfetto names them. */
static OTF2_StringRef otf2_series_name(otf2_state *st, const otf2_series *s)
{
    const char *name = tconv_string_get(st->ctx, s->name);
    const char *key = tconv_string_get(st->ctx, s->key);
    if (!*key || strcmp(key, name) == 0) return otf2_strref(st, s->name);
    size_t n = strlen(name) + strlen(key) + 2;
    char *full = malloc(n);
    if (!full) otf2_oom();
    snprintf(full, n, "%s %s", name, key);
    OTF2_StringRef r = otf2_strref_cstr(st, full);
    free(full);
    return r;
}

static void otf2_take_refs(otf2_state *st, otf2_defrefs *r)
{
    r->empty = otf2_strref(st, 0);
    r->region_name = otf2_refs_alloc(st->nregions);
    r->region_desc = otf2_refs_alloc(st->nregions);
    for (size_t i = 0; i < st->nregions; i++) {
        OTF2_Paradigm paradigm;
        OTF2_RegionRole role;
        otf2_region_kind(st, &st->regions[i], &paradigm, &role);
        r->uses_cuda |= paradigm == OTF2_PARADIGM_CUDA;
        r->uses_hip |= paradigm == OTF2_PARADIGM_HIP;
        r->region_name[i] = otf2_strref(st, st->regions[i].name);
        r->region_desc[i] = otf2_strref(st, st->regions[i].cat);
    }
    r->attr_name = otf2_refs_alloc(st->nattrs);
    for (size_t i = 0; i < st->nattrs; i++)
        r->attr_name[i] = otf2_strref(st, st->attrs[i].key);
    r->series_name = otf2_refs_alloc(st->nseries);
    r->series_unit = otf2_refs_alloc(st->nseries);
    r->series_key = otf2_refs_alloc(st->nseries);
    for (size_t i = 0; i < st->nseries; i++) {
        const otf2_series *se = &st->series[i];
        r->series_name[i] = otf2_series_name(st, se);
        r->series_unit[i] = otf2_strref(st, se->unit);
        /* The series key as the member's description, so that a reader can split the name
         * back into counter and series (tconv's otf2 reader does). */
        r->series_key[i] = se->key == se->name ? r->empty : otf2_strref(st, se->key);
    }
    if (r->uses_cuda) r->cuda = otf2_strref_cstr(st, "CUDA");
    if (r->uses_hip) r->hip = otf2_strref_cstr(st, "HIP");
    if (st->opt_flows == OTF2W_FLOWS_PARAMETERS && st->nflows)
        for (int k = 0; k < 3; k++)
            r->flow_param[k] = otf2_strref_cstr(st, otf2_flow_params[k]);
    r->pid = otf2_strref_cstr(st, "pid");
    r->tid = otf2_strref_cstr(st, "tid");
    if (st->nlinks) {
        r->mpi = otf2_strref_cstr(st, "MPI");
        r->comm_name = otf2_strref_cstr(st, "flows");
        r->comm_locations = otf2_strref_cstr(st, "flow locations");
        r->comm_ranks = otf2_strref_cstr(st, "flow ranks");
    }
}

static void otf2_free_refs(otf2_defrefs *r)
{
    free(r->region_name);
    free(r->region_desc);
    free(r->attr_name);
    free(r->series_name);
    free(r->series_unit);
    free(r->series_key);
}

/* The pid and tid the input wrote, as properties of the location group and the location, for
 * readers that give them back (tconv's otf2 reader does) rather than OTF2's references. */
static tconv_status otf2_write_ids(otf2_state *st, OTF2_GlobalDefWriter *gw, const otf2_defrefs *r)
{
    for (size_t g = 0; g < st->ngroups; g++) {
        OTF2_AttributeValue v = {.stringRef = st->groups[g].pid_ref};
        OTF2W_TRY(st, "writing a location group property",
                  OTF2_GlobalDefWriter_WriteLocationGroupProperty(gw, (OTF2_LocationGroupRef)g,
                                                                  r->pid, OTF2_TYPE_STRING, v));
    }
    for (size_t i = 0; i < st->nlocations; i++) {
        const otf2_loc *l = &st->locs[st->order[i]];
        if (!l->tid_ref) continue;
        OTF2_AttributeValue v = {.stringRef = l->tid_ref - 1};
        OTF2W_TRY(
            st, "writing a location property",
            OTF2_GlobalDefWriter_WriteLocationProperty(gw, l->id, r->tid, OTF2_TYPE_STRING, v));
    }
    return TCONV_OK;
}

static tconv_status otf2_write_system(otf2_state *st, OTF2_GlobalDefWriter *gw)
{
    for (uint32_t n = 0; n < st->nnodes; n++) {
        OTF2W_TRY(st, "writing a system tree node",
                  OTF2_GlobalDefWriter_WriteSystemTreeNode(
                      gw, n, st->node_name_refs[n], st->node_class_refs[n],
                      n ? 0 : OTF2_UNDEFINED_SYSTEM_TREE_NODE));
        OTF2W_TRY(st, "writing a system tree domain",
                  OTF2_GlobalDefWriter_WriteSystemTreeNodeDomain(
                      gw, n,
                      n ? OTF2_SYSTEM_TREE_DOMAIN_SHARED_MEMORY : OTF2_SYSTEM_TREE_DOMAIN_MACHINE));
    }
    for (size_t g = 0; g < st->ngroups; g++) {
        const otf2_group *grp = &st->groups[g];
        OTF2_LocationGroupRef creator =
            grp->creator == UINT32_MAX ? OTF2_UNDEFINED_LOCATION_GROUP : grp->creator;
        OTF2W_TRY(st, "writing a location group",
                  OTF2_GlobalDefWriter_WriteLocationGroup(gw, (OTF2_LocationGroupRef)g,
                                                          grp->name_ref, grp->type,
                                                          st->inputs[grp->input].node, creator));
    }
    for (size_t i = 0; i < st->nlocations; i++) {
        const otf2_loc *l = &st->locs[st->order[i]];
        OTF2W_TRY(st, "writing a location",
                  OTF2_GlobalDefWriter_WriteLocation(gw, l->id, l->name_ref, l->type, l->nevents,
                                                     l->group));
    }
    return TCONV_OK;
}

static tconv_status otf2_write_regions(otf2_state *st, OTF2_GlobalDefWriter *gw,
                                       const otf2_defrefs *r)
{
    if (r->uses_cuda)
        OTF2W_TRY(st, "writing a paradigm",
                  OTF2_GlobalDefWriter_WriteParadigm(gw, OTF2_PARADIGM_CUDA, r->cuda,
                                                     OTF2_PARADIGM_CLASS_ACCELERATOR));
    if (r->uses_hip)
        OTF2W_TRY(st, "writing a paradigm",
                  OTF2_GlobalDefWriter_WriteParadigm(gw, OTF2_PARADIGM_HIP, r->hip,
                                                     OTF2_PARADIGM_CLASS_ACCELERATOR));
    for (size_t i = 0; i < st->nregions; i++) {
        OTF2_Paradigm paradigm;
        OTF2_RegionRole role;
        otf2_region_kind(st, &st->regions[i], &paradigm, &role);
        OTF2W_TRY(st, "writing a region",
                  OTF2_GlobalDefWriter_WriteRegion(gw, (OTF2_RegionRef)i, r->region_name[i],
                                                   r->region_name[i], r->region_desc[i], role,
                                                   paradigm, OTF2_REGION_FLAG_NONE,
                                                   OTF2_UNDEFINED_STRING, 0, 0));
    }
    for (size_t i = 0; i < st->nattrs; i++)
        OTF2W_TRY(st, "writing an attribute",
                  OTF2_GlobalDefWriter_WriteAttribute(gw, (OTF2_AttributeRef)i, r->attr_name[i],
                                                      r->empty, st->attrs[i].type));
    if (st->opt_flows == OTF2W_FLOWS_PARAMETERS && st->nflows)
        for (int k = 0; k < 3; k++)
            OTF2W_TRY(st, "writing a parameter",
                      OTF2_GlobalDefWriter_WriteParameter(
                          gw, (OTF2_ParameterRef)k, r->flow_param[k], OTF2_PARAMETER_TYPE_UINT64));
    return TCONV_OK;
}

/* Flow messages travel in one MPI-style communicator over every location: rank r of the
 * communicator is location r. */
static tconv_status otf2_write_comm(otf2_state *st, OTF2_GlobalDefWriter *gw, const otf2_defrefs *r)
{
    if (!st->nlinks) return TCONV_OK;
    OTF2W_TRY(st, "writing a paradigm",
              OTF2_GlobalDefWriter_WriteParadigm(gw, OTF2_PARADIGM_MPI, r->mpi,
                                                 OTF2_PARADIGM_CLASS_PROCESS));
    uint64_t *members = malloc((st->nlocations ? st->nlocations : 1) * sizeof(*members));
    if (!members) otf2_oom();
    for (size_t i = 0; i < st->nlocations; i++)
        members[i] = i;
    OTF2_ErrorCode code = OTF2_GlobalDefWriter_WriteGroup(
        gw, OTF2W_FLOW_GROUP_LOCATIONS, r->comm_locations, OTF2_GROUP_TYPE_COMM_LOCATIONS,
        OTF2_PARADIGM_MPI, OTF2_GROUP_FLAG_NONE, (uint32_t)st->nlocations, members);
    if (code == OTF2_SUCCESS)
        code = OTF2_GlobalDefWriter_WriteGroup(
            gw, OTF2W_FLOW_GROUP_RANKS, r->comm_ranks, OTF2_GROUP_TYPE_COMM_GROUP,
            OTF2_PARADIGM_MPI, OTF2_GROUP_FLAG_NONE, (uint32_t)st->nlocations, members);
    free(members);
    if (code != OTF2_SUCCESS) return otf2_error_fail(st, "writing a group", code);
    OTF2W_TRY(st, "writing a communicator",
              OTF2_GlobalDefWriter_WriteComm(gw, OTF2W_FLOW_COMM, r->comm_name,
                                             OTF2W_FLOW_GROUP_RANKS, OTF2_UNDEFINED_COMM,
                                             OTF2_COMM_FLAG_NONE));
    return TCONV_OK;
}

/* Metrics: a member and a class per series (refs 0..S-1), an instance per series and location
 * (refs S..), scoped to the process for process counters. Metric events name the instance. */
static tconv_status otf2_write_metrics(otf2_state *st, OTF2_GlobalDefWriter *gw,
                                       const otf2_defrefs *r)
{
    for (size_t i = 0; i < st->nseries; i++) {
        OTF2W_TRY(st, "writing a metric member",
                  OTF2_GlobalDefWriter_WriteMetricMember(
                      gw, (OTF2_MetricMemberRef)i, r->series_name[i], r->series_key[i],
                      OTF2_METRIC_TYPE_USER, OTF2_METRIC_ABSOLUTE_POINT,
                      st->series[i].fraction ? OTF2_TYPE_DOUBLE : OTF2_TYPE_INT64,
                      OTF2_BASE_DECIMAL, 0, r->series_unit[i]));
        OTF2_MetricMemberRef member = (OTF2_MetricMemberRef)i;
        OTF2W_TRY(st, "writing a metric class",
                  OTF2_GlobalDefWriter_WriteMetricClass(gw, (OTF2_MetricRef)i, 1, &member,
                                                        OTF2_METRIC_ASYNCHRONOUS,
                                                        OTF2_RECORDER_KIND_ABSTRACT));
    }
    for (size_t i = 0; i < st->ninstances; i++) {
        const otf2_instance *in = &st->instances[i];
        const otf2_loc *l = &st->locs[in->track];
        const tconv_track *k = otf2_track(st, in->track);
        OTF2_MetricScope scope = OTF2_SCOPE_LOCATION;
        uint64_t ref = l->id;
        if (k->kind == TCONV_TRACK_PROCESS) {
            scope = OTF2_SCOPE_LOCATION_GROUP;
            ref = l->group;
        } else if (k->kind == TCONV_TRACK_GLOBAL) {
            scope = OTF2_SCOPE_SYSTEM_TREE_NODE;
            ref = st->inputs[k->input].node;
        }
        OTF2W_TRY(st, "writing a metric instance",
                  OTF2_GlobalDefWriter_WriteMetricInstance(gw, (OTF2_MetricRef)(st->nseries + i),
                                                           (OTF2_MetricRef)in->series, l->id, scope,
                                                           ref));
    }
    return TCONV_OK;
}

static tconv_status otf2_write_global_defs(otf2_state *st, OTF2_Archive *ar)
{
    OTF2_GlobalDefWriter *gw = OTF2_Archive_GetGlobalDefWriter(ar);
    if (!gw) return otf2_error_fail(st, "opening the global definition writer", OTF2_ERROR_INVALID);
    uint64_t first = st->have_time ? otf2_time(st, st->min_ts) : 0;
    uint64_t length = st->have_time ? (uint64_t)st->max_ts - (uint64_t)st->min_ts + 1 : 0;
    OTF2W_TRY(st, "writing the clock properties",
              OTF2_GlobalDefWriter_WriteClockProperties(gw, 1000000000, first, length,
                                                        OTF2_UNDEFINED_TIMESTAMP));
    otf2_defrefs r = {0};
    otf2_take_refs(st, &r);
    tconv_status s = TCONV_OK;
    for (size_t i = 0; i < st->nstrings && s == TCONV_OK; i++) {
        const char *text = tconv_string_get(st->ctx, st->strings[i]);
        otf2_traceid_mix(st, text, strlen(text) + 1);
        OTF2_ErrorCode code = OTF2_GlobalDefWriter_WriteString(gw, (OTF2_StringRef)i, text);
        if (code != OTF2_SUCCESS) s = otf2_error_fail(st, "writing a string", code);
    }
    if (s == TCONV_OK) s = otf2_write_regions(st, gw, &r);
    if (s == TCONV_OK) s = otf2_write_system(st, gw);
    if (s == TCONV_OK) s = otf2_write_ids(st, gw, &r);
    if (s == TCONV_OK) s = otf2_write_comm(st, gw, &r);
    if (s == TCONV_OK) s = otf2_write_metrics(st, gw, &r);
    otf2_free_refs(&r);
    return s;
}

static tconv_status otf2_write_all(otf2_state *st, OTF2_Archive *ar)
{
    OTF2W_TRY(st, "setting the flush callbacks",
              OTF2_Archive_SetFlushCallbacks(ar, &otf2_flush_callbacks, NULL));
    OTF2W_TRY(st, "setting the collective callbacks",
              OTF2_Archive_SetSerialCollectiveCallbacks(ar));
    OTF2W_TRY(st, "setting the creator", OTF2_Archive_SetCreator(ar, "tconv"));
    tconv_status s = otf2_write_events(st, ar);
    if (s == TCONV_OK) s = otf2_write_markers(st, ar);
    if (s == TCONV_OK) s = otf2_write_local_defs(st, ar);
    if (s == TCONV_OK) s = otf2_write_global_defs(st, ar);
    return s;
}

/* The definition chunk: a power of two that holds the largest definition, from OTF2's least
 * on. Every location has a definition writer of its own (otf2_write_local_defs), which clears a
 * whole chunk when it closes: 4 MiB for each of a trace's hundreds of GPU streams was most of
 * the time of writing such a trace. The largest definition is a string (one of the context's,
 * or a counter's name and key joined) or the group of every location. */
static uint64_t otf2_def_chunk_for(uint64_t longest, uint64_t nlocations)
{
    uint64_t need = 2 * longest + 16;
    if (nlocations * 10 > need) need = nlocations * 10;
    need += 4096; /* the chunk's header, with room to spare */
    uint64_t chunk = OTF2_CHUNK_SIZE_MIN;
    while (chunk < need && chunk < OTF2_CHUNK_SIZE_MAX)
        chunk *= 2;
    return chunk;
}

static uint64_t otf2_longest_string(const otf2_state *st)
{
    uint64_t longest = 0;
    for (uint32_t i = 0, n = tconv_string_count(st->ctx); i < n; i++) {
        uint64_t len = tconv_string_length(st->ctx, i);
        if (len > longest) longest = len;
    }
    return longest;
}

tconv_status otf2_archive_write(otf2_state *st)
{
    st->shift = st->have_time && st->min_ts < 0 ? st->min_ts : 0;
    const char *dir = tconv_output_dir(st->out);
    OTF2_Archive *ar =
        OTF2_Archive_Open(dir, "traces", OTF2_FILEMODE_WRITE, OTF2W_EVT_CHUNK,
                          otf2_def_chunk_for(otf2_longest_string(st), st->nlocations),
                          OTF2_SUBSTRATE_POSIX, OTF2_COMPRESSION_NONE);
    if (!ar) return otf2_error_fail(st, "creating the archive", OTF2_ERROR_INVALID);
    tconv_status s = otf2_write_all(st, ar);
    OTF2_ErrorCode code = OTF2_Archive_Close(ar);
    if (s == TCONV_OK && code != OTF2_SUCCESS) s = otf2_error_fail(st, "closing the archive", code);
    if (s == TCONV_OK) s = otf2_traceid_fix(st, dir);
    return s;
}

/* ---- an MPI run: every rank writes a part (otf2_unify.c) ---------------------------------- */

/* What each rank tells rank 0 of a location it wrote: id, event count, hash. */
enum { OTF2W_PART_LOC = 3 };

static tconv_status otf2_write_part_events(otf2_state *st, OTF2_Archive *ar)
{
    tconv_status s = TCONV_OK;
    OTF2_ErrorCode code = OTF2_Archive_OpenEvtFiles(ar);
    if (code != OTF2_SUCCESS) s = otf2_error_fail(st, "opening the event files", code);
    OTF2_AttributeList *al = OTF2_AttributeList_New();
    if (!al) otf2_oom();
    for (size_t i = 0; i < st->nlocations && s == TCONV_OK; i++)
        s = otf2_write_location(st, ar, st->order[i], al);
    OTF2_AttributeList_Delete(al);
    /* Collective: made whatever happened above. */
    code = OTF2_Archive_CloseEvtFiles(ar);
    if (s == TCONV_OK && code != OTF2_SUCCESS)
        s = otf2_error_fail(st, "closing the event files", code);
    code = OTF2_Archive_OpenDefFiles(ar);
    if (s == TCONV_OK && code != OTF2_SUCCESS)
        s = otf2_error_fail(st, "opening the definition files", code);
    for (size_t i = 0; i < st->nlocations && s == TCONV_OK; i++) {
        OTF2_DefWriter *dw = OTF2_Archive_GetDefWriter(ar, st->locs[st->order[i]].id);
        if (!dw) s = otf2_error_fail(st, "opening a definition writer", OTF2_ERROR_INVALID);
        if (dw) OTF2_Archive_CloseDefWriter(ar, dw);
    }
    code = OTF2_Archive_CloseDefFiles(ar);
    if (s == TCONV_OK && code != OTF2_SUCCESS)
        s = otf2_error_fail(st, "closing the definition files", code);
    return s;
}

/* Rank 0 learns every location's event count and hash; the archive's hash takes the locations'
 * in location order, as one writer's does. */
static void otf2_gather_locations(otf2_state *st, otf2_state *g, tconv_collective *c)
{
    int size = tconv_collective_size(c);
    uint64_t *mine = malloc((st->nlocations ? st->nlocations : 1) * OTF2W_PART_LOC * sizeof(*mine));
    if (!mine) otf2_oom();
    for (size_t i = 0; i < st->nlocations; i++) {
        const otf2_loc *l = &st->locs[st->order[i]];
        mine[i * OTF2W_PART_LOC] = l->id;
        mine[i * OTF2W_PART_LOC + 1] = l->nevents;
        mine[i * OTF2W_PART_LOC + 2] = l->hash;
    }
    const otf2_bytes b = {(uint8_t *)mine, st->nlocations * OTF2W_PART_LOC * sizeof(*mine), 0};
    size_t *lens;
    unsigned char *bytes = otf2_gather(c, &b, &lens);
    if (g) {
        uint64_t *hash = calloc(g->nlocations ? g->nlocations : 1, sizeof(*hash));
        if (!hash) otf2_oom();
        size_t off = 0;
        for (int q = 0; q < size; q++) {
            uint64_t events = 0, nloc = lens[q] / (OTF2W_PART_LOC * sizeof(uint64_t));
            for (uint64_t k = 0; k < nloc; k++, off += OTF2W_PART_LOC * sizeof(uint64_t)) {
                uint64_t loc[OTF2W_PART_LOC];
                memcpy(loc, bytes + off, sizeof(loc));
                events += loc[1];
                if (loc[0] < g->nlocations) {
                    g->locs[g->order[loc[0]]].nevents = loc[1];
                    hash[loc[0]] = loc[2];
                }
            }
            off += lens[q] % (OTF2W_PART_LOC * sizeof(uint64_t));
            /* What each rank says it wrote: proof that the event files are the ranks' own. */
            tconv_note(g->ctx,
                       "otf2: rank %d wrote the event files of %llu locations (%llu events)", q,
                       (unsigned long long)nloc, (unsigned long long)events);
        }
        for (size_t id = 0; id < g->nlocations; id++)
            otf2_traceid_mix(g, &hash[id], sizeof(hash[id]));
        free(hash);
    }
    free(bytes);
    free(lens);
    free(mine);
}

/* The definition chunk of an MPI run, which its ranks must agree on: the one a single process
 * would size (otf2_def_chunk_for), from the longest string any rank holds and every rank's
 * locations, so that the archive is the same bytes. */
static uint64_t otf2_def_chunk_part(const otf2_state *st, tconv_collective *c)
{
    uint64_t mine[2] = {otf2_longest_string(st), st->nlocations}, chunk = 0;
    unsigned char *all = NULL;
    size_t *counts = NULL;
    tconv_collective_gather(c, mine, sizeof(mine), 0, &all, &counts);
    if (tconv_collective_rank(c) == 0) {
        uint64_t longest = 0, nlocations = 0;
        for (int q = 0, n = tconv_collective_size(c); all && q < n; q++) {
            uint64_t v[2];
            memcpy(v, all + (size_t)q * sizeof(v), sizeof(v));
            if (v[0] > longest) longest = v[0];
            nlocations += v[1];
        }
        chunk = otf2_def_chunk_for(longest, nlocations);
    }
    free(all);
    free(counts);
    tconv_collective_bcast(c, &chunk, sizeof(chunk), 0);
    return chunk ? chunk : OTF2W_DEF_CHUNK;
}

tconv_status otf2_archive_write_part(otf2_state *st, otf2_state *g, tconv_collective *c)
{
    const char *dir = tconv_output_dir(st->out);
    uint64_t def_chunk = otf2_def_chunk_part(st, c);
    OTF2_Archive *ar = OTF2_Archive_Open(dir, "traces", OTF2_FILEMODE_WRITE, OTF2W_EVT_CHUNK,
                                         def_chunk, OTF2_SUBSTRATE_POSIX, OTF2_COMPRESSION_NONE);
    /* Opening is collective: a rank that could not open cannot take part any more, and the
     * others would wait for it. OTF2 fails only on what fails everywhere (memory, arguments). */
    if (!ar) return otf2_error_fail(st, "creating the archive", OTF2_ERROR_INVALID);
    tconv_status s = TCONV_OK;
    OTF2_ErrorCode code = OTF2_Archive_SetFlushCallbacks(ar, &otf2_flush_callbacks, NULL);
    if (code == OTF2_SUCCESS) code = otf2_coll_set(ar, c);
    if (code == OTF2_SUCCESS) code = OTF2_Archive_SetCreator(ar, "tconv");
    if (code != OTF2_SUCCESS) s = otf2_error_fail(st, "setting up the archive", code);
    tconv_status e = otf2_write_part_events(st, ar);
    if (s == TCONV_OK) s = e;
    otf2_gather_locations(st, g, c);
    if (g) {
        tconv_status gs = otf2_write_markers(g, ar);
        if (gs == TCONV_OK) gs = otf2_write_global_defs(g, ar);
        if (s == TCONV_OK) s = gs; /* g shares st's context: the error is there */
    }
    code = OTF2_Archive_Close(ar);
    if (s == TCONV_OK && code != OTF2_SUCCESS) s = otf2_error_fail(st, "closing the archive", code);
    if (s == TCONV_OK && g) s = otf2_traceid_fix(g, dir);
    return s;
}
