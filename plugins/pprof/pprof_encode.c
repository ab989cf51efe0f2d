/* Writing the profile. Ids (locations, functions, strings) are handed out in order of first use
 * while the fields are written, and samples keep the order in which their stacks first
 * appeared, so the bytes depend on the event stream alone. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <zlib.h>

#include "pprof_gz.h"
#include "pprof_groups.h"
#include "pprof_pyframe.h"
#include "pprof_writer.h"
#include "profile.pb-c.h"

/* Profile field numbers (proto/profile.proto). */
enum {
    PPROF_F_SAMPLE_TYPE = 1,
    PPROF_F_SAMPLE = 2,
    PPROF_F_MAPPING = 3,
    PPROF_F_LOCATION = 4,
    PPROF_F_FUNCTION = 5,
    PPROF_F_STRING_TABLE = 6,
    PPROF_F_DROP_FRAMES = 7,
    PPROF_F_KEEP_FRAMES = 8,
    PPROF_F_TIME_NANOS = 9,
    PPROF_F_DURATION_NANOS = 10,
    PPROF_F_PERIOD_TYPE = 11,
    PPROF_F_PERIOD = 12,
    PPROF_F_COMMENT = 13,
    PPROF_F_DEFAULT_SAMPLE_TYPE = 14
};

/* The constant strings of labels, in the order of pprof_label_name. */
enum {
    PPROF_K_PID,
    PPROF_K_TID,
    PPROF_K_THREAD,
    PPROF_K_PROCESS,
    PPROF_K_RANK,
    PPROF_K_INPUT,
    PPROF_K_DEVICE,
    PPROF_K_STEP,
    PPROF_K_ID,
    PPROF_LABEL_KEYS
};
static const char *const pprof_label_name[PPROF_LABEL_KEYS] = {
    "pid", "tid", "thread", "process", "rank", "input", "device", "step", "id"};
/* Labels a sample may carry: every key but "id", which is a unit. */
#define PPROF_MAX_LABELS (PPROF_LABEL_KEYS - 1)

typedef struct pprof_function {
    tconv_str name, system_name, filename;
    uint32_t start_line;
} pprof_function;

typedef struct pprof_enc {
    pprof_writer *w;
    tconv_ctx *ctx;
    pprof_gz *gz;
    /* string table: the tconv string at each pprof index, and a hash to find the index */
    pprof_index str_ix;
    tconv_str *strs;
    uint32_t nstrs, strs_cap;
    /* locations: one per frame, numbered from 1 in order of first use */
    uint32_t *loc_of_frame;
    uint32_t *frame_of_loc;
    uint32_t nlocs;
    /* functions, deduplicated: frames that differ only in address share one */
    pprof_function *funcs;
    uint32_t nfuncs, funcs_cap;
    pprof_index func_ix;
    /* a sample, location or function being written */
    uint8_t *wire;
    uint32_t wire_cap;
    /* string indices of the label names and of "id", taken on first use */
    int64_t label_key[PPROF_LABEL_KEYS];
    /* Steps (include/tconv/steps.h), by frame id: the frame written in its place (itself, or
     * the one frame every step shares) and the step it is (-1: none). NULL: no step frame. */
    uint32_t *step_frame;
    int64_t *step_of;
    int oom;
} pprof_enc;

static void *pprof_grow(void *p, uint32_t *cap, uint32_t need, size_t elem, int *oom)
{
    if (need <= *cap) return p;
    uint32_t ncap = *cap ? *cap : 64;
    while (ncap < need)
        ncap *= 2;
    void *q = realloc(p, (size_t)ncap * elem);
    if (!q) {
        *oom = 1;
        return p;
    }
    /* Callers rely on new slots reading as zero. */
    memset((char *)q + (size_t)*cap * elem, 0, (size_t)(ncap - *cap) * elem);
    *cap = ncap;
    return q;
}

/* The string-table index of a string, assigned on first use. A hash rather than an array over
 * all tconv strings: the run may have interned millions (argument values) of which the profile
 * uses a few hundred. */
