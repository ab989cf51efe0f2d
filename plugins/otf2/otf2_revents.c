/* The otf2 reader's events, one location at a time: Enter/Leave become BEGIN/END on the
 * location's track, Metric values counters, MPI messages flows. What is kept is the location's
 * open regions and its message counters, so memory follows the deepest stack and the busiest
 * location's peers, not the archive. Damage a location's events can show (a Leave of a region
 * that is not open, a region left open at the end) is repaired and counted. */
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "otf2_reader.h"

#define OTF2R_GUARD(r)                                                                             \
    do {                                                                                           \
        if ((r)->status != TCONV_OK) return OTF2_CALLBACK_INTERRUPT;                               \
    } while (0)

static OTF2_CallbackCode otf2r_fail(otf2r *r)
{
    r->status = TCONV_FATAL;
    return OTF2_CALLBACK_INTERRUPT;
}

/* The event's time in ns, and one more event read; -1 when the time does not fit. */
static int otf2r_at(otf2r *r, OTF2_TimeStamp t, int64_t *ns)
{
    r->nread++;
    if (otf2r_time(r, t, ns) < 0) return -1;
    if (*ns > r->last_ns) r->last_ns = *ns;
    return 0;
}

static OTF2_CallbackCode otf2r_push(otf2r *r, tconv_event *ev)
{
    if (tconv_sink_push(r->sink, ev) == TCONV_FATAL) return otf2r_fail(r);
    return OTF2_CALLBACK_SUCCESS;
}

void otf2r_args(otf2r *r, OTF2_AttributeList *al, tconv_event *ev)
{
    if (!r->args || !al) return;
    uint32_t n = OTF2_AttributeList_GetNumberOfElements(al);
    if (!n) return;
    if (n > r->argv_cap) {
        r->argv = realloc(r->argv, n * sizeof(*r->argv));
        if (!r->argv) otf2r_oom();
        r->argv_cap = n;
    }
    uint32_t k = 0;
    for (uint32_t i = 0; i < n; i++) {
        OTF2_AttributeRef id;
        OTF2_Type type;
        OTF2_AttributeValue v;
        if (OTF2_AttributeList_GetAttributeByIndex(al, i, &id, &type, &v) != OTF2_SUCCESS) continue;
        tconv_arg *a = &r->argv[k];
        a->key = id < r->nattrs && r->attrs[id].defined ? r->attrs[id].key : 0;
        if (!a->key) {
            char buf[32];
            snprintf(buf, sizeof(buf), "attribute %" PRIu32, id);
            a->key = tconv_string_intern_cstr(r->ctx, buf);
        }
        switch (type) {
        case OTF2_TYPE_INT8:
            a->type = TCONV_ARG_INT;
            a->v.i = v.int8;
            break;
        case OTF2_TYPE_INT16:
            a->type = TCONV_ARG_INT;
            a->v.i = v.int16;
            break;
        case OTF2_TYPE_INT32:
            a->type = TCONV_ARG_INT;
            a->v.i = v.int32;
            break;
        case OTF2_TYPE_INT64:
            a->type = TCONV_ARG_INT;
            a->v.i = v.int64;
            break;
        case OTF2_TYPE_UINT8:
            a->type = TCONV_ARG_UINT;
            a->v.u = v.uint8;
            break;
        case OTF2_TYPE_UINT16:
            a->type = TCONV_ARG_UINT;
            a->v.u = v.uint16;
            break;
        case OTF2_TYPE_UINT32:
            a->type = TCONV_ARG_UINT;
            a->v.u = v.uint32;
            break;
        case OTF2_TYPE_FLOAT:
            a->type = TCONV_ARG_DOUBLE;
            a->v.d = v.float32;
            break;
        case OTF2_TYPE_DOUBLE:
            a->type = TCONV_ARG_DOUBLE;
            a->v.d = v.float64;
            break;
        case OTF2_TYPE_STRING:
            a->type = TCONV_ARG_STRING;
            a->v.s = otf2r_string(r, v.stringRef);
            break;
        default: /* uint64 and references to definitions: the number */
            a->type = TCONV_ARG_UINT;
            a->v.u = v.uint64;
        }
        k++;
    }
    ev->args = r->argv;
    ev->nargs = k;
}

static uint16_t otf2r_role(const otf2r *r, const otf2r_region *g)
{
    /* Device code outside a device stream is the host's stub of it: leave it to the core. */
    if (tconv_role_is_gpu(g->role) && r->loc->type != OTF2_LOCATION_TYPE_ACCELERATOR_STREAM)
        return 0;
    return g->role;
}

