/* The perfetto reader: a Perfetto protobuf trace (.pftrace, .perfetto-trace) as tconv events.
 *
 * A trace is a sequence of `packet` fields (field 1 of Trace, length-delimited), so it is read
 * one packet at a time from the stream: the memory is the largest packet, the interned data of
 * the sequences and the track descriptors, never the trace. Each packet belongs to a sequence
 * (trusted_packet_sequence_id) whose incremental state (interned names, frames, callstacks;
 * defaults) it may clear, extend or use.
 *
 * Times are converted to the trace's clock (BOOTTIME unless a clock snapshot names another)
 * with the latest snapshot that relates them; a clock no snapshot relates is kept as it is,
 * and said once. Packets of kinds tconv has no events for (ftrace, logs, Android, statistics)
 * are counted and said once in a note. A malformed packet or a cut-off trace is an error at its
 * byte offset. This file: the stream, sequences and interning, clocks. */
#include "pf_reader.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pf_fields.h"

#define PF_CHUNK (256u << 10)

tconv_status pf_r_error(pf_reader *r, const char *what)
{
    tconv_error_at(r->ctx, r->name, r->pkt_off, "%s", what);
    return TCONV_FATAL;
}

tconv_status pf_r_push(pf_reader *r, const tconv_event *ev)
{
    return tconv_sink_push(r->sink, ev) == TCONV_FATAL ? TCONV_FATAL : TCONV_OK;
}

tconv_str pf_r_intern(pf_reader *r, const void *s, size_t n)
{
    return tconv_string_intern(r->ctx, (const char *)s, n);
}

pf_rseq *pf_r_seq(pf_reader *r, uint32_t id)
{
    uint32_t i = tconv_map_get(&r->seq_map, id, 0);
    if (i != TCONV_MAP_NONE) return &r->seqs[i];
    if (r->nseqs == r->seqs_cap) TCONV_ARRAY_GROW(r->seqs, r->seqs_cap, r->nseqs + 1);
    pf_rseq *s = &r->seqs[r->nseqs];
    memset(s, 0, sizeof *s);
    s->id = id;
    tconv_map_put(&r->seq_map, id, 0, (uint32_t)r->nseqs++);
    return s;
}

static void pf_r_seq_clear(pf_rseq *s)
{
    tconv_map_free(&s->intern);
    s->nmaps = s->nframes = s->nstacks = s->nstack_iids = s->nsources = 0;
    s->has_track = 0;
    s->clock_id = 0;
    s->nextra = s->nextra_d = 0;
    s->nclocks = 0;
}

static void pf_r_seq_free(pf_rseq *s)
{
    tconv_map_free(&s->intern);
    free(s->maps);
    free(s->frames);
    free(s->stacks);
    free(s->stack_iids);
    free(s->sources);
    free(s->extra);
    free(s->extra_d);
    free(s->clocks);
}

int pf_r_lookup(const pf_rseq *s, uint64_t iid, unsigned table, uint32_t *v)
{
    uint32_t x = tconv_map_get(&s->intern, iid, table);
    if (x == TCONV_MAP_NONE) return 0;
    *v = x;
    return 1;
}

/* ---- interned data -------------------------------------------------------------------------- */

/* {iid = 1, name/str = 2} of the string tables. */
static int pf_r_intern_string(pf_reader *r, pf_rseq *s, const pf_field *e, unsigned table)
{
    pf_cur c = pf_cur_make(e->data, e->len);
    pf_field f;
    int rc;
    uint64_t iid = 0;
    const uint8_t *str = NULL;
    size_t n = 0;
    while ((rc = pf_next(&c, &f)) > 0) {
        if (f.num == PF_IID && f.wt == PF_VARINT) iid = f.v;
        if (f.num == PF_IID_NAME && f.wt == PF_LEN) {
            str = f.data;
            n = f.len;
        }
    }
    if (rc < 0) return -1;
    tconv_map_set(&s->intern, iid, table, pf_r_intern(r, str ? (const char *)str : "", n));
    return 0;
}

