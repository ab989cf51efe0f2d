/* otf2-check: reads an OTF2 archive with the OTF2 reader API and checks what the otf2 writer
 * promises, independently of the writer's code:
 *   - per location, timestamps never decrease;
 *   - Enter/Leave are balanced and properly nested (each Leave names the innermost open
 *     region, nothing is open at the end);
 *   - every string, region, location, location group, system tree node, attribute, metric,
 *     communicator and marker that something refers to is defined;
 *   - each location's event count equals the count in its definition;
 *   - every MpiSend has its MpiRecv and the other way round.
 * It prints the definition and event counts (and the groups and locations) on stdout, each
 * problem on stderr, and exits 1 if there was any. Usage: otf2-check ARCHIVE/traces.otf2 */
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <otf2/otf2.h>

typedef struct check_vec {
    uint8_t *defined;
    size_t cap;
} check_vec;

typedef struct check_loc {
    uint64_t id;
    uint32_t name, group;
    OTF2_LocationType type;
    uint64_t nevents;
} check_loc;

typedef struct check_group {
    uint32_t self, name, node, creator;
    OTF2_LocationGroupType type;
} check_group;

typedef struct check_msg {
    uint64_t from, to;
    uint32_t tag, comm;
} check_msg;

typedef struct check {
    const char *path;
    uint64_t problems;
    check_vec strings, regions, groups_def, nodes, attrs, metrics, comms, markers, ogroups, params;
    char **string_text;
    size_t string_text_cap;
    OTF2_Type *attr_type;
    size_t attr_type_cap;
    uint8_t *metric_members; /* members per metric class, 0 for an instance */
    size_t metric_members_cap;
    check_loc *locs;
    size_t nlocs, locs_cap;
    check_group *groups;
    size_t ngroups, groups_cap;
    /* communicator -> ranks -> locations */
    uint64_t **comm_ranks;
    uint32_t *comm_size;
    size_t comm_cap;
    uint32_t *comm_group; /* comm -> OTF2 group */
    uint64_t **group_members;
    uint32_t *group_nmembers;
    OTF2_GroupType *group_type;
    size_t group_cap;
    /* per location while reading its events */
    uint64_t cur_loc;
    uint64_t last_ts;
    uint64_t cur_events;
    uint32_t *stack;
    size_t depth, stack_cap;
    size_t max_depth;
    /* counts */
    uint64_t n_regions, n_members, n_classes, n_instances, n_attrs, n_strings, n_nodes;
    uint64_t n_enter, n_leave, n_metric, n_send, n_recv, n_other, n_markers, n_markdefs;
    uint64_t n_params, n_param_events, n_props, n_int_members;
    check_msg *sends, *recvs;
    size_t nsends, nrecvs, sends_cap, recvs_cap;
} check;

static void check_fail(check *c, const char *fmt, ...)
{
    c->problems++;
    if (c->problems > 50) return;
    va_list ap;
    va_start(ap, fmt);
    fprintf(stderr, "otf2-check: %s: ", c->path);
    vfprintf(stderr, fmt, ap);
    fputc('\n', stderr);
    va_end(ap);
}

static void *check_grow(void *p, size_t *cap, size_t need, size_t size)
{
    if (need <= *cap) return p;
    size_t n = *cap ? *cap : 16;
    while (n < need)
        n *= 2;
    uint8_t *q = realloc(p, n * size);
    if (!q) abort();
    memset(q + *cap * size, 0, (n - *cap) * size);
    *cap = n;
    return q;
}

static void check_define(check *c, check_vec *v, uint64_t id, const char *what)
{
    if (id > 100000000) {
        check_fail(c, "%s id %" PRIu64 " is implausibly large", what, id);
        return;
    }
    v->defined = check_grow(v->defined, &v->cap, (size_t)id + 1, 1);
    if (v->defined[id]) check_fail(c, "%s %" PRIu64 " defined twice", what, id);
    v->defined[id] = 1;
}

static int check_has(const check_vec *v, uint64_t id)
{
    return id < v->cap && v->defined[id];
}

static void check_ref(check *c, const check_vec *v, uint64_t id, const char *what,
                      const char *where)
{
    if (!check_has(v, id))
        check_fail(c, "%s refers to %s %" PRIu64 ", which is not defined", where, what, id);
}

static void check_str(check *c, OTF2_StringRef s, const char *where)
{
    check_ref(c, &c->strings, s, "string", where);
}

static const char *check_text(const check *c, OTF2_StringRef s)
{
    return s < c->string_text_cap && c->string_text[s] ? c->string_text[s] : "?";
}

/* ---- global definitions ----------------------------------------------------------------- */

