/* Folded stacks as stackcollapse-*.pl and inferno write them: samples are summed per distinct
 * stack and written sorted by the stack's bytes (Perl's `sort`, inferno's ordered map), so
 * tconv's output can be compared byte for byte with theirs. Stacks live in the core's stack
 * table (a prefix tree), so memory follows distinct stacks even when spans nest 30 000 deep;
 * only the output, one line per stack, grows with depth squared. */
#include "folded_writer.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "folded_oom.h"
#include "folded_root.h"
#include "folded_value.h"

typedef struct folded_writer {
    tconv_ctx *ctx;
    tconv_output *out;
    int root;
    int unit_ns;
    tconv_stacktab *stacks;
    int64_t *values; /* per stack table node */
    uint8_t *hit;    /* the node is a stack that was sampled, not only a prefix */
    size_t valcap, hitcap;
    int mode_known;
    size_t vindex;
    int span_mode; /* values are self times in ns from the core's stack stage */
    int decimals;  /* fixed-point values from the folded reader */
    int gpu;       /* -W value=gpu: only the GPU time the core attributed to launching stacks */
    int no_gpu;    /* ... and the input had no gpu sample type */
    tconv_frame *key;
    size_t keycap;
    uint32_t *clean; /* name id -> id of its folded-safe form, plus 1 */
    size_t cleancap;
    uint32_t *roots; /* track -> root frame id, plus 1 */
    size_t rootcap;
    char *buf;
    size_t bufcap;
    int overflowed;
    size_t zero_lines;  /* stacks whose time is 0 in the unit, not written */
    tconv_steps *steps; /* -W steps=merge: the core's steps stage; NULL: keep */
} folded_writer;

static void *folded_writer_grow(void *p, size_t *cap, size_t need, size_t size, int zero)
{
    size_t old = *cap;
    tconv_array_grow(&p, cap, need, size); /* the core's, overflow-checked */
    if (zero) memset((char *)p + old * size, 0, (*cap - old) * size);
    return p;
}

static tconv_status folded_writer_open(tconv_ctx *ctx, tconv_output *out, const tconv_options *o,
                                       void **state)
{
    folded_writer *w = calloc(1, sizeof(*w));
    if (!w) folded_oom(sizeof(*w));
    w->ctx = ctx;
    w->out = out;
    w->root = folded_root_mode(tconv_option_get_string(o, "root"));
    /* One unit for every time value, CPU self time and GPU time alike: ns unless asked, since
     * rounding to µs erases short kernels and makes the lines miss the busy time. */
    w->unit_ns = strcmp(tconv_option_get_string(o, "unit"), "ns") == 0;
    w->gpu = strcmp(tconv_option_get_string(o, "value"), "gpu") == 0;
    w->stacks = tconv_stacktab_new();
    if (tconv_steps_merged(o)) w->steps = tconv_steps_new(ctx);
    *state = w;
    return TCONV_OK;
}

/* Folded text cannot hold ';' inside a frame nor a line break: ';' becomes ':' as in
 * stackcollapse-perf.pl, breaks become spaces. */
static uint32_t folded_writer_clean(folded_writer *w, tconv_str id)
{
    w->clean = folded_writer_grow(w->clean, &w->cleancap, (size_t)id + 1, sizeof(*w->clean), 1);
    if (w->clean[id]) return w->clean[id] - 1;
    const char *s = tconv_string_get(w->ctx, id);
    size_t n = tconv_string_length(w->ctx, id);
    tconv_str out = id;
    if (strpbrk(s, ";\n\r")) {
        w->buf = folded_writer_grow(w->buf, &w->bufcap, n + 1, 1, 0);
        for (size_t i = 0; i < n; i++)
            w->buf[i] = s[i] == ';' ? ':' : (s[i] == '\n' || s[i] == '\r') ? ' ' : s[i];
        out = tconv_string_intern(w->ctx, w->buf, n);
    }
    w->clean = folded_writer_grow(w->clean, &w->cleancap, (size_t)id + 1, sizeof(*w->clean), 1);
    w->clean[id] = out + 1;
    return out;
}

