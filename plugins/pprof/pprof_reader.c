/* Reads a pprof profile. A protobuf message cannot be decoded in pieces, so the input is read
 * whole (decompressed by the core) and unpacked by the code generated from proto/profile.proto,
 * the writer's. Every sample type is declared and every sample carries all its values, so
 * pprof -> pprof keeps them all; -R sample=NAME picks the default type, which is otherwise the
 * profile's default_sample_type or its last type, as go tool pprof picks it. Samples have no
 * time: they are pushed at 0, and time_nanos becomes the input's time origin. What the event
 * model has no field for (period, drop_frames, keep_frames, comments, the duration) comes as
 * metadata events named pprof.<field>. */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pprof_reader.h"
#include "pprof_rwire.h"

enum {
    PPROF_F_SAMPLE_TYPE = 1,
    PPROF_F_SAMPLE = 2,
    PPROF_F_STRING_TABLE = 6,
    PPROF_F_PERIOD_TYPE = 11,
    PPROF_F_COMMENT = 13,
    PPROF_F_TOP = 0 /* a field of the Profile itself */
};

uint64_t pprof_reader_offset(const pprof_reader *r, uint32_t number, size_t index)
{
    size_t pos = 0, seen = 0;
    pprof_wire_field f;
    const char *what;
    while (pprof_wire_next(r->data, r->len, &pos, &f, &what) == PPROF_WIRE_FIELD)
        if (f.number == number && seen++ == index) return f.offset;
    return 0;
}

int pprof_reader_str(pprof_reader *r, int64_t idx, const char *what, uint32_t field, size_t index,
                     tconv_str *out)
{
    if (idx >= 0 && (uint64_t)idx < r->p->n_string_table) {
        *out = r->strs[idx];
        return 0;
    }
    if (field == PPROF_F_TOP)
        tconv_error_at(r->ctx, r->name, 0,
                       "the profile's %s is string %" PRId64 ", beyond its string table of %zu",
                       what, idx, r->p->n_string_table);
    else
        tconv_error_at(r->ctx, r->name, pprof_reader_offset(r, field, index),
                       "%s %zu refers to string %" PRId64 ", beyond the string table of %zu", what,
                       index + 1, idx, r->p->n_string_table);
    return -1;
}

/* The whole input in memory. */
static int pprof_reader_slurp(pprof_reader *r, uint8_t **buf, size_t *len)
{
    size_t cap = 1u << 16, n = 0;
    uint8_t *b = malloc(cap);
    if (!b) goto oom;
    for (;;) {
        if (n == cap) {
            uint8_t *nb = cap > SIZE_MAX / 2 ? NULL : realloc(b, cap * 2);
            if (!nb) goto oom;
            b = nb;
            cap *= 2;
        }
        ssize_t k = tconv_input_read(r->in, b + n, cap - n);
        if (k < 0) {
            free(b);
            return -1;
        }
        if (k == 0) break;
        n += (size_t)k;
    }
    *buf = b;
    *len = n;
    return 0;
oom:
    free(b);
    tconv_error_set(r->ctx, "pprof: out of memory reading %s", r->name);
    return -1;
}

/* The top-level fields, checked before protobuf-c sees them, so that a damaged file is named
 * with the offset and the reason rather than "cannot be decoded". */
static int pprof_reader_check_wire(pprof_reader *r)
{
    size_t pos = 0;
    pprof_wire_field f;
    const char *what;
    pprof_wire_step s;
    while ((s = pprof_wire_next(r->data, r->len, &pos, &f, &what)) == PPROF_WIRE_FIELD) {
        int type = pprof_wire_profile_type(f.number);
        if (type >= 0 && f.type != (uint32_t)type &&
            !(f.number == PPROF_F_COMMENT && f.type == PPROF_WIRE_VARINT)) {
            tconv_error_at(r->ctx, r->name, f.offset,
                           "field %u of the profile has wire type %u, profile.proto says %d; "
                           "not a pprof profile, or a damaged one",
                           f.number, f.type, type);
            return -1;
        }
    }
    if (s != PPROF_WIRE_END) {
        tconv_error_at(r->ctx, r->name, pos, "%s: not a pprof profile, or a truncated one", what);
        return -1;
    }
    return 0;
}

/* protobuf-c frees what it allocated when it fails, and says only that it failed: an
 * allocator of its own tells out of memory from a malformed message. */
static void *pprof_reader_alloc(void *data, size_t size)
{
    void *p = malloc(size);
    if (!p) *(int *)data = 1;
    return p;
}