static OTF2_CallbackCode check_def_string(void *u, OTF2_StringRef self, const char *s)
{
    check *c = u;
    check_define(c, &c->strings, self, "string");
    c->string_text =
        check_grow(c->string_text, &c->string_text_cap, (size_t)self + 1, sizeof(*c->string_text));
    free(c->string_text[self]);
    c->string_text[self] = strdup(s);
    c->n_strings++;
    return OTF2_CALLBACK_SUCCESS;
}

static OTF2_CallbackCode check_def_region(void *u, OTF2_RegionRef self, OTF2_StringRef name,
                                          OTF2_StringRef canonical, OTF2_StringRef description,
                                          OTF2_RegionRole role, OTF2_Paradigm paradigm,
                                          OTF2_RegionFlag flags, OTF2_StringRef file,
                                          uint32_t begin, uint32_t end)
{
    (void)role;
    (void)paradigm;
    (void)flags;
    (void)begin;
    (void)end;
    check *c = u;
    check_define(c, &c->regions, self, "region");
    check_str(c, name, "a region's name");
    check_str(c, canonical, "a region's canonical name");
    check_str(c, description, "a region's description");
    if (file != OTF2_UNDEFINED_STRING) check_str(c, file, "a region's file");
    c->n_regions++;
    return OTF2_CALLBACK_SUCCESS;
}

static OTF2_CallbackCode check_def_node(void *u, OTF2_SystemTreeNodeRef self, OTF2_StringRef name,
                                        OTF2_StringRef cls, OTF2_SystemTreeNodeRef parent)
{
    check *c = u;
    check_define(c, &c->nodes, self, "system tree node");
    check_str(c, name, "a system tree node's name");
    check_str(c, cls, "a system tree node's class");
    if (parent != OTF2_UNDEFINED_SYSTEM_TREE_NODE)
        check_ref(c, &c->nodes, parent, "system tree node", "a system tree node's parent");
    c->n_nodes++;
    return OTF2_CALLBACK_SUCCESS;
}

static OTF2_CallbackCode check_def_group(void *u, OTF2_LocationGroupRef self, OTF2_StringRef name,
                                         OTF2_LocationGroupType type, OTF2_SystemTreeNodeRef parent,
                                         OTF2_LocationGroupRef creator)
{
    check *c = u;
    check_define(c, &c->groups_def, self, "location group");
    check_str(c, name, "a location group's name");
    check_ref(c, &c->nodes, parent, "system tree node", "a location group's parent");
    c->groups = check_grow(c->groups, &c->groups_cap, c->ngroups + 1, sizeof(*c->groups));
    c->groups[c->ngroups++] = (check_group){self, name, parent, creator, type};
    return OTF2_CALLBACK_SUCCESS;
}

static OTF2_CallbackCode check_def_location(void *u, OTF2_LocationRef self, OTF2_StringRef name,
                                            OTF2_LocationType type, uint64_t nevents,
                                            OTF2_LocationGroupRef group)
{
    check *c = u;
    check_str(c, name, "a location's name");
    check_ref(c, &c->groups_def, group, "location group", "a location");
    c->locs = check_grow(c->locs, &c->locs_cap, c->nlocs + 1, sizeof(*c->locs));
    c->locs[c->nlocs++] = (check_loc){self, name, group, type, nevents};
    return OTF2_CALLBACK_SUCCESS;
}

static OTF2_CallbackCode check_def_attr(void *u, OTF2_AttributeRef self, OTF2_StringRef name,
                                        OTF2_StringRef description, OTF2_Type type)
{
    check *c = u;
    check_define(c, &c->attrs, self, "attribute");
    check_str(c, name, "an attribute's name");
    check_str(c, description, "an attribute's description");
    c->attr_type =
        check_grow(c->attr_type, &c->attr_type_cap, (size_t)self + 1, sizeof(*c->attr_type));
    c->attr_type[self] = type;
    c->n_attrs++;
    return OTF2_CALLBACK_SUCCESS;
}

static OTF2_CallbackCode check_def_param(void *u, OTF2_ParameterRef self, OTF2_StringRef name,
                                         OTF2_ParameterType type)
{
    (void)type;
    check *c = u;
    check_define(c, &c->params, self, "parameter");
    check_str(c, name, "a parameter's name");
    c->n_params++;
    return OTF2_CALLBACK_SUCCESS;
}

/* Properties of location groups and locations name defined ones, with defined strings. */
static OTF2_CallbackCode check_def_group_prop(void *u, OTF2_LocationGroupRef group,
                                              OTF2_StringRef name, OTF2_Type type,
                                              OTF2_AttributeValue value)
{
    check *c = u;
    check_ref(c, &c->groups_def, group, "location group", "a location group property");
    check_str(c, name, "a property's name");
    if (type == OTF2_TYPE_STRING) check_str(c, value.stringRef, "a property's value");
    c->n_props++;
    return OTF2_CALLBACK_SUCCESS;
}

