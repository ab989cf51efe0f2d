/* Mapping of one Chrome trace event (a collected record) to the event model, phase by phase.
 * Whatever the model cannot hold is counted by phase through a warning kind, never dropped
 * silently. */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "chrome_reader.h"
#include "chrome_time.h"

enum {
    CHROME_TF_KIND = 1u << 0,  /* the track's kind was set */
    CHROME_TF_NAMED = 1u << 1, /* a synthetic track got its thread_name */
    CHROME_TF_HOST = 1u << 2   /* the track got its host metadata */
};

static const char *chrome_text_of(const chrome_record *rec, chrome_field f, size_t *len)
{
    const char *s = chrome_record_scalar(rec, f, len);
    if (!s) {
        *len = 0;
        return "";
    }
    return s;
}

static int chrome_span_is(const chrome_record *rec, chrome_span s, const char *lit)
{
    size_t n = strlen(lit);
    return s.len == n && memcmp(chrome_record_str(rec, s), lit, n) == 0;
}

static int chrome_field_is(const chrome_record *rec, chrome_field f, const char *lit)
{
    const chrome_val *v = &rec->f[f];
    return v->type == CHROME_V_STRING && chrome_span_is(rec, v->s, lit);
}

static int chrome_field_true(const chrome_record *rec, chrome_field f)
{
    const chrome_val *v = &rec->f[f];
    return v->type == CHROME_V_BOOL && chrome_record_str(rec, v->s)[0] == 't';
}

/* tconv_string_intern through the reader's cache (the same id: ids never change in a run). */
static tconv_str chrome_intern(chrome_reader *r, const char *s, size_t n)
{
    if (n == 0 || n > CHROME_INTERN_KEY) return tconv_string_intern(r->ctx, s, n);
    const unsigned char *u = (const unsigned char *)s;
    chrome_intern_slot *c =
        &r->icache[(n * 31 + u[0] * 7 + u[n / 2] * 3 + u[n - 1]) % CHROME_INTERN_CACHE];
    if (c->len == n && chrome_text_eq(c->key, s, n)) return c->id;
    tconv_str id = tconv_string_intern(r->ctx, s, n);
    c->len = (uint8_t)n;
    memcpy(c->key, s, n);
    c->id = id;
    return id;
}

static tconv_str chrome_intern_val(chrome_reader *r, const chrome_record *rec, const chrome_val *v)
{
    if (v->type == CHROME_V_NONE || v->type == CHROME_V_NULL) return 0;
    return chrome_intern(r, chrome_record_str(rec, v->s), v->s.len);
}

static const chrome_kv *chrome_kv_find(const chrome_record *rec, const chrome_kvs *kvs,
                                       const char *key)
{
    for (size_t i = 0; i < kvs->n; i++)
        if (chrome_span_is(rec, kvs->v[i].key, key)) return &kvs->v[i];
    return NULL;
}

/* ---- warnings ---------------------------------------------------------------------------- */

tconv_status chrome_emit_bad(chrome_reader *r, const chrome_record *rec, const char *fmt, ...)
{
    char msg[256];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    if (r->strict) {
        tconv_error_at(r->ctx, r->input_name, rec->offset, "invalid event: %s", msg);
        return TCONV_FATAL;
    }
    tconv_warning_add(r->ctx, "chrome.bad-event", "%s:%llu: event skipped: %s", r->input_name,
                      (unsigned long long)rec->offset, msg);
    return TCONV_RECORD;
}

static const char *chrome_phase_title(char ph)
{
    switch (ph) {
    case 'N':
        return "object created";
    case 'O':
        return "object snapshot";
    case 'D':
        return "object destroyed";
    case 'c':
        return "clock sync";
    case 'V':
    case 'v':
        return "memory dump";
    case '(':
    case ')':
        return "context";
    case '=':
        return "linked id";
    default:
        return "unknown phase";
    }
}

static tconv_status chrome_unsupported(chrome_reader *r, const chrome_record *rec, char ph,
                                       const char *prefix)
{
    char kind[40];
    if (ph > 0x20 && ph < 0x7f)
        snprintf(kind, sizeof kind, "chrome.%s-%c", prefix, ph);
    else
        snprintf(kind, sizeof kind, "chrome.%s-0x%02x", prefix, (unsigned char)ph);
    tconv_warning_add(r->ctx, kind,
                      "%s:%llu: phase '%c' (%s) has no counterpart in the event model: such "
                      "events are not converted",
                      r->input_name, (unsigned long long)rec->offset, ph, chrome_phase_title(ph));
    return TCONV_OK;
}

/* ---- tracks ------------------------------------------------------------------------------ */

static uint8_t *chrome_tflags(chrome_reader *r, uint32_t track)
{
    if (track >= r->ntrack_flags) {
        size_t n = r->ntrack_flags ? r->ntrack_flags : 64;
        while (n <= track)
            n *= 2;
        uint8_t *q = realloc(r->track_flags, n);
        if (!q) return NULL;
        memset(q + r->ntrack_flags, 0, n - r->ntrack_flags);
        r->track_flags = q;
        r->ntrack_flags = n;
    }
    return &r->track_flags[track];
}

static uint32_t chrome_track(chrome_reader *r, const char *pid, size_t plen, const char *tid,
                             size_t tlen)
{
    /* Most events land on the track of the event before: skip interning for those. */
    int cacheable = plen + tlen <= CHROME_TRACK_KEY;
    if (cacheable) {
        for (unsigned i = 0; i < CHROME_TRACK_CACHE; i++) {
            const chrome_track_slot *c = &r->tcache[i];
            if (c->plen == plen && c->tlen == tlen && c->track != UINT32_MAX &&
                chrome_text_eq(c->key, pid, plen) && chrome_text_eq(c->key + plen, tid, tlen))
                return c->track;
        }
    }
    tconv_str p = tconv_string_intern(r->ctx, pid, plen);
    tconv_str t = tconv_string_intern(r->ctx, tid, tlen);
    uint32_t track = tconv_track_get(r->ctx, p, t);
    if (cacheable) {
        chrome_track_slot *c = &r->tcache[r->tcache_next++ % CHROME_TRACK_CACHE];
        c->plen = (uint8_t)plen;
        c->tlen = (uint8_t)tlen;
        memcpy(c->key, pid, plen);
        memcpy(c->key + plen, tid, tlen);
        c->track = track;
    }
    return track;
}

static uint32_t chrome_thread_track(chrome_reader *r, const chrome_record *rec)
{
    size_t plen, tlen;
    const char *pid = chrome_text_of(rec, CHROME_F_PID, &plen);
    const char *tid = chrome_text_of(rec, CHROME_F_TID, &tlen);
    return chrome_track(r, pid, plen, tid, tlen);
}

