/* The otf2 reader's global definitions: each is translated into tconv's terms as it arrives
 * (strings interned once, names and categories of regions, the process id of a location group,
 * metric members split into counter name and series), so the event callbacks only index arrays.
 * A reference to something undefined is not an error here: the event that uses it is. */
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "otf2_reader.h"

/* Element ref of a table indexed by reference, grown (zeroed) to hold it; NULL when the
 * reference is past OTF2R_MAX_REF, which no archive of sane size uses, or far past what the
 * definitions read so far (ndefs) can number: references are dense from 0, so one that is not
 * would make a table of millions of entries out of one definition of a few bytes. */
static void *otf2r_slot(void **arr, size_t *n, uint64_t ref, size_t size, uint64_t ndefs)
{
    if (ref >= OTF2R_MAX_REF || ref >= OTF2R_REF_SLACK + 4 * ndefs) return NULL;
    if (ref >= *n) {
        size_t cap = *n ? *n : 16;
        while (cap <= ref)
            cap *= 2;
        unsigned char *p = realloc(*arr, cap * size);
        if (!p) otf2r_oom();
        memset(p + *n * size, 0, (cap - *n) * size);
        *arr = p;
        *n = cap;
    }
    return (unsigned char *)*arr + ref * size;
}

#define OTF2R_SLOT(r, field, count, ref)                                                           \
    otf2r_slot((void **)&(r)->field, &(r)->count, ref, sizeof(*(r)->field), (r)->ndefs++)

static OTF2_CallbackCode otf2r_too_big(otf2r *r, const char *what, uint64_t ref)
{
    tconv_error_set(r->ctx,
                    "%s: the global definitions define %s %" PRIu64 " after %" PRIu64
                    " definitions, a reference too large for a real archive",
                    r->anchor, what, ref, r->ndefs);
    r->status = TCONV_FATAL;
    return OTF2_CALLBACK_INTERRUPT;
}

tconv_str otf2r_string(const otf2r *r, OTF2_StringRef ref)
{
    return ref < r->nstrings ? r->strings[ref] : 0;
}

static OTF2_CallbackCode otf2r_def_string(void *u, OTF2_StringRef self, const char *s)
{
    otf2r *r = u;
    tconv_str *slot = OTF2R_SLOT(r, strings, nstrings, self);
    if (!slot) return otf2r_too_big(r, "string", self);
    *slot = tconv_string_intern_cstr(r->ctx, s);
    return OTF2_CALLBACK_SUCCESS;
}

static OTF2_CallbackCode otf2r_def_clock(void *u, uint64_t resolution, uint64_t offset,
                                         uint64_t length, uint64_t realtime)
{
    (void)offset;
    (void)length;
    (void)realtime;
    otf2r *r = u;
    r->ticks_per_s = resolution;
    r->have_clock = 1;
    return OTF2_CALLBACK_SUCCESS;
}

static int otf2r_accel_paradigm(OTF2_Paradigm p)
{
    return p == OTF2_PARADIGM_CUDA || p == OTF2_PARADIGM_HIP || p == OTF2_PARADIGM_OPENCL ||
           p == OTF2_PARADIGM_OPENACC || p == OTF2_PARADIGM_KOKKOS;
}

static OTF2_CallbackCode otf2r_def_region(void *u, OTF2_RegionRef self, OTF2_StringRef name,
                                          OTF2_StringRef canonical, OTF2_StringRef description,
                                          OTF2_RegionRole role, OTF2_Paradigm paradigm,
                                          OTF2_RegionFlag flags, OTF2_StringRef file,
                                          uint32_t begin, uint32_t end)
{
    (void)canonical;
    (void)flags;
    (void)file;
    (void)begin;
    (void)end;
    otf2r *r = u;
    otf2r_region *g = OTF2R_SLOT(r, regions, nregions, self);
    if (!g) return otf2r_too_big(r, "region", self);
    g->name = otf2r_string(r, name);
    g->cat = otf2r_string(r, description);
    g->defined = 1;
    g->role = 0;
    /* A description is a category (tconv's own archives put the Chrome category there): the
     * core's rules for categories then decide, as for the trace the archive came from. Without
     * one, the region's OTF2 role and paradigm say what it is. */
    if (g->cat) return OTF2_CALLBACK_SUCCESS;
    const char *n = tconv_string_get(r->ctx, g->name);
    if (role == OTF2_REGION_ROLE_ARTIFICIAL &&
        (strcmp(n, "MEASUREMENT OFF") == 0 || strcmp(n, "TRACE BUFFER FLUSH") == 0))
        g->role = TCONV_ROLE_OVERHEAD;
    else if (otf2r_accel_paradigm(paradigm) && role == OTF2_REGION_ROLE_DATA_TRANSFER)
        g->role = TCONV_ROLE_MEMCPY;
    else if (otf2r_accel_paradigm(paradigm) &&
             (role == OTF2_REGION_ROLE_WRAPPER || role == OTF2_REGION_ROLE_ALLOCATE ||
              role == OTF2_REGION_ROLE_DEALLOCATE || role == OTF2_REGION_ROLE_REALLOCATE))
        g->role = TCONV_ROLE_RUNTIME;
    else if (otf2r_accel_paradigm(paradigm))
        g->role = TCONV_ROLE_KERNEL; /* device code: Score-P gives kernels no role of their own */
    return OTF2_CALLBACK_SUCCESS;
}