static OTF2_CallbackCode otf2r_ev_enter(OTF2_LocationRef loc, OTF2_TimeStamp t, uint64_t pos,
                                        void *u, OTF2_AttributeList *al, OTF2_RegionRef region)
{
    (void)loc;
    (void)pos;
    otf2r *r = u;
    OTF2R_GUARD(r);
    int64_t ns;
    if (otf2r_at(r, t, &ns) < 0) return otf2r_fail(r);
    if (region >= r->nregions || !r->regions[region].defined) {
        tconv_warning_add(r->ctx, "otf2.undefined-region",
                          "%s: location %" PRIu64 ", event %" PRIu64 ": Enter of region %" PRIu32
                          ", which is not defined; skipped",
                          r->anchor, r->loc->id, r->nread, region);
        return OTF2_CALLBACK_SUCCESS;
    }
    if (r->depth == r->stack_cap) {
        r->stack_cap = r->stack_cap ? 2 * r->stack_cap : 64;
        r->stack = realloc(r->stack, r->stack_cap * sizeof(*r->stack));
        if (!r->stack) otf2r_oom();
    }
    r->stack[r->depth++] = (otf2r_open){region, ns};
    r->nopen[region]++;
    if (r->depth > r->max_depth) r->max_depth = r->depth;
    const otf2r_region *g = &r->regions[region];
    tconv_event ev = TCONV_EVENT_INIT;
    ev.kind = TCONV_EV_BEGIN;
    ev.track = r->track;
    ev.name = g->name;
    ev.cat = g->cat;
    ev.ts = ns;
    ev.role = otf2r_role(r, g);
    otf2r_args(r, al, &ev);
    return otf2r_push(r, &ev);
}

static OTF2_CallbackCode otf2r_end(otf2r *r, int64_t ns, OTF2_AttributeList *al)
{
    uint32_t region = r->stack[--r->depth].region;
    r->nopen[region]--;
    const otf2r_region *g = &r->regions[region];
    tconv_event ev = TCONV_EVENT_INIT;
    ev.kind = TCONV_EV_END;
    ev.track = r->track;
    ev.name = g->name;
    ev.cat = g->cat;
    ev.ts = ns;
    ev.role = otf2r_role(r, g);
    otf2r_args(r, al, &ev);
    return otf2r_push(r, &ev);
}

static OTF2_CallbackCode otf2r_ev_leave(OTF2_LocationRef loc, OTF2_TimeStamp t, uint64_t pos,
                                        void *u, OTF2_AttributeList *al, OTF2_RegionRef region)
{
    (void)loc;
    (void)pos;
    otf2r *r = u;
    OTF2R_GUARD(r);
    int64_t ns;
    if (otf2r_at(r, t, &ns) < 0) return otf2r_fail(r);
    /* A region that is not open is known at once (a scan of the stack made 400 000 Leaves of
     * one under 400 000 open ones quadratic); one that is, is found by a scan that closes
     * every region it passes, so each open region is scanned once. */
    size_t k = region < r->nregions && r->nopen[region] ? r->depth : 0;
    while (k > 0 && r->stack[k - 1].region != region)
        k--;
    if (!k) {
        tconv_warning_add(r->ctx, "otf2.leave-without-enter",
                          "%s: location %" PRIu64 ", event %" PRIu64 ": Leave of region %" PRIu32
                          ", which is not open; skipped",
                          r->anchor, r->loc->id, r->nread, region);
        return OTF2_CALLBACK_SUCCESS;
    }
    if (k != r->depth)
        tconv_warning_add(r->ctx, "otf2.leave-not-innermost",
                          "%s: location %" PRIu64 ", event %" PRIu64 ": Leave of region %" PRIu32
                          " while %zu regions inside it are open; "
                          "they are closed there",
                          r->anchor, r->loc->id, r->nread, region, r->depth - k);
    while (r->depth > k)
        if (otf2r_end(r, ns, NULL) != OTF2_CALLBACK_SUCCESS) return OTF2_CALLBACK_INTERRUPT;
    return otf2r_end(r, ns, al);
}

