/* CPU samples with interned callstacks as tconv stack samples: perf_sample (Linux perf and BPF
 * tracers: pid, tid, callstack) and streaming_profile_packet (Chrome's sampler: callstacks of
 * the sequence's thread, with time deltas in microseconds).
 *
 * A callstack lists frame iids root first, as tconv's frames go; a frame is a function name, a
 * mapping (the module: its path) and a pc relative to the mapping. A frame without a function
 * name is named after its module and pc, as profilers print unsymbolized frames. Each sample
 * counts one (samples/count): Perfetto's samples carry no other value tconv could sum. */
#include "pf_reader.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pf_fields.h"

static tconv_status pf_r_declare(pf_reader *r)
{
    if (r->declared_samples) return TCONV_OK;
    static const tconv_sample_type types[] = {{"samples", "count"}};
    if (tconv_sampletypes_set(r->ctx, 1, types, 0) != 0) {
        tconv_error_set(r->ctx, "perfetto: cannot declare the sample types");
        return TCONV_FATAL;
    }
    r->declared_samples = 1;
    return TCONV_OK;
}

/* Pushes one sample of the callstack iid on a track. */
static tconv_status pf_r_sample(pf_reader *r, pf_rseq *s, uint32_t track, int64_t ts,
                                uint64_t callstack, int kernel)
{
    uint32_t idx;
    if (!pf_r_lookup(s, callstack, PF_T_CALLSTACK, &idx)) {
        r->no_callstack++;
        return TCONV_OK;
    }
    if (pf_r_declare(r) != TCONV_OK) return TCONV_FATAL;
    const pf_rstack *st = &s->stacks[idx];
    tconv_frame small[128], *frames = small;
    if (st->n > 128 && !(frames = tconv_array_alloc(st->n, sizeof *frames))) {
        tconv_error_set(r->ctx, "perfetto: out of memory");
        return TCONV_FATAL;
    }
    size_t n = 0;
    for (size_t i = 0; i < st->n; i++) {
        uint32_t fi;
        tconv_frame f = {0, 0, 0, 0, 0, 0};
        if (pf_r_lookup(s, s->stack_iids[st->first + i], PF_T_FRAME, &fi)) {
            const pf_rframe *pf = &s->frames[fi];
            uint32_t mi;
            const pf_rmapping *m =
                pf->mapping && pf_r_lookup(s, pf->mapping, PF_T_MAPPING, &mi) ? &s->maps[mi] : NULL;
            f.module = m ? m->path : 0;
            f.addr = pf->rel_pc;
            f.name = pf->name;
            if (!f.name) {
                char tmp[600];
                int k = m && m->path ? snprintf(tmp, sizeof tmp, "%.500s+0x%" PRIx64,
                                                tconv_string_get(r->ctx, m->path), pf->rel_pc)
                                     : snprintf(tmp, sizeof tmp, "0x%" PRIx64, pf->rel_pc);
                f.name = pf_r_intern(r, tmp, (size_t)k);
            }
        } else {
            f.name = tconv_string_intern_cstr(r->ctx, "[unknown frame]");
        }
        frames[n++] = f;
    }
    if (kernel && n) frames[n - 1].flags |= TCONV_FRAME_KERNEL;
    int64_t one = 1;
    tconv_event ev = TCONV_EVENT_INIT;
    ev.kind = TCONV_EV_SAMPLE;
    ev.track = track;
    ev.ts = ts;
    ev.frames = frames;
    ev.nframes = (uint32_t)n;
    ev.values = &one;
    ev.nvalues = 1;
    tconv_status rc = pf_r_push(r, &ev);
    if (frames != small) free(frames);
    return rc;
}

tconv_status pf_r_perf_sample(pf_reader *r, pf_rseq *s, const uint8_t *msg, size_t len, int64_t ts)
{
    pf_cur c = pf_cur_make(msg, len);
    pf_field f;
    int rc;
    uint64_t pid = 0, tid = 0, callstack = 0, mode = 0;
    int has_cs = 0;
    while ((rc = pf_next(&c, &f)) > 0) {
        if (f.wt != PF_VARINT) continue;
        if (f.num == PF_PS_PID) pid = f.v;
        if (f.num == PF_PS_TID) tid = f.v;
        if (f.num == PF_PS_CALLSTACK) callstack = f.v, has_cs = 1;
        if (f.num == PF_PS_CPU_MODE) mode = f.v;
    }
    if (rc < 0) return pf_r_error(r, "malformed perf sample");
    if (!has_cs) {
        r->no_callstack++;
        return TCONV_OK;
    }
    uint32_t track = pf_r_thread_track(r, (int32_t)pid, (int32_t)tid, 1);
    if (track == UINT32_MAX) return TCONV_FATAL;
    return pf_r_sample(r, s, track, ts, callstack, mode == 1);
}

/* Appends the values of one occurrence of a repeated varint field (packed or not) to *v. */
static int pf_r_collect(const pf_field *f, uint64_t **v, size_t *n, size_t *cap)
{
    if (f->wt == PF_VARINT) {
        if (*n == *cap) TCONV_ARRAY_GROW(*v, *cap, *n + 1);
        (*v)[(*n)++] = f->v;
        return 0;
    }
    if (f->wt != PF_LEN) return 0;
    pf_cur p = pf_cur_make(f->data, f->len);
    uint64_t x;
    int more;
    while ((more = pf_packed_next(&p, 0, &x)) > 0) {
        if (*n == *cap) TCONV_ARRAY_GROW(*v, *cap, *n + 1);
        (*v)[(*n)++] = x;
    }
    return more < 0 ? -1 : 0;
}

tconv_status pf_r_streaming_profile(pf_reader *r, pf_rseq *s, const uint8_t *msg, size_t len,
                                    int64_t ts)
{
    /* Two parallel lists: the callstacks, and the time from the previous sample to each. */
    uint64_t *stacks = NULL, *deltas = NULL;
    size_t nstacks = 0, capstacks = 0, ndeltas = 0, capdeltas = 0;
    pf_cur c = pf_cur_make(msg, len);
    pf_field f;
    int rc;
    while ((rc = pf_next(&c, &f)) > 0) {
        if (f.num == PF_SP_CALLSTACKS && pf_r_collect(&f, &stacks, &nstacks, &capstacks) < 0)
            rc = -1;
        if (f.num == PF_SP_DELTAS_US && pf_r_collect(&f, &deltas, &ndeltas, &capdeltas) < 0)
            rc = -1;
        if (rc < 0) break;
    }
    tconv_status st = TCONV_OK;
    if (rc < 0) {
        st = pf_r_error(r, "malformed streaming profile packet");
    } else {
        uint32_t track =
            s->has_thread ? pf_r_thread_track(r, s->pid, s->tid, 1) : pf_r_global_track(r);
        if (track == UINT32_MAX) st = TCONV_FATAL;
        int64_t t = ts;
        for (size_t i = 0; i < nstacks && st == TCONV_OK; i++) {
            if (i < ndeltas) t = pf_add(t, pf_us((int64_t)deltas[i]));
            st = pf_r_sample(r, s, track, t, stacks[i], 0);
        }
    }
    free(stacks);
    free(deltas);
    return st;
}