static void pprof_reader_free_cb(void *data, void *p)
{
    (void)data;
    free(p);
}

typedef const ProtobufCMessageDescriptor *pprof_desc_ptr;

/* Which element protobuf-c refused: each submessage is unpacked alone until one fails. */
static void pprof_reader_find_bad(pprof_reader *r, ProtobufCAllocator *a)
{
    static const struct {
        uint32_t number;
        const char *what;
        const ProtobufCMessageDescriptor *desc;
    } subs[] = {
        {1, "sample type", &perftools__profiles__value_type__descriptor},
        {2, "sample", &perftools__profiles__sample__descriptor},
        {3, "mapping", &perftools__profiles__mapping__descriptor},
        {4, "location", &perftools__profiles__location__descriptor},
        {5, "function", &perftools__profiles__function__descriptor},
        {11, "period type", &perftools__profiles__value_type__descriptor},
    };
    size_t pos = 0, count[16] = {0};
    pprof_wire_field f;
    const char *what;
    while (pprof_wire_next(r->data, r->len, &pos, &f, &what) == PPROF_WIRE_FIELD) {
        if (f.number >= 16) continue;
        count[f.number]++;
        for (size_t i = 0; i < sizeof subs / sizeof subs[0]; i++) {
            if (subs[i].number != f.number) continue;
            ProtobufCMessage *m = protobuf_c_message_unpack(subs[i].desc, a, f.len, f.body);
            if (m) {
                protobuf_c_message_free_unpacked(m, a);
                continue;
            }
            tconv_error_at(r->ctx, r->name, f.offset,
                           "%s %zu cannot be decoded (a malformed protobuf message)", subs[i].what,
                           count[f.number]);
            return;
        }
    }
    tconv_error_at(r->ctx, r->name, 0, "the profile cannot be decoded (a malformed message)");
}

static tconv_status pprof_reader_meta(pprof_reader *r, const char *what, const char *text)
{
    tconv_event ev = TCONV_EVENT_INIT;
    ev.kind = TCONV_EV_METADATA;
    ev.track = tconv_track_get(r->ctx, r->s_empty, r->s_empty);
    ev.name = tconv_string_intern_cstr(r->ctx, what);
    ev.text = tconv_string_intern_cstr(r->ctx, text);
    return tconv_sink_push(r->sink, &ev) == TCONV_FATAL ? TCONV_FATAL : TCONV_OK;
}

static tconv_status pprof_reader_meta_num(pprof_reader *r, const char *what, int64_t v)
{
    char buf[24];
    snprintf(buf, sizeof buf, "%" PRId64, v);
    return pprof_reader_meta(r, what, buf);
}

static tconv_status pprof_reader_meta_str(pprof_reader *r, const char *what, int64_t idx)
{
    tconv_str s;
    if (pprof_reader_str(r, idx, what, PPROF_F_TOP, 0, &s) != 0) return TCONV_FATAL;
    return s ? pprof_reader_meta(r, what, tconv_string_get(r->ctx, s)) : TCONV_OK;
}

/* The profile-wide fields the event model has no place for, as metadata, and time_nanos as
 * the input's time origin (pprof's Time: when written back). */
static tconv_status pprof_reader_profile_meta(pprof_reader *r)
{
    const Perftools__Profiles__Profile *p = r->p;
    tconv_status st = TCONV_OK;
    if (p->time_nanos) {
        st = pprof_reader_meta_num(r, "baseTimeNanoseconds", p->time_nanos);
        if (st == TCONV_OK) st = pprof_reader_meta_num(r, "pprof.time_nanos", p->time_nanos);
    }
    if (st == TCONV_OK && p->duration_nanos)
        st = pprof_reader_meta_num(r, "pprof.duration_nanos", p->duration_nanos);
    if (st == TCONV_OK && p->period_type) {
        tconv_str type, unit;
        if (pprof_reader_str(r, p->period_type->type, "period type", PPROF_F_TOP, 0, &type) ||
            pprof_reader_str(r, p->period_type->unit, "period unit", PPROF_F_TOP, 0, &unit))
            return TCONV_FATAL;
        char buf[512];
        snprintf(buf, sizeof buf, "%s/%s", tconv_string_get(r->ctx, type),
                 tconv_string_get(r->ctx, unit));
        st = pprof_reader_meta(r, "pprof.period_type", buf);
    }
    if (st == TCONV_OK && (p->period || p->period_type))
        st = pprof_reader_meta_num(r, "pprof.period", p->period);
    if (st == TCONV_OK && p->drop_frames)
        st = pprof_reader_meta_str(r, "pprof.drop_frames", p->drop_frames);
    if (st == TCONV_OK && p->keep_frames)
        st = pprof_reader_meta_str(r, "pprof.keep_frames", p->keep_frames);
    for (size_t i = 0; st == TCONV_OK && i < p->n_comment; i++)
        st = pprof_reader_meta_str(r, "pprof.comment", p->comment[i]);
    return st;
}

