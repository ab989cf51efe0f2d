/* What tconv's own archives add for the way back: the pid and tid the input wrote, as
 * properties of location groups and locations, and flows written as Parameter records.
 *
 * Without the properties a process is its group's reference and a thread its location's, so
 * a Chrome trace sent through OTF2 came back with other ids. A pid is taken only when no other
 * group already has it (the processes of two ranks of one archive may share a pid: the second
 * keeps its reference), a tid only when no other location of the group has it.
 *
 * tconv's writer writes a flow event as a ParameterUnsignedInt of the parameter "flow start",
 * "flow step" or "flow end" whose value numbers the flow in the archive, with the flow's name,
 * category and, for one that binds to the next slice rather than the enclosing one, binding
 * "next" as attributes; the other attributes are the flow's args (the Chrome reader's "id",
 * the producer's own id, among them). */
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "otf2_reader.h"

static OTF2_CallbackCode otf2r_def_group_prop(void *u, OTF2_LocationGroupRef group,
                                              OTF2_StringRef name, OTF2_Type type,
                                              OTF2_AttributeValue value)
{
    otf2r *r = u;
    if (type != OTF2_TYPE_STRING || group >= r->nlgroups || !r->lgroups[group].defined ||
        strcmp(tconv_string_get(r->ctx, otf2r_string(r, name)), "pid") != 0)
        return OTF2_CALLBACK_SUCCESS;
    tconv_str pid = otf2r_string(r, value.stringRef);
    for (size_t g = 0; g < r->nlgroups; g++)
        if (g != group && r->lgroups[g].defined && r->lgroups[g].pid == pid)
            return OTF2_CALLBACK_SUCCESS;
    r->lgroups[group].pid = pid;
    return OTF2_CALLBACK_SUCCESS;
}

static OTF2_CallbackCode otf2r_def_loc_prop(void *u, OTF2_LocationRef loc, OTF2_StringRef name,
                                            OTF2_Type type, OTF2_AttributeValue value)
{
    otf2r *r = u;
    if (type != OTF2_TYPE_STRING ||
        strcmp(tconv_string_get(r->ctx, otf2r_string(r, name)), "tid") != 0)
        return OTF2_CALLBACK_SUCCESS;
    /* Properties follow their locations: look from the last one defined. */
    size_t i = r->nlocs;
    while (i > 0 && r->locs[i - 1].id != loc)
        i--;
    if (!i) return OTF2_CALLBACK_SUCCESS;
    otf2r_loc *l = &r->locs[i - 1];
    tconv_str tid = otf2r_string(r, value.stringRef);
    if (!tid) return OTF2_CALLBACK_SUCCESS;
    for (size_t k = 0; k < r->nlocs; k++)
        if (k != i - 1 && r->locs[k].group == l->group && r->locs[k].tid == tid)
            return OTF2_CALLBACK_SUCCESS;
    l->tid = tid;
    return OTF2_CALLBACK_SUCCESS;
}

static OTF2_CallbackCode otf2r_def_param(void *u, OTF2_ParameterRef self, OTF2_StringRef name,
                                         OTF2_ParameterType type)
{
    otf2r *r = u;
    (void)type;
    if (self >= OTF2R_MAX_REF) return OTF2_CALLBACK_SUCCESS;
    if (self >= r->nparams) {
        size_t n = r->nparams ? r->nparams : 4;
        while (n <= self)
            n *= 2;
        r->params = realloc(r->params, n * sizeof(*r->params));
        if (!r->params) otf2r_oom();
        memset(r->params + r->nparams, 0, (n - r->nparams) * sizeof(*r->params));
        r->nparams = n;
    }
    const char *n = tconv_string_get(r->ctx, otf2r_string(r, name));
    r->params[self] = strcmp(n, "flow start") == 0  ? TCONV_EV_FLOW_START
                      : strcmp(n, "flow step") == 0 ? TCONV_EV_FLOW_STEP
                      : strcmp(n, "flow end") == 0  ? TCONV_EV_FLOW_END
                                                    : 0;
    return OTF2_CALLBACK_SUCCESS;
}