static tconv_status chrome_push(chrome_reader *r, const tconv_event *ev);
static tconv_status chrome_oom_status(chrome_reader *r);

/* Every process of a TensorFlow trace carries its host, as the tfmem reader's tracks do, so that
 * a writer grouping processes by host finds it on whichever of them it looks at. */
static tconv_status chrome_process_track(chrome_reader *r, const chrome_record *rec,
                                         uint32_t *track)
{
    size_t plen;
    const char *pid = chrome_text_of(rec, CHROME_F_PID, &plen);
    *track = chrome_track(r, pid, plen, "", 0);
    if (!r->host) return TCONV_OK;
    uint8_t *f = chrome_tflags(r, *track);
    if (!f) return chrome_oom_status(r);
    if (*f & CHROME_TF_HOST) return TCONV_OK;
    *f |= CHROME_TF_HOST;
    /* Whether this is the track's first event is the calling thread's to know. */
    if (r->part) return chrome_hand_over(r, rec), TCONV_OK;
    tconv_event meta = TCONV_EVENT_INIT;
    meta.kind = TCONV_EV_METADATA;
    meta.track = *track;
    meta.name = tconv_string_intern_cstr(r->ctx, "host");
    meta.text = r->host;
    return chrome_push(r, &meta);
}

/* The first kind given to a track stays. 1 when this is the track's first kind and a part's
 * reader must hand the element over instead (that it is the first is the calling thread's to
 * know): the caller maps nothing more of it. */
static int chrome_first_kind(chrome_reader *r, uint32_t track, tconv_track_kind kind)
{
    uint8_t *f = chrome_tflags(r, track);
    if (f && (*f & CHROME_TF_KIND)) return 0;
    if (f) *f |= CHROME_TF_KIND;
    if (r->part) return 1;
    tconv_track_set_kind(r->ctx, track, kind);
    return 0;
}

/* chrome_first_kind for a record, handed over when it must be. */
static int chrome_set_kind(chrome_reader *r, const chrome_record *rec, uint32_t track,
                           tconv_track_kind kind)
{
    return chrome_first_kind(r, track, kind) ? chrome_hand_over(r, rec) : 0;
}

/* GPU activity in Kineto (CUDA, ROCm, MTIA) lives on one track per stream or queue. */
static int chrome_is_gpu(const chrome_record *rec, unsigned role)
{
    if (tconv_role_is_gpu(role) || role == TCONV_ROLE_GPU_ANNOTATION) return 1;
    size_t n;
    const char *tid = chrome_record_scalar(rec, CHROME_F_TID, &n);
    return tid && rec->f[CHROME_F_TID].type == CHROME_V_STRING && n > 7 &&
           memcmp(tid, "stream ", 7) == 0;
}

/* The core's table knows the categories; Kineto marks a step only in the name. */
static unsigned chrome_role(chrome_reader *r, const tconv_event *ev)
{
    unsigned role = tconv_role_of_category(r->ctx, ev->cat);
    if (role == TCONV_ROLE_ANNOTATION &&
        strncmp(tconv_string_get(r->ctx, ev->name), "ProfilerStep#", 13) == 0)
        role = TCONV_ROLE_STEP;
    return role;
}

/* ---- values ------------------------------------------------------------------------------ */

/* 0 when set, 1 when absent, -1 when not a number, -2 when out of range. */
static int chrome_time(const chrome_record *rec, chrome_field f, int64_t *ns)
{
    const chrome_val *v = &rec->f[f];
    if (v->type == CHROME_V_NONE) return 1;
    if (v->type != CHROME_V_NUMBER && v->type != CHROME_V_STRING) return -1;
    chrome_num_status st = chrome_num_scaled(chrome_record_str(rec, v->s), v->s.len, 3, ns);
    if (st == CHROME_NUM_OK && (*ns <= -CHROME_TIME_LIMIT || *ns >= CHROME_TIME_LIMIT))
        st = CHROME_NUM_RANGE;
    return st == CHROME_NUM_OK ? 0 : st == CHROME_NUM_RANGE ? -2 : -1;
}

static int chrome_is_integer_text(const char *s, size_t n)
{
    size_t i = s[0] == '-';
    if (i == n) return 0;
    for (; i < n; i++)
        if (s[i] < '0' || s[i] > '9') return 0;
    return 1;
}

static void chrome_number_arg(const char *s, size_t n, tconv_arg *a)
{
    if (chrome_is_integer_text(s, n)) {
        int64_t v;
        if (chrome_num_scaled(s, n, 0, &v) == CHROME_NUM_OK) {
            a->type = TCONV_ARG_INT;
            a->v.i = v;
            return;
        }
        if (s[0] != '-') {
            uint64_t u = 0;
            size_t i = 0;
            for (; i < n; i++) {
                unsigned d = (unsigned)(s[i] - '0');
                if (u > (UINT64_MAX - d) / 10) break;
                u = u * 10 + d;
            }
            if (i == n) {
                a->type = TCONV_ARG_UINT;
                a->v.u = u;
                return;
            }
        }
    }
    a->type = TCONV_ARG_DOUBLE;
    a->v.d = strtod(s, NULL);
}

/* A numeric value for counters: JSON numbers and numeric strings. */
static int chrome_number_value(const chrome_record *rec, const chrome_val *v, double *out)
{
    if (v->type != CHROME_V_NUMBER && v->type != CHROME_V_STRING) return -1;
    const char *s = chrome_record_str(rec, v->s);
    if (v->type == CHROME_V_STRING) {
        int64_t check;
        if (chrome_num_scaled(s, v->s.len, 0, &check) == CHROME_NUM_INVALID) return -1;
    }
    *out = strtod(s, NULL);
    return 0;
}

static int chrome_args(chrome_reader *r, const chrome_record *rec, const chrome_kvs *kvs,
                       uint32_t *n)
{
    *n = 0;
    if (!kvs->n || !r->args_wanted) return 0;
    if (chrome_reserve((void **)&r->targs, &r->targs_cap, kvs->n, sizeof(tconv_arg))) return -1;
    for (size_t i = 0; i < kvs->n; i++) {
        const chrome_kv *kv = &kvs->v[i];
        tconv_arg *a = &r->targs[i];
        memset(a, 0, sizeof *a);
        a->key = tconv_string_intern(r->ctx, chrome_record_str(rec, kv->key), kv->key.len);
        const char *s = chrome_record_str(rec, kv->val.s);
        switch (kv->val.type) {
        case CHROME_V_STRING:
            a->type = TCONV_ARG_STRING;
            a->v.s = tconv_string_intern(r->ctx, s, kv->val.s.len);
            break;
        case CHROME_V_NUMBER:
            chrome_number_arg(s, kv->val.s.len, a);
            break;
        case CHROME_V_BOOL:
            a->type = TCONV_ARG_BOOL;
            a->v.i = s[0] == 't';
            break;
        case CHROME_V_JSON:
            a->type = TCONV_ARG_JSON;
            a->v.s = tconv_string_intern(r->ctx, s, kv->val.s.len);
            break;
        default:
            a->type = TCONV_ARG_NULL;
            break;
        }
    }
    *n = (uint32_t)kvs->n;
    return 0;
}

