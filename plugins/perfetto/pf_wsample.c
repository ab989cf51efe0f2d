/* Stack samples as Perfetto's callstack samples (perf_sample), which its UI shows on the
 * thread's track and sums into flame graphs over a selection.
 *
 * A frame is interned once (function name, mapping = the frame's module as one path, rel_pc =
 * its address), a stack once (the core's stack table gives each distinct stack one node), so the
 * tables grow with the distinct frames and stacks. Perfetto places a sample by pid and tid: a
 * track whose ids are not numbers gives pid 0, tid 0 (counted in a note). What Perfetto's sample
 * has no place for is lost: the values (a sample counts one), a frame's file, line and flags
 * (a kernel leaf makes a kernel-mode sample). */
#include "pf_writer.h"

#include <stdlib.h>
#include <string.h>

#include "pf_fields.h"

static uint32_t pf_w_function(pf_writer *w, tconv_str name)
{
    uint32_t iid = tconv_map_get(&w->fn_map, name, 0);
    if (iid != TCONV_MAP_NONE) return iid;
    iid = ++w->next_fn;
    tconv_map_put(&w->fn_map, name, 0, iid);
    size_t m = pf_open(&w->intern, PF_ID_FUNCTION_NAMES);
    pf_put_uint(&w->intern, PF_IID, iid);
    pf_put_bytes(&w->intern, PF_IID_NAME, tconv_string_get(w->ctx, name),
                 tconv_string_length(w->ctx, name));
    pf_close(&w->intern, m);
    return iid;
}

static uint32_t pf_w_mapping(pf_writer *w, tconv_str module)
{
    uint32_t iid = tconv_map_get(&w->mapping_map, module, 0);
    if (iid != TCONV_MAP_NONE) return iid;
    uint32_t path = ++w->next_path;
    size_t m = pf_open(&w->intern, PF_ID_MAPPING_PATHS);
    pf_put_uint(&w->intern, PF_IID, path);
    pf_put_bytes(&w->intern, PF_IID_NAME, tconv_string_get(w->ctx, module),
                 tconv_string_length(w->ctx, module));
    pf_close(&w->intern, m);
    iid = ++w->next_mapping;
    tconv_map_put(&w->mapping_map, module, 0, iid);
    m = pf_open(&w->intern, PF_ID_MAPPINGS);
    pf_put_uint(&w->intern, PF_IID, iid);
    pf_put_uint(&w->intern, PF_MAP_PATHS, path);
    pf_close(&w->intern, m);
    return iid;
}

/* The iid of a frame, interning it (and its name and mapping) on first use. */
static uint32_t pf_w_frame(pf_writer *w, const tconv_frame *f)
{
    uint64_t a = (uint64_t)f->name << 32 | f->module;
    uint32_t b = (uint32_t)(f->addr ^ f->addr >> 32);
    uint32_t i = tconv_map_get(&w->frame_map, a, b), last = TCONV_MAP_NONE;
    for (; i != TCONV_MAP_NONE; last = i, i = w->frames[i].next)
        if (w->frames[i].f.addr == f->addr) return i + 1;
    if (w->nframes == w->frames_cap) TCONV_ARRAY_GROW(w->frames, w->frames_cap, w->nframes + 1);
    uint32_t idx = (uint32_t)w->nframes++;
    w->frames[idx].f = *f;
    w->frames[idx].next = TCONV_MAP_NONE;
    if (last == TCONV_MAP_NONE)
        tconv_map_put(&w->frame_map, a, b, idx);
    else
        w->frames[last].next = idx;
    uint32_t fn = pf_w_function(w, f->name);
    uint32_t map = f->module ? pf_w_mapping(w, f->module) : 0;
    size_t m = pf_open(&w->intern, PF_ID_FRAMES);
    pf_put_uint(&w->intern, PF_IID, idx + 1);
    pf_put_uint(&w->intern, PF_FRAME_FUNCTION, fn);
    if (map) pf_put_uint(&w->intern, PF_FRAME_MAPPING, map);
    if (f->addr) pf_put_uint(&w->intern, PF_FRAME_REL_PC, f->addr);
    pf_close(&w->intern, m);
    return idx + 1;
}

tconv_status pf_w_sample(pf_writer *w, const tconv_event *ev)
{
    if (!w->stacks && !(w->stacks = tconv_stacktab_new())) return pf_w_oom(w);
    uint32_t node = tconv_stacktab_intern(w->stacks, ev->frames, ev->nframes);
    /* iid 1 is the empty stack, node k is k + 2 (iid 0 means none). */
    size_t slot = node == TCONV_STACK_ROOT ? 0 : (size_t)node + 1;
    if (slot >= w->stack_written_cap) {
        size_t old = w->stack_written_cap;
        TCONV_ARRAY_GROW(w->stack_written, w->stack_written_cap, slot + 1);
        memset(w->stack_written + old, 0, w->stack_written_cap - old);
    }
    uint64_t callstack = (uint64_t)slot + 1;
    if (!w->stack_written[slot]) {
        w->stack_written[slot] = 1;
        /* Frames first: the callstack entry refers to them. */
        uint32_t small[64], *ids = small;
        if (ev->nframes > 64 && !(ids = tconv_array_alloc(ev->nframes, sizeof *ids)))
            return pf_w_oom(w);
        for (uint32_t i = 0; i < ev->nframes; i++)
            ids[i] = pf_w_frame(w, &ev->frames[i]);
        size_t m = pf_open(&w->intern, PF_ID_CALLSTACKS);
        pf_put_uint(&w->intern, PF_IID, callstack);
        for (uint32_t i = 0; i < ev->nframes; i++) /* root first, as Perfetto's */
            pf_put_uint(&w->intern, PF_CS_FRAMES, ids[i]);
        pf_close(&w->intern, m);
        if (ids != small) free(ids);
    }
    const tconv_track *t = tconv_track_describe(w->ctx, ev->track);
    int numeric = t->has_pid_num && t->has_tid_num && t->pid_num >= 0 && t->pid_num <= UINT32_MAX &&
                  t->tid_num >= 0 && t->tid_num <= UINT32_MAX;
    if (!numeric) w->samples_no_pid++;
    pf_put_uint(&w->ev, PF_PS_PID, numeric ? (uint64_t)t->pid_num : 0);
    pf_put_uint(&w->ev, PF_PS_TID, numeric ? (uint64_t)t->tid_num : 0);
    pf_put_uint(&w->ev, PF_PS_CALLSTACK, callstack); /* a sample without frames: an empty one */
    if (ev->nframes && (ev->frames[ev->nframes - 1].flags & TCONV_FRAME_KERNEL))
        pf_put_uint(&w->ev, PF_PS_CPU_MODE, 1 /* MODE_KERNEL */);
    return pf_w_packet(w, 1, ev->ts, PF_PKT_PERF_SAMPLE);
}
