/* A debug annotation's value as JSON text (pf_json.h). Strings are escaped as the core's JSON
 * writer escapes them (tconv_json_escape), which is also how the Chrome reader builds its JSON
 * args, so a nested arg read from Chrome JSON comes back as the text it was. */
#include "pf_json.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <tconv/json.h>

#include "pf_fields.h"
#include "pf_wire.h"

void pf_text_put(pf_text *t, const char *s, size_t n)
{
    if (t->oom) return;
    if (t->cap - t->len < n + 1) {
        size_t cap = t->cap ? t->cap : 256;
        while (cap - t->len < n + 1) {
            if (cap > SIZE_MAX / 2) {
                t->oom = 1;
                return;
            }
            cap *= 2;
        }
        char *p = realloc(t->p, cap);
        if (!p) {
            t->oom = 1;
            return;
        }
        t->p = p;
        t->cap = cap;
    }
    memcpy(t->p + t->len, s, n);
    t->len += n;
    t->p[t->len] = '\0';
}

void pf_text_free(pf_text *t)
{
    free(t->p);
    memset(t, 0, sizeof *t);
}

size_t pf_double_text(double d, char *buf, size_t cap)
{
    int n = 0;
    for (int prec = 1; prec <= 17; prec++) {
        n = snprintf(buf, cap, "%.*g", prec, d);
        if (strtod(buf, NULL) == d) break;
    }
    return n > 0 && (size_t)n < cap ? (size_t)n : 0;
}

static void pf_json_string(pf_text *out, const char *s, size_t n)
{
    pf_text_put(out, "\"", 1);
    while (n && !out->oom) {
        char tmp[512];
        size_t used;
        size_t k = tconv_json_escape(tmp, sizeof tmp, s, n, &used);
        pf_text_put(out, tmp, k);
        s += used;
        n -= used;
    }
    pf_text_put(out, "\"", 1);
}

static void pf_json_num(pf_text *out, const char *fmt, uint64_t v, int is_signed)
{
    char tmp[32];
    int n = is_signed ? snprintf(tmp, sizeof tmp, "%" PRId64, (int64_t)v)
                      : snprintf(tmp, sizeof tmp, fmt, v);
    pf_text_put(out, tmp, (size_t)n);
}

static void pf_json_double(pf_text *out, double d)
{
    char tmp[40];
    size_t n = pf_double_text(d, tmp, sizeof tmp);
    pf_text_put(out, tmp, n);
}

/* The old NestedValue form. */
static int pf_json_nested(pf_text *out, const uint8_t *msg, size_t len, unsigned depth)
{
    if (!depth) return -1;
    pf_cur c = pf_cur_make(msg, len), keys = c;
    pf_field f;
    int r;
    uint64_t type = 0;
    while ((r = pf_next(&c, &f)) > 0)
        if (f.num == PF_NV_TYPE && f.wt == PF_VARINT) type = f.v;
    if (r < 0) return -1;
    c = pf_cur_make(msg, len);
    if (type == PF_NV_DICT_TYPE || type == PF_NV_ARRAY_TYPE) {
        int dict = type == PF_NV_DICT_TYPE, first = 1;
        pf_text_put(out, dict ? "{" : "[", 1);
        pf_field k;
        while ((r = pf_next(&c, &f)) > 0) {
            if (f.wt != PF_LEN || f.num != (dict ? PF_NV_DICT_VALUES : PF_NV_ARRAY)) continue;
            if (!first) pf_text_put(out, ",", 1);
            first = 0;
            if (dict) {
                int kr;
                while ((kr = pf_next(&keys, &k)) > 0 &&
                       !(k.num == PF_NV_DICT_KEYS && k.wt == PF_LEN))
                    ;
                if (kr <= 0) return -1;
                pf_json_string(out, (const char *)k.data, k.len);
                pf_text_put(out, ":", 1);
            }
            if (pf_json_nested(out, f.data, f.len, depth - 1) < 0) return -1;
        }
        pf_text_put(out, dict ? "}" : "]", 1);
        return r < 0 ? -1 : 0;
    }
    int any = 0;
    while ((r = pf_next(&c, &f)) > 0) {
        if (f.num == PF_NV_INT && f.wt == PF_VARINT)
            pf_json_num(out, NULL, f.v, 1);
        else if (f.num == PF_NV_DOUBLE && f.wt == PF_I64)
            pf_json_double(out, pf_double(&f));
        else if (f.num == PF_NV_BOOL && f.wt == PF_VARINT)
            pf_text_put(out, f.v ? "true" : "false", f.v ? 4 : 5);
        else if (f.num == PF_NV_STRING && f.wt == PF_LEN)
            pf_json_string(out, (const char *)f.data, f.len);
        else
            continue;
        any = 1;
        break;
    }
    if (r < 0) return -1;
    if (!any) pf_text_put(out, "null", 4);
    return 0;
}

