/* Test tool: decode pprof profiles with protobuf-c.
 *   pprof_dump check FILE...   check the invariants of each file
 *   pprof_dump flat FILE       sample types, totals, and per leaf frame (by its full name: the
 *                              system_name when set, else the name) the summed values, sorted:
 *                              what pprof calls flat
 *   pprof_dump samples FILE    every sample in file order: values, labels, stack root first
 *   pprof_dump functions FILE  every function: id, name, system_name, filename, start_line
 *   pprof_dump names FILE      the distinct function names of the frames of the samples: "shown"
 *                              lines for samples with a value of the default type (the nodes
 *                              of pprof's -top and flame graph), "any" lines for all samples
 *                              (what -traces prints) */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pprof_decode.h"

typedef struct pprof_dump_flat {
    const char *name;
    int64_t *values;
} pprof_dump_flat;

static int pprof_dump_cmp_flat(const void *a, const void *b)
{
    return strcmp(((const pprof_dump_flat *)a)->name, ((const pprof_dump_flat *)b)->name);
}

static const Perftools__Profiles__Function *pprof_dump_leaf(const Perftools__Profiles__Profile *p,
                                                            const Perftools__Profiles__Sample *s)
{
    if (s->n_location_id == 0) return NULL;
    const Perftools__Profiles__Location *l = pprof_decode_location(p, s->location_id[0]);
    return pprof_decode_function(p, l->line[0]->function_id);
}

static void pprof_dump_types(const Perftools__Profiles__Profile *p)
{
    printf("types");
    for (size_t i = 0; i < p->n_sample_type; i++)
        printf(" %s/%s", pprof_decode_string(p, p->sample_type[i]->type),
               pprof_decode_string(p, p->sample_type[i]->unit));
    printf("\ndefault %s\n", pprof_decode_string(p, p->default_sample_type));
}

static void pprof_dump_flat_table(const Perftools__Profiles__Profile *p)
{
    size_t nv = p->n_sample_type;
    pprof_dump_flat *rows = calloc(p->n_function + 1, sizeof *rows);
    int64_t *vals = calloc((p->n_function + 1) * nv + 1, sizeof *vals);
    int64_t *total = calloc(nv + 1, sizeof *total);
    for (size_t i = 0; i < p->n_function; i++) {
        const Perftools__Profiles__Function *f = p->function[i];
        rows[i].name = pprof_decode_string(p, f->system_name ? f->system_name : f->name);
        rows[i].values = &vals[i * nv];
    }
    rows[p->n_function].name = "";
    rows[p->n_function].values = &vals[p->n_function * nv];
    for (size_t i = 0; i < p->n_sample; i++) {
        const Perftools__Profiles__Sample *s = p->sample[i];
        const Perftools__Profiles__Function *f = pprof_dump_leaf(p, s);
        pprof_dump_flat *row = f ? &rows[f->id - 1] : &rows[p->n_function];
        for (size_t v = 0; v < nv; v++) {
            row->values[v] += s->value[v];
            total[v] += s->value[v];
        }
    }
    pprof_dump_types(p);
    printf("total");
    for (size_t v = 0; v < nv; v++)
        printf(" %" PRId64, total[v]);
    printf("\n");
    /* Functions that differ only in file or line share a full name: sum them. */
    qsort(rows, p->n_function + 1, sizeof *rows, pprof_dump_cmp_flat);
    for (size_t i = 0; i <= p->n_function;) {
        size_t j = i + 1;
        while (j <= p->n_function && strcmp(rows[j].name, rows[i].name) == 0) {
            for (size_t v = 0; v < nv; v++)
                rows[i].values[v] += rows[j].values[v];
            j++;
        }
        int any = 0;
        for (size_t v = 0; v < nv; v++)
            any |= rows[i].values[v] != 0;
        if (any) {
            printf("flat\t%s", rows[i].name);
            for (size_t v = 0; v < nv; v++)
                printf("\t%" PRId64, rows[i].values[v]);
            printf("\n");
        }
        i = j;
    }
    free(rows);
    free(vals);
    free(total);
}

