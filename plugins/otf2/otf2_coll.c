/* OTF2's collective callbacks on the core's collective service (tconv/collective.h), for the
 * archive that every rank of an MPI run writes a part of: the plugin needs no MPI of its own.
 * The global context is the whole run; there is no local one (no SION files), so
 * create_local_comm is left out, which OTF2 allows when it does not group files. */
#include <stdlib.h>

#include "otf2_oom.h"
#include "otf2_writer.h"

static size_t otf2_coll_type_size(OTF2_Type type)
{
    switch (type) {
    case OTF2_TYPE_UINT8:
    case OTF2_TYPE_INT8:
        return 1;
    case OTF2_TYPE_UINT16:
    case OTF2_TYPE_INT16:
        return 2;
    case OTF2_TYPE_UINT32:
    case OTF2_TYPE_INT32:
    case OTF2_TYPE_FLOAT:
        return 4;
    default:
        return 8;
    }
}

static OTF2_CallbackCode otf2_coll_code(int rc)
{
    return rc == 0 ? OTF2_CALLBACK_SUCCESS : OTF2_CALLBACK_ERROR;
}

static OTF2_CallbackCode otf2_coll_get_size(void *user, OTF2_CollectiveContext *cc, uint32_t *size)
{
    (void)cc;
    *size = (uint32_t)tconv_collective_size(user);
    return OTF2_CALLBACK_SUCCESS;
}

static OTF2_CallbackCode otf2_coll_get_rank(void *user, OTF2_CollectiveContext *cc, uint32_t *rank)
{
    (void)cc;
    *rank = (uint32_t)tconv_collective_rank(user);
    return OTF2_CALLBACK_SUCCESS;
}

static OTF2_CallbackCode otf2_coll_barrier(void *user, OTF2_CollectiveContext *cc)
{
    (void)cc;
    return otf2_coll_code(tconv_collective_barrier(user));
}

static OTF2_CallbackCode otf2_coll_bcast(void *user, OTF2_CollectiveContext *cc, void *data,
                                         uint32_t n, OTF2_Type type, uint32_t root)
{
    (void)cc;
    return otf2_coll_code(
        tconv_collective_bcast(user, data, (size_t)n * otf2_coll_type_size(type), (int)root));
}

/* Per-rank byte counts for a v-collective, at the root; NULL elsewhere. */
static size_t *otf2_coll_counts(void *user, const uint32_t *elements, size_t each, uint32_t root)
{
    if ((uint32_t)tconv_collective_rank(user) != root) return NULL;
    int size = tconv_collective_size(user);
    size_t *counts = malloc((size_t)size * sizeof(*counts));
    if (!counts) otf2_oom();
    for (int q = 0; q < size; q++)
        counts[q] = elements ? (size_t)elements[q] * each : each;
    return counts;
}

static OTF2_CallbackCode otf2_coll_gatherv(void *user, OTF2_CollectiveContext *cc, const void *in,
                                           uint32_t n, void *out, const uint32_t *outn,
                                           OTF2_Type type, uint32_t root)
{
    (void)cc;
    size_t each = otf2_coll_type_size(type);
    size_t *counts = otf2_coll_counts(user, outn, each, root);
    int rc = tconv_collective_gatherv(user, in, (size_t)n * each, out, counts, (int)root);
    free(counts);
    return otf2_coll_code(rc);
}

static OTF2_CallbackCode otf2_coll_gather(void *user, OTF2_CollectiveContext *cc, const void *in,
                                          void *out, uint32_t n, OTF2_Type type, uint32_t root)
{
    (void)cc;
    size_t each = (size_t)n * otf2_coll_type_size(type);
    size_t *counts = otf2_coll_counts(user, NULL, each, root);
    int rc = tconv_collective_gatherv(user, in, each, out, counts, (int)root);
    free(counts);
    return otf2_coll_code(rc);
}

static OTF2_CallbackCode otf2_coll_scatterv(void *user, OTF2_CollectiveContext *cc, const void *in,
                                            const uint32_t *inn, void *out, uint32_t n,
                                            OTF2_Type type, uint32_t root)
{
    (void)cc;
    size_t each = otf2_coll_type_size(type);
    size_t *counts = otf2_coll_counts(user, inn, each, root);
    int rc = tconv_collective_scatterv(user, in, counts, out, (size_t)n * each, (int)root);
    free(counts);
    return otf2_coll_code(rc);
}

static OTF2_CallbackCode otf2_coll_scatter(void *user, OTF2_CollectiveContext *cc, const void *in,
                                           void *out, uint32_t n, OTF2_Type type, uint32_t root)
{
    (void)cc;
    size_t each = (size_t)n * otf2_coll_type_size(type);
    size_t *counts = otf2_coll_counts(user, NULL, each, root);
    int rc = tconv_collective_scatterv(user, in, counts, out, each, (int)root);
    free(counts);
    return otf2_coll_code(rc);
}

static const OTF2_CollectiveCallbacks otf2_coll_callbacks = {
    .otf2_get_size = otf2_coll_get_size,
    .otf2_get_rank = otf2_coll_get_rank,
    .otf2_barrier = otf2_coll_barrier,
    .otf2_bcast = otf2_coll_bcast,
    .otf2_gather = otf2_coll_gather,
    .otf2_gatherv = otf2_coll_gatherv,
    .otf2_scatter = otf2_coll_scatter,
    .otf2_scatterv = otf2_coll_scatterv,
};

OTF2_ErrorCode otf2_coll_set(OTF2_Archive *ar, tconv_collective *c)
{
    /* OTF2 hands the context pointers back to the callbacks only; any non-NULL one will do. */
    return OTF2_Archive_SetCollectiveCallbacks(ar, &otf2_coll_callbacks, c,
                                               (OTF2_CollectiveContext *)c, NULL);
}