static int pf_r_intern_mapping(pf_reader *r, pf_rseq *s, const pf_field *e)
{
    pf_cur c = pf_cur_make(e->data, e->len);
    pf_field f;
    int rc;
    uint64_t iid = 0, start = 0;
    /* The path: its components, joined as Perfetto joins them. */
    char *path = NULL;
    size_t plen = 0, ncomp = 0;
    tconv_str first = 0;
    while ((rc = pf_next(&c, &f)) > 0) {
        if (f.num == PF_IID && f.wt == PF_VARINT) iid = f.v;
        if (f.num == PF_MAP_START && f.wt == PF_VARINT) start = f.v;
        if (f.num == PF_MAP_PATHS) {
            pf_cur p = f.wt == PF_LEN ? pf_cur_make(f.data, f.len) : pf_cur_make(NULL, 0);
            uint64_t v = f.v;
            int more = f.wt == PF_LEN ? pf_packed_next(&p, 0, &v) : 1;
            for (; more > 0; more = f.wt == PF_LEN ? pf_packed_next(&p, 0, &v) : 0) {
                uint32_t sid;
                if (!pf_r_lookup(s, v, PF_T_PATH, &sid)) continue;
                const char *cs = tconv_string_get(r->ctx, sid);
                size_t cn = tconv_string_length(r->ctx, sid);
                if (!ncomp++) first = sid;
                char *np = realloc(path, plen + cn + 2);
                if (!np) {
                    free(path);
                    return -2;
                }
                path = np;
                path[plen++] = '/';
                memcpy(path + plen, cs, cn);
                plen += cn;
            }
            if (more < 0) rc = -1;
        }
    }
    if (rc < 0) {
        free(path);
        return -1;
    }
    /* One component is the module as it was named ("libc.so.6", "[kernel.kallsyms]"); more are
     * the parts of an absolute path. */
    tconv_str p = ncomp == 1 ? first : ncomp ? pf_r_intern(r, path, plen) : 0;
    free(path);
    if (s->nmaps == s->maps_cap) TCONV_ARRAY_GROW(s->maps, s->maps_cap, s->nmaps + 1);
    s->maps[s->nmaps] = (pf_rmapping){p, start};
    tconv_map_set(&s->intern, iid, PF_T_MAPPING, (uint32_t)s->nmaps++);
    return 0;
}

static int pf_r_intern_frame(pf_rseq *s, const pf_field *e)
{
    pf_cur c = pf_cur_make(e->data, e->len);
    pf_field f;
    int rc;
    uint64_t iid = 0;
    pf_rframe fr = {0, 0, 0};
    uint64_t fn = 0;
    while ((rc = pf_next(&c, &f)) > 0) {
        if (f.wt != PF_VARINT) continue;
        if (f.num == PF_IID) iid = f.v;
        if (f.num == PF_FRAME_FUNCTION) fn = f.v;
        if (f.num == PF_FRAME_MAPPING) fr.mapping = f.v;
        if (f.num == PF_FRAME_REL_PC) fr.rel_pc = f.v;
    }
    if (rc < 0) return -1;
    uint32_t sid;
    fr.name = fn && pf_r_lookup(s, fn, PF_T_FUNCTION, &sid) ? sid : 0;
    if (s->nframes == s->frames_cap) TCONV_ARRAY_GROW(s->frames, s->frames_cap, s->nframes + 1);
    s->frames[s->nframes] = fr;
    tconv_map_set(&s->intern, iid, PF_T_FRAME, (uint32_t)s->nframes++);
    return 0;
}

static int pf_r_intern_callstack(pf_rseq *s, const pf_field *e)
{
    pf_cur c = pf_cur_make(e->data, e->len);
    pf_field f;
    int rc;
    uint64_t iid = 0;
    size_t first = s->nstack_iids;
    while ((rc = pf_next(&c, &f)) > 0) {
        if (f.num == PF_IID && f.wt == PF_VARINT) iid = f.v;
        if (f.num != PF_CS_FRAMES) continue;
        if (f.wt == PF_VARINT) {
            if (s->nstack_iids == s->stack_iids_cap)
                TCONV_ARRAY_GROW(s->stack_iids, s->stack_iids_cap, s->nstack_iids + 1);
            s->stack_iids[s->nstack_iids++] = f.v;
        } else if (f.wt == PF_LEN) {
            pf_cur p = pf_cur_make(f.data, f.len);
            uint64_t v;
            int more;
            while ((more = pf_packed_next(&p, 0, &v)) > 0) {
                if (s->nstack_iids == s->stack_iids_cap)
                    TCONV_ARRAY_GROW(s->stack_iids, s->stack_iids_cap, s->nstack_iids + 1);
                s->stack_iids[s->nstack_iids++] = v;
            }
            if (more < 0) return -1;
        }
    }
    if (rc < 0) return -1;
    if (s->nstacks == s->stacks_cap) TCONV_ARRAY_GROW(s->stacks, s->stacks_cap, s->nstacks + 1);
    s->stacks[s->nstacks] = (pf_rstack){first, s->nstack_iids - first};
    tconv_map_set(&s->intern, iid, PF_T_CALLSTACK, (uint32_t)s->nstacks++);
    return 0;
}