static int64_t pprof_str(pprof_enc *e, tconv_str s)
{
    if (s == 0 || tconv_string_length(e->ctx, s) == 0) return 0;
    pprof_index_cursor cur;
    pprof_index_start(&e->str_ix, &cur, pprof_hash_mix(0x7feb352du, s));
    uint32_t id;
    while ((id = pprof_index_probe(&e->str_ix, &cur)) != PPROF_INDEX_NONE) {
        if (e->strs[id] == s) return id;
    }
    tconv_str *p = pprof_grow(e->strs, &e->strs_cap, e->nstrs + 1, sizeof *p, &e->oom);
    if (e->oom) return 0;
    e->strs = p;
    id = e->nstrs;
    if (pprof_index_insert_at(&e->str_ix, &cur, id) != 0) {
        e->oom = 1;
        return 0;
    }
    e->strs[e->nstrs++] = s;
    return id;
}

static int64_t pprof_cstr(pprof_enc *e, const char *s)
{
    return pprof_str(e, tconv_string_intern_cstr(e->ctx, s));
}

static uint32_t pprof_loc_of(pprof_enc *e, uint32_t frame)
{
    if (e->loc_of_frame[frame] == 0) {
        e->frame_of_loc[e->nlocs] = frame;
        e->loc_of_frame[frame] = ++e->nlocs;
    }
    return e->loc_of_frame[frame];
}

static uint32_t pprof_function_intern(pprof_enc *e, const pprof_function *f)
{
    uint32_t h = pprof_hash_mix(0x165667b1u, (uint64_t)f->name << 32 | f->system_name);
    h = pprof_hash_mix(h, (uint64_t)f->filename << 32 | f->start_line);
    pprof_index_cursor cur;
    pprof_index_start(&e->func_ix, &cur, h);
    uint32_t id;
    while ((id = pprof_index_probe(&e->func_ix, &cur)) != PPROF_INDEX_NONE) {
        const pprof_function *g = &e->funcs[id];
        if (g->name == f->name && g->system_name == f->system_name && g->filename == f->filename &&
            g->start_line == f->start_line)
            return id + 1;
    }
    pprof_function *p = pprof_grow(e->funcs, &e->funcs_cap, e->nfuncs + 1, sizeof *p, &e->oom);
    if (e->oom) return 0;
    e->funcs = p;
    id = e->nfuncs;
    if (pprof_index_insert_at(&e->func_ix, &cur, id) != 0) {
        e->oom = 1;
        return 0;
    }
    e->funcs[id] = *f;
    e->nfuncs++;
    return id + 1;
}

/* The function and line of a frame: PyTorch Python frames carry file and line in their name;
 * other frames without a file get their category where the mode says so.
 * A function's system_name never equals its name: pprof takes a function whose name is its
 * system_name for a symbol it has yet to demangle, and its default view then cuts the name
 * down (a `<...>` and `(...)` dropped: CUTLASS kernels merge into one, `<forked function>`
 * reads `<unknown>`). The names here are already what the trace wants shown. */
static uint32_t pprof_frame_function(pprof_enc *e, const tconv_frame *fr, int64_t *line)
{
    pprof_function f = {fr->name, 0, fr->file, 0};
    *line = fr->line;
    const char *name = tconv_string_get(e->ctx, fr->name);
    size_t len = tconv_string_length(e->ctx, fr->name);
    pprof_pyframe py;
    if (fr->file == 0 && pprof_pyframe_parse(name, len, &py)) {
        const char *cat = fr->module ? tconv_string_get(e->ctx, fr->module) : "";
        int is_py = strcmp(cat, "python_function") == 0 ||
                    (py.path_len > 3 && memcmp(name + py.path_len - 3, ".py", 3) == 0);
        if (is_py) {
            f.name = tconv_string_intern(e->ctx, name + py.func_off, py.func_len);
            f.system_name = fr->name; /* the whole "file.py(12): func", for -symbolize=none */
            f.filename = tconv_string_intern(e->ctx, name, py.path_len);
            f.start_line = py.line;
            *line = py.line;
        }
    }
    if (f.filename == 0 && e->w->category == PPROF_CATEGORY_FILE) f.filename = fr->module;
    if (e->w->category == PPROF_CATEGORY_SYSTEM && fr->module) f.system_name = fr->module;
    if (f.system_name == f.name) f.system_name = 0;
    return pprof_function_intern(e, &f);
}

