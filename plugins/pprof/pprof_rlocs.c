/* Locations as frames. A location with several lines is an inline chain: its last line is the
 * caller, the ones before were inlined into it, so it becomes that many frames, caller first,
 * the inlined ones flagged. A location without a symbol (no line, or a function without a name)
 * is named after its mapping and its address in the mapped file, `libc.so.6+0x29d90`, the
 * address a symbolizer (addr2line -e FILE) takes; without a mapping it is the bare address.
 * Frames are built once per location, on first use. */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pprof_reader.h"

enum { PPROF_F_MAPPING = 3, PPROF_F_LOCATION = 4, PPROF_F_FUNCTION = 5, PPROF_F_SAMPLE = 2 };

static int pprof_rlocs_ids(pprof_reader *r, tconv_map *m, size_t n, uint64_t (*id)(const void *),
                           void *const *items, uint32_t field, const char *what)
{
    for (size_t i = 0; i < n; i++) {
        uint64_t v = id(items[i]);
        if (v == 0) {
            tconv_error_at(r->ctx, r->name, pprof_reader_offset(r, field, i),
                           "%s %zu has id 0; ids start at 1", what, i + 1);
            return -1;
        }
        if (tconv_map_put(m, v, 0, (uint32_t)i) != (uint32_t)i) {
            tconv_error_at(r->ctx, r->name, pprof_reader_offset(r, field, i),
                           "%s id %" PRIu64 " is given twice", what, v);
            return -1;
        }
    }
    return 0;
}

static uint64_t pprof_rlocs_map_id(const void *p)
{
    return ((const Perftools__Profiles__Mapping *)p)->id;
}
static uint64_t pprof_rlocs_fn_id(const void *p)
{
    return ((const Perftools__Profiles__Function *)p)->id;
}
static uint64_t pprof_rlocs_loc_id(const void *p)
{
    return ((const Perftools__Profiles__Location *)p)->id;
}

int pprof_rlocs_index(pprof_reader *r)
{
    const Perftools__Profiles__Profile *p = r->p;
    if (p->n_location >= UINT32_MAX || p->n_function >= UINT32_MAX || p->n_mapping >= UINT32_MAX) {
        tconv_error_at(r->ctx, r->name, 0, "more than 4 billion locations or functions");
        return -1;
    }
    if (pprof_rlocs_ids(r, &r->map_ix, p->n_mapping, pprof_rlocs_map_id, (void *const *)p->mapping,
                        PPROF_F_MAPPING, "mapping") != 0 ||
        pprof_rlocs_ids(r, &r->fn_ix, p->n_function, pprof_rlocs_fn_id, (void *const *)p->function,
                        PPROF_F_FUNCTION, "function") != 0 ||
        pprof_rlocs_ids(r, &r->loc_ix, p->n_location, pprof_rlocs_loc_id,
                        (void *const *)p->location, PPROF_F_LOCATION, "location") != 0)
        return -1;
    r->locs = tconv_array_alloc(p->n_location ? p->n_location : 1, sizeof *r->locs);
    return 0;
}

static const char *pprof_rlocs_base(const char *path)
{
    const char *s = strrchr(path, '/');
    return s && s[1] ? s + 1 : path;
}

/* The name of an unsymbolized location. */
static tconv_str pprof_rlocs_unknown(pprof_reader *r, const Perftools__Profiles__Location *l,
                                     const Perftools__Profiles__Mapping *m, tconv_str file)
{
    char buf[512];
    const char *path = file ? tconv_string_get(r->ctx, file) : "";
    if (m && *path) {
        uint64_t a = l->address;
        if (a >= m->memory_start && (m->memory_limit == 0 || a < m->memory_limit))
            a = a - m->memory_start + m->file_offset;
        snprintf(buf, sizeof buf, "%s+0x%" PRIx64, pprof_rlocs_base(path), a);
    } else {
        snprintf(buf, sizeof buf, "0x%" PRIx64, l->address);
    }
    return tconv_string_intern_cstr(r->ctx, buf);
}

