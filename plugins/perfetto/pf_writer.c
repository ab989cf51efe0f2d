/* The perfetto writer: tconv's ordered event stream as a Perfetto TrackEvent trace.
 *
 * The core delivers metadata first, as the readers push it, then every track's events in time
 * order and properly nested (TCONV_WRITER_ORDERED), so a span is a SLICE_BEGIN and a SLICE_END
 * on its track and never misnests. Track names and kinds are final only once every input is
 * read, which is when the first ordered event comes: metadata events are held until then (they
 * are few: names, sort orders, what a trace says of itself), and a track's descriptor is written
 * just before the first packet that refers to it.
 *
 * Every packet is on one trusted sequence. Its first packet clears the incremental state;
 * packets that refer to interned data say so (SEQ_NEEDS_INCREMENTAL_STATE) and carry the
 * entries they introduce. Timestamps are absolute nanoseconds on the trace's default clock.
 * Packets go to the output as soon as they are made: memory is the interning tables and the
 * per-track and per-series records, not the events. */
#include "pf_writer.h"

#include <stdlib.h>
#include <string.h>

#include "pf_fields.h"

/* A single sequence; any non-zero id. */
#define PF_SEQ_ID 1
/* The sequence's own clock (ids 64..127 belong to a sequence). */
#define PF_SEQ_CLOCK 64
#define PF_FLUSH_BYTES (256u << 10)

tconv_status pf_w_oom(pf_writer *w)
{
    tconv_error_set(w->ctx, "perfetto: out of memory");
    return TCONV_FATAL;
}

pf_wstr *pf_w_str(pf_writer *w, tconv_str s)
{
    if (s >= w->nstrs) {
        size_t n = tconv_string_count(w->ctx);
        if (n <= s) n = (size_t)s + 1;
        size_t old = w->nstrs;
        size_t cap = old ? old : 1024;
        while (cap < n)
            cap *= 2;
        pf_wstr *p = realloc(w->strs, cap * sizeof *p);
        if (!p) return NULL;
        memset(p + old, 0, (cap - old) * sizeof *p);
        w->strs = p;
        w->nstrs = cap;
    }
    return &w->strs[s];
}

/* An InternedData entry {iid, name} of one of its string tables. */
static void pf_w_intern_entry(pf_writer *w, uint32_t table, uint32_t iid, tconv_str s)
{
    size_t m = pf_open(&w->intern, table);
    pf_put_uint(&w->intern, PF_IID, iid);
    pf_put_bytes(&w->intern, PF_IID_NAME, tconv_string_get(w->ctx, s),
                 tconv_string_length(w->ctx, s));
    pf_close(&w->intern, m);
}

uint32_t pf_w_event_name(pf_writer *w, tconv_str s)
{
    pf_wstr *e = pf_w_str(w, s);
    if (!e) return 0;
    if (!e->name) {
        e->name = ++w->next_name;
        pf_w_intern_entry(w, PF_ID_EVENT_NAMES, e->name, s);
    }
    return e->name;
}

uint32_t pf_w_category(pf_writer *w, tconv_str s)
{
    pf_wstr *e = pf_w_str(w, s);
    if (!e) return 0;
    if (!e->cat) {
        e->cat = ++w->next_cat;
        pf_w_intern_entry(w, PF_ID_CATEGORIES, e->cat, s);
    }
    return e->cat;
}

uint32_t pf_w_annot_name(pf_writer *w, tconv_str s)
{
    pf_wstr *e = pf_w_str(w, s);
    if (!e) return 0;
    if (!e->annot) {
        e->annot = ++w->next_annot;
        pf_w_intern_entry(w, PF_ID_ANNOT_NAMES, e->annot, s);
    }
    return e->annot;
}

static tconv_status pf_w_flush(pf_writer *w)
{
    if (!w->out_buf.len) return TCONV_OK;
    int rc = w->gz ? tconv_gzout_write(w->gz, w->out_buf.p, w->out_buf.len)
                   : tconv_output_write(w->out, w->out_buf.p, w->out_buf.len);
    w->bytes += w->out_buf.len;
    w->out_buf.len = 0;
    return rc < 0 ? TCONV_FATAL : TCONV_OK;
}

