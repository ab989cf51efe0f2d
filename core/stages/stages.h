/* The stages layer (core/stages/): what the pipeline runs events through on their way to a
 * writer: the ordering stage, the selection, the stack stage and its stack table, the span walk,
 * GPU attribution, summed samples and the steps stage. Each stage is a filter of its own; which
 * ones run, and how they are chained, is the pipeline's (core/pipeline). */
#ifndef TCONV_CORE_STAGES_H
#define TCONV_CORE_STAGES_H

#include "plugin.h"

/* ---- selection (core/select.c) ---- */
typedef struct tconv_step_span {
    int64_t from, to; /* first selected step's start, last one's end */
} tconv_step_span;

typedef struct tconv_step_bare {
    int64_t start, end;
    uint32_t input;
} tconv_step_bare;

typedef struct tconv_selection {
    int window, absolute, has_end; /* --window [@]START:[END] */
    int64_t start, end;            /* ns, relative to the trace's first time unless absolute */
    int steps;                     /* --steps A-B */
    int64_t step_first, step_last;
    /* --step-name P (with or without --steps): the steps are the spans named P, or P and a
     * number (tconv_selection_mark_step); NULL: ProfilerStep#N, as the reader marked them. */
    const char *step_name;
    uint64_t step_marked;        /* spans --step-name made steps, for the warning when none */
    tconv_step_span *step_spans; /* per input, noted as spans are pushed */
    size_t nstep_spans;
    /* --steps with spans named P alone: numbered in start order per input once all are read */
    tconv_step_bare *bare;
    size_t nbare, bare_cap;
    int bare_done;
    int64_t input; /* --input N; -1: all */
    /* --rank N, resolved once every input is read: nonzero per input index to keep. NULL: all */
    int by_rank;
    unsigned char *keep;
    size_t nkeep;
} tconv_selection;

/* The selection stage: a filter on the ordered stream that passes what --window/--steps select,
 * spans cut to the window. */
typedef struct tconv_select tconv_select;
void tconv_selection_note_span(tconv_ctx *ctx, tconv_selection *sel, const tconv_event *ev);
/* Makes a span a step (TCONV_ROLE_STEP) when its name says so: with --step-name P, a span named
 * P, or P followed by a number (P#3, P 3, P_3, P3), and no other; without it, also a CPU span
 * named ProfilerStep#N (PyTorch's exporter without Kineto gives it no category). */
void tconv_selection_mark_step(tconv_ctx *ctx, tconv_selection *sel, tconv_event *ev);
/* Numbers the steps named P alone, once every input is read (--steps). */
void tconv_selection_resolve_steps(tconv_selection *sel);
void tconv_selection_free(tconv_selection *sel);
/* --window, --steps, --step-name (each NULL when not given). A usage mistake writes err. */
int tconv_selection_parse(tconv_selection *sel, const char *window, const char *steps,
                          const char *step_name, char *err, size_t cap);
/* Does name make a step of the step name P (--step-name, or "ProfilerStep#")? P alone (*n = -1),
 * or P, separators and a number (*n). One rule for --steps, the step role and the steps stage. */
int tconv_step_number(const char *name, const char *prefix, int64_t *n);
tconv_select *tconv_select_new(tconv_ctx *ctx, const tconv_selection *sel,
                               tconv_status (*emit)(void *user, const tconv_event *ev), void *user);
tconv_status tconv_select_event(void *user, const tconv_event *ev);
uint64_t tconv_select_cut(const tconv_select *s);
/* --rank: keep the inputs that say they are this rank, among those read[i] marks as read (not
 * failed). 0, or -1 with the error on the ctx: no input says a rank (a usage error), only some
 * do, or none is this rank (a usage error). */
int tconv_selection_keep_rank(tconv_ctx *ctx, tconv_selection *sel, int64_t rank,
                              const unsigned char *read, size_t nread);
void tconv_select_free(tconv_select *s);

/* Per-track ordering stage. Buffers events; at flush emits them per track in (start, longer
 * first, input order), COMPLETE as BEGIN/END, nesting repaired with counted warnings. */
typedef tconv_status (*tconv_emit_fn)(void *user, const tconv_event *ev);
typedef struct tconv_order tconv_order;
tconv_order *tconv_order_new(tconv_ctx *ctx, int keep_payload);
tconv_status tconv_order_add(tconv_order *o, const tconv_event *ev);
/* Every event's time, buffered or not, so an unclosed span can be closed at its track's end. */
void tconv_order_note_time(tconv_order *o, uint32_t track, int64_t t);
tconv_status tconv_order_flush(tconv_order *o, tconv_emit_fn emit, void *user);
/* An input was read to its end: its GPU streams and async tracks are split into lanes now, so
 * that the lanes' track ids follow the input's own tracks (core/order.c says why). */
