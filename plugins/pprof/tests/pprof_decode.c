#include "pprof_decode.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <zlib.h>

Perftools__Profiles__Profile *pprof_decode_file(const char *path, char *err, size_t errlen)
{
    gzFile f = gzopen(path, "rb");
    if (!f) {
        snprintf(err, errlen, "%s: cannot open", path);
        return NULL;
    }
    /* The output must be gzip: gzread would pass plain bytes through, so check the magic. */
    FILE *raw = fopen(path, "rb");
    unsigned char magic[2] = {0, 0};
    if (!raw || fread(magic, 1, 2, raw) != 2 || magic[0] != 0x1f || magic[1] != 0x8b) {
        snprintf(err, errlen, "%s: not gzip-compressed", path);
        if (raw) fclose(raw);
        gzclose(f);
        return NULL;
    }
    fclose(raw);
    size_t cap = 1 << 16, len = 0;
    unsigned char *buf = malloc(cap);
    int n;
    while (buf && (n = gzread(f, buf + len, (unsigned)(cap - len))) > 0) {
        len += (size_t)n;
        if (len == cap) {
            unsigned char *nb = realloc(buf, cap * 2);
            if (!nb) {
                free(buf);
                buf = NULL;
                break;
            }
            buf = nb;
            cap *= 2;
        }
    }
    int zerr = 0;
    gzerror(f, &zerr);
    gzclose(f);
    if (!buf || (zerr != Z_OK && zerr != Z_STREAM_END)) {
        snprintf(err, errlen, "%s: gzip data is damaged", path);
        free(buf);
        return NULL;
    }
    Perftools__Profiles__Profile *p = perftools__profiles__profile__unpack(NULL, len, buf);
    free(buf);
    if (!p) snprintf(err, errlen, "%s: not a valid Profile protobuf", path);
    return p;
}

const char *pprof_decode_string(const Perftools__Profiles__Profile *p, int64_t idx)
{
    if (idx < 0 || (size_t)idx >= p->n_string_table) return "";
    return p->string_table[idx];
}

const Perftools__Profiles__Location *pprof_decode_location(const Perftools__Profiles__Profile *p,
                                                           uint64_t id)
{
    /* The writer numbers densely from 1, so try the direct position before searching. */
    if (id >= 1 && id <= p->n_location && p->location[id - 1]->id == id) return p->location[id - 1];
    for (size_t i = 0; i < p->n_location; i++) {
        if (p->location[i]->id == id) return p->location[i];
    }
    return NULL;
}

const Perftools__Profiles__Function *pprof_decode_function(const Perftools__Profiles__Profile *p,
                                                           uint64_t id)
{
    if (id >= 1 && id <= p->n_function && p->function[id - 1]->id == id) return p->function[id - 1];
    for (size_t i = 0; i < p->n_function; i++) {
        if (p->function[i]->id == id) return p->function[i];
    }
    return NULL;
}

#define PPROF_FAIL(...)                                                                            \
    do {                                                                                           \
        snprintf(err, errlen, __VA_ARGS__);                                                        \
        return -1;                                                                                 \
    } while (0)

static int pprof_decode_str_ok(const Perftools__Profiles__Profile *p, int64_t idx)
{
    return idx >= 0 && (size_t)idx < p->n_string_table;
}

