/* The html writer's state: the analyses of the csv and summary writers, fed by the span walk,
 * and the stacks of the flame graph. Everything in the page is computed by them; the page only
 * lays their results out. */
#ifndef HTML_WRITER_H
#define HTML_WRITER_H

#include <tconv/tconv.h>

#include "csv_buf.h"
#include "csv_kernels.h"
#include "csv_kineto.h"
#include "csv_memory.h"
#include "csv_ops.h"
#include "csv_stacks.h"
#include "flamegraph_value.h"
#include "summary_gpu.h"
#include "summary_steps.h"

/* Device work (kernel, memcpy, memset) and its correlation id, until the ops analysis can say
 * who launched it. */
typedef struct html_kernel_call {
    int64_t corr, dur;
    uint32_t input;
    tconv_str name;
    uint8_t role; /* csv_role */
} html_kernel_call;

/* Per (kernel name, launching operator): calls and time. */
typedef struct html_kernel_op {
    tconv_str kernel, op; /* op 0: launched outside every operator, or not found */
    uint64_t calls;
    int64_t total;
} html_kernel_op;

typedef struct html_writer {
    tconv_ctx *ctx;
    tconv_output *out;
    char *title;
    int flame_width;
    /* The ops and kernels tables walk every span, as the csv writer does, so that their rows are
     * the csv writer's; steps, GPUs and stacks walk the work of each thread only, as the summary
     * and the stack stage do, so that their times are the summary's and the flame graph's. */
    tconv_spanwalk *walk, *work;
    csv_kineto kineto;
    csv_ops *ops;
    csv_kernels *kernels;
    csv_stacks stacks;
    csv_memory *memory;
    summary_steps steps; /* per input, then combined: the ranks' comparison too */
    summary_gpu gpu;
    /* What each input says of its job and devices, as it wrote it (JSON text, parsed by the
     * page): Kineto's distributedInfo and deviceProperties. By input; 0: none. */
    struct html_info {
        tconv_str dist, devices;
    } * info;
    size_t ninfo, info_cap;
    /* kernels and the operators that launched them (html_launch.c) */
    html_kernel_call *calls; /* until the end */
    size_t ncalls, calls_cap;
    html_kernel_op *kernel_ops; /* by kernel name id, then time */
    size_t nkernel_ops;
    struct flamegraph_tree *gpu_tree; /* device time on the operators that launched it */
    struct flamegraph_tree *cpu_tree; /* CPU self time: the stacks of CPU threads only */
    flamegraph_unit cpu_unit;
    tconv_map hue;            /* span name -> flame graph colour class + 1, from its first span */
    tconv_steps *step_frames; /* -W steps=merge: the graphs' step frames as one; NULL: keep */
    uint64_t not_work;        /* spans left out of the work walk */
    csv_buf page, tmp;
} html_writer;

/* html_json.c: JSON text safe inside <script type="application/json">. */
void html_json_str(csv_buf *b, const tconv_ctx *ctx, tconv_str s);
void html_json_bytes(csv_buf *b, const char *s, size_t n);

/* html_data.c: the page's data, one JSON object. */
void html_data(html_writer *w, csv_buf *b);

/* html_flame.c: the CPU self-time tree (w->cpu_tree) from the stacks of CPU threads; then
 * either graph as an SVG in b, and its height in pixels. */
void html_flame_build(html_writer *w);
tconv_status html_flame(html_writer *w, csv_buf *b, int *height);
tconv_status html_flame_gpu(html_writer *w, csv_buf *b, int *height);

/* html_ranks.c: "ranks":[...], each input's steps alone (its breakdown as its own report gives
 * it, and every step's time), the slowest marked; and what each input says of its job. */
void html_ranks_meta(html_writer *w, const tconv_event *ev);

/* html_functions.c: "functions":{...}, the top functions of stack samples (null for spans). */
void html_functions(html_writer *w, csv_buf *b);
void html_ranks(html_writer *w, csv_buf *b);
void html_ranks_free(html_writer *w);

/* html_launch.c: the operators that launched each kernel. */
void html_launch_span(html_writer *w, const tconv_span *s);
void html_launch_finish(html_writer *w);
void html_launch_json(html_writer *w, csv_buf *b, tconv_str kernel);

/* html_memory.c: "memory":{...}, the memory chart's series. */
#define HTML_MEMORY_BUCKETS 500
void html_memory(html_writer *w, csv_buf *b);
/* Whether the trace has memory events at all. */
int html_memory_any(html_writer *w);

/* html_page.c */
tconv_status html_page(html_writer *w);
/* The report's title: -W title, else the input's file name (two, or the first and how many
 * more), into b. */
void html_page_title(html_writer *w, csv_buf *b);

/* The page's script and style, generated from html.js and html.css (NUL-terminated). */
extern const char html_script[];
extern const char html_style[];
/* 'sha256-...' of the page's script and of the flame graph's, for the page's policy. */
extern const char html_script_hash[];
extern const char html_flame_script_hash[];

#endif