/* The thread root frame (folded_root.c), made folded-safe, once per track. */
static uint32_t folded_writer_root(folded_writer *w, uint32_t track)
{
    w->roots = folded_writer_grow(w->roots, &w->rootcap, (size_t)track + 1, sizeof(*w->roots), 1);
    if (w->roots[track]) return w->roots[track] - 1;
    tconv_str id = folded_writer_clean(w, folded_root_name(w->ctx, track, w->root));
    w->roots = folded_writer_grow(w->roots, &w->rootcap, (size_t)track + 1, sizeof(*w->roots), 1);
    w->roots[track] = id + 1;
    return id;
}

/* Which value to write: the one the input calls its default (the period of perf samples, the
 * count otherwise); spans arrive as self times, which are converted to -W unit. */
static void folded_writer_mode(folded_writer *w)
{
    size_t n = 0, def = 0;
    const tconv_sample_type *types = tconv_sampletypes_get(w->ctx, &n, &def);
    w->mode_known = 1;
    if (w->gpu) {
        size_t i = 0;
        while (i < n && !(types[i].type && strcmp(types[i].type, "gpu") == 0))
            i++;
        w->no_gpu = i == n;
        w->vindex = i;
        w->span_mode = 1; /* nanoseconds, written in -W unit */
        return;
    }
    if (!types || !n) return;
    w->vindex = def < n ? def : 0;
    const tconv_sample_type *t = &types[w->vindex];
    w->span_mode =
        t->type && t->unit && strcmp(t->type, "wall") == 0 && strcmp(t->unit, "nanoseconds") == 0;
    w->decimals = folded_value_unit_decimals(t->unit);
}

static tconv_status folded_writer_event(void *state, const tconv_event *ev)
{
    folded_writer *w = state;
    if (ev->kind != TCONV_EV_SAMPLE) return TCONV_OK;
    if (!w->mode_known) folded_writer_mode(w);
    int64_t v = w->vindex < ev->nvalues ? ev->values[w->vindex] : 1;
    /* CPU self time carries no GPU time: only the attributed GPU samples have any. */
    if (w->gpu && (w->no_gpu || w->vindex >= ev->nvalues || v <= 0)) return TCONV_OK;
    size_t n = ev->nframes + 1;
    w->key = folded_writer_grow(w->key, &w->keycap, n, sizeof(*w->key), 1);
    uint32_t k = 0;
    if (w->root != FOLDED_ROOT_NONE) w->key[k++].name = folded_writer_root(w, ev->track);
    for (uint32_t i = 0; i < ev->nframes; i++) {
        tconv_str name = ev->frames[i].name;
        if (w->steps) tconv_steps_name(w->steps, name, &name, NULL); /* one ProfilerStep */
        w->key[k++].name = folded_writer_clean(w, name);
    }
    if (!k) return TCONV_OK; /* a sample without any frame has no line to go on */
    uint32_t node = tconv_stacktab_intern(w->stacks, w->key, k);
    w->values = folded_writer_grow(w->values, &w->valcap, (size_t)node + 1, sizeof(*w->values), 1);
    w->hit = folded_writer_grow(w->hit, &w->hitcap, (size_t)node + 1, 1, 1);
    w->hit[node] = 1;
    if (__builtin_add_overflow(w->values[node], v, &w->values[node])) {
        w->values[node] = v < 0 ? INT64_MIN : INT64_MAX;
        if (!w->overflowed) {
            w->overflowed = 1;
            tconv_warning_add(w->ctx, "folded.overflow",
                              "a stack's summed value does not fit in 64 bits; written saturated");
        }
    }
    return TCONV_OK;
}