int pf_json_of_annotation(pf_text *out, const uint8_t *msg, size_t len, pf_iid_fn iid, void *user,
                          unsigned max_depth)
{
    if (!max_depth) return -1;
    pf_cur c = pf_cur_make(msg, len);
    pf_field f;
    int r, kind = 0; /* 1 dict, 2 array */
    while ((r = pf_next(&c, &f)) > 0) {
        if (f.wt != PF_LEN) continue;
        if (f.num == PF_DA_DICT) {
            kind = 1;
            break;
        }
        if (f.num == PF_DA_ARRAY) {
            kind = 2;
            break;
        }
    }
    if (r < 0) return -1;
    c = pf_cur_make(msg, len);
    if (kind) {
        int first = 1;
        pf_text_put(out, kind == 1 ? "{" : "[", 1);
        while ((r = pf_next(&c, &f)) > 0) {
            if (f.wt != PF_LEN || f.num != (kind == 1 ? PF_DA_DICT : PF_DA_ARRAY)) continue;
            if (!first) pf_text_put(out, ",", 1);
            first = 0;
            if (kind == 1) {
                /* The entry's name: inline or interned. */
                pf_cur e = pf_cur_make(f.data, f.len);
                pf_field g;
                int er;
                const char *name = "";
                size_t nlen = 0;
                while ((er = pf_next(&e, &g)) > 0) {
                    if (g.num == PF_DA_NAME && g.wt == PF_LEN) {
                        name = (const char *)g.data;
                        nlen = g.len;
                    } else if (g.num == PF_DA_NAME_IID && g.wt == PF_VARINT && iid) {
                        const char *s = iid(user, PF_ID_ANNOT_NAMES, g.v, &nlen);
                        name = s ? s : "";
                        if (!s) nlen = 0;
                    }
                }
                if (er < 0) return -1;
                pf_json_string(out, name, nlen);
                pf_text_put(out, ":", 1);
            }
            if (pf_json_of_annotation(out, f.data, f.len, iid, user, max_depth - 1) < 0) return -1;
        }
        pf_text_put(out, kind == 1 ? "}" : "]", 1);
        return r < 0 ? -1 : 0;
    }
    while ((r = pf_next(&c, &f)) > 0) {
        switch (f.num) {
        case PF_DA_BOOL:
            if (f.wt != PF_VARINT) continue;
            pf_text_put(out, f.v ? "true" : "false", f.v ? 4 : 5);
            return 0;
        case PF_DA_UINT:
            if (f.wt != PF_VARINT) continue;
            pf_json_num(out, "%" PRIu64, f.v, 0);
            return 0;
        case PF_DA_INT:
            if (f.wt != PF_VARINT) continue;
            pf_json_num(out, NULL, f.v, 1);
            return 0;
        case PF_DA_POINTER: {
            if (f.wt != PF_VARINT) continue;
            char tmp[24];
            int n = snprintf(tmp, sizeof tmp, "0x%" PRIx64, f.v);
            pf_json_string(out, tmp, (size_t)n);
            return 0;
        }
        case PF_DA_DOUBLE:
            if (f.wt != PF_I64) continue;
            pf_json_double(out, pf_double(&f));
            return 0;
        case PF_DA_STRING:
            if (f.wt != PF_LEN) continue;
            pf_json_string(out, (const char *)f.data, f.len);
            return 0;
        case PF_DA_STRING_IID: {
            if (f.wt != PF_VARINT) continue;
            size_t n = 0;
            const char *s = iid ? iid(user, PF_ID_STRING_VALUES, f.v, &n) : NULL;
            pf_json_string(out, s ? s : "", s ? n : 0);
            return 0;
        }
        case PF_DA_JSON:
            if (f.wt != PF_LEN) continue;
            pf_text_put(out, (const char *)f.data, f.len);
            return 0;
        case PF_DA_NESTED:
            if (f.wt != PF_LEN) continue;
            return pf_json_nested(out, f.data, f.len, max_depth);
        default:
            continue;
        }
    }
    if (r < 0) return -1;
    pf_text_put(out, "null", 4);
    return 0;
}