static int pf_r_intern_source(pf_reader *r, pf_rseq *s, const pf_field *e)
{
    pf_cur c = pf_cur_make(e->data, e->len);
    pf_field f;
    int rc;
    uint64_t iid = 0;
    pf_rsource src = {0, 0, 0};
    while ((rc = pf_next(&c, &f)) > 0) {
        if (f.num == PF_SL_IID && f.wt == PF_VARINT) iid = f.v;
        if (f.num == PF_SL_FILE && f.wt == PF_LEN) src.file = pf_r_intern(r, f.data, f.len);
        if (f.num == PF_SL_FUNCTION && f.wt == PF_LEN) src.function = pf_r_intern(r, f.data, f.len);
        if (f.num == PF_SL_LINE && f.wt == PF_VARINT) src.line = (uint32_t)f.v;
    }
    if (rc < 0) return -1;
    if (s->nsources == s->sources_cap)
        TCONV_ARRAY_GROW(s->sources, s->sources_cap, s->nsources + 1);
    s->sources[s->nsources] = src;
    tconv_map_set(&s->intern, iid, PF_T_SOURCE, (uint32_t)s->nsources++);
    return 0;
}

static tconv_status pf_r_interned(pf_reader *r, pf_rseq *s, const uint8_t *msg, size_t len)
{
    pf_cur c = pf_cur_make(msg, len);
    pf_field f;
    int rc;
    /* Strings first: mappings, frames and callstacks refer to them, in any order. */
    for (int pass = 0; pass < 3; pass++) {
        c = pf_cur_make(msg, len);
        while ((rc = pf_next(&c, &f)) > 0) {
            if (f.wt != PF_LEN) continue;
            int e = 0;
            if (pass == 0) {
                switch (f.num) {
                case PF_ID_EVENT_NAMES:
                    e = pf_r_intern_string(r, s, &f, PF_T_NAME);
                    break;
                case PF_ID_CATEGORIES:
                    e = pf_r_intern_string(r, s, &f, PF_T_CAT);
                    break;
                case PF_ID_ANNOT_NAMES:
                    e = pf_r_intern_string(r, s, &f, PF_T_ANNOT);
                    break;
                case PF_ID_STRING_VALUES:
                    e = pf_r_intern_string(r, s, &f, PF_T_SVAL);
                    break;
                case PF_ID_FUNCTION_NAMES:
                    e = pf_r_intern_string(r, s, &f, PF_T_FUNCTION);
                    break;
                case PF_ID_MAPPING_PATHS:
                    e = pf_r_intern_string(r, s, &f, PF_T_PATH);
                    break;
                case PF_ID_BUILD_IDS:
                    e = pf_r_intern_string(r, s, &f, PF_T_BUILD);
                    break;
                case PF_ID_SOURCE_LOCATIONS:
                    e = pf_r_intern_source(r, s, &f);
                    break;
                default:
                    break;
                }
            } else if (pass == 1) {
                if (f.num == PF_ID_MAPPINGS) e = pf_r_intern_mapping(r, s, &f);
                if (f.num == PF_ID_FRAMES) e = pf_r_intern_frame(s, &f);
            } else if (f.num == PF_ID_CALLSTACKS) {
                e = pf_r_intern_callstack(s, &f);
            }
            if (e == -2) {
                tconv_error_set(r->ctx, "perfetto: out of memory");
                return TCONV_FATAL;
            }
            if (e < 0) return pf_r_error(r, "malformed interned data");
        }
        if (rc < 0) return pf_r_error(r, "malformed interned data");
    }
    return TCONV_OK;
}

static tconv_status pf_r_defaults(pf_reader *r, pf_rseq *s, const uint8_t *msg, size_t len)
{
    pf_cur c = pf_cur_make(msg, len);
    pf_field f;
    int rc;
    s->has_track = 0;
    s->clock_id = 0;
    s->nextra = s->nextra_d = 0;
    while ((rc = pf_next(&c, &f)) > 0) {
        if (f.num == PF_DEF_CLOCK_ID && f.wt == PF_VARINT) s->clock_id = (uint32_t)f.v;
        if (f.num != PF_DEF_TRACK_EVENT || f.wt != PF_LEN) continue;
        pf_cur d = pf_cur_make(f.data, f.len);
        pf_field g;
        int dr;
        while ((dr = pf_next(&d, &g)) > 0) {
            if (g.num == PF_TEDEF_TRACK_UUID && g.wt == PF_VARINT) {
                s->has_track = 1;
                s->track_uuid = g.v;
            }
            if (g.num != PF_TEDEF_EXTRA_COUNTERS && g.num != PF_TEDEF_EXTRA_DOUBLE_COUNTERS)
                continue;
            int dbl = g.num == PF_TEDEF_EXTRA_DOUBLE_COUNTERS;
            pf_cur p = g.wt == PF_LEN ? pf_cur_make(g.data, g.len) : pf_cur_make(NULL, 0);
            uint64_t v = g.v;
            int more = g.wt == PF_LEN ? pf_packed_next(&p, 0, &v) : 1;
            for (; more > 0; more = g.wt == PF_LEN ? pf_packed_next(&p, 0, &v) : 0) {
                if (dbl) {
                    if (s->nextra_d == s->extra_d_cap)
                        TCONV_ARRAY_GROW(s->extra_d, s->extra_d_cap, s->nextra_d + 1);
                    s->extra_d[s->nextra_d++] = v;
                } else {
                    if (s->nextra == s->extra_cap)
                        TCONV_ARRAY_GROW(s->extra, s->extra_cap, s->nextra + 1);
                    s->extra[s->nextra++] = v;
                }
            }
            if (more < 0) dr = -1;
        }
        if (dr < 0) rc = -1;
    }
    return rc < 0 ? pf_r_error(r, "malformed trace packet defaults") : TCONV_OK;
}