static OTF2_CallbackCode check_def_loc_prop(void *u, OTF2_LocationRef loc, OTF2_StringRef name,
                                            OTF2_Type type, OTF2_AttributeValue value)
{
    check *c = u;
    int found = 0;
    for (size_t i = 0; i < c->nlocs && !found; i++)
        found = c->locs[i].id == loc;
    if (!found)
        check_fail(c, "a location property refers to location %" PRIu64 ", which is not defined",
                   loc);
    check_str(c, name, "a property's name");
    if (type == OTF2_TYPE_STRING) check_str(c, value.stringRef, "a property's value");
    c->n_props++;
    return OTF2_CALLBACK_SUCCESS;
}

static check_vec check_members_def;

static OTF2_CallbackCode check_def_member(void *u, OTF2_MetricMemberRef self, OTF2_StringRef name,
                                          OTF2_StringRef description, OTF2_MetricType type,
                                          OTF2_MetricMode mode, OTF2_Type vtype, OTF2_Base base,
                                          int64_t exponent, OTF2_StringRef unit)
{
    (void)type;
    (void)mode;
    (void)base;
    (void)exponent;
    check *c = u;
    check_define(c, &check_members_def, self, "metric member");
    if (vtype == OTF2_TYPE_INT64) c->n_int_members++;
    check_str(c, name, "a metric member's name");
    check_str(c, description, "a metric member's description");
    check_str(c, unit, "a metric member's unit");
    c->n_members++;
    return OTF2_CALLBACK_SUCCESS;
}

static OTF2_CallbackCode check_def_class(void *u, OTF2_MetricRef self, uint8_t n,
                                         const OTF2_MetricMemberRef *members,
                                         OTF2_MetricOccurrence occurrence, OTF2_RecorderKind kind)
{
    (void)occurrence;
    (void)kind;
    check *c = u;
    check_define(c, &c->metrics, self, "metric");
    for (uint8_t i = 0; i < n; i++)
        check_ref(c, &check_members_def, members[i], "metric member", "a metric class");
    c->metric_members = check_grow(c->metric_members, &c->metric_members_cap, (size_t)self + 1, 1);
    c->metric_members[self] = n;
    c->n_classes++;
    return OTF2_CALLBACK_SUCCESS;
}

static OTF2_CallbackCode check_def_instance(void *u, OTF2_MetricRef self, OTF2_MetricRef cls,
                                            OTF2_LocationRef recorder, OTF2_MetricScope scope,
                                            uint64_t ref)
{
    (void)recorder;
    (void)ref;
    (void)scope;
    check *c = u;
    check_define(c, &c->metrics, self, "metric");
    check_ref(c, &c->metrics, cls, "metric class", "a metric instance");
    c->metric_members = check_grow(c->metric_members, &c->metric_members_cap, (size_t)self + 1, 1);
    c->metric_members[self] = cls < c->metric_members_cap ? c->metric_members[cls] : 0;
    c->n_instances++;
    return OTF2_CALLBACK_SUCCESS;
}

static OTF2_CallbackCode check_def_ogroup(void *u, OTF2_GroupRef self, OTF2_StringRef name,
                                          OTF2_GroupType type, OTF2_Paradigm paradigm,
                                          OTF2_GroupFlag flags, uint32_t n, const uint64_t *members)
{
    (void)paradigm;
    (void)flags;
    check *c = u;
    check_define(c, &c->ogroups, self, "group");
    check_str(c, name, "a group's name");
    size_t cap = c->group_cap;
    c->group_members = check_grow(c->group_members, &cap, (size_t)self + 1, sizeof(uint64_t *));
    cap = c->group_cap;
    c->group_nmembers = check_grow(c->group_nmembers, &cap, (size_t)self + 1, sizeof(uint32_t));
    cap = c->group_cap;
    c->group_type = check_grow(c->group_type, &cap, (size_t)self + 1, sizeof(OTF2_GroupType));
    c->group_cap = cap;
    c->group_members[self] = malloc((n ? n : 1) * sizeof(uint64_t));
    if (n) memcpy(c->group_members[self], members, n * sizeof(uint64_t));
    c->group_nmembers[self] = n;
    c->group_type[self] = type;
    return OTF2_CALLBACK_SUCCESS;
}

static OTF2_CallbackCode check_def_comm(void *u, OTF2_CommRef self, OTF2_StringRef name,
                                        OTF2_GroupRef group, OTF2_CommRef parent,
                                        OTF2_CommFlag flags)
{
    (void)parent;
    (void)flags;
    check *c = u;
    check_define(c, &c->comms, self, "communicator");
    check_str(c, name, "a communicator's name");
    check_ref(c, &c->ogroups, group, "group", "a communicator");
    size_t cap = c->comm_cap;
    c->comm_group = check_grow(c->comm_group, &cap, (size_t)self + 1, sizeof(uint32_t));
    c->comm_cap = cap;
    c->comm_group[self] = group;
    return OTF2_CALLBACK_SUCCESS;
}

