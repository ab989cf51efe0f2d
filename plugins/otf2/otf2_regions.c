/* Which OTF2 paradigm and role a region gets, from the role of its spans (the core's one
 * reading of profilers' categories). ROCm builds of Kineto keep the CUDA category names, so HIP
 * is recognised by the runtime calls' own names (hipLaunchKernel, ...). */
#include <string.h>

#include "otf2_writer.h"

void otf2_region_kind(const otf2_state *st, const otf2_region *r, OTF2_Paradigm *paradigm,
                      OTF2_RegionRole *role)
{
    const char *name = tconv_string_get(st->ctx, r->name);
    OTF2_Paradigm gpu = st->hip ? OTF2_PARADIGM_HIP : OTF2_PARADIGM_CUDA;
    switch (r->role) {
    case TCONV_ROLE_RUNTIME:
    case TCONV_ROLE_DRIVER:
        *paradigm = strncmp(name, "hip", 3) == 0 ? OTF2_PARADIGM_HIP : OTF2_PARADIGM_CUDA;
        *role = OTF2_REGION_ROLE_WRAPPER;
        break;
    case TCONV_ROLE_KERNEL:
        *paradigm = gpu;
        *role = OTF2_REGION_ROLE_FUNCTION;
        break;
    case TCONV_ROLE_MEMCPY:
        *paradigm = gpu;
        *role = OTF2_REGION_ROLE_DATA_TRANSFER;
        break;
    case TCONV_ROLE_MEMSET:
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
        if ((r->role == TCONV_ROLE_RUNTIME || r->role == TCONV_ROLE_DRIVER) &&
            strncmp(tconv_string_get(st->ctx, r->name), "hip", 3) == 0)
            st->hip = 1;
    }
}