/* An id as a number: decimal or 0x-hex text as its value, anything else hashed. */
static uint64_t chrome_id_value(const char *s, size_t n)
{
    uint64_t v = 0;
    size_t i = 0;
    int hex = n > 2 && s[0] == '0' && (s[1] == 'x' || s[1] == 'X');
    if (hex) i = 2;
    if (i < n && n - i <= (hex ? 16u : 19u)) {
        for (; i < n; i++) {
            char c = s[i];
            unsigned d;
            if (c >= '0' && c <= '9')
                d = (unsigned)(c - '0');
            else if (hex && c >= 'a' && c <= 'f')
                d = (unsigned)(c - 'a' + 10);
            else if (hex && c >= 'A' && c <= 'F')
                d = (unsigned)(c - 'A' + 10);
            else
                break;
            v = v * (hex ? 16u : 10u) + d;
        }
        if (i == n) return v;
    }
    return chrome_hash(s, n, CHROME_HASH_SEED);
}

/* Build text in r->tmp from pieces, with sep between them unless sep is 0; returns its length
 * or (size_t)-1. */
static size_t chrome_tmp_join(chrome_reader *r, const char *const *parts, const size_t *lens,
                              size_t n, char sep)
{
    size_t total = 0;
    for (size_t i = 0; i < n; i++)
        total += lens[i] + 1;
    if (chrome_reserve((void **)&r->tmp, &r->tmp_cap, total + 1, 1)) return (size_t)-1;
    size_t o = 0;
    for (size_t i = 0; i < n; i++) {
        if (i && sep) r->tmp[o++] = sep;
        memcpy(r->tmp + o, parts[i], lens[i]);
        o += lens[i];
    }
    r->tmp[o] = '\0';
    return o;
}

static tconv_status chrome_push(chrome_reader *r, const tconv_event *ev)
{
    tconv_status st = tconv_sink_push(r->sink, ev);
    if (st == TCONV_FATAL) return TCONV_FATAL;
    r->nemitted++;
    return TCONV_OK;
}

static tconv_status chrome_oom_status(chrome_reader *r)
{
    tconv_error_set(r->ctx, "chrome: out of memory");
    return TCONV_FATAL;
}

/* ---- phases ------------------------------------------------------------------------------ */

static void chrome_common(chrome_reader *r, const chrome_record *rec, tconv_event *ev)
{
    ev->name = chrome_intern_val(r, rec, &rec->f[CHROME_F_NAME]);
    ev->cat = chrome_intern_val(r, rec, &rec->f[CHROME_F_CAT]);
}

/* The flow's id as the producer wrote it, as one more arg (when args are read): the event's id
 * is a hash that keeps flows of different categories apart, while a Kineto flow id is the
 * correlation id users join on. The key says which member it was: "id", "id2.local" or
 * "id2.global" (the Chrome writer writes it back there); a number stays a number. An arg of
 * that name the producer gave itself is left as it is. */
static int chrome_flow_id_arg(chrome_reader *r, const chrome_record *rec, chrome_field f,
                              const char *key, uint32_t *nargs)
{
    const chrome_val *v = &rec->f[f];
    if (!r->args_wanted || (v->type != CHROME_V_NUMBER && v->type != CHROME_V_STRING)) return 0;
    tconv_str k = tconv_string_intern_cstr(r->ctx, key);
    for (uint32_t i = 0; i < *nargs; i++)
        if (r->targs[i].key == k) return 0;
    if (chrome_reserve((void **)&r->targs, &r->targs_cap, *nargs + 1, sizeof(tconv_arg))) return -1;
    tconv_arg *a = &r->targs[(*nargs)++];
    memset(a, 0, sizeof *a);
    a->key = k;
    const char *s = chrome_record_str(rec, v->s);
    if (v->type == CHROME_V_NUMBER) {
        chrome_number_arg(s, v->s.len, a);
    } else {
        a->type = TCONV_ARG_STRING;
        a->v.s = tconv_string_intern(r->ctx, s, v->s.len);
    }
    return 0;
}

/* Perfetto's flow v2: "bind_id" with "flow_in"/"flow_out" on the slice itself. */
static tconv_status chrome_flow_v2(chrome_reader *r, const chrome_record *rec,
                                   const tconv_event *slice)
{
    size_t n;
    const char *bind = chrome_record_scalar(rec, CHROME_F_BIND_ID, &n);
    if (!bind) return TCONV_OK;
    int in = chrome_field_true(rec, CHROME_F_FLOW_IN),
        out = chrome_field_true(rec, CHROME_F_FLOW_OUT);
    if (!in && !out) return TCONV_OK;
    tconv_event ev = TCONV_EVENT_INIT;
    ev.kind = in && out ? TCONV_EV_FLOW_STEP : out ? TCONV_EV_FLOW_START : TCONV_EV_FLOW_END;
    ev.flags = TCONV_EVF_BIND_ENCLOSING;
    ev.track = slice->track;
    ev.ts = slice->ts;
    ev.cat = slice->cat;
    ev.id = chrome_hash(bind, n, chrome_hash("flow2", 5, CHROME_HASH_SEED));
    if (chrome_flow_id_arg(r, rec, CHROME_F_BIND_ID, "id", &ev.nargs)) return chrome_oom_status(r);
    ev.args = ev.nargs ? r->targs : NULL;
    return chrome_push(r, &ev);
}