static int check_loc_index(const check *c, uint64_t id, size_t *idx)
{
    for (size_t i = 0; i < c->nlocs; i++)
        if (c->locs[i].id == id) {
            *idx = i;
            return 1;
        }
    return 0;
}

/* The locations of a communicator's ranks: its COMM_GROUP lists indices into the
 * COMM_LOCATIONS group. */
static void check_resolve_comms(check *c)
{
    size_t cap = 0;
    c->comm_ranks = check_grow(NULL, &cap, c->comm_cap ? c->comm_cap : 1, sizeof(uint64_t *));
    cap = 0;
    c->comm_size = check_grow(NULL, &cap, c->comm_cap ? c->comm_cap : 1, sizeof(uint32_t));
    uint32_t locgroup = UINT32_MAX;
    for (size_t g = 0; g < c->group_cap; g++)
        if (check_has(&c->ogroups, g) && c->group_type[g] == OTF2_GROUP_TYPE_COMM_LOCATIONS)
            locgroup = (uint32_t)g;
    for (size_t k = 0; k < c->comm_cap; k++) {
        if (!check_has(&c->comms, k)) continue;
        uint32_t g = c->comm_group[k];
        if (!check_has(&c->ogroups, g) || locgroup == UINT32_MAX) {
            check_fail(c, "communicator %zu has no resolvable group", k);
            continue;
        }
        uint32_t n = c->group_nmembers[g];
        c->comm_size[k] = n;
        c->comm_ranks[k] = malloc((n ? n : 1) * sizeof(uint64_t));
        for (uint32_t r = 0; r < n; r++) {
            uint64_t m = c->group_members[g][r];
            if (m >= c->group_nmembers[locgroup]) {
                check_fail(c, "communicator %zu rank %u names member %" PRIu64 " of a group of %u",
                           k, r, m, c->group_nmembers[locgroup]);
                c->comm_ranks[k][r] = UINT64_MAX;
                continue;
            }
            uint64_t loc = c->group_members[locgroup][m];
            size_t idx;
            if (!check_loc_index(c, loc, &idx))
                check_fail(c, "communicator %zu rank %u is location %" PRIu64 ", not defined", k, r,
                           loc);
            c->comm_ranks[k][r] = loc;
        }
    }
}

/* ---- events ----------------------------------------------------------------------------- */

static void check_attrs(check *c, OTF2_AttributeList *al, const char *where)
{
    if (!al) return;
    uint32_t n = OTF2_AttributeList_GetNumberOfElements(al);
    for (uint32_t i = 0; i < n; i++) {
        OTF2_AttributeRef id;
        OTF2_Type type;
        OTF2_AttributeValue v;
        if (OTF2_AttributeList_GetAttributeByIndex(al, i, &id, &type, &v) != OTF2_SUCCESS) {
            check_fail(c, "cannot read attribute %u of %s", i, where);
            continue;
        }
        if (!check_has(&c->attrs, id)) {
            check_fail(c, "%s carries undefined attribute %u", where, id);
            continue;
        }
        if (c->attr_type[id] != type)
            check_fail(c, "%s carries attribute %u with type %d, defined as %d", where, id, type,
                       c->attr_type[id]);
        if (type == OTF2_TYPE_STRING) check_str(c, v.stringRef, "a string attribute");
    }
}

static void check_time(check *c, OTF2_TimeStamp t)
{
    if (c->cur_events && t < c->last_ts)
        check_fail(c, "location %" PRIu64 ": time %" PRIu64 " after %" PRIu64, c->cur_loc, t,
                   c->last_ts);
    c->last_ts = t;
    c->cur_events++;
}

static OTF2_CallbackCode check_ev_enter(OTF2_LocationRef loc, OTF2_TimeStamp t, uint64_t pos,
                                        void *u, OTF2_AttributeList *al, OTF2_RegionRef region)
{
    (void)loc;
    (void)pos;
    check *c = u;
    check_time(c, t);
    check_ref(c, &c->regions, region, "region", "an Enter");
    check_attrs(c, al, "an Enter");
    c->stack = check_grow(c->stack, &c->stack_cap, c->depth + 1, sizeof(*c->stack));
    c->stack[c->depth++] = region;
    if (c->depth > c->max_depth) c->max_depth = c->depth;
    c->n_enter++;
    return OTF2_CALLBACK_SUCCESS;
}

static OTF2_CallbackCode check_ev_leave(OTF2_LocationRef loc, OTF2_TimeStamp t, uint64_t pos,
                                        void *u, OTF2_AttributeList *al, OTF2_RegionRef region)
{
    (void)loc;
    (void)pos;
    check *c = u;
    check_time(c, t);
    check_ref(c, &c->regions, region, "region", "a Leave");
    check_attrs(c, al, "a Leave");
    if (!c->depth)
        check_fail(c, "location %" PRIu64 ": Leave of region %u at %" PRIu64 " with none open",
                   c->cur_loc, region, t);
    else if (c->stack[c->depth - 1] != region)
        check_fail(c,
                   "location %" PRIu64 ": Leave of region %u at %" PRIu64
                   " while region %u is the innermost open one",
                   c->cur_loc, region, t, c->stack[c->depth - 1]);
    if (c->depth) c->depth--;
    c->n_leave++;
    return OTF2_CALLBACK_SUCCESS;
}