static OTF2_CallbackCode otf2r_def_node(void *u, OTF2_SystemTreeNodeRef self, OTF2_StringRef name,
                                        OTF2_StringRef cls, OTF2_SystemTreeNodeRef parent)
{
    otf2r *r = u;
    otf2r_node *n = OTF2R_SLOT(r, nodes, nnodes, self);
    if (!n) return otf2r_too_big(r, "system tree node", self);
    *n = (otf2r_node){otf2r_string(r, name), otf2r_string(r, cls), parent, 1};
    return OTF2_CALLBACK_SUCCESS;
}

static OTF2_CallbackCode otf2r_def_lgroup(void *u, OTF2_LocationGroupRef self, OTF2_StringRef name,
                                          OTF2_LocationGroupType type,
                                          OTF2_SystemTreeNodeRef parent,
                                          OTF2_LocationGroupRef creator)
{
    (void)type;
    (void)creator;
    otf2r *r = u;
    otf2r_lgroup *g = OTF2R_SLOT(r, lgroups, nlgroups, self);
    if (!g) return otf2r_too_big(r, "location group", self);
    char pid[16];
    snprintf(pid, sizeof(pid), "%" PRIu32, self);
    *g = (otf2r_lgroup){otf2r_string(r, name), tconv_string_intern_cstr(r->ctx, pid), parent, 1, 0};
    return OTF2_CALLBACK_SUCCESS;
}

static OTF2_CallbackCode otf2r_def_location(void *u, OTF2_LocationRef self, OTF2_StringRef name,
                                            OTF2_LocationType type, uint64_t nevents,
                                            OTF2_LocationGroupRef group)
{
    otf2r *r = u;
    r->ndefs++;
    if (r->nlocs >= OTF2R_MAX_REF) return otf2r_too_big(r, "location", self);
    /* A location defined again would have its events read again, as many times as it is
     * defined: a 1 MB archive became 10 million events. The first definition is kept. */
    if (tconv_map_put(&r->loc_ids, self, 0, (uint32_t)r->nlocs) != (uint32_t)r->nlocs) {
        tconv_warning_add(r->ctx, "otf2.duplicate-location",
                          "%s: location %" PRIu64 " is defined again; its events are read once, "
                          "with its first definition",
                          r->anchor, self);
        return OTF2_CALLBACK_SUCCESS;
    }
    if (r->nlocs == r->locs_cap) {
        r->locs_cap = r->locs_cap ? 2 * r->locs_cap : 16;
        r->locs = realloc(r->locs, r->locs_cap * sizeof(*r->locs));
        if (!r->locs) otf2r_oom();
    }
    r->locs[r->nlocs++] =
        (otf2r_loc){self, otf2r_string(r, name), group, (uint8_t)type, nevents, 0};
    return OTF2_CALLBACK_SUCCESS;
}

/* "memory allocated" with description "allocated" is counter "memory", series "allocated" (how
 * tconv's writer names a series); otherwise the series is the member's name, as a Chrome counter
 * with one value is named. */