static int pprof_rlocs_build(pprof_reader *r, uint32_t li, size_t sample)
{
    const Perftools__Profiles__Location *l = r->p->location[li];
    const Perftools__Profiles__Mapping *m = NULL;
    tconv_str module = 0;
    uint32_t flags = 0;
    if (l->mapping_id) {
        uint32_t mi = tconv_map_get(&r->map_ix, l->mapping_id, 0);
        if (mi == TCONV_MAP_NONE) {
            tconv_error_at(r->ctx, r->name, pprof_reader_offset(r, PPROF_F_LOCATION, li),
                           "location %" PRIu64 " (used by sample %zu) refers to mapping %" PRIu64
                           ", which the profile does not have",
                           l->id, sample + 1, l->mapping_id);
            return -1;
        }
        m = r->p->mapping[mi];
        if (pprof_reader_str(r, m->filename, "mapping", PPROF_F_MAPPING, mi, &module) != 0)
            return -1;
        const char *mod = tconv_string_get(r->ctx, module);
        if (strncmp(mod, "[kernel", 7) == 0 || strncmp(mod, "[vmlinux", 8) == 0)
            flags |= TCONV_FRAME_KERNEL;
    }
    size_t n = l->n_line ? l->n_line : 1;
    TCONV_ARRAY_GROW(r->lframes, r->lframes_cap, r->nlframes + n);
    tconv_frame *out = r->lframes + r->nlframes;
    for (size_t k = 0; k < n; k++) {
        tconv_frame *fr = &out[k];
        memset(fr, 0, sizeof *fr);
        fr->module = module;
        fr->addr = l->address;
        fr->flags = flags;
        if (!l->n_line) continue;
        /* root first: the last line (the caller) comes first */
        const Perftools__Profiles__Line *ln = l->line[n - 1 - k];
        if (k > 0) fr->flags |= TCONV_FRAME_INLINED;
        if (ln->line > 0 && ln->line <= (int64_t)UINT32_MAX) fr->line = (uint32_t)ln->line;
        if (!ln->function_id) continue;
        uint32_t fi = tconv_map_get(&r->fn_ix, ln->function_id, 0);
        if (fi == TCONV_MAP_NONE) {
            tconv_error_at(r->ctx, r->name, pprof_reader_offset(r, PPROF_F_LOCATION, li),
                           "location %" PRIu64 " refers to function %" PRIu64
                           ", which the profile does not have",
                           l->id, ln->function_id);
            return -1;
        }
        const Perftools__Profiles__Function *f = r->p->function[fi];
        tconv_str name, system;
        if (pprof_reader_str(r, f->name, "function", PPROF_F_FUNCTION, fi, &name) != 0 ||
            pprof_reader_str(r, f->system_name, "function", PPROF_F_FUNCTION, fi, &system) != 0 ||
            pprof_reader_str(r, f->filename, "function", PPROF_F_FUNCTION, fi, &fr->file) != 0)
            return -1;
        fr->name = name ? name : system;
    }
    for (size_t k = 0; k < n; k++)
        if (!out[k].name) out[k].name = pprof_rlocs_unknown(r, l, m, module);
    r->locs[li].first = (uint32_t)r->nlframes;
    r->locs[li].n = (uint32_t)n;
    r->locs[li].built = 1;
    r->nlframes += n;
    return 0;
}

const tconv_frame *pprof_rlocs_frames(pprof_reader *r, uint64_t id, size_t sample, uint32_t *n)
{
    uint32_t li = tconv_map_get(&r->loc_ix, id, 0);
    if (li == TCONV_MAP_NONE) {
        tconv_error_at(r->ctx, r->name, pprof_reader_offset(r, PPROF_F_SAMPLE, sample),
                       "sample %zu refers to location %" PRIu64 ", which the profile does not have",
                       sample + 1, id);
        return NULL;
    }
    if (!r->locs[li].built && pprof_rlocs_build(r, li, sample) != 0) return NULL;
    *n = r->locs[li].n;
    return r->lframes + r->locs[li].first;
}

void pprof_rlocs_free(pprof_reader *r)
{
    tconv_map_free(&r->loc_ix);
    tconv_map_free(&r->fn_ix);
    tconv_map_free(&r->map_ix);
    free(r->locs);
    free(r->lframes);
}