static OTF2_CallbackCode check_ev_metric(OTF2_LocationRef loc, OTF2_TimeStamp t, uint64_t pos,
                                         void *u, OTF2_AttributeList *al, OTF2_MetricRef metric,
                                         uint8_t n, const OTF2_Type *types,
                                         const OTF2_MetricValue *values)
{
    (void)loc;
    (void)pos;
    (void)types;
    (void)values;
    check *c = u;
    check_time(c, t);
    check_attrs(c, al, "a Metric");
    if (!check_has(&c->metrics, metric))
        check_fail(c, "a Metric refers to metric %u, which is not defined", metric);
    else if (c->metric_members[metric] != n)
        check_fail(c, "a Metric of metric %u has %u values, its class %u members", metric, n,
                   c->metric_members[metric]);
    c->n_metric++;
    return OTF2_CALLBACK_SUCCESS;
}

static void check_msg_add(check *c, check_msg **arr, size_t *n, size_t *cap, OTF2_CommRef comm,
                          uint32_t peer, uint32_t tag, int is_send)
{
    if (!check_has(&c->comms, comm)) {
        check_fail(c, "a message uses communicator %u, which is not defined", comm);
        return;
    }
    if (peer >= c->comm_size[comm]) {
        check_fail(c, "a message names rank %u of a communicator of %u", peer, c->comm_size[comm]);
        return;
    }
    uint64_t other = c->comm_ranks[comm][peer];
    *arr = check_grow(*arr, cap, *n + 1, sizeof(**arr));
    (*arr)[(*n)++] = is_send ? (check_msg){c->cur_loc, other, tag, comm}
                             : (check_msg){other, c->cur_loc, tag, comm};
}

static OTF2_CallbackCode check_ev_send(OTF2_LocationRef loc, OTF2_TimeStamp t, uint64_t pos,
                                       void *u, OTF2_AttributeList *al, uint32_t receiver,
                                       OTF2_CommRef comm, uint32_t tag, uint64_t length)
{
    (void)loc;
    (void)pos;
    (void)length;
    check *c = u;
    check_time(c, t);
    check_attrs(c, al, "an MpiSend");
    check_msg_add(c, &c->sends, &c->nsends, &c->sends_cap, comm, receiver, tag, 1);
    c->n_send++;
    return OTF2_CALLBACK_SUCCESS;
}

static OTF2_CallbackCode check_ev_recv(OTF2_LocationRef loc, OTF2_TimeStamp t, uint64_t pos,
                                       void *u, OTF2_AttributeList *al, uint32_t sender,
                                       OTF2_CommRef comm, uint32_t tag, uint64_t length)
{
    (void)loc;
    (void)pos;
    (void)length;
    check *c = u;
    check_time(c, t);
    check_attrs(c, al, "an MpiRecv");
    check_msg_add(c, &c->recvs, &c->nrecvs, &c->recvs_cap, comm, sender, tag, 0);
    c->n_recv++;
    return OTF2_CALLBACK_SUCCESS;
}

static OTF2_CallbackCode check_ev_param(OTF2_LocationRef loc, OTF2_TimeStamp t, uint64_t pos,
                                        void *u, OTF2_AttributeList *al, OTF2_ParameterRef param,
                                        uint64_t value)
{
    (void)loc;
    (void)pos;
    (void)value;
    check *c = u;
    check_time(c, t);
    check_ref(c, &c->params, param, "parameter", "a ParameterUnsignedInt");
    check_attrs(c, al, "a ParameterUnsignedInt");
    c->n_param_events++;
    return OTF2_CALLBACK_SUCCESS;
}

static OTF2_CallbackCode check_ev_unknown(OTF2_LocationRef loc, OTF2_TimeStamp t, uint64_t pos,
                                          void *u, OTF2_AttributeList *al)
{
    (void)loc;
    (void)pos;
    (void)al;
    check *c = u;
    check_time(c, t);
    c->n_other++;
    return OTF2_CALLBACK_SUCCESS;
}

static int check_msg_cmp(const void *a, const void *b)
{
    const check_msg *x = a, *y = b;
    if (x->from != y->from) return x->from < y->from ? -1 : 1;
    if (x->to != y->to) return x->to < y->to ? -1 : 1;
    if (x->comm != y->comm) return x->comm < y->comm ? -1 : 1;
    return x->tag < y->tag ? -1 : x->tag > y->tag;
}

