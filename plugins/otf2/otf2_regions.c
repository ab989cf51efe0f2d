/* Which OTF2 paradigm and role a region gets, from the category of its spans. Kineto names its
 * GPU categories "cuda_runtime", "kernel", "gpu_memcpy"... (2022 and later) or "Runtime",
 * "Kernel", "Memcpy"... (2021). ROCm builds of Kineto keep the CUDA category names, so HIP is
 * recognised by the runtime calls' own names (hipLaunchKernel, ...). */
#include <string.h>
#include <strings.h>

#include "otf2_writer.h"

typedef enum otf2_cat_class {
    OTF2W_CAT_OTHER,
    OTF2W_CAT_RUNTIME,
    OTF2W_CAT_KERNEL,
    OTF2W_CAT_MEMCPY,
    OTF2W_CAT_MEMSET
} otf2_cat_class;

static otf2_cat_class otf2_category_class(const char *cat)
{
    static const struct {
        const char *name;
        otf2_cat_class cls;
    } table[] = {
        {"cuda_runtime", OTF2W_CAT_RUNTIME}, {"cuda_driver", OTF2W_CAT_RUNTIME},
        {"runtime", OTF2W_CAT_RUNTIME},      {"kernel", OTF2W_CAT_KERNEL},
        {"gpu_memcpy", OTF2W_CAT_MEMCPY},    {"memcpy", OTF2W_CAT_MEMCPY},
        {"gpu_memset", OTF2W_CAT_MEMSET},    {"memset", OTF2W_CAT_MEMSET},
    };
    for (size_t i = 0; i < sizeof(table) / sizeof(table[0]); i++)
        if (strcasecmp(cat, table[i].name) == 0) return table[i].cls;
    return OTF2W_CAT_OTHER;
}

int otf2_category_is_gpu(const char *cat)
{
    otf2_cat_class c = otf2_category_class(cat);
    return c == OTF2W_CAT_KERNEL || c == OTF2W_CAT_MEMCPY || c == OTF2W_CAT_MEMSET;
}

void otf2_region_kind(const otf2_state *st, const otf2_region *r, OTF2_Paradigm *paradigm,
                      OTF2_RegionRole *role)
{
    const char *cat = tconv_string_get(st->ctx, r->cat);
    const char *name = tconv_string_get(st->ctx, r->name);
    OTF2_Paradigm gpu = st->hip ? OTF2_PARADIGM_HIP : OTF2_PARADIGM_CUDA;
    switch (otf2_category_class(cat)) {
    case OTF2W_CAT_RUNTIME:
        *paradigm = strncmp(name, "hip", 3) == 0 ? OTF2_PARADIGM_HIP : OTF2_PARADIGM_CUDA;
        *role = OTF2_REGION_ROLE_WRAPPER;
        break;
    case OTF2W_CAT_KERNEL:
        *paradigm = gpu;
        *role = OTF2_REGION_ROLE_FUNCTION;
        break;
    case OTF2W_CAT_MEMCPY:
        *paradigm = gpu;
        *role = OTF2_REGION_ROLE_DATA_TRANSFER;
        break;
    case OTF2W_CAT_MEMSET:
        *paradigm = gpu;
        *role = OTF2_REGION_ROLE_FUNCTION;
        break;
    default:
        *paradigm = OTF2_PARADIGM_USER;
        *role = OTF2_REGION_ROLE_FUNCTION;
    }
}

void otf2_regions_detect_hip(otf2_state *st)
{
    for (size_t i = 0; i < st->nregions && !st->hip; i++) {
        const otf2_region *r = &st->regions[i];
        if (otf2_category_class(tconv_string_get(st->ctx, r->cat)) == OTF2W_CAT_RUNTIME &&
            strncmp(tconv_string_get(st->ctx, r->name), "hip", 3) == 0)
            st->hip = 1;
    }
}