static tconv_status folded_writer_line(folded_writer *w, uint32_t node, int64_t v)
{
    /* A time that is 0 in the unit draws nothing and only makes the line count lie. */
    if (w->span_mode) {
        v = folded_value_round_ns(v, w->unit_ns ? 1 : 1000);
        if (v == 0) {
            w->zero_lines++;
            return TCONV_OK;
        }
    }
    size_t len = tconv_stacktab_join(w->stacks, w->ctx, node, ';', w->buf, w->bufcap);
    if (len + 64 > w->bufcap) {
        w->buf = folded_writer_grow(w->buf, &w->bufcap, len + 64, 1, 0);
        tconv_stacktab_join(w->stacks, w->ctx, node, ';', w->buf, w->bufcap);
    }
    char *p = w->buf;
    size_t o = len;
    p[o++] = ' ';
    if (w->span_mode)
        o += folded_value_format(p + o, v, 0);
    else
        o += folded_value_format(p + o, v, w->decimals);
    p[o++] = '\n';
    return tconv_output_write(w->out, p, o) < 0 ? TCONV_FATAL : TCONV_OK;
}

static tconv_status folded_writer_finish(void *state)
{
    folded_writer *w = state;
    size_t n = tconv_stacktab_count(w->stacks);
    uint32_t *order = malloc((n + 1) * sizeof(*order));
    if (!order) folded_oom((n + 1) * sizeof(*order));
    tconv_stacktab_sort(w->stacks, w->ctx, ';', order);
    tconv_status st = TCONV_OK;
    for (size_t i = 0; i < n && st == TCONV_OK; i++)
        if (order[i] < w->hitcap && w->hit[order[i]])
            st = folded_writer_line(w, order[i], w->values[order[i]]);
    free(order);
    if (w->zero_lines)
        tconv_note(w->ctx, "folded: %zu stacks with 0 %s of time left out%s", w->zero_lines,
                   w->unit_ns ? "ns" : "µs", w->unit_ns ? "" : " (-W unit=ns keeps them)");
    return st;
}

static void folded_writer_destroy(void *state)
{
    folded_writer *w = state;
    if (!w) return;
    tconv_stacktab_destroy(w->stacks);
    tconv_steps_destroy(w->steps);
    free(w->values);
    free(w->hit);
    free(w->key);
    free(w->clean);
    free(w->roots);
    free(w->buf);
    free(w);
}

static const tconv_option_desc folded_writer_options[] = {
    {"root", TCONV_OPT_ENUM, "none", FOLDED_ROOT_VALUES,
     "add a root frame naming the thread, as stackcollapse-perf does (comm, --pid, --tid); "
     "perf input already has one unless read with -R comm=false"},
    {"unit", TCONV_OPT_ENUM, "ns", "ns|us",
     "unit of every time value, span self time (trace input) and GPU time alike: exact "
     "nanoseconds, or microseconds rounded to nearest per stack; a stack whose time is 0 in "
     "the unit is left out; sample input is written as its counts or periods"},
    {"value", TCONV_OPT_ENUM, "cpu", "cpu|gpu",
     "cpu: self time of spans (or the samples' own value); gpu: only GPU kernels, copies and "
     "sets, each on the CPU stack that launched it, ending in a '[gpu] name' frame"},
    TCONV_STEPS_OPTION,
    {0},
};

/* Samples carry frames and values only: readers need not build the args of spans. Values are
 * summed per line (track root and frame names) in their order, and the lines sorted by their
 * bytes; a sample's root frame comes from its own track's names. */
static uint32_t folded_writer_needs(const tconv_options *o)
{
    uint32_t n = TCONV_NEED_STACK_SUMS;
    if (strcmp(tconv_option_get_string(o, "value"), "gpu") == 0) n |= TCONV_NEED_GPU_ATTRIBUTION;
    return n;
}

const tconv_writer_class folded_writer_class = {
    .struct_size = sizeof(tconv_writer_class),
    .name = "folded",
    .description = "folded stacks for flamegraph.pl/inferno: 'frame;frame value' per stack, "
                   "sorted; the value is in one unit per run: span self times in -W unit, or "
                   "the samples' default type (perf: the period, e.g. cycles or ns; folded: "
                   "counts); inputs whose sample types differ are refused",
    .options = folded_writer_options,
    .accepts = TCONV_KIND_BIT(TCONV_EV_SAMPLE) | TCONV_KIND_BIT(TCONV_EV_METADATA),
    .open = folded_writer_open,
    .event = folded_writer_event,
    .finish = folded_writer_finish,
    .destroy = folded_writer_destroy,
    .extensions = "folded",
    .needs = folded_writer_needs,
};