static OTF2_CallbackCode otf2r_def_member(void *u, OTF2_MetricMemberRef self, OTF2_StringRef name,
                                          OTF2_StringRef description, OTF2_MetricType type,
                                          OTF2_MetricMode mode, OTF2_Type vtype, OTF2_Base base,
                                          int64_t exponent, OTF2_StringRef unit)
{
    (void)type;
    (void)mode;
    (void)vtype;
    otf2r *r = u;
    otf2r_member *m = OTF2R_SLOT(r, members, nmembers, self);
    if (!m) return otf2r_too_big(r, "metric member", self);
    tconv_str nm = otf2r_string(r, name), desc = otf2r_string(r, description);
    m->name = m->key = nm;
    const char *ns = tconv_string_get(r->ctx, nm), *ds = tconv_string_get(r->ctx, desc);
    size_t nl = strlen(ns), dl = strlen(ds);
    if (desc && nl > dl + 1 && ns[nl - dl - 1] == ' ' && memcmp(ns + nl - dl, ds, dl) == 0) {
        m->name = tconv_string_intern(r->ctx, ns, nl - dl - 1);
        m->key = desc;
    }
    m->unit = otf2r_string(r, unit);
    /* base^exponent: Score-P gives e.g. an energy counter in 10^-3 J as exponent -3. */
    double scale = 1.0, b = base == OTF2_BASE_BINARY ? 2.0 : 10.0;
    for (int64_t e = exponent; e > 0 && e < 400; e--)
        scale *= b;
    for (int64_t e = exponent; e < 0 && e > -400; e++)
        scale /= b;
    m->scale = scale;
    m->defined = 1;
    return OTF2_CALLBACK_SUCCESS;
}

static OTF2_CallbackCode otf2r_def_class(void *u, OTF2_MetricRef self, uint8_t n,
                                         const OTF2_MetricMemberRef *members,
                                         OTF2_MetricOccurrence occurrence, OTF2_RecorderKind kind)
{
    (void)occurrence;
    (void)kind;
    otf2r *r = u;
    otf2r_metric *m = OTF2R_SLOT(r, metrics, nmetrics, self);
    if (!m) return otf2r_too_big(r, "metric", self);
    free(m->members);
    m->members = malloc((n ? n : 1) * sizeof(*m->members));
    if (!m->members) otf2r_oom();
    for (uint8_t i = 0; i < n; i++)
        m->members[i] = members[i];
    m->n = n;
    m->cls = UINT32_MAX;
    m->defined = 1;
    return OTF2_CALLBACK_SUCCESS;
}

static OTF2_CallbackCode otf2r_def_instance(void *u, OTF2_MetricRef self, OTF2_MetricRef cls,
                                            OTF2_LocationRef recorder, OTF2_MetricScope scope,
                                            uint64_t ref)
{
    (void)recorder;
    (void)scope;
    (void)ref;
    otf2r *r = u;
    otf2r_metric *m = OTF2R_SLOT(r, metrics, nmetrics, self);
    if (!m) return otf2r_too_big(r, "metric", self);
    free(m->members);
    *m = (otf2r_metric){NULL, 0, cls, 1};
    return OTF2_CALLBACK_SUCCESS;
}

static OTF2_CallbackCode otf2r_def_attr(void *u, OTF2_AttributeRef self, OTF2_StringRef name,
                                        OTF2_StringRef description, OTF2_Type type)
{
    (void)description;
    (void)type;
    otf2r *r = u;
    otf2r_attr *a = OTF2R_SLOT(r, attrs, nattrs, self);
    if (!a) return otf2r_too_big(r, "attribute", self);
    *a = (otf2r_attr){otf2r_string(r, name), 1};
    return OTF2_CALLBACK_SUCCESS;
}

static OTF2_CallbackCode otf2r_def_ogroup(void *u, OTF2_GroupRef self, OTF2_StringRef name,
                                          OTF2_GroupType type, OTF2_Paradigm paradigm,
                                          OTF2_GroupFlag flags, uint32_t n, const uint64_t *members)
{
    (void)name;
    (void)flags;
    otf2r *r = u;
    otf2r_ogroup *g = OTF2R_SLOT(r, ogroups, nogroups, self);
    if (!g) return otf2r_too_big(r, "group", self);
    free(g->members);
    free(g->locs);
    g->locs = NULL;
    g->members = malloc((n ? n : 1) * sizeof(*g->members));
    if (!g->members) otf2r_oom();
    if (n) memcpy(g->members, members, n * sizeof(*members));
    g->n = n;
    g->type = (uint8_t)type;
    g->paradigm = (uint8_t)paradigm;
    g->defined = 1;
    return OTF2_CALLBACK_SUCCESS;
}

static OTF2_CallbackCode otf2r_def_comm(void *u, OTF2_CommRef self, OTF2_StringRef name,
                                        OTF2_GroupRef group, OTF2_CommRef parent,
                                        OTF2_CommFlag flags)
{
    (void)parent;
    (void)flags;
    otf2r *r = u;
    otf2r_comm *c = OTF2R_SLOT(r, comms, ncomms, self);
    if (!c) return otf2r_too_big(r, "communicator", self);
    *c = (otf2r_comm){otf2r_string(r, name), group, 0, NULL, 1};
    return OTF2_CALLBACK_SUCCESS;
}