static OTF2_CallbackCode otf2r_ev_metric(OTF2_LocationRef loc, OTF2_TimeStamp t, uint64_t pos,
                                         void *u, OTF2_AttributeList *al, OTF2_MetricRef metric,
                                         uint8_t n, const OTF2_Type *types,
                                         const OTF2_MetricValue *values)
{
    (void)loc;
    (void)pos;
    (void)al;
    otf2r *r = u;
    OTF2R_GUARD(r);
    int64_t ns;
    if (otf2r_at(r, t, &ns) < 0) return otf2r_fail(r);
    const otf2r_metric *m = metric < r->nmetrics ? &r->metrics[metric] : NULL;
    if (m && m->defined && m->cls != UINT32_MAX)
        m = m->cls < r->nmetrics && r->metrics[m->cls].cls == UINT32_MAX ? &r->metrics[m->cls]
                                                                         : NULL;
    if (!m || !m->defined || m->n != n) {
        tconv_warning_add(r->ctx, "otf2.bad-metric",
                          "%s: location %" PRIu64 ", event %" PRIu64 ": a Metric of metric %" PRIu32
                          " with %u values, which its definition does not match; skipped",
                          r->anchor, r->loc->id, r->nread, metric, n);
        return OTF2_CALLBACK_SUCCESS;
    }
    for (uint8_t i = 0; i < n; i++) {
        uint32_t mm = m->members[i];
        if (mm >= r->nmembers || !r->members[mm].defined) continue;
        const otf2r_member *mb = &r->members[mm];
        double v;
        if (types[i] == OTF2_TYPE_INT64)
            v = (double)values[i].signed_int;
        else if (types[i] == OTF2_TYPE_UINT64)
            v = (double)values[i].unsigned_int;
        else
            v = values[i].floating_point;
        tconv_event ev = TCONV_EVENT_INIT;
        ev.kind = TCONV_EV_COUNTER;
        ev.track = r->track;
        ev.name = mb->name;
        ev.key = mb->key;
        ev.unit = mb->unit;
        ev.ts = ns;
        ev.value = v * mb->scale;
        if (otf2r_push(r, &ev) != OTF2_CALLBACK_SUCCESS) return OTF2_CALLBACK_INTERRUPT;
    }
    return OTF2_CALLBACK_SUCCESS;
}

static uint64_t otf2r_mix(uint64_t h, uint64_t v)
{
    h ^= v + 0x9e3779b97f4a7c15u + (h << 6) + (h >> 2);
    h ^= h >> 31;
    h *= 0xbf58476d1ce4e5b9u;
    h ^= h >> 27;
    return h;
}

/* How many messages of (comm, peer, tag) in this direction came before on this location. */
static uint64_t otf2r_msg_count(otf2r *r, uint32_t comm_dir, uint64_t peer, uint32_t tag)
{
    if (2 * (r->nmsgs + 1) > r->msgs_cap) {
        otf2r_msgslot *old = r->msgs;
        size_t oldcap = r->msgs_cap;
        r->msgs_cap = oldcap ? 2 * oldcap : 64;
        r->msgs = calloc(r->msgs_cap, sizeof(*r->msgs));
        if (!r->msgs) otf2r_oom();
        r->nmsgs = 0;
        for (size_t i = 0; i < oldcap; i++)
            if (old[i].used) {
                size_t j =
                    otf2r_mix(otf2r_mix(old[i].peer, old[i].comm), old[i].tag) & (r->msgs_cap - 1);
                while (r->msgs[j].used)
                    j = (j + 1) & (r->msgs_cap - 1);
                r->msgs[j] = old[i];
                r->nmsgs++;
            }
        free(old);
    }
    size_t j = otf2r_mix(otf2r_mix(peer, comm_dir), tag) & (r->msgs_cap - 1);
    while (r->msgs[j].used &&
           !(r->msgs[j].peer == peer && r->msgs[j].comm == comm_dir && r->msgs[j].tag == tag))
        j = (j + 1) & (r->msgs_cap - 1);
    if (!r->msgs[j].used) {
        r->msgs[j] = (otf2r_msgslot){peer, comm_dir, tag, 0, 1};
        r->nmsgs++;
    }
    return r->msgs[j].count++;
}