static int64_t pprof_scale(int64_t v, int64_t div)
{
    if (div <= 1) return v;
    /* Round half away from zero, so that a total splits the same way as its parts. */
    return v >= 0 ? (v + div / 2) / div : -((-v + div / 2) / div);
}

typedef struct pprof_types {
    size_t n, def;
    const tconv_sample_type *types;
} pprof_types;

/* For samples whose producer declared no types: a count, then numbered values. */
static const tconv_sample_type pprof_fallback_types[] = {
    {"samples", "count"}, {"value2", "count"}, {"value3", "count"}, {"value4", "count"},
    {"value5", "count"},  {"value6", "count"}, {"value7", "count"}, {"value8", "count"},
};

static int pprof_resolve_types(pprof_writer *w, pprof_types *t)
{
    t->types = tconv_sampletypes_get(w->ctx, &t->n, &t->def);
    if (!t->types || t->n == 0) {
        size_t max = sizeof pprof_fallback_types / sizeof pprof_fallback_types[0];
        t->types = pprof_fallback_types;
        t->n = w->have_types ? w->nvalues : 1;
        t->def = 0;
        if (t->n > max) {
            tconv_error_set(w->ctx,
                            "pprof: samples carry %u values but no sample types were "
                            "declared",
                            w->nvalues);
            return -1;
        }
    }
    if (w->have_types && t->n != w->nvalues) {
        tconv_error_set(w->ctx, "pprof: %zu sample types declared but samples carry %u values",
                        t->n, w->nvalues);
        return -1;
    }
    if (w->sample_type) {
        size_t i;
        for (i = 0; i < t->n; i++) {
            if (t->types[i].type && strcmp(t->types[i].type, w->sample_type) == 0) break;
        }
        if (i == t->n) {
            tconv_error_set(w->ctx, "pprof: sample_type=%s is not a sample type of this input",
                            w->sample_type);
            return -1;
        }
        t->def = i;
    }
    if (t->def >= t->n) t->def = t->n - 1;
    return 0;
}

static void pprof_write_sample_types(pprof_enc *e, const pprof_types *t, int64_t *divs)
{
    for (size_t i = 0; i < t->n; i++) {
        const char *unit = t->types[i].unit ? t->types[i].unit : "";
        divs[i] = 1;
        if (strcmp(unit, "nanoseconds") == 0 && e->w->unit_div > 1) {
            divs[i] = e->w->unit_div;
            unit = e->w->unit_name;
        }
        Perftools__Profiles__ValueType vt = PERFTOOLS__PROFILES__VALUE_TYPE__INIT;
        vt.type = pprof_cstr(e, t->types[i].type ? t->types[i].type : "");
        vt.unit = pprof_cstr(e, unit);
        pprof_gz_message_field(e->gz, PPROF_F_SAMPLE_TYPE, &vt.base);
    }
}

/* ---- the wire format of samples, locations and functions ----------------------------------
 * They are most of a profile with many distinct stacks and are written here directly, in the
 * bytes protobuf-c writes for them (proto3: fields in number order, zero scalars left out,
 * repeated scalars packed, int64 as the varint of its two's complement), without its two passes
 * over the descriptors per message. */

#define PPROF_VARINT_MAX 10

static uint8_t *pprof_put_varint(uint8_t *p, uint64_t v)
{
    while (v >= 0x80) {
        *p++ = (uint8_t)(v | 0x80);
        v >>= 7;
    }
    *p++ = (uint8_t)v;
    return p;
}

static uint32_t pprof_varint_len(uint64_t v)
{
    uint32_t n = 1;
    while (v >= 0x80) {
        v >>= 7;
        n++;
    }
    return n;
}