/* The legacy per-sequence thread (TracePacket.thread_descriptor). */
static tconv_status pf_r_thread_descriptor(pf_reader *r, pf_rseq *s, const uint8_t *msg, size_t len)
{
    pf_cur c = pf_cur_make(msg, len);
    pf_field f;
    int rc;
    while ((rc = pf_next(&c, &f)) > 0) {
        if (f.wt != PF_VARINT) continue;
        if (f.num == PF_THD_PID) s->pid = (int32_t)f.v;
        if (f.num == PF_THD_TID) s->tid = (int32_t)f.v;
        if (f.num == PF_THD_REF_US) s->ref_us = (int64_t)f.v;
    }
    s->has_thread = 1;
    return rc < 0 ? pf_r_error(r, "malformed thread descriptor") : TCONV_OK;
}

/* ---- clocks ------------------------------------------------------------------------------ */

static tconv_status pf_r_clock_snapshot(pf_reader *r, pf_rseq *s, const uint8_t *msg, size_t len)
{
    pf_cur c = pf_cur_make(msg, len);
    pf_field f;
    int rc;
    r->nsnap = 0;
    while ((rc = pf_next(&c, &f)) > 0) {
        if (f.num == PF_CS_PRIMARY && f.wt == PF_VARINT && !r->trace_clock_fixed)
            r->trace_clock = (uint32_t)f.v;
        if (f.num != PF_CS_CLOCKS || f.wt != PF_LEN) continue;
        pf_cur d = pf_cur_make(f.data, f.len);
        pf_field g;
        int dr;
        uint32_t id = 0;
        uint64_t ts = 0, unit = 1;
        int incremental = 0;
        while ((dr = pf_next(&d, &g)) > 0) {
            if (g.wt != PF_VARINT) continue;
            if (g.num == PF_CLK_ID) id = (uint32_t)g.v;
            if (g.num == PF_CLK_TS) ts = g.v;
            if (g.num == PF_CLK_INCREMENTAL) incremental = g.v != 0;
            if (g.num == PF_CLK_UNIT_NS && g.v) unit = g.v;
        }
        if (dr < 0) return pf_r_error(r, "malformed clock snapshot");
        int64_t ns = (int64_t)(ts * unit);
        if (id >= 64 && id < 128) {
            /* A clock of this sequence: its snapshot value is where it stands now. */
            pf_rseqclock *k = NULL;
            for (size_t i = 0; i < s->nclocks; i++)
                if (s->clocks[i].id == id) k = &s->clocks[i];
            if (!k) {
                if (s->nclocks == s->clocks_cap)
                    TCONV_ARRAY_GROW(s->clocks, s->clocks_cap, s->nclocks + 1);
                k = &s->clocks[s->nclocks++];
            }
            *k = (pf_rseqclock){id, incremental, unit, ns};
        }
        if (r->nsnap == r->snap_cap) {
            size_t cap = r->snap_cap;
            TCONV_ARRAY_GROW(r->snap_ids, cap, r->nsnap + 1);
            TCONV_ARRAY_GROW(r->snap_ts, r->snap_cap, r->nsnap + 1);
        }
        /* A sequence's clock is known by (sequence, id). */
        r->snap_ids[r->nsnap] = id >= 64 && id < 128 ? (uint64_t)s->id << 8 | id : id;
        r->snap_ts[r->nsnap++] = ns;
    }
    r->trace_clock_fixed = 1;
    if (rc < 0) return pf_r_error(r, "malformed clock snapshot");
    /* Each clock's offset to the trace clock, as of this snapshot. */
    int64_t tr = 0;
    int has_tr = 0;
    for (size_t i = 0; i < r->nsnap; i++)
        if (r->snap_ids[i] == r->trace_clock) tr = r->snap_ts[i], has_tr = 1;
    for (size_t i = 0; has_tr && i < r->nsnap; i++) {
        uint32_t k = tconv_map_get(&r->clock_map, r->snap_ids[i], 0);
        if (k == TCONV_MAP_NONE) {
            if (r->noffsets == r->offsets_cap)
                TCONV_ARRAY_GROW(r->offsets, r->offsets_cap, r->noffsets + 1);
            k = (uint32_t)r->noffsets++;
            tconv_map_put(&r->clock_map, r->snap_ids[i], 0, k);
        }
        r->offsets[k] = (int64_t)((uint64_t)tr - (uint64_t)r->snap_ts[i]);
    }
    /* What the trace's time 0 is in Unix time, for writers that show dates. */
    int64_t rt = 0;
    int has_rt = 0;
    for (size_t i = 0; i < r->nsnap; i++)
        if (r->snap_ids[i] == PF_CLOCK_REALTIME) rt = r->snap_ts[i], has_rt = 1;
    if (has_rt && has_tr && !r->have_origin && r->trace_clock != PF_CLOCK_REALTIME) {
        r->have_origin = 1;
        r->origin = rt - tr;
    }
    return TCONV_OK;
}