tconv_status tconv_order_input_done(tconv_order *o);
/* The most bytes the stage held at an input's end, at a flush, or now. */
size_t tconv_order_peak_bytes(tconv_order *o);
/* Counts of a stage that ran elsewhere on an input (a partial result), for -v. */
void tconv_order_count_elsewhere(tconv_order *o, size_t events, size_t peak);
void tconv_order_free(tconv_order *o);
/* What the stage holds: events buffered, and their bytes with full copies and tables. */
size_t tconv_order_events(const tconv_order *o);
size_t tconv_order_bytes(const tconv_order *o);

/* Stack stage: consumes the ordered stream, emits one SAMPLE per span with its self time. */
typedef struct tconv_stack tconv_stack;
tconv_stack *tconv_stack_new(tconv_ctx *ctx, tconv_emit_fn emit, void *user);
tconv_status tconv_stack_event(void *stack, const tconv_event *ev);
void tconv_stack_free(tconv_stack *s);
extern const tconv_sample_type tconv_stack_sample_types[2];

/* Stack table (include/tconv/stacktab.h): the core's own stages embed one rather than
 * allocate it, hence the struct here. */
struct tconv_stacktab {
    struct tconv_stacktab_node *nodes;
    size_t n, cap;
    uint32_t *slots;
    size_t nslots;
    uint32_t *last; /* the nodes of the last stack interned */
    size_t nlast, lastcap;
};
void tconv_stacktab_init(tconv_stacktab *t);
void tconv_stacktab_free(tconv_stacktab *t);
size_t tconv_stacktab_bytes(const tconv_stacktab *t);

/* GPU attribution stage (core/gpu.c), for writers that called tconv_gpu_attribute. The sink
 * notes correlation ids and holds launch stacks while readers push; the stack stage calls the
 * hooks as it walks each track and emits one sample per attributed GPU activity as soon as its
 * launch is known; the flush, after every track, emits the rest. */
typedef struct tconv_gpu tconv_gpu;
tconv_gpu *tconv_gpu_new(tconv_ctx *ctx);
void tconv_gpu_free(tconv_gpu *g);
void tconv_gpu_note_span(tconv_gpu *g, const tconv_event *ev);
/* 1 if the sample is a launch stack, now held by the stage. */
int tconv_gpu_take_stack(tconv_gpu *g, const tconv_event *ev);
int tconv_gpu_has_stacks(const tconv_gpu *g);
void tconv_gpu_begin(tconv_gpu *g, const tconv_event *ev, const tconv_frame *frames, size_t depth);
void tconv_gpu_point(tconv_gpu *g, const tconv_event *ev, const tconv_frame *frames, size_t depth);
tconv_status tconv_gpu_end(tconv_gpu *g, const tconv_event *ev, size_t depth);
/* GPU samples go where the stack stage's samples go; the flush emits those still waiting. */
void tconv_gpu_emit_to(tconv_gpu *g, tconv_emit_fn emit, void *user);
tconv_status tconv_gpu_flush(tconv_gpu *g);
void tconv_stack_attach_gpu(tconv_stack *s, tconv_gpu *g);
/* Launch stacks were read, but the writer did not ask for attribution: say how to. */
void tconv_gpu_hint(tconv_ctx *ctx, const char *writer);
extern const tconv_sample_type tconv_gpu_sample_types[3];

/* Launch stacks matched to launch records per thread (core/gpumatch.c). */
typedef struct tconv_match_item {
    int64_t ts;
    tconv_str pid, tid;
    uint32_t partner; /* out: index on the other side, or UINT32_MAX */
} tconv_match_item;
typedef struct tconv_match_stats {
    uint64_t by_order, by_time;
    int64_t offset; /* launch clock minus stack clock */
    int have_offset;
} tconv_match_stats;
void tconv_match_launches(tconv_match_item *stacks, size_t nstacks, tconv_match_item *launches,
                          size_t nlaunches, int64_t tolerance, tconv_match_stats *st);

typedef struct tconv_sums tconv_sums;
tconv_sums *tconv_sums_new(void);
/* -1: a sum overflowed. */
int tconv_sums_add(tconv_sums *s, const tconv_event *e);
size_t tconv_sums_count(const tconv_sums *s);
const tconv_event *tconv_sums_get(const tconv_sums *s, size_t i);
void tconv_sums_free(tconv_sums *s);

#endif