/* A varint field; proto3 leaves a zero out. */
static uint8_t *pprof_put_field(uint8_t *p, uint32_t field, uint64_t v)
{
    if (!v) return p;
    *p++ = (uint8_t)(field << 3);
    return pprof_put_varint(p, v);
}

/* A length-delimited field whose body (body_len bytes) the caller writes after it. */
static uint8_t *pprof_put_len(uint8_t *p, uint32_t field, uint64_t body_len)
{
    *p++ = (uint8_t)(field << 3 | 2);
    return pprof_put_varint(p, body_len);
}

static uint8_t *pprof_wire_reserve(pprof_enc *e, size_t need)
{
    if (need > UINT32_MAX / 2) {
        e->oom = 1;
        return NULL;
    }
    uint8_t *p = pprof_grow(e->wire, &e->wire_cap, (uint32_t)need, 1, &e->oom);
    if (e->oom) return NULL;
    e->wire = p;
    return p;
}

static int64_t pprof_label_key(pprof_enc *e, int k)
{
    if (e->label_key[k] < 0) e->label_key[k] = pprof_cstr(e, pprof_label_name[k]);
    return e->label_key[k];
}

/* A Label field of a sample. */
static uint8_t *pprof_put_label(pprof_enc *e, uint8_t *p, int key, uint32_t kind, int64_t num,
                                tconv_str str)
{
    int64_t k = pprof_label_key(e, key), sv = 0, unit = 0;
    if (kind == PPROF_ID_NUM)
        /* pprof drops a numeric label whose value and unit are both 0 (pid 0 is Kineto's
         * first GPU); a unit it does not know keeps the label and prints as the bare number. */
        unit = pprof_label_key(e, PPROF_K_ID);
    else
        sv = pprof_str(e, str), num = 0;
    uint8_t body[4 * (1 + PPROF_VARINT_MAX)], *b = body;
    b = pprof_put_field(b, 1, (uint64_t)k);
    b = pprof_put_field(b, 2, (uint64_t)sv);
    b = pprof_put_field(b, 3, (uint64_t)num);
    b = pprof_put_field(b, 4, (uint64_t)unit);
    p = pprof_put_len(p, 3, (uint64_t)(b - body));
    memcpy(p, body, (size_t)(b - body));
    return p + (b - body);
}

/* The samples of merged; with by_track, merged is the writer's per-track sums and each key's
 * group is the track whose group by_track gives (PPROF_GROUP_SKIP: left out). */