/* A packet's time in the trace clock. */
static int64_t pf_r_time(pf_reader *r, pf_rseq *s, uint32_t clock, uint64_t raw)
{
    if (!clock) clock = s && s->clock_id ? s->clock_id : r->trace_clock;
    int64_t v = (int64_t)raw;
    uint64_t key = clock;
    if (clock >= 64 && clock < 128 && s) {
        for (size_t i = 0; i < s->nclocks; i++) {
            pf_rseqclock *k = &s->clocks[i];
            if (k->id != clock) continue;
            v = (int64_t)(raw * k->unit);
            if (k->incremental) v = k->last = pf_add(k->last, v);
            break;
        }
        key = (uint64_t)s->id << 8 | clock;
    }
    if (clock == r->trace_clock) return v;
    uint32_t k = tconv_map_get(&r->clock_map, key, 0);
    if (k != TCONV_MAP_NONE) return pf_add(v, r->offsets[k]);
    if (!r->unknown_clock++) r->unknown_clock_id = clock;
    return v;
}

/* ---- packets ----------------------------------------------------------------------------- */

static const char *pf_r_packet_kind(uint32_t num)
{
    switch (num) {
    case 1:
        return "ftrace_events";
    case 4:
        return "inode_file_map";
    case 5:
        return "chrome_events";
    case 7:
        return "sys_stats";
    case 9:
        return "process_stats";
    case 33:
        return "trace_config";
    case 34:
        return "ftrace_stats";
    case 35:
        return "trace_stats";
    case 36:
        return "synchronization_marker";
    case 37:
        return "profile_packet";
    case 39:
        return "android_log";
    case 45:
        return "system_info";
    case 47:
        return "packages_list";
    case 49:
        return "perfetto_metatrace";
    case 50:
        return "compressed_packets";
    case 69:
        return "service_event";
    case 76:
        return "frame_timeline_event";
    case 89:
        return "trace_uuid";
    default:
        return NULL;
    }
}

static tconv_status pf_r_packet(pf_reader *r, const uint8_t *msg, size_t len)
{
    pf_cur c = pf_cur_make(msg, len);
    pf_field f;
    int rc;
    uint64_t raw_ts = 0;
    int has_ts = 0;
    uint32_t seq_id = 0, flags = 0, clock = 0;
    int cleared = 0;
    const pf_field *payload = NULL;
    pf_field pl = {0}, interned = {0}, defaults = {0};
    int has_interned = 0, has_defaults = 0;
    while ((rc = pf_next(&c, &f)) > 0) {
        switch (f.num) {
        case PF_PKT_TIMESTAMP:
            if (f.wt == PF_VARINT) raw_ts = f.v, has_ts = 1;
            break;
        case PF_PKT_TIMESTAMP_CLOCK_ID:
            if (f.wt == PF_VARINT) clock = (uint32_t)f.v;
            break;
        case PF_PKT_SEQ_ID:
            if (f.wt == PF_VARINT) seq_id = (uint32_t)f.v;
            break;
        case PF_PKT_SEQ_FLAGS:
            if (f.wt == PF_VARINT) flags = (uint32_t)f.v;
            break;
        case PF_PKT_INCREMENTAL_CLEARED:
            if (f.wt == PF_VARINT) cleared = f.v != 0;
            break;
        case PF_PKT_INTERNED_DATA:
            if (f.wt == PF_LEN) interned = f, has_interned = 1;
            break;
        case PF_PKT_DEFAULTS:
            if (f.wt == PF_LEN) defaults = f, has_defaults = 1;
            break;
        default:
            if (f.wt == PF_LEN && !payload) {
                pl = f;
                payload = &pl;
            }
            break;
        }
    }
    if (rc < 0) return pf_r_error(r, "malformed trace packet");
    pf_rseq *s = pf_r_seq(r, seq_id);
    if (cleared || (flags & PF_SEQ_CLEARED)) pf_r_seq_clear(s);
    if (has_defaults && pf_r_defaults(r, s, defaults.data, defaults.len) != TCONV_OK)
        return TCONV_FATAL;
    if (has_interned && pf_r_interned(r, s, interned.data, interned.len) != TCONV_OK)
        return TCONV_FATAL;
    if (!payload) return TCONV_OK;
    /* The snapshot itself is in its clocks' own times. */
    if (payload->num == PF_PKT_CLOCK_SNAPSHOT)
        return pf_r_clock_snapshot(r, s, payload->data, payload->len);
    int64_t ts = has_ts ? pf_r_time(r, s, clock, raw_ts) : 0;
    switch (payload->num) {
    case PF_PKT_TRACK_EVENT:
        return pf_r_track_event(r, s, payload->data, payload->len, ts);
    case PF_PKT_TRACK_DESCRIPTOR:
        return pf_r_descriptor(r, payload->data, payload->len);
    case PF_PKT_THREAD_DESCRIPTOR:
        return pf_r_thread_descriptor(r, s, payload->data, payload->len);
    case PF_PKT_PROCESS_TREE:
        return pf_r_process_tree(r, payload->data, payload->len);
    case PF_PKT_PERF_SAMPLE:
        return pf_r_perf_sample(r, s, payload->data, payload->len, ts);
    case PF_PKT_STREAMING_PROFILE:
        return pf_r_streaming_profile(r, s, payload->data, payload->len, ts);
    case PF_PKT_PROCESS_DESCRIPTOR:
        return TCONV_OK; /* the legacy form: names come with track descriptors */
    default:
        if (payload->num < 128)
            r->skipped[payload->num]++;
        else
            r->skipped_other++;
        return TCONV_OK;
    }
}