tconv_status pf_w_packet(pf_writer *w, int has_ts, int64_t ts, uint32_t payload_field)
{
    pf_buf *b = &w->out_buf;
    size_t m = pf_open(b, PF_TRACE_PACKET);
    /* Perfetto's times are unsigned: a negative time is written as its two's complement and
     * read back as the same int64 (trace viewers show it far in the future). */
    if (has_ts && w->seq_clock && ts >= w->t0) {
        pf_put_uint(b, PF_PKT_TIMESTAMP, (uint64_t)(ts - w->t0));
    } else if (has_ts) {
        /* Before the clock's zero (a metadata event's time): on the trace's clock. */
        if (w->seq_clock) pf_put_uint(b, PF_PKT_TIMESTAMP_CLOCK_ID, PF_CLOCK_BOOTTIME);
        pf_put_uint(b, PF_PKT_TIMESTAMP, (uint64_t)ts);
    }
    pf_put_uint(b, PF_PKT_SEQ_ID, PF_SEQ_ID);
    uint32_t flags = 0;
    if (!w->first_written) {
        flags = PF_SEQ_CLEARED;
        w->first_written = 1;
    }
    if (flags) pf_put_uint(b, PF_PKT_SEQ_FLAGS, flags);
    if (w->intern.len) pf_put_bytes(b, PF_PKT_INTERNED_DATA, w->intern.p, w->intern.len);
    pf_put_bytes(b, payload_field, w->ev.p, w->ev.len);
    pf_close(b, m);
    w->intern.len = 0;
    w->ev.len = 0;
    w->packets++;
    if (b->oom || w->intern.oom || w->ev.oom) return pf_w_oom(w);
    return b->len >= PF_FLUSH_BYTES ? pf_w_flush(w) : TCONV_OK;
}

/* ---- events ------------------------------------------------------------------------------ */

static void pf_w_name_cat(pf_writer *w, const tconv_event *ev)
{
    if (ev->name) pf_put_uint(&w->ev, PF_TE_NAME_IID, pf_w_event_name(w, ev->name));
    if (ev->cat) pf_put_uint(&w->ev, PF_TE_CATEGORY_IIDS, pf_w_category(w, ev->cat));
}

/* The Chrome phase and id that tconv's flags and ids stand for, where Perfetto's typed events
 * have no field of their own: async spans and instants ('b', 'e', 'n'), the scope of an instant,
 * the binding of a flow. Trace viewers read the typed event and ignore these. */
static void pf_w_legacy(pf_writer *w, const tconv_event *ev, int phase, int scope, int bind)
{
    if (!phase && !ev->id && !scope && bind < 0) return;
    size_t m = pf_open(&w->ev, PF_TE_LEGACY);
    if (phase) pf_put_uint(&w->ev, PF_LE_PHASE, (uint64_t)phase);
    if (ev->id) pf_put_uint(&w->ev, PF_LE_UNSCOPED_ID, ev->id);
    if (bind >= 0) pf_put_uint(&w->ev, PF_LE_BIND_TO_ENCLOSING, (uint64_t)bind);
    if (scope) pf_put_uint(&w->ev, PF_LE_INSTANT_SCOPE, (uint64_t)scope);
    pf_close(&w->ev, m);
}