static void pprof_write_samples(pprof_enc *e, const pprof_agg *merged, const pprof_groups *g,
                                const uint32_t *by_track, const int64_t *divs)
{
    pprof_writer *w = e->w;
    uint64_t *locs = NULL;
    uint32_t locs_cap = 0;
    int64_t *vals = malloc((w->nvalues ? w->nvalues : 1) * sizeof *vals);
    if (!vals) {
        e->oom = 1;
        return;
    }
    for (uint32_t i = 0; i < merged->count && !e->oom; i++) {
        const pprof_agg_key *k = &merged->keys[i];
        uint32_t gid = k->group;
        if (by_track) {
            gid = gid < g->ntracks ? by_track[gid] : PPROF_GROUP_SKIP;
            if (gid == PPROF_GROUP_SKIP) continue;
        }
        const pprof_group *grp = &g->items[gid];
        uint32_t n = 0;
        int64_t step = -1; /* of the outermost step frame, the last one met */
        for (uint32_t node = k->node; node != PPROF_NODE_ROOT;
             node = pprof_stacks_parent(&w->stacks, node)) {
            locs = pprof_grow(locs, &locs_cap, n + 2, sizeof *locs, &e->oom);
            if (e->oom) break;
            uint32_t fr = pprof_stacks_frame_of(&w->stacks, node);
            if (e->step_frame) {
                if (e->step_of[fr] >= 0) step = e->step_of[fr];
                fr = e->step_frame[fr];
            }
            locs[n++] = pprof_loc_of(e, fr);
        }
        if (e->oom) break;
        if (grp->root_frame != PPROF_INDEX_NONE) {
            locs = pprof_grow(locs, &locs_cap, n + 1, sizeof *locs, &e->oom);
            if (e->oom) break;
            locs[n++] = pprof_loc_of(e, grp->root_frame);
        }
        for (uint32_t v = 0; v < w->nvalues; v++)
            vals[v] = pprof_scale(merged->values[(size_t)i * w->nvalues + v], divs[v]);

        /* tags and lengths of the two packed fields, the labels */
        uint8_t *p = pprof_wire_reserve(e, ((size_t)n + w->nvalues + 4) * PPROF_VARINT_MAX +
                                               PPROF_MAX_LABELS * (2 + 4 * (1 + PPROF_VARINT_MAX)));
        if (!p) break;
        if (n) {
            uint64_t len = 0;
            for (uint32_t l = 0; l < n; l++)
                len += pprof_varint_len(locs[l]);
            p = pprof_put_len(p, 1, len);
            for (uint32_t l = 0; l < n; l++)
                p = pprof_put_varint(p, locs[l]);
        }
        if (w->nvalues) {
            uint64_t len = 0;
            for (uint32_t v = 0; v < w->nvalues; v++)
                len += pprof_varint_len((uint64_t)vals[v]);
            p = pprof_put_len(p, 2, len);
            for (uint32_t v = 0; v < w->nvalues; v++)
                p = pprof_put_varint(p, (uint64_t)vals[v]);
        }
        if (grp->pid_kind)
            p = pprof_put_label(e, p, PPROF_K_PID, grp->pid_kind, grp->pid_num, grp->pid_str);
        if (grp->tid_kind)
            p = pprof_put_label(e, p, PPROF_K_TID, grp->tid_kind, grp->tid_num, grp->tid_str);
        if (grp->thread) p = pprof_put_label(e, p, PPROF_K_THREAD, PPROF_ID_STR, 0, grp->thread);
        if (grp->process) p = pprof_put_label(e, p, PPROF_K_PROCESS, PPROF_ID_STR, 0, grp->process);
        if (grp->has_rank) p = pprof_put_label(e, p, PPROF_K_RANK, PPROF_ID_NUM, grp->rank, 0);
        if (grp->has_input) p = pprof_put_label(e, p, PPROF_K_INPUT, PPROF_ID_NUM, grp->input, 0);
        if (grp->device_kind)
            p = pprof_put_label(e, p, PPROF_K_DEVICE, grp->device_kind, grp->device_num,
                                grp->device_str);
        if (step >= 0) p = pprof_put_label(e, p, PPROF_K_STEP, PPROF_ID_NUM, step, 0);
        pprof_gz_bytes_field(e->gz, PPROF_F_SAMPLE, e->wire, (size_t)(p - e->wire));
    }
    free(locs);
    free(vals);
}

static void pprof_write_locations(pprof_enc *e)
{
    for (uint32_t id = 1; id <= e->nlocs && !e->oom; id++) {
        const tconv_frame *fr = &e->w->stacks.frames[e->frame_of_loc[id - 1]];
        int64_t lineno = 0;
        uint32_t fid = pprof_frame_function(e, fr, &lineno);
        uint8_t body[3 * (1 + PPROF_VARINT_MAX) + 2 * (1 + PPROF_VARINT_MAX)], *p = body, *l;
        p = pprof_put_field(p, 1, id);
        p = pprof_put_field(p, 3, fr->addr);
        /* the one Line: written even when empty, as every element of a repeated field */
        uint8_t line[2 * (1 + PPROF_VARINT_MAX)];
        l = pprof_put_field(line, 1, fid);
        l = pprof_put_field(l, 2, (uint64_t)lineno);
        p = pprof_put_len(p, 4, (uint64_t)(l - line));
        memcpy(p, line, (size_t)(l - line));
        p += l - line;
        pprof_gz_bytes_field(e->gz, PPROF_F_LOCATION, body, (size_t)(p - body));
    }
}