static void check_messages(check *c)
{
    if (c->nsends) qsort(c->sends, c->nsends, sizeof(*c->sends), check_msg_cmp);
    if (c->nrecvs) qsort(c->recvs, c->nrecvs, sizeof(*c->recvs), check_msg_cmp);
    size_t i = 0, j = 0;
    while (i < c->nsends || j < c->nrecvs) {
        int cmp = i == c->nsends   ? 1
                  : j == c->nrecvs ? -1
                                   : check_msg_cmp(&c->sends[i], &c->recvs[j]);
        if (cmp == 0) {
            i++;
            j++;
        } else if (cmp < 0) {
            check_fail(c, "MpiSend from %" PRIu64 " to %" PRIu64 " tag %u has no MpiRecv",
                       c->sends[i].from, c->sends[i].to, c->sends[i].tag);
            i++;
        } else {
            check_fail(c, "MpiRecv at %" PRIu64 " from %" PRIu64 " tag %u has no MpiSend",
                       c->recvs[j].to, c->recvs[j].from, c->recvs[j].tag);
            j++;
        }
    }
}

/* ---- markers ---------------------------------------------------------------------------- */

static OTF2_CallbackCode check_def_marker(void *u, OTF2_MarkerRef self, const char *group,
                                          const char *category, OTF2_MarkerSeverity severity)
{
    (void)group;
    (void)category;
    (void)severity;
    check *c = u;
    check_define(c, &c->markers, self, "marker");
    c->n_markdefs++;
    return OTF2_CALLBACK_SUCCESS;
}

static OTF2_CallbackCode check_marker(void *u, OTF2_TimeStamp t, OTF2_TimeStamp dur,
                                      OTF2_MarkerRef marker, OTF2_MarkerScope scope, uint64_t ref,
                                      const char *text)
{
    (void)t;
    (void)dur;
    (void)text;
    check *c = u;
    size_t idx;
    check_ref(c, &c->markers, marker, "marker definition", "a marker");
    if (scope == OTF2_MARKER_SCOPE_LOCATION && !check_loc_index(c, ref, &idx))
        check_fail(c, "a marker is scoped to location %" PRIu64 ", which is not defined", ref);
    if (scope == OTF2_MARKER_SCOPE_LOCATION_GROUP)
        check_ref(c, &c->groups_def, ref, "location group", "a marker");
    c->n_markers++;
    return OTF2_CALLBACK_SUCCESS;
}

/* ---- driver ----------------------------------------------------------------------------- */