static tconv_status pf_w_track_event(pf_writer *w, const tconv_event *ev)
{
    pf_wseries *series = NULL;
    uint64_t uuid;
    if (ev->kind == TCONV_EV_COUNTER) {
        series = pf_w_series(w, ev);
        uuid = series ? series->uuid : 0;
    } else {
        uuid = pf_w_track(w, ev->track);
    }
    if (!uuid) return TCONV_FATAL;
    pf_buf *b = &w->ev;
    int async = (ev->flags & TCONV_EVF_ASYNC) != 0;
    switch (ev->kind) {
    case TCONV_EV_BEGIN:
        pf_put_uint(b, PF_TE_TYPE, PF_TYPE_SLICE_BEGIN);
        pf_put_uint(b, PF_TE_TRACK_UUID, uuid);
        pf_w_name_cat(w, ev);
        pf_w_args(w, ev->args, ev->nargs);
        /* The ordering stage clipped or closed the span: its END is where it now ends, and the
         * length it had comes along (the reader gives it back as the stage did). */
        if (ev->flags & TCONV_EVF_REPAIRED)
            pf_w_annot_int(w, pf_w_annot_name(w, w->s_measured), ev->dur);
        pf_w_legacy(w, ev, async ? 'b' : 0, 0, -1);
        break;
    case TCONV_EV_END:
        pf_put_uint(b, PF_TE_TYPE, PF_TYPE_SLICE_END);
        pf_put_uint(b, PF_TE_TRACK_UUID, uuid);
        /* A repaired END needs nothing: the reader's ordering stage gives it the BEGIN's flags. */
        pf_w_legacy(w, ev, async ? 'e' : 0, 0, -1);
        break;
    case TCONV_EV_INSTANT: {
        pf_put_uint(b, PF_TE_TYPE, PF_TYPE_INSTANT);
        pf_put_uint(b, PF_TE_TRACK_UUID, uuid);
        pf_w_name_cat(w, ev);
        pf_w_args(w, ev->args, ev->nargs);
        int scope = ev->flags & TCONV_EVF_SCOPE_GLOBAL    ? PF_SCOPE_GLOBAL
                    : ev->flags & TCONV_EVF_SCOPE_PROCESS ? PF_SCOPE_PROCESS
                                                          : 0;
        pf_w_legacy(w, ev, async ? 'n' : 0, scope, -1);
        break;
    }
    case TCONV_EV_COUNTER: {
        pf_put_uint(b, PF_TE_TYPE, PF_TYPE_COUNTER);
        pf_put_uint(b, PF_TE_TRACK_UUID, uuid);
        if (ev->cat != series->cat) pf_put_uint(b, PF_TE_CATEGORY_IIDS, pf_w_category(w, ev->cat));
        double v = ev->value;
        /* Integers as varints (most counters are byte counts); the double otherwise. */
        if (v >= -9007199254740992.0 && v <= 9007199254740992.0 && v == (double)(int64_t)v &&
            !(v == 0 && 1 / v < 0))
            pf_put_int(b, PF_TE_COUNTER_VALUE, (int64_t)v);
        else
            pf_put_double(b, PF_TE_DOUBLE_COUNTER_VALUE, v);
        pf_w_args(w, ev->args, ev->nargs);
        break;
    }
    case TCONV_EV_FLOW_START:
    case TCONV_EV_FLOW_STEP:
    case TCONV_EV_FLOW_END: {
        /* A flow point is an instant that carries the arrow, so that it keeps its own time and
         * track; the legacy phase says it stands for the flow alone. */
        pf_put_uint(b, PF_TE_TYPE, PF_TYPE_INSTANT);
        pf_put_uint(b, PF_TE_TRACK_UUID, uuid);
        pf_w_name_cat(w, ev);
        pf_w_args(w, ev->args, ev->nargs);
        pf_put_fixed64(
            b, ev->kind == TCONV_EV_FLOW_END ? PF_TE_TERMINATING_FLOW_IDS : PF_TE_FLOW_IDS, ev->id);
        int phase = ev->kind == TCONV_EV_FLOW_START  ? 's'
                    : ev->kind == TCONV_EV_FLOW_STEP ? 't'
                                                     : 'f';
        int bind = ev->flags & TCONV_EVF_BIND_ENCLOSING ? 1
                   : ev->flags & TCONV_EVF_BIND_NEXT    ? 0
                                                        : -1;
        tconv_event noid = *ev;
        noid.id = 0; /* the id is the flow's */
        pf_w_legacy(w, &noid, phase, 0, bind);
        break;
    }
    default:
        return TCONV_OK;
    }
    return pf_w_packet(w, 1, ev->ts, PF_PKT_TRACK_EVENT);
}

/* Metadata: held until the tracks are final, then written in the order it came. */
static tconv_status pf_w_hold_metadata(pf_writer *w, const tconv_event *ev)
{
    if (w->nmetas == w->metas_cap) TCONV_ARRAY_GROW(w->metas, w->metas_cap, w->nmetas + 1);
    if (w->nmetas_args + ev->nargs > w->metas_args_cap)
        TCONV_ARRAY_GROW(w->metas_args, w->metas_args_cap, w->nmetas_args + ev->nargs);
    pf_wmeta *m = &w->metas[w->nmetas++];
    *m = (pf_wmeta){ev->ts,  ev->track, ev->name,  ev->cat,
                    ev->key, ev->text,  ev->nargs, w->nmetas_args};
    if (ev->nargs) memcpy(w->metas_args + w->nmetas_args, ev->args, ev->nargs * sizeof(tconv_arg));
    w->nmetas_args += ev->nargs;
    return TCONV_OK;
}