static void pprof_write_functions(pprof_enc *e)
{
    for (uint32_t i = 0; i < e->nfuncs && !e->oom; i++) {
        const pprof_function *f = &e->funcs[i];
        uint8_t body[5 * (1 + PPROF_VARINT_MAX)], *p = body;
        p = pprof_put_field(p, 1, i + 1);
        p = pprof_put_field(p, 2, (uint64_t)pprof_str(e, f->name));
        p = pprof_put_field(p, 3, (uint64_t)pprof_str(e, f->system_name));
        p = pprof_put_field(p, 4, (uint64_t)pprof_str(e, f->filename));
        p = pprof_put_field(p, 5, f->start_line);
        pprof_gz_bytes_field(e->gz, PPROF_F_FUNCTION, body, (size_t)(p - body));
    }
}

static void pprof_write_strings(pprof_enc *e)
{
    for (uint32_t i = 0; i < e->nstrs; i++) {
        tconv_str s = e->strs[i];
        pprof_gz_bytes_field(e->gz, PPROF_F_STRING_TABLE, tconv_string_get(e->ctx, s),
                             tconv_string_length(e->ctx, s));
    }
}

/* One Mapping, never referenced by a location, that names the input: pprof shows the file of
 * the first mapping as the profile's "File:" (the web UI's title, "unknown" without it). It
 * claims functions, so that pprof does not look for a binary to symbolize. */
static void pprof_write_mapping(pprof_enc *e)
{
    uint32_t n = tconv_ctx_input_count(e->ctx);
    const char *path = n ? tconv_ctx_input_name(e->ctx, 0) : NULL;
    if (!path) return;
    const char *base = strrchr(path, '/');
    base = base && base[1] ? base + 1 : path;
    char name[512];
    if (n > 1)
        snprintf(name, sizeof name, "%s and %u more", base, n - 1);
    else
        snprintf(name, sizeof name, "%s", base);
    Perftools__Profiles__Mapping m = PERFTOOLS__PROFILES__MAPPING__INIT;
    m.id = 1;
    m.filename = pprof_cstr(e, name);
    m.has_functions = 1;
    pprof_gz_message_field(e->gz, PPROF_F_MAPPING, &m.base);
}

/* Unix time of 2000-01-01 in ns: a time before it is no date of a recent trace. */
#define PPROF_YEAR_2000_NS INT64_C(946684800000000000)

/* The profile's start as a date: the trace's first time plus the time origin its inputs share
 * (Kineto's baseTimeNanoseconds). Inputs without an origin count as dated when the time reads
 * as one (Kineto wrote Unix µs before it had the member); a clock since boot (browsers, perf)
 * or inputs on different clocks give no date rather than one in 1970. */
static int pprof_start_date(tconv_ctx *ctx, int64_t first, int64_t *date)
{
    uint32_t n = tconv_ctx_input_count(ctx);
    int64_t origin = 0, o;
    uint32_t with = 0;
    for (uint32_t i = 0; i < n; i++) {
        if (!tconv_ctx_time_origin(ctx, i, &o)) continue;
        if (with && o != origin) return 0;
        origin = o;
        with++;
    }
    if (with && with != n) return 0;
    if (__builtin_add_overflow(first, origin, date)) return 0;
    return *date >= PPROF_YEAR_2000_NS;
}

/* Where a frame is a step's (the core's steps stage): with -W steps=merge it gives way to the
 * one frame all steps share, added to the stacks here, before the location maps are sized after
 * them; either way it gives the samples under it their step label. -1 when out of memory. */
static int pprof_map_steps(pprof_enc *e)
{
    pprof_writer *w = e->w;
    uint32_t n = w->stacks.nframes;
    tconv_steps *steps = tconv_steps_new(e->ctx);
    for (uint32_t f = 0; f < n && !e->oom; f++) {
        tconv_str merged;
        int64_t number;
        if (!tconv_steps_name(steps, w->stacks.frames[f].name, &merged, &number)) continue;
        if (!e->step_frame) {
            e->step_frame = malloc((size_t)n * sizeof *e->step_frame);
            e->step_of = malloc((size_t)n * sizeof *e->step_of);
            if (!e->step_frame || !e->step_of) {
                e->oom = 1;
                break;
            }
            for (uint32_t i = 0; i < n; i++) {
                e->step_frame[i] = i;
                e->step_of[i] = -1;
            }
        }
        e->step_of[f] = number;
        if (!w->steps_merged) continue;
        tconv_frame shared = w->stacks.frames[f]; /* a copy: adding a frame may move them */
        shared.name = merged;
        uint32_t id = pprof_stacks_frame(&w->stacks, &shared);
        if (id == PPROF_INDEX_NONE) e->oom = 1;
        e->step_frame[f] = id;
    }
    tconv_steps_destroy(steps);
    return e->oom ? -1 : 0;
}