/* Declares the sample types; the index of the default in *def. */
static int pprof_reader_types(pprof_reader *r, const tconv_options *opts)
{
    const Perftools__Profiles__Profile *p = r->p;
    size_t n = p->n_sample_type;
    tconv_sample_type *types = tconv_array_alloc(n, sizeof *types);
    for (size_t i = 0; i < n; i++) {
        tconv_str t, u;
        if (pprof_reader_str(r, p->sample_type[i]->type, "sample type", PPROF_F_SAMPLE_TYPE, i,
                             &t) != 0 ||
            pprof_reader_str(r, p->sample_type[i]->unit, "sample type", PPROF_F_SAMPLE_TYPE, i,
                             &u) != 0) {
            free(types);
            return -1;
        }
        types[i].type = tconv_string_get(r->ctx, t);
        types[i].unit = tconv_string_get(r->ctx, u);
    }
    size_t def = n - 1;
    tconv_str want = 0;
    if (p->default_sample_type && pprof_reader_str(r, p->default_sample_type, "default sample type",
                                                   PPROF_F_TOP, 0, &want) != 0) {
        free(types);
        return -1;
    }
    const char *pick = tconv_option_is_set(opts, "sample") ? tconv_option_get_string(opts, "sample")
                       : want                              ? tconv_string_get(r->ctx, want)
                                                           : NULL;
    if (pick) {
        size_t i;
        for (i = 0; i < n; i++)
            if (strcmp(types[i].type, pick) == 0) break;
        char *end;
        unsigned long long k = strtoull(pick, &end, 10);
        if (i == n && *pick && !*end && k < n) i = (size_t)k;
        if (i < n) {
            def = i;
        } else if (tconv_option_is_set(opts, "sample")) {
            char list[1024] = "";
            size_t at = 0;
            for (size_t j = 0; j < n && at < sizeof list; j++)
                at += (size_t)snprintf(list + at, sizeof list - at, "%s%s", j ? ", " : "",
                                       types[j].type);
            tconv_error_usage(r->ctx, "pprof: %s has no sample type '%s'; it has: %s", r->name,
                              pick, list);
            free(types);
            return -1;
        }
    }
    int rc = tconv_sampletypes_set(r->ctx, n, types, def);
    free(types);
    return rc;
}

static tconv_status pprof_reader_samples(pprof_reader *r)
{
    const Perftools__Profiles__Profile *p = r->p;
    for (size_t i = 0; i < p->n_sample; i++) {
        const Perftools__Profiles__Sample *s = p->sample[i];
        if (s->n_value != p->n_sample_type) {
            tconv_error_at(r->ctx, r->name, pprof_reader_offset(r, PPROF_F_SAMPLE, i),
                           "sample %zu has %zu values, the profile %zu sample types", i + 1,
                           s->n_value, p->n_sample_type);
            return TCONV_FATAL;
        }
        size_t nf = 0;
        for (size_t k = s->n_location_id; k-- > 0;) {
            uint32_t n;
            const tconv_frame *f = pprof_rlocs_frames(r, s->location_id[k], i, &n);
            if (!f) return TCONV_FATAL;
            TCONV_ARRAY_GROW(r->frames, r->frames_cap, nf + n);
            memcpy(r->frames + nf, f, n * sizeof *f);
            nf += n;
        }
        if (nf > UINT32_MAX) {
            tconv_error_at(r->ctx, r->name, pprof_reader_offset(r, PPROF_F_SAMPLE, i),
                           "sample %zu is more than 4 billion frames deep", i + 1);
            return TCONV_FATAL;
        }
        tconv_event ev = TCONV_EVENT_INIT;
        ev.kind = TCONV_EV_SAMPLE;
        if (pprof_rlabels_sample(r, s, i, &ev.track, &ev.nargs) != TCONV_OK) return TCONV_FATAL;
        ev.args = ev.nargs ? r->args : NULL;
        ev.frames = r->frames;
        ev.nframes = (uint32_t)nf;
        ev.values = s->value;
        ev.nvalues = (uint32_t)s->n_value;
        if (tconv_sink_push(r->sink, &ev) == TCONV_FATAL) return TCONV_FATAL;
    }
    return TCONV_OK;
}