static OTF2_CallbackCode otf2r_message(otf2r *r, OTF2_TimeStamp t, OTF2_AttributeList *al,
                                       uint32_t rank, OTF2_CommRef comm, uint32_t tag, int send)
{
    OTF2R_GUARD(r);
    int64_t ns;
    if (otf2r_at(r, t, &ns) < 0) return otf2r_fail(r);
    const otf2r_comm *cm = comm < r->ncomms ? &r->comms[comm] : NULL;
    if (!cm || !cm->locs || rank >= cm->size || cm->locs[rank] == UINT64_MAX) {
        tconv_warning_add(r->ctx, "otf2.unresolved-rank",
                          "%s: location %" PRIu64 ", event %" PRIu64 ": a message %s rank %" PRIu32
                          " of communicator %" PRIu32 ", which names no location; skipped",
                          r->anchor, r->loc->id, r->nread, send ? "to" : "from", rank, comm);
        return OTF2_CALLBACK_SUCCESS;
    }
    uint64_t peer = cm->locs[rank];
    uint64_t k = otf2r_msg_count(r, comm * 2u + (uint32_t)send, peer, tag);
    uint64_t from = send ? r->loc->id : peer, to = send ? peer : r->loc->id;
    uint64_t id = otf2r_mix(otf2r_mix(otf2r_mix(otf2r_mix(otf2r_mix(0, comm), from), to), tag), k);
    tconv_event ev = TCONV_EVENT_INIT;
    ev.kind = send ? TCONV_EV_FLOW_START : TCONV_EV_FLOW_END;
    ev.flags = TCONV_EVF_BIND_ENCLOSING;
    ev.track = r->track;
    ev.name = r->comms[comm].name ? r->comms[comm].name : r->s_message;
    ev.cat = r->s_message;
    ev.ts = ns;
    ev.id = id;
    otf2r_args(r, al, &ev);
    return otf2r_push(r, &ev);
}

static OTF2_CallbackCode otf2r_ev_send(OTF2_LocationRef loc, OTF2_TimeStamp t, uint64_t pos,
                                       void *u, OTF2_AttributeList *al, uint32_t receiver,
                                       OTF2_CommRef comm, uint32_t tag, uint64_t length)
{
    (void)loc;
    (void)pos;
    (void)length;
    return otf2r_message(u, t, al, receiver, comm, tag, 1);
}

static OTF2_CallbackCode otf2r_ev_isend(OTF2_LocationRef loc, OTF2_TimeStamp t, uint64_t pos,
                                        void *u, OTF2_AttributeList *al, uint32_t receiver,
                                        OTF2_CommRef comm, uint32_t tag, uint64_t length,
                                        uint64_t request)
{
    (void)request;
    return otf2r_ev_send(loc, t, pos, u, al, receiver, comm, tag, length);
}

static OTF2_CallbackCode otf2r_ev_recv(OTF2_LocationRef loc, OTF2_TimeStamp t, uint64_t pos,
                                       void *u, OTF2_AttributeList *al, uint32_t sender,
                                       OTF2_CommRef comm, uint32_t tag, uint64_t length)
{
    (void)loc;
    (void)pos;
    (void)length;
    return otf2r_message(u, t, al, sender, comm, tag, 0);
}

/* MpiIrecv marks the completion of a non-blocking receive: the message's arrival. */
static OTF2_CallbackCode otf2r_ev_irecv(OTF2_LocationRef loc, OTF2_TimeStamp t, uint64_t pos,
                                        void *u, OTF2_AttributeList *al, uint32_t sender,
                                        OTF2_CommRef comm, uint32_t tag, uint64_t length,
                                        uint64_t request)
{
    (void)request;
    return otf2r_ev_recv(loc, t, pos, u, al, sender, comm, tag, length);
}

/* Every other record still counts as read (positions in messages) and moves the clock. */
static OTF2_CallbackCode otf2r_ev_other(OTF2_LocationRef loc, OTF2_TimeStamp t, uint64_t pos,
                                        void *u, OTF2_AttributeList *al)
{
    (void)loc;
    (void)pos;
    (void)al;
    otf2r *r = u;
    OTF2R_GUARD(r);
    int64_t ns;
    if (otf2r_at(r, t, &ns) < 0) return otf2r_fail(r);
    return OTF2_CALLBACK_SUCCESS;
}

void otf2r_events_register(OTF2_EvtReaderCallbacks *cb)
{
    OTF2_EvtReaderCallbacks_SetEnterCallback(cb, otf2r_ev_enter);
    OTF2_EvtReaderCallbacks_SetLeaveCallback(cb, otf2r_ev_leave);
    OTF2_EvtReaderCallbacks_SetMetricCallback(cb, otf2r_ev_metric);
    OTF2_EvtReaderCallbacks_SetMpiSendCallback(cb, otf2r_ev_send);
    OTF2_EvtReaderCallbacks_SetMpiIsendCallback(cb, otf2r_ev_isend);
    OTF2_EvtReaderCallbacks_SetMpiRecvCallback(cb, otf2r_ev_recv);
    OTF2_EvtReaderCallbacks_SetMpiIrecvCallback(cb, otf2r_ev_irecv);
    OTF2_EvtReaderCallbacks_SetUnknownCallback(cb, otf2r_ev_other);
    otf2r_props_register_events(cb);
}