/* Fold the per-track sums into per-group sums, dropping filtered tracks. */
static int pprof_merge(pprof_writer *w, const pprof_groups *g, pprof_agg *merged)
{
    for (uint32_t i = 0; i < w->agg.count; i++) {
        const pprof_agg_key *k = &w->agg.keys[i];
        uint32_t grp = k->group < g->ntracks ? g->of_track[k->group] : PPROF_GROUP_SKIP;
        if (grp == PPROF_GROUP_SKIP) continue;
        if (pprof_agg_add(merged, k->node, grp, &w->agg.values[(size_t)i * w->nvalues]) != 0)
            return -1;
    }
    return 0;
}

/* 1 when no two tracks share a group: then folding would only rename the groups, keeping every
 * sum and its order, and the per-track sums are written as they are (no second table of all
 * stacks); 0 when some do; -1 when out of memory. */
static int pprof_groups_distinct(const pprof_groups *g)
{
    unsigned char *seen = calloc(g->count ? g->count : 1, 1);
    if (!seen) return -1;
    int distinct = 1;
    for (uint32_t t = 0; t < g->ntracks && distinct; t++) {
        uint32_t grp = g->of_track[t];
        if (grp == PPROF_GROUP_SKIP) continue;
        if (seen[grp]) distinct = 0;
        seen[grp] = 1;
    }
    free(seen);
    return distinct;
}