void otf2r_props_register(OTF2_GlobalDefReaderCallbacks *cb)
{
    OTF2_GlobalDefReaderCallbacks_SetLocationGroupPropertyCallback(cb, otf2r_def_group_prop);
    OTF2_GlobalDefReaderCallbacks_SetLocationPropertyCallback(cb, otf2r_def_loc_prop);
    OTF2_GlobalDefReaderCallbacks_SetParameterCallback(cb, otf2r_def_param);
}

tconv_str otf2r_loc_tid(otf2r *r, const otf2r_loc *loc)
{
    if (loc->tid) return loc->tid;
    char tid[24];
    snprintf(tid, sizeof(tid), "%" PRIu64, loc->id);
    return tconv_string_intern_cstr(r->ctx, tid);
}

static OTF2_CallbackCode otf2r_ev_param(OTF2_LocationRef loc, OTF2_TimeStamp t, uint64_t pos,
                                        void *u, OTF2_AttributeList *al, OTF2_ParameterRef param,
                                        uint64_t value)
{
    (void)loc;
    (void)pos;
    otf2r *r = u;
    if (r->status != TCONV_OK) return OTF2_CALLBACK_INTERRUPT;
    r->nread++;
    int64_t ns;
    if (otf2r_time(r, t, &ns) < 0) {
        r->status = TCONV_FATAL;
        return OTF2_CALLBACK_INTERRUPT;
    }
    if (ns > r->last_ns) r->last_ns = ns;
    unsigned kind = param < r->nparams ? r->params[param] : 0;
    if (!kind) return OTF2_CALLBACK_SUCCESS; /* a parameter of someone else's: not a flow */
    tconv_str s_name = tconv_string_intern_cstr(r->ctx, "flow name");
    tconv_str s_cat = tconv_string_intern_cstr(r->ctx, "flow category");
    tconv_str s_binding = tconv_string_intern_cstr(r->ctx, "flow binding");
    tconv_event ev = TCONV_EVENT_INIT;
    ev.kind = (uint16_t)kind;
    ev.flags = TCONV_EVF_BIND_ENCLOSING;
    ev.track = r->track;
    ev.ts = ns;
    ev.id = value;
    uint32_t n = al ? OTF2_AttributeList_GetNumberOfElements(al) : 0;
    for (uint32_t i = 0; i < n; i++) {
        OTF2_AttributeRef id;
        OTF2_Type type;
        OTF2_AttributeValue v;
        if (OTF2_AttributeList_GetAttributeByIndex(al, i, &id, &type, &v) != OTF2_SUCCESS ||
            type != OTF2_TYPE_STRING || id >= r->nattrs || !r->attrs[id].defined)
            continue;
        tconv_str key = r->attrs[id].key, text = otf2r_string(r, v.stringRef);
        if (key == s_name)
            ev.name = text;
        else if (key == s_cat)
            ev.cat = text;
        else if (key == s_binding && strcmp(tconv_string_get(r->ctx, text), "next") == 0)
            ev.flags = TCONV_EVF_BIND_NEXT;
    }
    otf2r_args(r, al, &ev);
    uint32_t k = 0;
    for (uint32_t i = 0; i < ev.nargs; i++) {
        tconv_str key = ev.args[i].key;
        if (key != s_name && key != s_cat && key != s_binding) r->argv[k++] = r->argv[i];
    }
    ev.nargs = k;
    if (!k) ev.args = NULL;
    if (tconv_sink_push(r->sink, &ev) == TCONV_FATAL) {
        r->status = TCONV_FATAL;
        return OTF2_CALLBACK_INTERRUPT;
    }
    return OTF2_CALLBACK_SUCCESS;
}

void otf2r_props_register_events(OTF2_EvtReaderCallbacks *cb)
{
    OTF2_EvtReaderCallbacks_SetParameterUnsignedIntCallback(cb, otf2r_ev_param);
}