static tconv_status chrome_span_event(chrome_reader *r, const chrome_record *rec, char ph,
                                      int64_t ts)
{
    tconv_event ev = TCONV_EVENT_INIT;
    ev.kind = ph == 'B' ? TCONV_EV_BEGIN : ph == 'E' ? TCONV_EV_END : TCONV_EV_COMPLETE;
    ev.track = chrome_thread_track(r, rec);
    ev.ts = ts;
    if (ph == 'X') {
        int d = chrome_time(rec, CHROME_F_DUR, &ev.dur);
        if (d == 1)
            ev.dur = 0;
        else if (d == -2 || (d == 0 && ev.dur >= CHROME_TIME_LIMIT - ts))
            return chrome_emit_bad(r, rec, "\"dur\" is out of range");
        else if (d < 0)
            return chrome_emit_bad(r, rec, "\"dur\" is not a number");
        else if (ev.dur < 0)
            return chrome_emit_bad(r, rec, "\"dur\" is negative");
    }
    chrome_common(r, rec, &ev);
    ev.role = (uint16_t)chrome_role(r, &ev);
    if (chrome_args(r, rec, &rec->args, &ev.nargs)) return chrome_oom_status(r);
    ev.args = ev.nargs ? r->targs : NULL;
    if (chrome_is_gpu(rec, ev.role) && chrome_set_kind(r, rec, ev.track, TCONV_TRACK_GPU))
        return TCONV_OK;
    if (chrome_push(r, &ev) == TCONV_FATAL) return TCONV_FATAL;
    return ph == 'E' ? TCONV_OK : chrome_flow_v2(r, rec, &ev);
}

/* chrome_span_event for what the fast path reads: no args, no flow v2 members, times that
 * convert (chrome_fast.c checks them as chrome_dispatch and chrome_span_event do). The strings are
 * interned in the same order (pid and tid, name, category), so that ids come out the same. */
tconv_status chrome_emit_flat(chrome_reader *r, const chrome_flat *f)
{
    tconv_event ev = TCONV_EVENT_INIT;
    ev.kind = f->ph == 'B' ? TCONV_EV_BEGIN : f->ph == 'E' ? TCONV_EV_END : TCONV_EV_COMPLETE;
    ev.track = chrome_track(r, f->pid, f->plen, f->tid, f->tlen);
    ev.ts = f->ts;
    ev.dur = f->dur;
    ev.name = f->name ? chrome_intern(r, f->name, f->nlen) : 0;
    ev.cat = f->cat ? chrome_intern(r, f->cat, f->clen) : 0;
    ev.role = (uint16_t)chrome_role(r, &ev);
    /* chrome_is_gpu; the element is handed over by its input span (the fast path has no record;
     * nor does it set r->handed, which the general path's next record would read). */
    if ((tconv_role_is_gpu(ev.role) || ev.role == TCONV_ROLE_GPU_ANNOTATION ||
         (f->tid_string && f->tlen > 7 && memcmp(f->tid, "stream ", 7) == 0)) &&
        chrome_first_kind(r, ev.track, TCONV_TRACK_GPU)) {
        tconv_split_defer(r->sink, f->off, f->len);
        return TCONV_OK;
    }
    return chrome_push(r, &ev);
}

/* c10::DeviceType by value, as DeviceTypeName(type, lower_case) spells them. */
static const char *const chrome_device_types[] = {
    "cpu",  "cuda", "mkldnn", "opengl", "opencl", "ideep", "hip",
    "fpga", "maia", "xla",    "vulkan", "metal",  "xpu",   "mps",
    "meta", "hpu",  "ve",     "lazy",   "ipu",    "mtia",  "privateuseone"};

static void chrome_memory_warn(chrome_reader *r, const chrome_record *rec, const char *what)
{
    tconv_warning_add(r->ctx, "chrome.memory-event", "%s:%llu: [memory] event: %s", r->input_name,
                      (unsigned long long)rec->offset, what);
}

/* 0 with *out set, 1 when the arg is absent, -1 when it is not a number. */
static int chrome_memory_arg(const chrome_record *rec, const char *key, double *out)
{
    const chrome_kv *kv = chrome_kv_find(rec, &rec->args, key);
    if (!kv) return 1;
    return chrome_number_value(rec, &kv->val, out) ? -1 : 0;
}

static int chrome_memory_int(const chrome_record *rec, const char *key, long long *out)
{
    double d;
    /* Device types and indexes are small: the bound keeps the cast defined. */
    if (chrome_memory_arg(rec, key, &d) || !(d > -1e15 && d < 1e15) || (double)(long long)d != d)
        return -1;
    *out = (long long)d;
    return 0;
}

/* The device as torch names it (c10::Device::str()): "cpu", "cuda:1", "xpu:0"; the index is
 * left out when the trace gives none (-1), as torch does. */
static int chrome_memory_device(const chrome_record *rec, char *buf, size_t cap)
{
    long long type, id;
    if (chrome_memory_int(rec, "Device Type", &type)) return -1;
    if (type == 0) return snprintf(buf, cap, "cpu");
    int n =
        type > 0 && type < (long long)(sizeof chrome_device_types / sizeof chrome_device_types[0])
            ? snprintf(buf, cap, "%s", chrome_device_types[type])
            : snprintf(buf, cap, "device%lld", type);
    if (!chrome_memory_int(rec, "Device Id", &id) && id >= 0)
        n += snprintf(buf + n, cap - (size_t)n, ":%lld", id);
    return n;
}

/* The running sum of Bytes of (pid, device), updated with this event's Bytes. */
static int chrome_memory_sum(chrome_reader *r, const chrome_record *rec, const char *dev,
                             size_t devlen, int has_bytes, double bytes, double *sum)
{
    size_t plen;
    const char *pid = chrome_text_of(rec, CHROME_F_PID, &plen);
    /* A NUL between the parts: pid texts may hold any other byte. */
    const char *parts[] = {pid, "", dev};
    size_t lens[] = {plen, 1, devlen};
    size_t n = chrome_tmp_join(r, parts, lens, 3, 0);
    if (n == (size_t)-1) return -1;
    uint32_t *slot = chrome_strmap_find(&r->mem_keys, r->tmp, n);
    size_t i;
    if (slot) {
        i = *slot;
    } else {
        if (chrome_reserve((void **)&r->mem_sums, &r->mem_sums_cap, r->nmem_sums + 1,
                           sizeof *r->mem_sums) ||
            chrome_strmap_put(&r->mem_keys, r->tmp, n, (uint32_t)r->nmem_sums))
            return -1;
        i = r->nmem_sums++;
        r->mem_sums[i] = 0;
    }
    if (has_bytes) r->mem_sums[i] += bytes;
    *sum = r->mem_sums[i];
    return 0;
}

/* PyTorch's profile_memory: each [memory] instant is one allocation or free, with the device's
 * totals after it in newer traces. As counters, writers plot each device's memory over time. */