#define CHECK_OK(call)                                                                             \
    do {                                                                                           \
        OTF2_ErrorCode e_ = (call);                                                                \
        if (e_ != OTF2_SUCCESS) {                                                                  \
            fprintf(stderr, "otf2-check: %s: %s: %s\n", path, #call, OTF2_Error_GetName(e_));      \
            return 2;                                                                              \
        }                                                                                          \
    } while (0)

static const char *check_group_type(OTF2_LocationGroupType t)
{
    return t == OTF2_LOCATION_GROUP_TYPE_PROCESS       ? "PROCESS"
           : t == OTF2_LOCATION_GROUP_TYPE_ACCELERATOR ? "ACCELERATOR"
                                                       : "UNKNOWN";
}

static const char *check_loc_type(OTF2_LocationType t)
{
    switch (t) {
    case OTF2_LOCATION_TYPE_CPU_THREAD:
        return "CPU_THREAD";
    case OTF2_LOCATION_TYPE_ACCELERATOR_STREAM:
        return "ACCELERATOR_STREAM";
    case OTF2_LOCATION_TYPE_METRIC:
        return "METRIC";
    default:
        return "UNKNOWN";
    }
}

static int check_run(check *c, const char *path)
{
    OTF2_Reader *r = OTF2_Reader_Open(path);
    if (!r) {
        fprintf(stderr, "otf2-check: %s: cannot open\n", path);
        return 2;
    }
    CHECK_OK(OTF2_Reader_SetSerialCollectiveCallbacks(r));
    OTF2_GlobalDefReader *gdr = OTF2_Reader_GetGlobalDefReader(r);
    OTF2_GlobalDefReaderCallbacks *gcb = OTF2_GlobalDefReaderCallbacks_New();
    OTF2_GlobalDefReaderCallbacks_SetStringCallback(gcb, check_def_string);
    OTF2_GlobalDefReaderCallbacks_SetRegionCallback(gcb, check_def_region);
    OTF2_GlobalDefReaderCallbacks_SetSystemTreeNodeCallback(gcb, check_def_node);
    OTF2_GlobalDefReaderCallbacks_SetLocationGroupCallback(gcb, check_def_group);
    OTF2_GlobalDefReaderCallbacks_SetLocationCallback(gcb, check_def_location);
    OTF2_GlobalDefReaderCallbacks_SetAttributeCallback(gcb, check_def_attr);
    OTF2_GlobalDefReaderCallbacks_SetMetricMemberCallback(gcb, check_def_member);
    OTF2_GlobalDefReaderCallbacks_SetMetricClassCallback(gcb, check_def_class);
    OTF2_GlobalDefReaderCallbacks_SetMetricInstanceCallback(gcb, check_def_instance);
    OTF2_GlobalDefReaderCallbacks_SetGroupCallback(gcb, check_def_ogroup);
    OTF2_GlobalDefReaderCallbacks_SetCommCallback(gcb, check_def_comm);
    OTF2_GlobalDefReaderCallbacks_SetParameterCallback(gcb, check_def_param);
    OTF2_GlobalDefReaderCallbacks_SetLocationGroupPropertyCallback(gcb, check_def_group_prop);
    OTF2_GlobalDefReaderCallbacks_SetLocationPropertyCallback(gcb, check_def_loc_prop);
    CHECK_OK(OTF2_Reader_RegisterGlobalDefCallbacks(r, gdr, gcb, c));
    OTF2_GlobalDefReaderCallbacks_Delete(gcb);
    uint64_t ndefs;
    CHECK_OK(OTF2_Reader_ReadAllGlobalDefinitions(r, gdr, &ndefs));
    CHECK_OK(OTF2_Reader_CloseGlobalDefReader(r, gdr));

    /* Definitions may refer forward (a group's creator, a location's group): check after. */
    for (size_t g = 0; g < c->ngroups; g++)
        if (c->groups[g].creator != OTF2_UNDEFINED_LOCATION_GROUP)
            check_ref(c, &c->groups_def, c->groups[g].creator, "location group",
                      "a location group's creator");
    check_resolve_comms(c);

    for (size_t i = 0; i < c->nlocs; i++)
        CHECK_OK(OTF2_Reader_SelectLocation(r, c->locs[i].id));
    int have_defs = c->nlocs && OTF2_Reader_OpenDefFiles(r) == OTF2_SUCCESS;
    if (c->nlocs) CHECK_OK(OTF2_Reader_OpenEvtFiles(r));
    OTF2_EvtReaderCallbacks *ecb = OTF2_EvtReaderCallbacks_New();
    OTF2_EvtReaderCallbacks_SetEnterCallback(ecb, check_ev_enter);
    OTF2_EvtReaderCallbacks_SetLeaveCallback(ecb, check_ev_leave);
    OTF2_EvtReaderCallbacks_SetMetricCallback(ecb, check_ev_metric);
    OTF2_EvtReaderCallbacks_SetMpiSendCallback(ecb, check_ev_send);
    OTF2_EvtReaderCallbacks_SetMpiRecvCallback(ecb, check_ev_recv);
    OTF2_EvtReaderCallbacks_SetUnknownCallback(ecb, check_ev_unknown);
    OTF2_EvtReaderCallbacks_SetParameterUnsignedIntCallback(ecb, check_ev_param);
    for (size_t i = 0; i < c->nlocs; i++) {
        check_loc *l = &c->locs[i];
        if (have_defs) {
            OTF2_DefReader *dr = OTF2_Reader_GetDefReader(r, l->id);
            if (!dr) {
                check_fail(c, "location %" PRIu64 " has no local definition file", l->id);
            } else {
                uint64_t n;
                CHECK_OK(OTF2_Reader_ReadAllLocalDefinitions(r, dr, &n));
                CHECK_OK(OTF2_Reader_CloseDefReader(r, dr));
            }
        }
        OTF2_EvtReader *er = OTF2_Reader_GetEvtReader(r, l->id);
        if (!er) {
            check_fail(c, "location %" PRIu64 " has no event reader", l->id);
            continue;
        }
        c->cur_loc = l->id;
        c->cur_events = 0;
        c->depth = 0;
        CHECK_OK(OTF2_Reader_RegisterEvtCallbacks(r, er, ecb, c));
        uint64_t n;
        CHECK_OK(OTF2_Reader_ReadAllLocalEvents(r, er, &n));
        if (c->depth)
            check_fail(c, "location %" PRIu64 ": %zu regions still open at the end", l->id,
                       c->depth);
        if (c->cur_events != l->nevents)
            check_fail(c, "location %" PRIu64 ": %" PRIu64 " events, defined with %" PRIu64, l->id,
                       c->cur_events, l->nevents);
        CHECK_OK(OTF2_Reader_CloseEvtReader(r, er));
    }
    OTF2_EvtReaderCallbacks_Delete(ecb);
    if (have_defs) CHECK_OK(OTF2_Reader_CloseDefFiles(r));
    if (c->nlocs) CHECK_OK(OTF2_Reader_CloseEvtFiles(r));
    check_messages(c);

    /* Markers are optional: asking OTF2 for a reader of a missing file makes it complain. */
    size_t plen = strlen(path);
    char *marker_path = malloc(plen + 8);
    if (!marker_path) abort();
    memcpy(marker_path, path, plen + 1);
    if (plen > 5 && strcmp(path + plen - 5, ".otf2") == 0)
        strcpy(marker_path + plen - 5, ".marker");
    FILE *mf = fopen(marker_path, "rb");
    free(marker_path);
    OTF2_MarkerReader *mr = NULL;
    if (mf) {
        fclose(mf);
        mr = OTF2_Reader_GetMarkerReader(r);
        if (!mr) check_fail(c, "the marker file cannot be read");
    }
    if (mr) {
        OTF2_MarkerReaderCallbacks *mcb = OTF2_MarkerReaderCallbacks_New();
        OTF2_MarkerReaderCallbacks_SetDefMarkerCallback(mcb, check_def_marker);
        OTF2_MarkerReaderCallbacks_SetMarkerCallback(mcb, check_marker);
        CHECK_OK(OTF2_Reader_RegisterMarkerCallbacks(r, mr, mcb, c));
        OTF2_MarkerReaderCallbacks_Delete(mcb);
        uint64_t n;
        CHECK_OK(OTF2_Reader_ReadAllMarkers(r, mr, &n));
        CHECK_OK(OTF2_Reader_CloseMarkerReader(r, mr));
    }
    CHECK_OK(OTF2_Reader_Close(r));
    return 0;
}

static void check_free(check *c)
{
    for (size_t i = 0; i < c->string_text_cap; i++)
        free(c->string_text[i]);
    free(c->string_text);
    check_vec *vecs[] = {&c->strings, &c->regions, &c->groups_def,    &c->nodes,
                         &c->attrs,   &c->metrics, &c->comms,         &c->markers,
                         &c->ogroups, &c->params,  &check_members_def};
    for (size_t i = 0; i < sizeof(vecs) / sizeof(vecs[0]); i++)
        free(vecs[i]->defined);
    free(c->attr_type);
    free(c->metric_members);
    free(c->locs);
    free(c->groups);
    for (size_t k = 0; k < c->comm_cap && c->comm_ranks; k++)
        free(c->comm_ranks[k]);
    free(c->comm_ranks);
    free(c->comm_size);
    free(c->comm_group);
    for (size_t g = 0; g < c->group_cap; g++)
        free(c->group_members[g]);
    free(c->group_members);
    free(c->group_nmembers);
    free(c->group_type);
    free(c->stack);
    free(c->sends);
    free(c->recvs);
}

int main(int argc, char **argv)
{
    if (argc != 2) {
        fprintf(stderr, "usage: otf2-check ARCHIVE/traces.otf2\n");
        return 2;
    }
    check c = {.path = argv[1]};
    int rc = check_run(&c, argv[1]);
    if (rc) return rc;
    for (size_t g = 0; g < c.ngroups; g++) {
        const check_group *grp = &c.groups[g];
        printf("group %u %s node %u creator ", grp->self, check_group_type(grp->type), grp->node);
        if (grp->creator == OTF2_UNDEFINED_LOCATION_GROUP)
            printf("-");
        else
            printf("%u", grp->creator);
        printf(" \"%s\"\n", check_text(&c, grp->name));
    }
    for (size_t i = 0; i < c.nlocs; i++) {
        const check_loc *l = &c.locs[i];
        printf("location %" PRIu64 " %s group %u events %" PRIu64 " \"%s\"\n", l->id,
               check_loc_type(l->type), l->group, l->nevents, check_text(&c, l->name));
    }
    printf("strings %" PRIu64 "\nsystem_tree_nodes %" PRIu64 "\nlocation_groups %zu\n"
           "locations %zu\nregions %" PRIu64 "\nattributes %" PRIu64 "\nmetric_members %" PRIu64
           "\nmetric_classes %" PRIu64 "\nmetric_instances %" PRIu64 "\n",
           c.n_strings, c.n_nodes, c.ngroups, c.nlocs, c.n_regions, c.n_attrs, c.n_members,
           c.n_classes, c.n_instances);
    printf("enter %" PRIu64 "\nleave %" PRIu64 "\nmetric %" PRIu64 "\nmpi_send %" PRIu64
           "\nmpi_recv %" PRIu64 "\nother_events %" PRIu64 "\nmax_depth %zu\n"
           "marker_defs %" PRIu64 "\nmarkers %" PRIu64 "\n",
           c.n_enter, c.n_leave, c.n_metric, c.n_send, c.n_recv, c.n_other, c.max_depth,
           c.n_markdefs, c.n_markers);
    printf("parameters %" PRIu64 "\nparameter_events %" PRIu64 "\nproperties %" PRIu64
           "\nint64_metric_members %" PRIu64 "\n",
           c.n_params, c.n_param_events, c.n_props, c.n_int_members);
    printf("problems %" PRIu64 "\n", c.problems);
    check_free(&c);
    return c.problems ? 1 : 0;
}