tconv_status pprof_encode(pprof_writer *w)
{
    tconv_status st = TCONV_FATAL;
    pprof_types types;
    if (pprof_resolve_types(w, &types) != 0) return TCONV_FATAL;
    if (!w->have_types) {
        w->nvalues = (uint32_t)types.n;
        pprof_agg_free(&w->agg);
        pprof_agg_init(&w->agg, w->nvalues);
    }

    pprof_groups groups;
    pprof_groups_init(&groups);
    pprof_agg merged;
    pprof_agg_init(&merged, w->nvalues);
    pprof_gz gz;
    pprof_enc e;
    memset(&e, 0, sizeof e);
    e.w = w;
    e.ctx = w->ctx;
    e.gz = &gz;
    pprof_index_init(&e.func_ix);
    pprof_index_init(&e.str_ix);
    for (int k = 0; k < PPROF_LABEL_KEYS; k++)
        e.label_key[k] = -1;
    int64_t *divs = calloc(types.n, sizeof *divs);
    gz.z = NULL;

    if (!divs || pprof_groups_build(&groups, w) != 0) goto oom;
    int distinct = pprof_groups_distinct(&groups);
    if (distinct < 0 || (!distinct && pprof_merge(w, &groups, &merged) != 0)) goto oom;
    if (pprof_map_steps(&e) != 0) goto oom;
    /* Root frames and the steps' shared frame were added: size the frame maps after them. */
    uint32_t nframes = w->stacks.nframes;
    e.loc_of_frame = calloc(nframes ? nframes : 1, sizeof *e.loc_of_frame);
    e.frame_of_loc = calloc(nframes ? nframes : 1, sizeof *e.frame_of_loc);
    if (!e.loc_of_frame || !e.frame_of_loc) goto oom;
    /* string_table[0] must be "": the empty string takes index 0 before anything else. */
    e.strs = pprof_grow(NULL, &e.strs_cap, 1, sizeof *e.strs, &e.oom);
    if (e.oom) goto oom;
    e.strs[0] = 0;
    e.nstrs = 1;

    if (pprof_gz_open(&gz, w->ctx, w->out, Z_DEFAULT_COMPRESSION) != 0) goto done;
    pprof_write_sample_types(&e, &types, divs);
    pprof_write_mapping(&e);
    /* Needed before the string table is written, so take their indices now. The period type is
     * the default type: what one unit of a sample's value is (pprof's -raw shows it, and tools
     * that scale by the period find 1). */
    int64_t default_type = pprof_cstr(&e, types.types[types.def].type);
    Perftools__Profiles__ValueType period_type = PERFTOOLS__PROFILES__VALUE_TYPE__INIT;
    period_type.type = default_type;
    period_type.unit = pprof_cstr(&e, divs[types.def] > 1           ? w->unit_name
                                      : types.types[types.def].unit ? types.types[types.def].unit
                                                                    : "");
    /* A profile read as it was (pprof -> pprof, no unit changed) keeps its own period. */
    int64_t period = 1;
    if (w->meta.period_type && w->meta.has_period && divs[types.def] <= 1) {
        const char *pt = tconv_string_get(w->ctx, w->meta.period_type);
        const char *slash = strrchr(pt, '/');
        if (slash) {
            period_type.type = pprof_str(&e, tconv_string_intern(w->ctx, pt, (size_t)(slash - pt)));
            period_type.unit = pprof_cstr(&e, slash + 1);
            period = w->meta.period;
        }
    }
    if (distinct)
        pprof_write_samples(&e, &w->agg, &groups, groups.of_track, divs);
    else
        pprof_write_samples(&e, &merged, &groups, NULL, divs);
    pprof_write_locations(&e);
    pprof_write_functions(&e);
    /* what an input profile said of itself (pprof_meta.h): indices taken before the strings */
    int64_t drop = pprof_str(&e, w->meta.drop_frames), keep = pprof_str(&e, w->meta.keep_frames);
    for (size_t i = 0; i < w->meta.ncomments; i++)
        pprof_gz_varint_field(&gz, PPROF_F_COMMENT, (uint64_t)pprof_str(&e, w->meta.comments[i]));
    if (e.oom) goto oom;
    pprof_write_strings(&e);
    if (drop) pprof_gz_varint_field(&gz, PPROF_F_DROP_FRAMES, (uint64_t)drop);
    if (keep) pprof_gz_varint_field(&gz, PPROF_F_KEEP_FRAMES, (uint64_t)keep);

    int64_t first = 0, last = 0;
    if (tconv_ctx_bounds(w->ctx, &first, &last)) {
        if (w->has_start && w->start > first) first = w->start;
        if (w->has_end && w->end < last) last = w->end;
        int64_t date;
        if (pprof_start_date(w->ctx, first, &date))
            pprof_gz_varint_field(&gz, PPROF_F_TIME_NANOS, (uint64_t)date);
        if (last > first)
            pprof_gz_varint_field(&gz, PPROF_F_DURATION_NANOS, (uint64_t)(last - first));
        else if (w->meta.has_duration)
            pprof_gz_varint_field(&gz, PPROF_F_DURATION_NANOS, (uint64_t)w->meta.duration);
    }
    pprof_gz_message_field(&gz, PPROF_F_PERIOD_TYPE, &period_type.base);
    if (period) pprof_gz_varint_field(&gz, PPROF_F_PERIOD, (uint64_t)period);
    if (default_type)
        pprof_gz_varint_field(&gz, PPROF_F_DEFAULT_SAMPLE_TYPE, (uint64_t)default_type);
    if (pprof_gz_finish(&gz) != 0) goto done;
    st = TCONV_OK;
    goto done;
oom:
    tconv_error_set(w->ctx, "pprof: out of memory");
done:
    pprof_gz_close(&gz);
    free(divs);
    pprof_index_free(&e.str_ix);
    free(e.strs);
    free(e.loc_of_frame);
    free(e.frame_of_loc);
    free(e.step_frame);
    free(e.step_of);
    free(e.funcs);
    free(e.wire);
    pprof_index_free(&e.func_ix);
    pprof_agg_free(&merged);
    pprof_groups_free(&groups);
    return st;
}