void otf2r_defs_register(OTF2_GlobalDefReaderCallbacks *cb)
{
    OTF2_GlobalDefReaderCallbacks_SetStringCallback(cb, otf2r_def_string);
    OTF2_GlobalDefReaderCallbacks_SetClockPropertiesCallback(cb, otf2r_def_clock);
    OTF2_GlobalDefReaderCallbacks_SetRegionCallback(cb, otf2r_def_region);
    OTF2_GlobalDefReaderCallbacks_SetSystemTreeNodeCallback(cb, otf2r_def_node);
    OTF2_GlobalDefReaderCallbacks_SetLocationGroupCallback(cb, otf2r_def_lgroup);
    OTF2_GlobalDefReaderCallbacks_SetLocationCallback(cb, otf2r_def_location);
    OTF2_GlobalDefReaderCallbacks_SetMetricMemberCallback(cb, otf2r_def_member);
    OTF2_GlobalDefReaderCallbacks_SetMetricClassCallback(cb, otf2r_def_class);
    OTF2_GlobalDefReaderCallbacks_SetMetricInstanceCallback(cb, otf2r_def_instance);
    OTF2_GlobalDefReaderCallbacks_SetAttributeCallback(cb, otf2r_def_attr);
    OTF2_GlobalDefReaderCallbacks_SetGroupCallback(cb, otf2r_def_ogroup);
    OTF2_GlobalDefReaderCallbacks_SetCommCallback(cb, otf2r_def_comm);
    otf2r_props_register(cb);
}

/* A communicator's group (COMM_GROUP) lists, per rank, an index into the COMM_LOCATIONS group
 * of the same paradigm, which lists locations. Each group is resolved once, whatever number of
 * communicators share it, and each paradigm's locations group is found once: time and memory
 * follow the definitions (100 000 communicators of 100 000 groups were 10 s of search, 200
 * communicators of a million-member group 1.6 GB of copies). A rank that cannot be resolved
 * stays UINT64_MAX: its messages get no partner. */
void otf2r_defs_resolve_comms(otf2r *r)
{
    if (!r->ncomms) return;
    const otf2r_ogroup *by_paradigm[256] = {NULL};
    for (size_t k = r->nogroups; k-- > 0;)
        if (r->ogroups[k].defined && r->ogroups[k].type == OTF2_GROUP_TYPE_COMM_LOCATIONS)
            by_paradigm[r->ogroups[k].paradigm] = &r->ogroups[k]; /* the first of each */
    for (size_t c = 0; c < r->ncomms; c++) {
        otf2r_comm *cm = &r->comms[c];
        if (!cm->defined || cm->group >= r->nogroups) continue;
        otf2r_ogroup *g = &r->ogroups[cm->group];
        if (!g->defined) continue;
        if (!g->locs) {
            const otf2r_ogroup *locs = by_paradigm[g->paradigm];
            g->locs = malloc((g->n ? g->n : 1) * sizeof(uint64_t));
            if (!g->locs) otf2r_oom();
            for (uint32_t i = 0; i < g->n; i++) {
                uint64_t m = g->members[i];
                g->locs[i] = locs && m < locs->n ? locs->members[m] : UINT64_MAX;
            }
        }
        cm->locs = g->locs;
        cm->size = g->n;
    }
}

int otf2r_time(otf2r *r, OTF2_TimeStamp t, int64_t *ns)
{
    /* Exact: ticks * 10^9 / resolution in 128 bits, rounded down. */
    unsigned __int128 v = (unsigned __int128)t * 1000000000u / r->ticks_per_s;
    if (v > (unsigned __int128)INT64_MAX) {
        tconv_error_set(r->ctx,
                        "%s: location %" PRIu64 ", event %" PRIu64 ": time %" PRIu64
                        " ticks at %" PRIu64 " ticks/s is past what 64-bit nanoseconds hold",
                        r->anchor, r->loc ? r->loc->id : 0, r->nread, t, r->ticks_per_s);
        return -1;
    }
    *ns = (int64_t)v;
    return 0;
}

void otf2r_defs_free(otf2r *r)
{
    for (size_t i = 0; i < r->nmetrics; i++)
        free(r->metrics[i].members);
    for (size_t i = 0; i < r->nogroups; i++) {
        free(r->ogroups[i].members);
        free(r->ogroups[i].locs);
    }
    tconv_map_free(&r->loc_ids);
    free(r->strings);
    free(r->regions);
    free(r->nodes);
    free(r->lgroups);
    free(r->locs);
    free(r->members);
    free(r->metrics);
    free(r->attrs);
    free(r->ogroups);
    free(r->comms);
    free(r->params);
}