static int pprof_decode_cmp_string(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

static int pprof_decode_cmp_function(const void *a, const void *b)
{
    const Perftools__Profiles__Function *x = *(const Perftools__Profiles__Function *const *)a;
    const Perftools__Profiles__Function *y = *(const Perftools__Profiles__Function *const *)b;
    if (x->name != y->name) return x->name < y->name ? -1 : 1;
    if (x->system_name != y->system_name) return x->system_name < y->system_name ? -1 : 1;
    if (x->filename != y->filename) return x->filename < y->filename ? -1 : 1;
    if (x->start_line != y->start_line) return x->start_line < y->start_line ? -1 : 1;
    return 0;
}

int pprof_decode_check(const Perftools__Profiles__Profile *p, char *err, size_t errlen)
{
    if (p->n_string_table == 0 || p->string_table[0][0] != '\0')
        PPROF_FAIL("string_table[0] is not the empty string");
    if (p->n_sample_type == 0) PPROF_FAIL("no sample types");
    if (p->n_string_table > 1) {
        char **ss = malloc(p->n_string_table * sizeof *ss);
        if (!ss) PPROF_FAIL("out of memory");
        memcpy(ss, p->string_table, p->n_string_table * sizeof *ss);
        qsort(ss, p->n_string_table, sizeof *ss, pprof_decode_cmp_string);
        for (size_t i = 1; i < p->n_string_table; i++) {
            if (strcmp(ss[i - 1], ss[i]) == 0) {
                snprintf(err, errlen, "string \"%s\" is in the string table twice", ss[i]);
                free(ss);
                return -1;
            }
        }
        free(ss);
    }
    for (size_t i = 0; i < p->n_sample_type; i++) {
        if (!pprof_decode_str_ok(p, p->sample_type[i]->type) ||
            !pprof_decode_str_ok(p, p->sample_type[i]->unit))
            PPROF_FAIL("sample_type %zu: string index out of range", i);
    }
    if (!pprof_decode_str_ok(p, p->default_sample_type))
        PPROF_FAIL("default_sample_type out of range");
    if (p->default_sample_type) {
        size_t i;
        for (i = 0; i < p->n_sample_type; i++) {
            if (p->sample_type[i]->type == p->default_sample_type) break;
        }
        if (i == p->n_sample_type) PPROF_FAIL("default_sample_type names no sample type");
    }
    /* Ids are 1-based, unique, and this writer numbers them densely in table order. */
    for (size_t i = 0; i < p->n_location; i++) {
        const Perftools__Profiles__Location *l = p->location[i];
        if (l->id != i + 1)
            PPROF_FAIL("location %zu has id %llu, expected %zu", i, (unsigned long long)l->id,
                       i + 1);
        if (l->mapping_id != 0)
            PPROF_FAIL("location %llu refers to a mapping", (unsigned long long)l->id);
        if (l->n_line == 0) PPROF_FAIL("location %llu has no line", (unsigned long long)l->id);
        for (size_t j = 0; j < l->n_line; j++) {
            if (!pprof_decode_function(p, l->line[j]->function_id))
                PPROF_FAIL("location %llu: function %llu does not exist", (unsigned long long)l->id,
                           (unsigned long long)l->line[j]->function_id);
        }
    }
    for (size_t i = 0; i < p->n_function; i++) {
        const Perftools__Profiles__Function *f = p->function[i];
        if (f->id != i + 1)
            PPROF_FAIL("function %zu has id %llu, expected %zu", i, (unsigned long long)f->id,
                       i + 1);
        if (!pprof_decode_str_ok(p, f->name) || !pprof_decode_str_ok(p, f->system_name) ||
            !pprof_decode_str_ok(p, f->filename))
            PPROF_FAIL("function %llu: string index out of range", (unsigned long long)f->id);
        if (f->name == 0) PPROF_FAIL("function %llu has no name", (unsigned long long)f->id);
    }
    /* Deduplication: no two functions alike. */
    if (p->n_function > 1) {
        const Perftools__Profiles__Function **fs = malloc(p->n_function * sizeof *fs);
        if (!fs) PPROF_FAIL("out of memory");
        memcpy(fs, p->function, p->n_function * sizeof *fs);
        qsort(fs, p->n_function, sizeof *fs, pprof_decode_cmp_function);
        for (size_t i = 1; i < p->n_function; i++) {
            if (pprof_decode_cmp_function(&fs[i - 1], &fs[i]) == 0) {
                snprintf(err, errlen, "functions %llu and %llu are the same",
                         (unsigned long long)fs[i - 1]->id, (unsigned long long)fs[i]->id);
                free(fs);
                return -1;
            }
        }
        free(fs);
    }
    for (size_t i = 0; i < p->n_sample; i++) {
        const Perftools__Profiles__Sample *s = p->sample[i];
        if (s->n_value != p->n_sample_type)
            PPROF_FAIL("sample %zu has %zu values for %zu sample types", i, s->n_value,
                       p->n_sample_type);
        for (size_t j = 0; j < s->n_location_id; j++) {
            if (!pprof_decode_location(p, s->location_id[j]))
                PPROF_FAIL("sample %zu: location %llu does not exist", i,
                           (unsigned long long)s->location_id[j]);
        }
        for (size_t j = 0; j < s->n_label; j++) {
            const Perftools__Profiles__Label *l = s->label[j];
            if (!pprof_decode_str_ok(p, l->key) || l->key == 0 || !pprof_decode_str_ok(p, l->str))
                PPROF_FAIL("sample %zu: bad label", i);
        }
    }
    /* The writer emits only what samples reach: every location and function is used. */
    unsigned char *used = calloc(p->n_location + p->n_function + 1, 1);
    if (!used) PPROF_FAIL("out of memory");
    for (size_t i = 0; i < p->n_sample; i++) {
        for (size_t j = 0; j < p->sample[i]->n_location_id; j++)
            used[p->sample[i]->location_id[j] - 1] = 1;
    }
    for (size_t i = 0; i < p->n_location; i++) {
        for (size_t j = 0; j < p->location[i]->n_line; j++)
            used[p->n_location + p->location[i]->line[j]->function_id - 1] = 1;
    }
    for (size_t i = 0; i < p->n_location + p->n_function; i++) {
        if (!used[i]) {
            snprintf(err, errlen, "%s %zu is not used", i < p->n_location ? "location" : "function",
                     i < p->n_location ? i + 1 : i - p->n_location + 1);
            free(used);
            return -1;
        }
    }
    free(used);
    return 0;
}