/* Says once what was skipped or kept as it was. */
static void pf_r_report(pf_reader *r)
{
    char buf[512];
    size_t n = 0;
    uint64_t total = r->skipped_other;
    for (unsigned i = 0; i < 128; i++) {
        if (!r->skipped[i]) continue;
        total += r->skipped[i];
        const char *k = pf_r_packet_kind(i);
        char one[64];
        if (k)
            snprintf(one, sizeof one, "%s%s %" PRIu64, n ? ", " : "", k, r->skipped[i]);
        else
            snprintf(one, sizeof one, "%sfield %u %" PRIu64, n ? ", " : "", i, r->skipped[i]);
        size_t k2 = strlen(one);
        if (n + k2 + 8 < sizeof buf) {
            memcpy(buf + n, one, k2 + 1);
            n += k2;
        }
    }
    if (total)
        tconv_note_show(r->ctx,
                        "%s: %" PRIu64 " packets of kinds tconv has no events for were skipped "
                        "(%s%s)",
                        r->name, total, n ? buf : "",
                        r->skipped_other ? (n ? ", others" : "others") : "");
    if (r->unknown_clock)
        tconv_note_show(r->ctx,
                        "%s: %" PRIu64 " times are on clock %u, which no clock snapshot relates to "
                        "the trace clock %u: they are kept as they are",
                        r->name, r->unknown_clock, r->unknown_clock_id, r->trace_clock);
    if (r->no_callstack)
        tconv_warning_add(r->ctx, "perfetto.no-callstack",
                          "%s: %" PRIu64 " CPU samples without a callstack were skipped", r->name,
                          r->no_callstack);
    if (r->pending_left)
        tconv_warning_add(r->ctx, "perfetto.no-descriptor",
                          "%s: %" PRIu64 " events are on tracks that no track descriptor "
                          "describes: each such track is read as a track of its own",
                          r->name, r->pending_left);
}

tconv_status pf_r_replay_left(pf_reader *r);
tconv_status pf_r_spans_left(pf_reader *r);

