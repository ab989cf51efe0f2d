/* The ops table: per (name, category), calls and host time (total, self, min, max) and the
 * device time of the GPU work the op launched, found through correlation ids.
 *
 * For PyTorch profiler traces this follows the operator view of the PyTorch TensorBoard
 * profiler plugin: per thread, operators (cpu_op, Operator), Python ops, ProfilerStep#,
 * DataLoader and Optimizer.step ranges and host-side collectives form a tree by time nesting; a
 * node whose only child is an operator of the same name is merged with it; a launch (runtime)
 * belongs to the innermost node enclosing it. Every instant of a thread is charged once, to the
 * innermost node or launch around it: host self time is an op's share (so it is never
 * negative), launches' time is no op's. Device self time is the duration of the kernels,
 * memcpys and memsets whose correlation id is that of a launch of the op itself, device total
 * time that of launches anywhere below it; an id carried by several launches counts for the
 * earliest. Only operators are rows: ProfilerStep#, DataLoader, Optimizer.*,
 * DataParallel.forward, user annotations, Python ops, python_function frames, launches and
 * device work are not.
 *
 * For other traces (no cpu_op or Operator spans) every span is an op: self time is its duration
 * minus its direct children's, and there is no device time. */
#ifndef CSV_OPS_H
#define CSV_OPS_H

#include <stddef.h>
#include <stdint.h>

#include "csv_kineto.h"
#include <tconv/tconv.h>
#include <tconv/tconv.h>

typedef struct csv_op_row {
    tconv_str name, cat;
    uint64_t calls;
    int64_t total, self, min, max; /* host, ns */
    int64_t dev_total, dev_self;   /* device, ns */
} csv_op_row;

typedef enum csv_ops_mode { CSV_OPS_AUTO = 0, CSV_OPS_PYTORCH, CSV_OPS_ALL } csv_ops_mode;

typedef struct csv_ops csv_ops;

csv_ops *csv_ops_new(tconv_ctx *ctx, csv_kineto *k);
void csv_ops_free(csv_ops *o);
/* Feed the walker's view of each event: after tconv_spanwalk_event returned BEGIN or END. */
void csv_ops_begin(csv_ops *o, const tconv_spanwalk *w);
void csv_ops_end(csv_ops *o, const tconv_span *s);
/* All events seen: attribute device time to the ops. */
void csv_ops_finish(csv_ops *o);
/* All events seen: the operator (a row of the PYTORCH mode) whose launch the device work of
 * correlation id corr in an input is charged to, the innermost operator around that launch, as
 * device self and total time count it. 0 when there is none: no launch carries the id, or it was
 * made outside every operator. */
int csv_ops_launcher(csv_ops *o, uint32_t input, int64_t corr, tconv_str *name, tconv_str *cat);
/* All events seen: the call path of operators (a chain, 0 for none) around the launch the
 * device work of correlation id corr in an input is charged to; 0 when no launch carries the
 * id. Walk a chain from its innermost operator out with csv_ops_chain_step. */
int csv_ops_launch_chain(csv_ops *o, uint32_t input, int64_t corr, uint32_t *chain);
/* The operator at the end of a chain (not 0), and the chain above it. */
uint32_t csv_ops_chain_step(const csv_ops *o, uint32_t chain, tconv_str *name, tconv_str *cat);
/* The rows of a mode, sorted by host self time (descending), then name and category. AUTO is
 * PYTORCH when the input had operator spans, ALL otherwise; *used tells which was used. */
const csv_op_row *csv_ops_rows(csv_ops *o, csv_ops_mode mode, size_t *n, csv_ops_mode *used);

#endif
