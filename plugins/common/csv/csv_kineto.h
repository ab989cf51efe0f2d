/* What a span is in a PyTorch profiler (Kineto) trace, from its category and name, with the
 * rules of the PyTorch TensorBoard profiler plugin (torch_tb_profiler), so that the ops,
 * kernels and step tables agree with its operator, kernel and overview pages. */
#ifndef CSV_KINETO_H
#define CSV_KINETO_H

#include <stddef.h>
#include <stdint.h>

#include <tconv/tconv.h>

#include <tconv/tconv.h>

/* What a span is to the tables: the core's role (tconv_event.role, decided from the one
 * category table in core/context/role.c), with CPU work split into Kineto operators and the rest.
 */
typedef enum csv_role {
    CSV_ROLE_OTHER = 0,
    CSV_ROLE_OP,         /* cpu_op, Operator: an operator */
    CSV_ROLE_ANNOTATION, /* user_annotation: record_function ranges */
    CSV_ROLE_PYTHON,     /* python: a Python op of the old profiler */
    CSV_ROLE_RUNTIME,    /* runtime, cuda_runtime, hip_runtime, cuda_driver, ...: a launch */
    CSV_ROLE_KERNEL,     /* kernel (and MTIA mtia_ccp_events) */
    CSV_ROLE_MEMCPY,     /* memcpy, gpu_memcpy */
    CSV_ROLE_MEMSET      /* memset, gpu_memset */
} csv_role;

/* Name-based facts, as flags. */
enum {
    CSV_NAME_STEP = 1u << 0,       /* ProfilerStep#N */
    CSV_NAME_DATALOADER = 1u << 1, /* enumerate(DataLoader)#...__next__, enumerate(DataPipe)#... */
    CSV_NAME_OPTIMIZER = 1u << 2,  /* Optimizer.step#...: its own node in the op tree */
    CSV_NAME_NOT_OP = 1u << 3, /* Optimizer.*, DataParallel.forward, ...: not in the ops table */
    CSV_NAME_COMM = 1u << 4,   /* nccl:* and gloo:* collectives on the host */
    CSV_NAME_COMM_KERNEL = 1u << 5 /* nccl* kernels on the device */
};

typedef struct csv_kineto {
    tconv_ctx *ctx;
    tconv_map ops;   /* category id -> 1 if it names Kineto operators */
    tconv_map names; /* name id -> CSV_NAME_* flags */
} csv_kineto;

void csv_kineto_init(csv_kineto *k, tconv_ctx *ctx);
void csv_kineto_free(csv_kineto *k);
csv_role csv_kineto_role(csv_kineto *k, unsigned role, tconv_str cat);
unsigned csv_kineto_name(csv_kineto *k, tconv_str name);
/* The kernel name matches the Tensor Core kernel patterns of the TensorBoard plugin. */
int csv_kineto_tensor_core(const char *kernel_name);
/* A role counts as device work (kernel, memcpy, memset). */
int csv_role_is_device(csv_role r);

/* The value of an arg as an integer (ints, uints, integral doubles) or a double; 0 when the
 * arg is absent or not a number. */
int csv_arg_int(const tconv_ctx *ctx, const tconv_arg *args, uint32_t n, const char *key,
                int64_t *out);
int csv_arg_double(const tconv_ctx *ctx, const tconv_arg *args, uint32_t n, const char *key,
                   double *out);
const tconv_arg *csv_arg_find(const tconv_ctx *ctx, const tconv_arg *args, uint32_t n,
                              const char *key);

#endif