/* Reads the Trace: packet after packet, each whole in memory. */
static tconv_status pf_r_stream(pf_reader *r)
{
    uint8_t *buf = NULL;
    size_t cap = PF_CHUNK, len = 0, pos = 0;
    uint64_t base = 0; /* input offset of buf[0] */
    int eof = 0;
    tconv_status st = TCONV_OK;
    buf = malloc(cap);
    if (!buf) {
        tconv_error_set(r->ctx, "perfetto: out of memory");
        return TCONV_FATAL;
    }
    for (;;) {
        /* One field of the Trace: tag, length, bytes. */
        pf_cur c = pf_cur_make(buf + pos, len - pos);
        uint64_t tag = 0, n = 0;
        int have = pf_get_varint(&c, &tag);
        size_t need = 0;
        int complete = 0;
        if (have) {
            unsigned wt = (unsigned)(tag & 7);
            r->pkt_off = base + pos;
            if ((tag >> 3) == 0 || tag >> 32 ||
                (wt != PF_VARINT && wt != PF_LEN && wt != PF_I64 && wt != PF_I32)) {
                st = pf_r_error(r, "not a Perfetto trace: a field of the Trace message that "
                                   "protobuf cannot have");
                break;
            }
            if (wt == PF_LEN) {
                if (pf_get_varint(&c, &n)) {
                    size_t hdr = (size_t)(c.p - (buf + pos));
                    if (n > (uint64_t)SIZE_MAX - hdr) {
                        st = pf_r_error(r, "a packet length beyond any file");
                        break;
                    }
                    need = hdr + (size_t)n;
                    complete = len - pos >= need;
                } else if (c.p - (buf + pos) >= 10) {
                    st = pf_r_error(r, "malformed packet length");
                    break;
                }
            } else {
                pf_field f;
                pf_cur d = pf_cur_make(buf + pos, len - pos);
                int rc = pf_next(&d, &f);
                if (rc > 0) {
                    need = (size_t)(d.p - (buf + pos));
                    complete = 1;
                }
            }
        } else if (c.p - (buf + pos) >= 10) {
            r->pkt_off = base + pos;
            st = pf_r_error(r, "not a Perfetto trace: malformed field tag");
            break;
        }
        if (complete) {
            const uint8_t *p = buf + pos + need - (size_t)n;
            if ((tag >> 3) == PF_TRACE_PACKET && (tag & 7) == PF_LEN) {
                st = pf_r_packet(r, p, (size_t)n);
                if (st != TCONV_OK) break;
            }
            pos += need;
            continue;
        }
        if (pos == len && eof) break;
        if (eof) {
            r->pkt_off = base + pos;
            char what[160];
            if (need)
                snprintf(what, sizeof what,
                         "the trace is cut short: a packet of %zu bytes ends after %zu", need,
                         len - pos);
            else
                snprintf(what, sizeof what, "the trace is cut short inside a field tag");
            st = pf_r_error(r, what);
            break;
        }
        /* Keep the unread bytes and read more, growing as the bytes come: a length that lies
         * costs what the file holds, not what it says. */
        if (pos) {
            memmove(buf, buf + pos, len - pos);
            len -= pos;
            base += pos;
            pos = 0;
        }
        if (len == cap) {
            uint8_t *nb = cap <= SIZE_MAX / 2 ? realloc(buf, cap * 2) : NULL;
            if (!nb) {
                tconv_error_set(r->ctx, "perfetto: out of memory (a packet of %zu bytes)", need);
                st = TCONV_FATAL;
                break;
            }
            buf = nb;
            cap *= 2;
        }
        size_t room = cap - len;
        ssize_t got = tconv_input_read(r->in, buf + len, room);
        if (got < 0) {
            st = TCONV_FATAL;
            break;
        }
        if (got == 0) eof = 1;
        len += (size_t)got;
    }
    free(buf);
    if (st == TCONV_OK) st = pf_r_replay_left(r);
    tconv_status left = pf_r_spans_left(r);
    return st == TCONV_OK ? left : st;
}

static tconv_status pf_r_read(tconv_ctx *ctx, tconv_input *in, const tconv_options *opts,
                              tconv_sink *sink)
{
    pf_reader r;
    memset(&r, 0, sizeof r);
    r.ctx = ctx;
    r.in = in;
    r.sink = sink;
    r.name = tconv_input_name(in);
    r.strict = tconv_option_get_bool(opts, "strict");
    r.trace_clock = PF_CLOCK_BOOTTIME;
    r.s_measured = tconv_string_intern_cstr(ctx, PF_ANNOT_MEASURED);
    r.s_text = tconv_string_intern_cstr(ctx, PF_ANNOT_TEXT);
    r.s_key = tconv_string_intern_cstr(ctx, PF_ANNOT_KEY);
    r.s_track = tconv_string_intern_cstr(ctx, PF_META_TRACK);
    r.s_counter = tconv_string_intern_cstr(ctx, PF_META_COUNTER);
    r.s_pid = tconv_string_intern_cstr(ctx, "pid");
    r.s_tid = tconv_string_intern_cstr(ctx, "tid");
    r.s_kind = tconv_string_intern_cstr(ctx, "kind");
    r.s_name = tconv_string_intern_cstr(ctx, "name");
    r.s_id = tconv_string_intern_cstr(ctx, "id");
    r.s_ithread = tconv_string_intern_cstr(ctx, "thread");
    r.s_isort = tconv_string_intern_cstr(ctx, "thread_sort");
    r.s_thread_name = tconv_string_intern_cstr(ctx, "thread_name");
    r.s_process_name = tconv_string_intern_cstr(ctx, "process_name");
    r.s_thread_sort = tconv_string_intern_cstr(ctx, "thread_sort_index");
    r.s_process_sort = tconv_string_intern_cstr(ctx, "process_sort_index");
    tconv_status st = pf_r_stream(&r);
    if (st == TCONV_OK && r.have_origin && !r.origin_said) {
        tconv_event ev = TCONV_EVENT_INIT;
        ev.kind = TCONV_EV_METADATA;
        ev.track = pf_r_global_track(&r);
        ev.name = tconv_string_intern_cstr(ctx, "baseTimeNanoseconds");
        char tmp[24];
        snprintf(tmp, sizeof tmp, "%" PRId64, r.origin);
        ev.text = tconv_string_intern_cstr(ctx, tmp);
        st = ev.track == UINT32_MAX ? TCONV_FATAL : pf_r_push(&r, &ev);
    }
    if (st == TCONV_OK) pf_r_report(&r);
    for (size_t i = 0; i < r.nseqs; i++)
        pf_r_seq_free(&r.seqs[i]);
    free(r.seqs);
    tconv_map_free(&r.seq_map);
    free(r.tracks);
    tconv_map_free(&r.track_map);
    tconv_map_free(&r.key_map);
    free(r.names);
    tconv_map_free(&r.proc_names);
    tconv_map_free(&r.thread_names);
    free(r.used);
    free(r.owner);
    for (size_t i = 0; i < r.opens_cap; i++) {
        for (size_t j = 0; j < r.opens[i].n; j++)
            if (r.opens[i].v[j]) free(r.opens[i].v[j]->args), free(r.opens[i].v[j]);
        free(r.opens[i].v);
    }
    free(r.opens);
    tconv_map_free(&r.flows);
    free(r.pending);
    pf_buf_free(&r.pending_bytes);
    free(r.snap_ids);
    free(r.snap_ts);
    free(r.offsets);
    tconv_map_free(&r.clock_map);
    free(r.args);
    free(r.rte);
    return st;
}