static tconv_status chrome_memory(chrome_reader *r, const chrome_record *rec, int64_t ts)
{
    char dev[64];
    int devlen = chrome_memory_device(rec, dev, sizeof dev);
    if (devlen < 0) {
        chrome_memory_warn(r, rec, "no integer \"Device Type\": no memory counters");
        return TCONV_OK;
    }
    double bytes = 0, allocated = 0, reserved = 0, sum;
    int b = chrome_memory_arg(rec, "Bytes", &bytes);
    int a = chrome_memory_arg(rec, "Total Allocated", &allocated);
    int s = chrome_memory_arg(rec, "Total Reserved", &reserved);
    if (b < 0 || a < 0 || s < 0)
        chrome_memory_warn(r, rec, "a value that is not a number is left out");
    else if (a != 0 && b != 0)
        chrome_memory_warn(r, rec, "neither \"Total Allocated\" nor \"Bytes\": no allocated bytes");
    if (chrome_memory_sum(r, rec, dev, (size_t)devlen, b == 0, bytes, &sum))
        return chrome_oom_status(r);
    if (a != 0 && b != 0 && s != 0) return TCONV_OK;
    if (!r->mem_cat) {
        r->mem_allocated = tconv_string_intern_cstr(r->ctx, "allocated bytes");
        r->mem_reserved = tconv_string_intern_cstr(r->ctx, "reserved bytes");
        r->mem_bytes = tconv_string_intern_cstr(r->ctx, "bytes");
        r->mem_cat = tconv_string_intern_cstr(r->ctx, "memory");
    }
    tconv_event ev = TCONV_EVENT_INIT;
    ev.kind = TCONV_EV_COUNTER;
    ev.ts = ts;
    if (chrome_process_track(r, rec, &ev.track) == TCONV_FATAL) return TCONV_FATAL;
    chrome_set_kind(r, rec, ev.track, TCONV_TRACK_PROCESS);
    ev.cat = r->mem_cat;
    ev.key = tconv_string_intern(r->ctx, dev, (size_t)devlen);
    ev.unit = r->mem_bytes;
    if (a == 0 || b == 0) {
        ev.name = r->mem_allocated;
        ev.value = a == 0 ? allocated : sum;
        if (chrome_push(r, &ev) == TCONV_FATAL) return TCONV_FATAL;
    }
    if (s == 0) {
        ev.name = r->mem_reserved;
        ev.value = reserved;
        if (chrome_push(r, &ev) == TCONV_FATAL) return TCONV_FATAL;
    }
    return TCONV_OK;
}

static tconv_status chrome_instant(chrome_reader *r, const chrome_record *rec, char ph, int64_t ts)
{
    int memory = ph != 'R' && chrome_field_is(rec, CHROME_F_NAME, "[memory]");
    /* Its counters are running sums over the input: the calling thread's to keep. */
    if (memory && r->part) return chrome_hand_over(r, rec), TCONV_OK;
    tconv_event ev = TCONV_EVENT_INIT;
    ev.kind = TCONV_EV_INSTANT;
    ev.ts = ts;
    if (ph != 'R' && chrome_field_is(rec, CHROME_F_S, "g")) {
        ev.flags = TCONV_EVF_SCOPE_GLOBAL;
        ev.track = chrome_track(r, "", 0, "", 0);
        if (chrome_set_kind(r, rec, ev.track, TCONV_TRACK_GLOBAL)) return TCONV_OK;
    } else if (ph != 'R' && chrome_field_is(rec, CHROME_F_S, "p")) {
        ev.flags = TCONV_EVF_SCOPE_PROCESS;
        if (chrome_process_track(r, rec, &ev.track) == TCONV_FATAL) return TCONV_FATAL;
        if (r->handed || chrome_set_kind(r, rec, ev.track, TCONV_TRACK_PROCESS)) return TCONV_OK;
    } else {
        ev.track = chrome_thread_track(r, rec);
    }
    chrome_common(r, rec, &ev);
    if (chrome_args(r, rec, &rec->args, &ev.nargs)) return chrome_oom_status(r);
    ev.args = ev.nargs ? r->targs : NULL;
    if (chrome_push(r, &ev) == TCONV_FATAL) return TCONV_FATAL;
    return memory ? chrome_memory(r, rec, ts) : TCONV_OK;
}

static tconv_status chrome_counter(chrome_reader *r, const chrome_record *rec, int64_t ts)
{
    tconv_event ev = TCONV_EVENT_INIT;
    ev.kind = TCONV_EV_COUNTER;
    ev.ts = ts;
    if (chrome_process_track(r, rec, &ev.track) == TCONV_FATAL) return TCONV_FATAL;
    if (r->handed || chrome_set_kind(r, rec, ev.track, TCONV_TRACK_PROCESS)) return TCONV_OK;
    ev.cat = chrome_intern_val(r, rec, &rec->f[CHROME_F_CAT]);
    size_t nlen, idlen;
    const char *name = chrome_text_of(rec, CHROME_F_NAME, &nlen);
    const char *id = chrome_record_scalar(rec, CHROME_F_ID, &idlen);
    if (id) {
        /* A counter with an id is its own series, shown as "name[id]" as the trace viewer
         * does. */
        const char *parts[] = {name, "[", id, "]"};
        size_t lens[] = {nlen, 1, idlen, 1};
        size_t n = chrome_tmp_join(r, parts, lens, 4, 0);
        if (n == (size_t)-1) return chrome_oom_status(r);
        ev.name = tconv_string_intern(r->ctx, r->tmp, n);
        ev.id = chrome_id_value(id, idlen);
    } else {
        ev.name = tconv_string_intern(r->ctx, name, nlen);
    }
    for (size_t i = 0; i < rec->args.n; i++) {
        const chrome_kv *kv = &rec->args.v[i];
        if (chrome_number_value(rec, &kv->val, &ev.value)) {
            tconv_warning_add(r->ctx, "chrome.counter-value",
                              "%s:%llu: counter \"%s\" series \"%s\" has a value that is not a "
                              "number: value skipped",
                              r->input_name, (unsigned long long)rec->offset, name,
                              chrome_record_str(rec, kv->key));
            continue;
        }
        ev.key = tconv_string_intern(r->ctx, chrome_record_str(rec, kv->key), kv->key.len);
        if (chrome_push(r, &ev) == TCONV_FATAL) return TCONV_FATAL;
    }
    return TCONV_OK;
}

/* b/n/e and S/T/p/F: one async track per (category, scope, id), within the process unless the
 * id is id2.global. */