static void pprof_dump_samples(const Perftools__Profiles__Profile *p)
{
    pprof_dump_types(p);
    for (size_t i = 0; i < p->n_sample; i++) {
        const Perftools__Profiles__Sample *s = p->sample[i];
        for (size_t v = 0; v < s->n_value; v++)
            printf("%s%" PRId64, v ? "," : "", s->value[v]);
        printf(" |");
        for (size_t l = 0; l < s->n_label; l++) {
            const Perftools__Profiles__Label *lab = s->label[l];
            if (lab->str)
                printf(" %s=%s", pprof_decode_string(p, lab->key),
                       pprof_decode_string(p, lab->str));
            else
                printf(" %s=%" PRId64, pprof_decode_string(p, lab->key), lab->num);
        }
        printf(" | ");
        for (size_t j = s->n_location_id; j-- > 0;) {
            const Perftools__Profiles__Location *loc = pprof_decode_location(p, s->location_id[j]);
            const Perftools__Profiles__Function *f =
                pprof_decode_function(p, loc->line[0]->function_id);
            printf("%s%s", j + 1 < s->n_location_id ? ";" : "", pprof_decode_string(p, f->name));
        }
        printf("\n");
    }
}

static void pprof_dump_functions(const Perftools__Profiles__Profile *p)
{
    for (size_t i = 0; i < p->n_function; i++) {
        const Perftools__Profiles__Function *f = p->function[i];
        printf("%" PRIu64 "\t%s\t%s\t%s\t%" PRId64 "\n", f->id, pprof_decode_string(p, f->name),
               pprof_decode_string(p, f->system_name), pprof_decode_string(p, f->filename),
               f->start_line);
    }
}

/* The default sample type as pprof picks it: the named one, else the last. */
static size_t pprof_dump_default_index(const Perftools__Profiles__Profile *p)
{
    for (size_t i = 0; i < p->n_sample_type; i++)
        if (p->default_sample_type && p->sample_type[i]->type == p->default_sample_type) return i;
    return p->n_sample_type ? p->n_sample_type - 1 : 0;
}

static void pprof_dump_names(const Perftools__Profiles__Profile *p)
{
    /* Per function: bit 1 = in some sample, bit 2 = in a sample with a default value. */
    unsigned char *seen = calloc(p->n_function + 1, 1);
    size_t def = pprof_dump_default_index(p);
    for (size_t i = 0; i < p->n_sample; i++) {
        const Perftools__Profiles__Sample *s = p->sample[i];
        unsigned char bits = 1 | (def < s->n_value && s->value[def] != 0 ? 2 : 0);
        for (size_t j = 0; j < s->n_location_id; j++) {
            const Perftools__Profiles__Location *loc = pprof_decode_location(p, s->location_id[j]);
            for (size_t l = 0; l < loc->n_line; l++)
                seen[loc->line[l]->function_id - 1] |= bits;
        }
    }
    for (size_t i = 0; i < p->n_function; i++) {
        const char *name = pprof_decode_string(p, p->function[i]->name);
        if (seen[p->function[i]->id - 1] & 2) printf("shown\t%s\n", name);
        if (seen[p->function[i]->id - 1] & 1) printf("any\t%s\n", name);
    }
    free(seen);
}

int main(int argc, char **argv)
{
    if (argc < 3) {
        fprintf(stderr, "usage: pprof_dump check|flat|samples|functions|names FILE...\n");
        return 2;
    }
    int rc = 0;
    for (int a = 2; a < argc; a++) {
        char err[512];
        Perftools__Profiles__Profile *p = pprof_decode_file(argv[a], err, sizeof err);
        if (!p || pprof_decode_check(p, err, sizeof err) != 0) {
            fprintf(stderr, "%s: %s\n", argv[a], err);
            rc = 1;
        } else if (strcmp(argv[1], "flat") == 0) {
            pprof_dump_flat_table(p);
        } else if (strcmp(argv[1], "samples") == 0) {
            pprof_dump_samples(p);
        } else if (strcmp(argv[1], "functions") == 0) {
            pprof_dump_functions(p);
        } else if (strcmp(argv[1], "names") == 0) {
            pprof_dump_names(p);
        } else if (strcmp(argv[1], "check") != 0) {
            fprintf(stderr, "unknown command %s\n", argv[1]);
            rc = 2;
        }
        if (p) perftools__profiles__profile__free_unpacked(p, NULL);
    }
    return rc;
}