/* A Trace starts with packets: field 1, length-delimited, whose content is a TracePacket. The
 * probe walks the packets that fit in the buffer and checks the wire types of the fields it
 * knows, which sets it apart from other protobuf files (a pprof profile's first field is a
 * message whose fields are varints, where a packet has messages). */
static int pf_r_probe(const unsigned char *buf, size_t len)
{
    pf_cur c = pf_cur_make(buf, len);
    int packets = 0, known = 0;
    while (c.p < c.end) {
        pf_cur save = c;
        pf_field f;
        int rc = pf_next(&c, &f);
        if (rc <= 0) {
            /* A packet cut by the end of the buffer: judge by what came before. */
            c = save;
            uint64_t tag, n;
            if (!pf_get_varint(&c, &tag)) {
                if (c.end - save.p >= 10) return 0;
                break;
            }
            if (tag != (PF_TRACE_PACKET << 3 | PF_LEN)) return 0;
            if (!pf_get_varint(&c, &n)) {
                if (c.end - save.p >= 11) return 0;
                break;
            }
            if (n > (uint64_t)(c.end - c.p)) break;
            return 0;
        }
        if (f.num != PF_TRACE_PACKET || f.wt != PF_LEN) return 0;
        pf_cur p = pf_cur_make(f.data, f.len);
        pf_field g;
        int pr;
        while ((pr = pf_next(&p, &g)) > 0) {
            unsigned want;
            switch (g.num) {
            case PF_PKT_TIMESTAMP:
            case PF_PKT_SEQ_ID:
            case PF_PKT_SEQ_FLAGS:
            case PF_PKT_TIMESTAMP_CLOCK_ID:
            case 79: /* trusted_pid */
            case 3:  /* trusted_uid */
                want = PF_VARINT;
                break;
            case 1:
            case PF_PKT_PROCESS_TREE:
            case PF_PKT_CHROME_EVENTS:
            case PF_PKT_CLOCK_SNAPSHOT:
            case PF_PKT_TRACK_EVENT:
            case PF_PKT_INTERNED_DATA:
            case PF_PKT_TRACK_DESCRIPTOR:
            case PF_PKT_PERF_SAMPLE:
            case PF_PKT_DEFAULTS:
            case 33:
            case 35:
            case 69:
                want = PF_LEN;
                break;
            default:
                continue;
            }
            if (g.wt != want) return 0;
            known++;
        }
        if (pr < 0) return 0;
        packets++;
    }
    if (!packets || !known) return 0;
    return packets > 1 ? 90 : 70;
}

static const tconv_option_desc pf_r_options[] = {
    {"strict", TCONV_OPT_BOOL, "false", NULL, "malformed events are errors"},
    {0},
};

const tconv_reader_class pf_reader_class = {
    .struct_size = sizeof(tconv_reader_class),
    .name = "perfetto",
    .description = "Perfetto protobuf trace: track events, descriptors, callstack samples",
    .extensions = "pftrace|perfetto-trace|pftrace.gz|perfetto-trace.gz|pb",
    .options = pf_r_options,
    .probe = pf_r_probe,
    .read = pf_r_read,
    .flags = TCONV_READER_CONCURRENT,
};