static tconv_status chrome_async(chrome_reader *r, const chrome_record *rec, char ph, int64_t ts)
{
    size_t plen, catlen, idlen = 0, scopelen;
    const char *pid = chrome_text_of(rec, CHROME_F_PID, &plen);
    const char *cat = chrome_text_of(rec, CHROME_F_CAT, &catlen);
    const char *scope = chrome_text_of(rec, CHROME_F_SCOPE, &scopelen);
    const char *id = chrome_record_scalar(rec, CHROME_F_ID2_GLOBAL, &idlen);
    const char *tag = "global";
    if (id) {
        pid = "";
        plen = 0;
    } else if ((id = chrome_record_scalar(rec, CHROME_F_ID2_LOCAL, &idlen)) != NULL) {
        tag = "local";
    } else {
        id = chrome_text_of(rec, CHROME_F_ID, &idlen);
        tag = NULL;
    }
    /* The synthetic tid reads "async:cat[:scope][:local|:global]:id". */
    const char *parts[5] = {"async", cat};
    size_t lens[5] = {5, catlen};
    size_t np = 2;
    if (scopelen) {
        parts[np] = scope;
        lens[np++] = scopelen;
    }
    if (tag) {
        parts[np] = tag;
        lens[np++] = strlen(tag);
    }
    parts[np] = id;
    lens[np++] = idlen;
    size_t n = chrome_tmp_join(r, parts, lens, np, ':');
    if (n == (size_t)-1) return chrome_oom_status(r);

    tconv_event ev = TCONV_EVENT_INIT;
    ev.track = chrome_track(r, pid, plen, r->tmp, n);
    ev.flags = TCONV_EVF_ASYNC;
    ev.role = TCONV_ROLE_ASYNC;
    ev.ts = ts;
    ev.id = chrome_id_value(id, idlen);
    chrome_common(r, rec, &ev);
    switch (ph) {
    case 'b':
    case 'S':
        ev.kind = TCONV_EV_BEGIN;
        break;
    case 'e':
    case 'F':
        ev.kind = TCONV_EV_END;
        break;
    default:
        ev.kind = TCONV_EV_INSTANT;
        break;
    }
    uint8_t *f = chrome_tflags(r, ev.track);
    if (!f) return chrome_oom_status(r);
    if (!(*f & CHROME_TF_NAMED)) {
        /* The track is named after its first event in the input: the calling thread's to
         * know. After that element, it is named and has its kind. */
        if (r->part) {
            *f |= CHROME_TF_NAMED | CHROME_TF_KIND;
            return chrome_hand_over(r, rec), TCONV_OK;
        }
        chrome_set_kind(r, rec, ev.track, TCONV_TRACK_ASYNC);
        /* The track is named after the first event on it, as trace viewers label async rows. */
        tconv_event meta = TCONV_EVENT_INIT;
        meta.kind = TCONV_EV_METADATA;
        meta.track = ev.track;
        meta.ts = ts;
        meta.name = tconv_string_intern_cstr(r->ctx, "thread_name");
        meta.text = ev.name;
        if (chrome_push(r, &meta) == TCONV_FATAL) return TCONV_FATAL;
        f = chrome_tflags(r, ev.track);
        *f |= CHROME_TF_NAMED;
    }
    if (chrome_args(r, rec, &rec->args, &ev.nargs)) return chrome_oom_status(r);
    ev.args = ev.nargs ? r->targs : NULL;
    return chrome_push(r, &ev);
}

/* The flow hash over "flow1", the category and the name (each with its NUL). */
static uint64_t chrome_flow_prefix(chrome_reader *r, const char *cat, size_t catlen,
                                   const char *name, size_t namelen)
{
    if (catlen == r->flow_catlen && namelen == r->flow_namelen &&
        memcmp(r->flow_key, cat, catlen) == 0 && memcmp(r->flow_key + catlen, name, namelen) == 0)
        return r->flow_hash;
    uint64_t h = chrome_hash("flow1", 6, CHROME_HASH_SEED);
    h = chrome_hash(cat, catlen + 1, h);
    h = chrome_hash(name, namelen + 1, h);
    if (catlen + namelen <= sizeof r->flow_key) {
        memcpy(r->flow_key, cat, catlen);
        memcpy(r->flow_key + catlen, name, namelen);
        r->flow_catlen = catlen;
        r->flow_namelen = namelen;
        r->flow_hash = h;
    }
    return h;
}

/* s/t/f: a flow is (category, name, id) like in the trace viewer, with id2.local ids scoped to
 * the process. */
static tconv_status chrome_flow(chrome_reader *r, const chrome_record *rec, char ph, int64_t ts)
{
    size_t catlen, namelen, idlen, plen = 0;
    const char *cat = chrome_text_of(rec, CHROME_F_CAT, &catlen);
    const char *name = chrome_text_of(rec, CHROME_F_NAME, &namelen);
    const char *pid = "";
    const char *id = chrome_record_scalar(rec, CHROME_F_ID2_GLOBAL, &idlen);
    char tag = 'g';
    chrome_field idf = CHROME_F_ID2_GLOBAL;
    if (!id && (id = chrome_record_scalar(rec, CHROME_F_ID2_LOCAL, &idlen)) != NULL) {
        tag = 'l';
        idf = CHROME_F_ID2_LOCAL;
        pid = chrome_text_of(rec, CHROME_F_PID, &plen);
    }
    if (!id) {
        id = chrome_text_of(rec, CHROME_F_ID, &idlen);
        tag = 'i';
        idf = CHROME_F_ID;
    }
    uint64_t h = chrome_flow_prefix(r, cat, catlen, name, namelen);
    h = chrome_hash(&tag, 1, h);
    h = chrome_hash(pid, plen + 1, h);
    h = chrome_hash(id, idlen, h);

    tconv_event ev = TCONV_EVENT_INIT;
    ev.kind = ph == 's' ? TCONV_EV_FLOW_START : ph == 't' ? TCONV_EV_FLOW_STEP : TCONV_EV_FLOW_END;
    /* s and t bind to the enclosing slice; f to the next slice unless bp is "e". */
    ev.flags = ph != 'f' || chrome_field_is(rec, CHROME_F_BP, "e") ? TCONV_EVF_BIND_ENCLOSING
                                                                   : TCONV_EVF_BIND_NEXT;
    ev.track = chrome_thread_track(r, rec);
    ev.ts = ts;
    ev.id = h;
    chrome_common(r, rec, &ev);
    if (chrome_args(r, rec, &rec->args, &ev.nargs) ||
        chrome_flow_id_arg(r, rec, idf,
                           tag == 'i'   ? "id"
                           : tag == 'l' ? "id2.local"
                                        : "id2.global",
                           &ev.nargs))
        return chrome_oom_status(r);
    ev.args = ev.nargs ? r->targs : NULL;
    return chrome_push(r, &ev);
}

static void chrome_val_text(const chrome_record *rec, const chrome_val *v, const char **s,
                            size_t *n)
{
    *s = chrome_record_str(rec, v->s);
    *n = v->s.len;
}

/* The text of metadata args: the named arg when the name says which, else the only arg, else
 * all args as a JSON object. */
