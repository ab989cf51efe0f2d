/* Steps as a label, not a frame. A training loop profiled step by step (Kineto's
 * ProfilerStep#5, ProfilerStep#6, ...) gives every step a span of its own name, so a profile
 * built from stacks shows one near-identical tower per step and nobody sees "the step" as a
 * whole. The steps stage recognises the frames of steps and gives the writers one name for all
 * of them ("ProfilerStep") and each step's number apart, for a label (pprof's `step`) or for
 * nothing (folded, flame graphs). Writers that draw stacks ask for it, so that they all merge
 * steps the same way: -W steps=merge|keep (TCONV_STEPS_OPTION). Added in ABI 1.4. */
#ifndef TCONV_STEPS_H
#define TCONV_STEPS_H

#include <stddef.h>
#include <stdint.h>

#include "context.h"
#include "event.h"
#include "plugin.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct tconv_steps tconv_steps;

/* A frame is a step when its name is the run's step name followed by a number, as --steps reads
 * it: Kineto's "ProfilerStep#5", or with --step-name (tconv_run_opts.step_name) "iter" the names
 * "iter 5", "iter#5", "iter_5"... Out of memory ends in the handler of tconv_oom_handler_set. */
tconv_steps *tconv_steps_new(tconv_ctx *ctx);
void tconv_steps_destroy(tconv_steps *s);

/* 1 when a frame of this name is a step: *merged (may be NULL) gets the name every step shares,
 * the step name without a trailing '#', ' ', '_', '-' or ':' ("ProfilerStep"), and *number (may be
 * NULL) the step's number. 0 otherwise. Answers are kept per name: a call per frame is cheap. */
int tconv_steps_name(tconv_steps *s, tconv_str name, tconv_str *merged, int64_t *number);

/* The n frames of a stack (root first) into out (n frames, may be frames itself), each step
 * frame named with the shared name and its other fields kept. 1 when the stack holds a step,
 * *number (may be NULL) then the number of its outermost one; 0 when it holds none. */
int tconv_steps_merge(tconv_steps *s, const tconv_frame *frames, size_t n, tconv_frame *out,
                      int64_t *number);

/* The writer option every writer that asks for the stage declares, the same way. */
#define TCONV_STEPS_OPTION                                                                         \
    {                                                                                              \
        "steps", TCONV_OPT_ENUM, "merge", "merge|keep",                                            \
            "merge: the frames of steps (ProfilerStep#5, #6, ...) become one frame, "              \
            "ProfilerStep, so that the step shows as a whole; keep: one frame per step, "          \
            "as the trace names them"                                                              \
    }

/* Nonzero when -W steps asks for merged steps (the default). */
int tconv_steps_merged(const tconv_options *opts);

#ifdef __cplusplus
}
#endif

#endif