static tconv_status otf2r_meta(otf2r *r, uint32_t track, tconv_str what, tconv_str text)
{
    tconv_event ev = TCONV_EVENT_INIT;
    ev.kind = TCONV_EV_METADATA;
    ev.track = track;
    ev.name = what;
    ev.text = text;
    return tconv_sink_push(r->sink, &ev) == TCONV_FATAL ? TCONV_FATAL : TCONV_OK;
}

/* The host of a location group: the nearest system tree node above it of class "node" (Score-P
 * and tconv's writer both name hosts so). */
static tconv_str otf2r_host(const otf2r *r, uint32_t node)
{
    for (int hops = 0; hops < 64 && node < r->nnodes && r->nodes[node].defined; hops++) {
        if (strcmp(tconv_string_get(r->ctx, r->nodes[node].cls), "node") == 0)
            return r->nodes[node].name;
        node = r->nodes[node].parent;
    }
    return 0;
}

tconv_status otf2r_events_begin(otf2r *r, const otf2r_loc *loc)
{
    if (!r->nopen) { /* zero again at every location's end, when the stack is empty */
        r->nopen = calloc(r->nregions ? r->nregions : 1, sizeof(*r->nopen));
        if (!r->nopen) otf2r_oom();
    }
    r->loc = loc;
    r->nread = 0;
    r->last_ns = INT64_MIN;
    r->depth = 0;
    if (r->msgs) memset(r->msgs, 0, r->msgs_cap * sizeof(*r->msgs));
    r->nmsgs = 0;
    if (loc->group >= r->nlgroups || !r->lgroups[loc->group].defined) {
        tconv_error_set(r->ctx,
                        "%s: location %" PRIu64 " belongs to location group %" PRIu32
                        ", which is not defined",
                        r->anchor, loc->id, loc->group);
        return TCONV_FATAL;
    }
    otf2r_lgroup *g = &r->lgroups[loc->group];
    if (loc->type == OTF2_LOCATION_TYPE_METRIC) {
        /* a process's counters, as Chrome scopes them */
        r->track = tconv_track_get(r->ctx, g->pid, r->s_empty);
        tconv_track_set_kind(r->ctx, r->track, TCONV_TRACK_PROCESS);
    } else {
        r->track = tconv_track_get(r->ctx, g->pid, otf2r_loc_tid(r, loc));
        if (loc->type == OTF2_LOCATION_TYPE_ACCELERATOR_STREAM)
            tconv_track_set_kind(r->ctx, r->track, TCONV_TRACK_GPU);
        if (loc->name && otf2r_meta(r, r->track, r->s_thread_name, loc->name) != TCONV_OK)
            return TCONV_FATAL;
    }
    if (!g->named) {
        g->named = 1;
        tconv_str host = otf2r_host(r, g->node);
        if (g->name && otf2r_meta(r, r->track, r->s_process_name, g->name) != TCONV_OK)
            return TCONV_FATAL;
        if (host && otf2r_meta(r, r->track, r->s_host, host) != TCONV_OK) return TCONV_FATAL;
    }
    return TCONV_OK;
}

/* Regions still open when the location's events end are closed at its last time. */
tconv_status otf2r_events_end(otf2r *r)
{
    if (r->depth) {
        const otf2r_open *o = &r->stack[r->depth - 1];
        tconv_warning_add(r->ctx, "otf2.unclosed-region",
                          "%s: location %" PRIu64 ": region '%s' entered at %" PRId64
                          " ns is never left (with %zu open in all); closed at the location's "
                          "last event",
                          r->anchor, r->loc->id,
                          tconv_string_get(r->ctx, r->regions[o->region].name), o->ts, r->depth);
    }
    while (r->depth)
        if (otf2r_end(r, r->last_ns, NULL) != OTF2_CALLBACK_SUCCESS) return TCONV_FATAL;
    return TCONV_OK;
}

void otf2r_events_free(otf2r *r)
{
    free(r->stack);
    free(r->nopen);
    free(r->msgs);
    free(r->argv);
}