static tconv_str chrome_meta_text(chrome_reader *r, const chrome_record *rec, const char *key)
{
    const chrome_kv *kv = key ? chrome_kv_find(rec, &rec->args, key) : NULL;
    if (!kv && rec->args.n == 1) kv = &rec->args.v[0];
    const char *s;
    size_t n;
    if (kv) {
        if (kv->val.type == CHROME_V_NULL) return 0;
        chrome_val_text(rec, &kv->val, &s, &n);
        return chrome_intern(r, s, n);
    }
    if (!rec->args.n) return 0;
    chrome_jsonbuf_reset(&r->json);
    chrome_jsonbuf_open(&r->json, 'm');
    for (size_t i = 0; i < rec->args.n; i++) {
        const chrome_kv *a = &rec->args.v[i];
        chrome_jsonbuf_key(&r->json, chrome_record_str(rec, a->key), a->key.len);
        chrome_val_text(rec, &a->val, &s, &n);
        if (a->val.type == CHROME_V_STRING)
            chrome_jsonbuf_string(&r->json, s, n);
        else /* numbers, true/false/null and nested JSON are already JSON text */
            chrome_jsonbuf_raw(&r->json, s, n);
    }
    chrome_jsonbuf_close(&r->json);
    return r->json.oom ? 0 : tconv_string_intern(r->ctx, r->json.buf, r->json.len);
}

static tconv_status chrome_metadata(chrome_reader *r, const chrome_record *rec, int64_t ts)
{
    size_t nlen;
    const char *name = chrome_text_of(rec, CHROME_F_NAME, &nlen);
    tconv_event ev = TCONV_EVENT_INIT;
    ev.kind = TCONV_EV_METADATA;
    ev.ts = ts;
    /* Process metadata often carries tid 0 or none: keep it off the thread tracks so that it
     * does not create an empty thread. */
    int process = nlen > 8 && memcmp(name, "process_", 8) == 0;
    if (!process)
        ev.track = chrome_thread_track(r, rec);
    else if (chrome_process_track(r, rec, &ev.track) == TCONV_FATAL)
        return TCONV_FATAL;
    if (r->handed) return TCONV_OK;
    ev.name = chrome_intern(r, name, nlen);
    const char *key = NULL;
    if (chrome_field_is(rec, CHROME_F_NAME, "process_name") ||
        chrome_field_is(rec, CHROME_F_NAME, "thread_name"))
        key = "name";
    else if (chrome_field_is(rec, CHROME_F_NAME, "process_sort_index") ||
             chrome_field_is(rec, CHROME_F_NAME, "thread_sort_index"))
        key = "sort_index";
    else if (chrome_field_is(rec, CHROME_F_NAME, "process_labels"))
        key = "labels";
    ev.text = chrome_meta_text(r, rec, key);
    /* Kineto names a GPU stream "stream <id> <postfix>", the postfix mostly empty: the name
     * ends in a space nobody wrote on purpose ("stream 7 "). Thread names lose trailing
     * spaces; the args keep the name as written. */
    if (ev.text && chrome_field_is(rec, CHROME_F_NAME, "thread_name")) {
        const char *t = tconv_string_get(r->ctx, ev.text);
        size_t tn = tconv_string_length(r->ctx, ev.text);
        if (tn && t[tn - 1] == ' ') {
            while (tn && t[tn - 1] == ' ')
                tn--;
            ev.text = tconv_string_intern(r->ctx, t, tn);
        }
    }
    ev.cat = chrome_intern_val(r, rec, &rec->f[CHROME_F_CAT]);
    if (chrome_args(r, rec, &rec->args, &ev.nargs)) return chrome_oom_status(r);
    ev.args = ev.nargs ? r->targs : NULL;
    return chrome_push(r, &ev);
}

/* ---- samples ----------------------------------------------------------------------------- */

/* The pid of a thread known only by its tid (entries of "samples" may omit pid). */
static tconv_str chrome_pid_of_tid(chrome_reader *r, const char *tid, size_t tlen)
{
    tconv_str t = tconv_string_intern(r->ctx, tid, tlen);
    uint32_t input = tconv_input_index(r->in);
    uint32_t n = tconv_track_count(r->ctx);
    for (uint32_t i = 0; i < n; i++) {
        const tconv_track *tr = tconv_track_describe(r->ctx, i);
        if (tr && tr->input == input && tr->tid == t && tr->kind == TCONV_TRACK_THREAD)
            return tr->pid;
    }
    return 0;
}

static tconv_status chrome_sample(chrome_reader *r, const chrome_record *rec, chrome_src src,
                                  int64_t ts)
{
    /* Samples need the sample types set once, stackFrames, and the tracks before them. */
    if (r->part) return chrome_hand_over(r, rec), TCONV_OK;
    size_t sflen = 0, plen, tlen;
    const char *sf = chrome_record_scalar(rec, CHROME_F_SF, &sflen);
    const char *pid = chrome_record_scalar(rec, CHROME_F_PID, &plen);
    const char *tid = chrome_text_of(rec, CHROME_F_TID, &tlen);
    /* stackFrames or the events that tell a tid's pid may come later in the object. */
    int later = r->form == '{' && !r->at_end;
    if (later &&
        ((sf && !r->frames_seen) || (!pid && src == CHROME_SRC_SAMPLE && !r->events_closed)))
        return chrome_frames_defer(r, rec, src) ? chrome_oom_status(r) : TCONV_OK;

    tconv_event ev = TCONV_EVENT_INIT;
    ev.kind = TCONV_EV_SAMPLE;
    ev.ts = ts;
    if (pid) {
        ev.track = chrome_track(r, pid, plen, tid, tlen);
    } else {
        tconv_str p = src == CHROME_SRC_SAMPLE ? chrome_pid_of_tid(r, tid, tlen) : 0;
        ev.track = tconv_track_get(r->ctx, p, tconv_string_intern(r->ctx, tid, tlen));
    }
    chrome_common(r, rec, &ev);

    size_t nframes = 0;
    if (sf) {
        if (chrome_frames_stack(r, sf, sflen, &nframes)) {
            tconv_warning_add(r->ctx, "chrome.unknown-frame",
                              "%s:%llu: sample refers to stack frame \"%s\", which stackFrames "
                              "does not define: sample kept without frames",
                              r->input_name, (unsigned long long)rec->offset, sf);
            nframes = 0;
        }
    } else if (rec->nstack) {
        if (chrome_reserve((void **)&r->tframes, &r->tframes_cap, rec->nstack, sizeof(tconv_frame)))
            return chrome_oom_status(r);
        for (size_t i = 0; i < rec->nstack; i++) {
            memset(&r->tframes[i], 0, sizeof r->tframes[i]);
            r->tframes[i].name = tconv_string_intern(r->ctx, chrome_record_str(rec, rec->stack[i]),
                                                     rec->stack[i].len);
        }
        nframes = rec->nstack;
    }
    ev.frames = nframes ? r->tframes : NULL;
    ev.nframes = (uint32_t)nframes;

    int64_t values[2] = {1, 1};
    const chrome_val *w = &rec->f[CHROME_F_WEIGHT];
    if (w->type == CHROME_V_NUMBER || w->type == CHROME_V_STRING) {
        if (chrome_num_scaled(chrome_record_str(rec, w->s), w->s.len, 0, &values[1]) !=
            CHROME_NUM_OK)
            return chrome_emit_bad(r, rec, "\"weight\" is not a number");
    }
    ev.values = values;
    ev.nvalues = 2;
    if (!r->sampletypes_set) {
        static const tconv_sample_type types[] = {{"samples", "count"}, {"weight", "count"}};
        tconv_sampletypes_set(r->ctx, 2, types, 1);
        r->sampletypes_set = 1;
    }
    /* Members of a "samples" entry other than the known ones (cpu, ...) are its args. */
    if (chrome_args(r, rec, src == CHROME_SRC_SAMPLE ? &rec->extras : &rec->args, &ev.nargs))
        return chrome_oom_status(r);
    ev.args = ev.nargs ? r->targs : NULL;
    return chrome_push(r, &ev);
}

