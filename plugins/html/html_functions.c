/* Top functions of a profile: for an input of stack samples (pprof, perf, folded, speedscope,
 * Firefox), each function's flat value (the samples whose stack ends in it) and cumulative
 * value (the samples whose stack holds it, once per stack), in the default sample type, as
 * go tool pprof -top lists them. The numbers come from the same stacks as the flame graph (the
 * csv writer's stacks table). A trace of spans has its operators table instead: "functions"
 * is then null. */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "html_writer.h"

typedef struct html_function {
    tconv_str name;
    int64_t flat, cum;
    size_t seen; /* the last row counted in cum, + 1 */
} html_function;

static int html_functions_cmp(const void *a, const void *b)
{
    const html_function *x = a, *y = b;
    if (x->flat != y->flat) return x->flat > y->flat ? -1 : 1;
    if (x->cum != y->cum) return x->cum > y->cum ? -1 : 1;
    return x->name < y->name ? -1 : x->name > y->name;
}

void html_functions(html_writer *w, csv_buf *b)
{
    csv_stack_set set;
    csv_stacks_rows(&w->stacks, &set);
    csv_buf_cstr(b, "\"functions\":");
    if (!set.from_samples) {
        csv_buf_cstr(b, "null");
        return;
    }
    const csv_trie *t = set.trie;
    size_t nv = t->nvalues ? t->nvalues : 1, v = set.default_value;
    html_function *fs = NULL;
    size_t n = 0, cap = 0;
    tconv_map ix = {0};
    int64_t total = 0;
    for (size_t r = 0; r < set.nrows; r++) {
        uint32_t node = set.rows[r];
        int64_t value = t->values[node * nv + v];
        total += value;
        for (uint32_t x = node; x; x = csv_trie_parent(t, x)) {
            tconv_str name = csv_trie_frame(t, x);
            uint32_t i = tconv_map_put(&ix, name, 0, (uint32_t)n);
            if (i == n) {
                TCONV_ARRAY_GROW(fs, cap, n + 1);
                fs[n++] = (html_function){.name = name};
            }
            if (x == node) fs[i].flat += value;
            if (fs[i].seen != r + 1) { /* recursion counts once per stack */
                fs[i].seen = r + 1;
                fs[i].cum += value;
            }
        }
    }
    tconv_map_free(&ix);
    if (n) qsort(fs, n, sizeof *fs, html_functions_cmp);
    const char *type = v < set.ntypes && set.types[v].type ? set.types[v].type : "samples";
    const char *unit = v < set.ntypes && set.types[v].unit ? set.types[v].unit : "count";
    csv_buf_cstr(b, "{\"type\":");
    html_json_bytes(b, type, strlen(type));
    csv_buf_cstr(b, ",\"unit\":");
    html_json_bytes(b, unit, strlen(unit));
    csv_buf_printf(b, ",\"total\":%" PRId64 ",\"rows\":[", total);
    for (size_t i = 0; i < n; i++) {
        if (i) csv_buf_putc(b, ',');
        csv_buf_putc(b, '[');
        html_json_str(b, w->ctx, fs[i].name);
        csv_buf_printf(b, ",%" PRId64 ",%" PRId64 "]", fs[i].flat, fs[i].cum);
    }
    csv_buf_cstr(b, "]}");
    free(fs);
}