static tconv_status pprof_reader_profile(pprof_reader *r, const tconv_options *opts)
{
    const Perftools__Profiles__Profile *p = r->p;
    if (p->n_string_table == 0 || p->string_table[0][0] != '\0') {
        tconv_error_at(r->ctx, r->name, pprof_reader_offset(r, PPROF_F_STRING_TABLE, 0),
                       "the string table must start with the empty string; not a pprof profile");
        return TCONV_FATAL;
    }
    r->strs = tconv_array_alloc(p->n_string_table, sizeof *r->strs);
    for (size_t i = 0; i < p->n_string_table; i++)
        r->strs[i] = tconv_string_intern_cstr(r->ctx, p->string_table[i]);
    if (p->n_sample && !p->n_sample_type) {
        tconv_error_at(r->ctx, r->name, pprof_reader_offset(r, PPROF_F_SAMPLE, 0),
                       "the profile has samples but no sample types");
        return TCONV_FATAL;
    }
    if (pprof_rlocs_index(r) != 0) return TCONV_FATAL;
    if (p->n_sample_type && pprof_reader_types(r, opts) != 0) return TCONV_FATAL;
    if (pprof_reader_profile_meta(r) != TCONV_OK) return TCONV_FATAL;
    return pprof_reader_samples(r);
}

static tconv_status pprof_reader_read(tconv_ctx *ctx, tconv_input *in, const tconv_options *opts,
                                      tconv_sink *sink)
{
    pprof_reader r;
    memset(&r, 0, sizeof r);
    r.ctx = ctx;
    r.in = in;
    r.sink = sink;
    r.name = tconv_input_name(in);
    r.want_args = tconv_args_wanted(ctx);
    r.s_empty = tconv_string_intern(ctx, "", 0);
    r.s_thread_name = tconv_string_intern_cstr(ctx, "thread_name");
    r.s_process_name = tconv_string_intern_cstr(ctx, "process_name");
    uint8_t *buf = NULL;
    size_t len = 0;
    int oom = 0;
    ProtobufCAllocator a = {pprof_reader_alloc, pprof_reader_free_cb, &oom};
    if (pprof_reader_slurp(&r, &buf, &len) != 0) return TCONV_FATAL;
    r.data = buf;
    r.len = len;
    tconv_status st = TCONV_FATAL;
    const char *legacy = pprof_legacy_kind(buf, len);
    if (legacy) {
        tconv_error_at(ctx, r.name, 0, "%s; tconv reads profile.proto profiles only", legacy);
        tconv_error_hint(ctx, "convert it first: go tool pprof -proto %s > profile.pb.gz", r.name);
        goto done;
    }
    if (len == 0) { /* an empty message is an empty profile: nothing to push */
        st = TCONV_OK;
        goto done;
    }
    if (pprof_reader_check_wire(&r) != 0) goto done;
    r.p = perftools__profiles__profile__unpack(&a, len, buf);
    if (!r.p) {
        if (oom)
            tconv_error_set(ctx, "pprof: out of memory decoding %s", r.name);
        else
            pprof_reader_find_bad(&r, &a);
        goto done;
    }
    st = pprof_reader_profile(&r, opts);
done:
    if (r.p) perftools__profiles__profile__free_unpacked(r.p, &a);
    pprof_rlocs_free(&r);
    free(r.strs);
    free(r.frames);
    free(r.args);
    free(buf);
    return st;
}

static const tconv_option_desc pprof_reader_options[] = {
    {"sample", TCONV_OPT_STRING, NULL, NULL,
     "the default sample type (its name, as go tool pprof -sample_index takes it, or its "
     "index); default: the profile's default_sample_type, else its last type. Every type is "
     "read either way"},
    {0},
};

const tconv_reader_class pprof_reader_class = {
    .struct_size = sizeof(tconv_reader_class),
    .name = "pprof",
    .description = "pprof profile (profile.proto, gzip or not: Go, parca, py-spy, "
                   "tconv -w pprof): every sample type, inlined frames, labels",
    .extensions = "pb.gz|pb|pprof|prof",
    .options = pprof_reader_options,
    .probe = pprof_probe,
    .read = pprof_reader_read,
    .flags = TCONV_READER_CONCURRENT,
};
