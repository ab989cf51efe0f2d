/* Sample labels. The ones that say which thread or process a sample comes from (tconv's own
 * pid/tid/thread/process, parca's thread_id/thread_name, the eBPF agents' pid/comm) make the
 * sample's track, so that per-thread writers keep the threads apart and pprof -> pprof writes
 * them back; every other label becomes an arg of the sample: a string as text, a number as an
 * integer, its unit (when the label has one) as a second arg "<key>.unit". */
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "pprof_reader.h"

enum { PPROF_F_SAMPLE = 2 };

typedef enum {
    PPROF_L_OTHER,
    PPROF_L_PID,
    PPROF_L_TID,
    PPROF_L_THREAD,
    PPROF_L_PROCESS
} pprof_lkind;

static pprof_lkind pprof_rlabels_kind(const char *key)
{
    static const struct {
        const char *key;
        pprof_lkind kind;
    } keys[] = {
        {"pid", PPROF_L_PID},         {"process_id", PPROF_L_PID},
        {"tid", PPROF_L_TID},         {"thread_id", PPROF_L_TID},
        {"thread", PPROF_L_THREAD},   {"thread_name", PPROF_L_THREAD},
        {"process", PPROF_L_PROCESS}, {"process_name", PPROF_L_PROCESS},
        {"comm", PPROF_L_PROCESS},
    };
    for (size_t i = 0; i < sizeof keys / sizeof keys[0]; i++)
        if (strcmp(key, keys[i].key) == 0) return keys[i].kind;
    return PPROF_L_OTHER;
}

/* The label's value as text: its string, or its number in decimal. */
static tconv_str pprof_rlabels_text(pprof_reader *r, const Perftools__Profiles__Label *l,
                                    tconv_str str)
{
    if (l->str) return str;
    char buf[24];
    snprintf(buf, sizeof buf, "%" PRId64, l->num);
    return tconv_string_intern_cstr(r->ctx, buf);
}

static tconv_status pprof_rlabels_meta(pprof_reader *r, uint32_t track, tconv_str what,
                                       tconv_str text)
{
    tconv_event ev = TCONV_EVENT_INIT;
    ev.kind = TCONV_EV_METADATA;
    ev.track = track;
    ev.name = what;
    ev.text = text;
    return tconv_sink_push(r->sink, &ev) == TCONV_FATAL ? TCONV_FATAL : TCONV_OK;
}

tconv_status pprof_rlabels_sample(pprof_reader *r, const Perftools__Profiles__Sample *s,
                                  size_t index, uint32_t *track, uint32_t *nargs)
{
    tconv_str pid = 0, tid = 0, thread = 0, process = 0;
    uint32_t n = 0;
    for (size_t i = 0; i < s->n_label; i++) {
        const Perftools__Profiles__Label *l = s->label[i];
        tconv_str key, str, unit;
        if (pprof_reader_str(r, l->key, "sample", PPROF_F_SAMPLE, index, &key) != 0 ||
            pprof_reader_str(r, l->str, "sample", PPROF_F_SAMPLE, index, &str) != 0 ||
            pprof_reader_str(r, l->num_unit, "sample", PPROF_F_SAMPLE, index, &unit) != 0)
            return TCONV_FATAL;
        switch (pprof_rlabels_kind(tconv_string_get(r->ctx, key))) {
        case PPROF_L_PID:
            pid = pprof_rlabels_text(r, l, str);
            continue;
        case PPROF_L_TID:
            tid = pprof_rlabels_text(r, l, str);
            continue;
        case PPROF_L_THREAD:
            thread = pprof_rlabels_text(r, l, str);
            continue;
        case PPROF_L_PROCESS:
            process = pprof_rlabels_text(r, l, str);
            continue;
        case PPROF_L_OTHER:
            break;
        }
        if (!r->want_args) continue;
        TCONV_ARRAY_GROW(r->args, r->args_cap, (size_t)n + 2);
        tconv_arg *a = &r->args[n++];
        a->key = key;
        if (l->str) {
            a->type = TCONV_ARG_STRING;
            a->v.s = str;
        } else {
            a->type = TCONV_ARG_INT;
            a->v.i = l->num;
            if (unit) {
                const char *k = tconv_string_get(r->ctx, key);
                char buf[256];
                snprintf(buf, sizeof buf, "%s.unit", k);
                a = &r->args[n++];
                a->key = tconv_string_intern_cstr(r->ctx, buf);
                a->type = TCONV_ARG_STRING;
                a->v.s = unit;
            }
        }
    }
    *nargs = n;
    /* A thread known by its name alone is keyed by the name. */
    if (!tid) tid = thread;
    if (!pid && !tid) pid = tid = r->s_empty;
    if (!pid) pid = r->s_empty;
    if (!tid) tid = r->s_empty;
    if (!r->have_track || pid != r->last_pid || tid != r->last_tid || thread != r->last_thread ||
        process != r->last_process) {
        r->track = tconv_track_get(r->ctx, pid, tid);
        r->have_track = 1;
        r->last_pid = pid;
        r->last_tid = tid;
        r->last_thread = thread;
        r->last_process = process;
        const tconv_track *t = tconv_track_describe(r->ctx, r->track);
        if (thread && t && t->thread_name != thread &&
            pprof_rlabels_meta(r, r->track, r->s_thread_name, thread) != TCONV_OK)
            return TCONV_FATAL;
        t = tconv_track_describe(r->ctx, r->track);
        if (process && t && t->process_name != process &&
            pprof_rlabels_meta(r, r->track, r->s_process_name, process) != TCONV_OK)
            return TCONV_FATAL;
    }
    *track = r->track;
    return TCONV_OK;
}
