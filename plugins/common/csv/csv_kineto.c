/* Roles and name rules of Kineto traces. */
#include <string.h>
#include <strings.h>

#include "csv_kineto.h"

void csv_kineto_init(csv_kineto *k, tconv_ctx *ctx)
{
    memset(k, 0, sizeof *k);
    k->ctx = ctx;
}

void csv_kineto_free(csv_kineto *k)
{
    tconv_map_free(&k->ops);
    tconv_map_free(&k->names);
}

static int csv_ieq(const char *s, size_t n, const char *lit)
{
    return strlen(lit) == n && strncasecmp(s, lit, n) == 0;
}

static int csv_starts_with(const char *s, size_t n, const char *lit)
{
    size_t m = strlen(lit);
    return n >= m && memcmp(s, lit, m) == 0;
}

csv_role csv_kineto_role(csv_kineto *k, unsigned role, tconv_str cat)
{
    switch (role) {
    case TCONV_ROLE_KERNEL:
        return CSV_ROLE_KERNEL;
    case TCONV_ROLE_MEMCPY:
        return CSV_ROLE_MEMCPY;
    case TCONV_ROLE_MEMSET:
        return CSV_ROLE_MEMSET;
    case TCONV_ROLE_RUNTIME:
    case TCONV_ROLE_DRIVER:
        return CSV_ROLE_RUNTIME;
    case TCONV_ROLE_ANNOTATION:
        return CSV_ROLE_ANNOTATION;
    case TCONV_ROLE_PYTHON:
        return CSV_ROLE_PYTHON;
    case TCONV_ROLE_CPU:
    case TCONV_ROLE_STEP:
        break;
    default:
        return CSV_ROLE_OTHER;
    }
    /* CPU work is an operator only where Kineto says so: the ops table is PyTorch's. A step
     * (ProfilerStep#N) is an operator in older traces and an annotation since. */
    uint32_t v = 0;
    if (cat && (v = tconv_map_get(&k->ops, cat, 0)) == TCONV_MAP_NONE) {
        const char *c = tconv_string_get(k->ctx, cat);
        size_t n = tconv_string_length(k->ctx, cat);
        v = csv_ieq(c, n, "cpu_op") || csv_ieq(c, n, "operator");
        tconv_map_put(&k->ops, cat, 0, v);
    }
    if (v) return CSV_ROLE_OP;
    return role == TCONV_ROLE_STEP ? CSV_ROLE_ANNOTATION : CSV_ROLE_OTHER;
}

static unsigned csv_name_flags(const char *s, size_t n)
{
    unsigned f = 0;
    if (csv_starts_with(s, n, "ProfilerStep#")) f |= CSV_NAME_STEP;
    if ((csv_starts_with(s, n, "enumerate(DataLoader)#") && n >= 9 &&
         memcmp(s + n - 9, ".__next__", 9) == 0) ||
        csv_starts_with(s, n, "enumerate(DataPipe)#"))
        f |= CSV_NAME_DATALOADER;
    if (csv_starts_with(s, n, "Optimizer.step")) f |= CSV_NAME_OPTIMIZER;
    if (csv_starts_with(s, n, "Optimizer.") ||
        (n == 20 && memcmp(s, "DataParallel.forward", 20) == 0) ||
        (n == 31 && memcmp(s, "DistributedDataParallel.forward", 31) == 0))
        f |= CSV_NAME_NOT_OP;
    if (csv_starts_with(s, n, "nccl:") || csv_starts_with(s, n, "gloo:")) f |= CSV_NAME_COMM;
    if (csv_starts_with(s, n, "nccl") && !(f & CSV_NAME_COMM)) f |= CSV_NAME_COMM_KERNEL;
    return f;
}

unsigned csv_kineto_name(csv_kineto *k, tconv_str name)
{
    uint32_t v = tconv_map_get(&k->names, name, 0);
    if (v != TCONV_MAP_NONE) return v;
    unsigned f = csv_name_flags(tconv_string_get(k->ctx, name), tconv_string_length(k->ctx, name));
    tconv_map_put(&k->names, name, 0, f);
    return f;
}

int csv_kineto_tensor_core(const char *name)
{
    /* The TensorBoard plugin's list, which comes from NVIDIA PyProf: a kernel whose name holds
     * one of these uses Tensor Cores. */
    static const char *const patterns[] = {"h884",
                                           "s884",
                                           "h1688",
                                           "s1688",
                                           "hmma",
                                           "i8816",
                                           "16816",
                                           "dgrad_1x1_stride_2x2",
                                           "first_layer_wgrad_kernel",
                                           "conv1x1",
                                           "conv2d_c1_k1",
                                           "direct_group",
                                           "xmma_implicit_gemm",
                                           "xmma_sparse_conv",
                                           "xmma_warp_specialized_implicit_gemm",
                                           "xmma_gemm",
                                           "xmma_sparse_gemm",
                                           "c1688",
                                           NULL};
    for (size_t i = 0; patterns[i]; i++)
        if (strstr(name, patterns[i])) return 1;
    return 0;
}

int csv_role_is_device(csv_role r)
{
    return r == CSV_ROLE_KERNEL || r == CSV_ROLE_MEMCPY || r == CSV_ROLE_MEMSET;
}

const tconv_arg *csv_arg_find(const tconv_ctx *ctx, const tconv_arg *args, uint32_t n,
                              const char *key)
{
    size_t klen = strlen(key);
    for (uint32_t i = 0; i < n; i++)
        if (tconv_string_length(ctx, args[i].key) == klen &&
            memcmp(tconv_string_get(ctx, args[i].key), key, klen) == 0)
            return &args[i];
    return NULL;
}

int csv_arg_int(const tconv_ctx *ctx, const tconv_arg *args, uint32_t n, const char *key,
                int64_t *out)
{
    const tconv_arg *a = csv_arg_find(ctx, args, n, key);
    if (!a) return 0;
    switch (a->type) {
    case TCONV_ARG_INT:
        *out = a->v.i;
        return 1;
    case TCONV_ARG_UINT:
        *out = (int64_t)a->v.u;
        return 1;
    case TCONV_ARG_DOUBLE:
        if (!(a->v.d >= -9.0e18 && a->v.d <= 9.0e18) || a->v.d != (double)(int64_t)a->v.d) return 0;
        *out = (int64_t)a->v.d;
        return 1;
    default:
        return 0;
    }
}

int csv_arg_double(const tconv_ctx *ctx, const tconv_arg *args, uint32_t n, const char *key,
                   double *out)
{
    const tconv_arg *a = csv_arg_find(ctx, args, n, key);
    if (!a) return 0;
    switch (a->type) {
    case TCONV_ARG_INT:
        *out = (double)a->v.i;
        return 1;
    case TCONV_ARG_UINT:
        *out = (double)a->v.u;
        return 1;
    case TCONV_ARG_DOUBLE:
        *out = a->v.d;
        return 1;
    default:
        return 0;
    }
}