static tconv_status pf_w_start(pf_writer *w)
{
    w->started = 1;
    /* The sequence's first packet, which clears its state: a trace without events is still a
     * trace (a file of no packets would be no format at all). */
    pf_buf *b = &w->out_buf;
    size_t m = pf_open(b, PF_TRACE_PACKET);
    pf_put_uint(b, PF_PKT_SEQ_ID, PF_SEQ_ID);
    pf_put_uint(b, PF_PKT_SEQ_FLAGS, PF_SEQ_CLEARED);
    /* Times on a clock of the sequence whose zero is the trace's first time, which a clock
     * snapshot ties to BOOTTIME, the trace's clock: each stays an absolute time (no deltas, no
     * state but the snapshot), in 5 to 7 bytes where nanoseconds since 1970 take 9. */
    int64_t first, last;
    if (w->want_seq_clock && tconv_ctx_bounds(w->ctx, &first, &last) && first >= 0) {
        w->seq_clock = 1;
        w->t0 = first;
        size_t d = pf_open(b, PF_PKT_DEFAULTS);
        pf_put_uint(b, PF_DEF_CLOCK_ID, PF_SEQ_CLOCK);
        pf_close(b, d);
        size_t cs = pf_open(b, PF_PKT_CLOCK_SNAPSHOT);
        size_t k = pf_open(b, PF_CS_CLOCKS);
        pf_put_uint(b, PF_CLK_ID, PF_SEQ_CLOCK);
        pf_put_uint(b, PF_CLK_TS, 0);
        pf_close(b, k);
        k = pf_open(b, PF_CS_CLOCKS);
        pf_put_uint(b, PF_CLK_ID, PF_CLOCK_BOOTTIME);
        pf_put_uint(b, PF_CLK_TS, (uint64_t)first);
        pf_close(b, k);
        pf_close(b, cs);
    }
    pf_close(b, m);
    w->first_written = 1;
    w->packets++;
    for (size_t i = 0; i < w->nmetas; i++) {
        const pf_wmeta *h = &w->metas[i];
        tconv_event ev = TCONV_EVENT_INIT;
        ev.kind = TCONV_EV_METADATA;
        ev.ts = h->ts;
        ev.track = h->track;
        ev.name = h->name;
        ev.cat = h->cat;
        ev.key = h->key;
        ev.text = h->text;
        ev.nargs = h->nargs;
        ev.args = h->nargs ? w->metas_args + h->arg0 : NULL;
        if (pf_w_metadata(w, &ev) != TCONV_OK) return TCONV_FATAL;
    }
    free(w->metas);
    free(w->metas_args);
    w->metas = NULL;
    w->metas_args = NULL;
    w->nmetas = w->metas_cap = w->nmetas_args = w->metas_args_cap = 0;
    return TCONV_OK;
}

static tconv_status pf_w_event(void *state, const tconv_event *ev)
{
    pf_writer *w = state;
    if (ev->kind == TCONV_EV_METADATA)
        return w->started ? pf_w_metadata(w, ev) : pf_w_hold_metadata(w, ev);
    if (!w->started && pf_w_start(w) != TCONV_OK) return TCONV_FATAL;
    if (ev->kind == TCONV_EV_SAMPLE) return pf_w_sample(w, ev);
    return pf_w_track_event(w, ev);
}

static tconv_status pf_w_finish(void *state)
{
    pf_writer *w = state;
    if (!w->started && pf_w_start(w) != TCONV_OK) return TCONV_FATAL;
    /* Tracks that no event came on (an input's track of dropped events): described all the
     * same, with their identity, so that a reader has the same tracks. */
    uint32_t n = tconv_track_count(w->ctx);
    for (uint32_t i = 0; i < n; i++)
        if ((i >= w->ntracks || !w->tracks[i].uuid) && pf_w_track_idle(w, i) != TCONV_OK)
            return TCONV_FATAL;
    if (pf_w_flush(w) != TCONV_OK) return TCONV_FATAL;
    if (w->gz && tconv_gzout_finish(w->gz) != 0) return TCONV_FATAL;
    if (w->samples_no_pid)
        tconv_note_show(w->ctx,
                        "perfetto: %llu stack samples are on tracks without a numeric pid and "
                        "tid; they are written as samples of pid 0, tid 0",
                        (unsigned long long)w->samples_no_pid);
    tconv_note(w->ctx, "perfetto: %llu packets, %llu bytes before compression",
               (unsigned long long)w->packets, (unsigned long long)w->bytes);
    return TCONV_OK;
}