/* Fuchsia's systemTraceEvents: process and thread names. */
static tconv_status chrome_system(chrome_reader *r, const chrome_record *rec)
{
    size_t n;
    const char *ph = chrome_record_scalar(rec, CHROME_F_PH, &n);
    if (!ph || n != 1) return chrome_emit_bad(r, rec, "missing \"ph\"");
    if (ph[0] != 'p' && ph[0] != 't') return chrome_unsupported(r, rec, ph[0], "system-phase");
    tconv_event ev = TCONV_EVENT_INIT;
    ev.kind = TCONV_EV_METADATA;
    if (ph[0] != 'p')
        ev.track = chrome_thread_track(r, rec);
    else if (chrome_process_track(r, rec, &ev.track) == TCONV_FATAL)
        return TCONV_FATAL;
    ev.name = tconv_string_intern_cstr(r->ctx, ph[0] == 'p' ? "process_name" : "thread_name");
    ev.text = chrome_intern_val(r, rec, &rec->f[CHROME_F_NAME]);
    return chrome_push(r, &ev);
}

/* ---- entry points ------------------------------------------------------------------------ */

static tconv_status chrome_dispatch(chrome_reader *r, const chrome_record *rec, chrome_src src)
{
    if (src == CHROME_SRC_SYSTEM) return chrome_system(r, rec);
    size_t n;
    char ph = 'P';
    if (src == CHROME_SRC_EVENT) {
        const char *p = chrome_record_scalar(rec, CHROME_F_PH, &n);
        if (!p || rec->f[CHROME_F_PH].type != CHROME_V_STRING)
            return chrome_emit_bad(r, rec, "missing \"ph\"");
        if (n != 1) return chrome_emit_bad(r, rec, "unknown phase \"%.20s\"", p);
        ph = p[0];
    }
    int64_t ts = 0;
    int t = chrome_time(rec, CHROME_F_TS, &ts);
    if (t == 1 && ph != 'M') return chrome_emit_bad(r, rec, "missing \"ts\"");
    if (t == -1 && ph != 'M') return chrome_emit_bad(r, rec, "\"ts\" is not a number");
    if (t == -2 && ph != 'M') return chrome_emit_bad(r, rec, "\"ts\" is out of range");
    if (t) ts = 0;

    switch (ph) {
    case 'B':
    case 'E':
    case 'X':
        return chrome_span_event(r, rec, ph, ts);
    case 'i':
    case 'I':
    case 'R':
        return chrome_instant(r, rec, ph, ts);
    case 'C':
        return chrome_counter(r, rec, ts);
    case 'b':
    case 'n':
    case 'e':
    case 'S':
    case 'T':
    case 'p':
    case 'F':
        return chrome_async(r, rec, ph, ts);
    case 's':
    case 't':
    case 'f':
        return chrome_flow(r, rec, ph, ts);
    case 'P':
        return chrome_sample(r, rec, src, ts);
    case 'M':
        return chrome_metadata(r, rec, ts);
    default:
        return chrome_unsupported(r, rec, ph, "phase");
    }
}

int chrome_hand_over(chrome_reader *r, const chrome_record *rec)
{
    r->handed = 1;
    tconv_split_defer(r->sink, rec->offset, r->tok_end - rec->offset);
    return 1;
}

tconv_status chrome_emit_record(chrome_reader *r, const chrome_record *rec, chrome_src src)
{
    tconv_status st = chrome_dispatch(r, rec, src);
    if (r->handed) { /* the calling thread maps it, and says what is wrong with it */
        r->handed = 0;
        r->bad_utf8 = 0;
        return TCONV_OK;
    }
    if (r->bad_utf8) {
        r->bad_utf8 = 0;
        tconv_warning_add(r->ctx, "chrome.invalid-utf8",
                          "%s:%llu: a string holds bytes that are not UTF-8: they read as "
                          "U+FFFD",
                          r->input_name, (unsigned long long)rec->offset);
    }
    return st == TCONV_FATAL ? TCONV_FATAL : TCONV_OK;
}

tconv_status chrome_emit_top(chrome_reader *r, const char *key, size_t klen, const char *text,
                             size_t tlen)
{
    tconv_event ev = TCONV_EVENT_INIT;
    ev.kind = TCONV_EV_METADATA;
    ev.track = chrome_track(r, "", 0, "", 0);
    chrome_set_kind(r, NULL, ev.track, TCONV_TRACK_GLOBAL);
    ev.name = tconv_string_intern(r->ctx, key, klen);
    ev.text = tconv_string_intern(r->ctx, text, tlen);
    if (r->bad_utf8) {
        r->bad_utf8 = 0;
        tconv_warning_add(r->ctx, "chrome.invalid-utf8",
                          "%s: the top-level member \"%s\" holds bytes that are not UTF-8: they "
                          "read as U+FFFD",
                          r->input_name, key);
    }
    return chrome_push(r, &ev);
}

tconv_status chrome_emit_finish(chrome_reader *r)
{
    return chrome_frames_flush(r);
}

void chrome_emit_free(chrome_reader *r)
{
    chrome_strmap_free(&r->mem_keys);
    free(r->mem_sums);
    free(r->track_flags);
    free(r->targs);
    free(r->tframes);
    free(r->tmp);
}