static void pf_w_destroy(void *state)
{
    pf_writer *w = state;
    if (!w) return;
    pf_buf_free(&w->out_buf);
    pf_buf_free(&w->ev);
    pf_buf_free(&w->intern);
    pf_buf_free(&w->scratch);
    pf_buf_free(&w->jcache);
    tconv_map_free(&w->json_map);
    free(w->strs);
    free(w->sval_rev);
    free(w->tracks);
    tconv_map_free(&w->by_key);
    tconv_map_free(&w->procs);
    tconv_map_free(&w->pid_user);
    free(w->procv);
    tconv_map_free(&w->series_map);
    free(w->series);
    free(w->metas);
    free(w->metas_args);
    if (w->stacks) tconv_stacktab_destroy(w->stacks);
    free(w->stack_written);
    tconv_map_free(&w->frame_map);
    free(w->frames);
    tconv_map_free(&w->mapping_map);
    tconv_map_free(&w->fn_map);
    if (w->gz) tconv_gzout_free(w->gz);
    free(w);
}

static int pf_w_ends_with(const char *s, const char *suffix)
{
    size_t n = strlen(s), k = strlen(suffix);
    return n >= k && strcmp(s + n - k, suffix) == 0;
}

static tconv_status pf_w_open(tconv_ctx *ctx, tconv_output *out, const tconv_options *opts,
                              void **state)
{
    pf_writer *w = calloc(1, sizeof *w);
    if (!w) {
        tconv_error_set(ctx, "perfetto: out of memory");
        return TCONV_FATAL;
    }
    w->ctx = ctx;
    w->out = out;
    w->next_uuid = 1;
    w->want_seq_clock = strcmp(tconv_option_get_string(opts, "clock"), "sequence") == 0;
    int gzip = tconv_option_is_set(opts, "gzip") ? tconv_option_get_bool(opts, "gzip")
                                                 : pf_w_ends_with(tconv_output_name(out), ".gz");
    if (gzip) {
        w->gz = tconv_gzout_new(ctx, out, (int)tconv_option_get_int(opts, "level"));
        if (!w->gz) {
            free(w);
            return TCONV_FATAL;
        }
    }
    w->s_measured = tconv_string_intern_cstr(ctx, PF_ANNOT_MEASURED);
    w->s_text = tconv_string_intern_cstr(ctx, PF_ANNOT_TEXT);
    w->s_key = tconv_string_intern_cstr(ctx, PF_ANNOT_KEY);
    w->s_track = tconv_string_intern_cstr(ctx, PF_META_TRACK);
    w->s_counter = tconv_string_intern_cstr(ctx, PF_META_COUNTER);
    w->s_pid = tconv_string_intern_cstr(ctx, "pid");
    w->s_tid = tconv_string_intern_cstr(ctx, "tid");
    w->s_kind = tconv_string_intern_cstr(ctx, "kind");
    w->s_name = tconv_string_intern_cstr(ctx, "name");
    w->s_id = tconv_string_intern_cstr(ctx, "id");
    w->s_ithread = tconv_string_intern_cstr(ctx, "thread");
    w->s_isort = tconv_string_intern_cstr(ctx, "thread_sort");
    *state = w;
    return TCONV_OK;
}

static const tconv_option_desc pf_w_options[] = {
    {"gzip", TCONV_OPT_BOOL, "false", NULL,
     "gzip the trace (Perfetto opens .pftrace.gz); default: when the output name ends in .gz"},
    {"level", TCONV_OPT_INT, "6", "1..9", "gzip level"},
    {"clock", TCONV_OPT_ENUM, "sequence", "sequence|boottime",
     "sequence: times from the trace's first, on a clock of the sequence that a clock snapshot "
     "ties to BOOTTIME (shorter); boottime: nanoseconds as they are, on the default clock"},
    {0},
};

const tconv_writer_class pf_writer_class = {
    .struct_size = sizeof(tconv_writer_class),
    .name = "perfetto",
    .description = "Perfetto protobuf trace (TrackEvent): slices, instants, counters, flows, "
                   "args, callstack samples",
    .options = pf_w_options,
    .accepts = TCONV_KINDS_ALL,
    .flags = TCONV_WRITER_ORDERED | TCONV_WRITER_BINARY,
    .open = pf_w_open,
    .event = pf_w_event,
    .finish = pf_w_finish,
    .destroy = pf_w_destroy,
    .extensions = "pftrace|perfetto-trace|pftrace.gz|perfetto-trace.gz",
};
