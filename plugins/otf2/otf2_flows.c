/* Pairing flow events. A flow is identified, as in Chrome and Perfetto, by its input,
 * category, name and id; its events, in time order, form a chain s -> t -> ... -> f.
 *
 * Written as Parameter records (the default), every event of a chain carries the chain's number,
 * the index of its first event: unique in the archive, the same on both ends, and what an MPI
 * run's ranks shift as they shift message tags. Written as messages, each link of the chain
 * becomes one OTF2 message from the earlier event's location to the later one's. Tracks reach the
 * writer one after another, so the chain is only known once every track has been seen. A flow of
 * exactly one start and one end is linked even when the end is stamped earlier than the start
 * (unsynchronised CPU and GPU clocks); the message then goes back in time, which OTF2 allows. */
#include <stdlib.h>

#include "otf2_oom.h"
#include "otf2_writer.h"

static const otf2_flow *otf2_flows_sorting;

static int otf2_flows_cmp(const void *a, const void *b)
{
    const otf2_flow *x = &otf2_flows_sorting[*(const uint32_t *)a];
    const otf2_flow *y = &otf2_flows_sorting[*(const uint32_t *)b];
    uint32_t ia = *(const uint32_t *)a, ib = *(const uint32_t *)b;
    if (x->cls >> 2 != y->cls >> 2) return x->cls >> 2 < y->cls >> 2 ? -1 : 1;
    if (x->id != y->id) return x->id < y->id ? -1 : 1;
    if (x->ts != y->ts) return x->ts < y->ts ? -1 : 1;
    return ia < ib ? -1 : ia > ib;
}

static void otf2_flows_join(const otf2_flow *flows, otf2_link *links, uint32_t from, uint32_t to)
{
    links[from].send_to = flows[to].track;
    links[from].send_tag = to;
    links[to].recv_from = flows[from].track;
    links[to].recv_tag = to;
}

uint64_t otf2_flows_link(const otf2_flow *flows, size_t n, otf2_link *links, uint64_t *unmatched)
{
    uint64_t nlinks = 0;
    for (size_t i = 0; i < n; i++)
        links[i] = (otf2_link){OTF2W_NO_PEER, 0, OTF2W_NO_PEER, 0};
    uint32_t *perm = malloc((n ? n : 1) * sizeof(*perm));
    if (!perm) otf2_oom();
    for (size_t i = 0; i < n; i++)
        perm[i] = (uint32_t)i;
    otf2_flows_sorting = flows;
    qsort(perm, n, sizeof(*perm), otf2_flows_cmp);

    for (size_t i = 0; i < n;) {
        size_t j = i + 1;
        while (j < n && flows[perm[j]].cls >> 2 == flows[perm[i]].cls >> 2 &&
               flows[perm[j]].id == flows[perm[i]].id)
            j++;
        const otf2_flow *a = &flows[perm[i]], *b = j - i == 2 ? &flows[perm[i + 1]] : NULL;
        if (b && OTF2W_FLOW_PHASE(a) == OTF2W_FLOW_END && OTF2W_FLOW_PHASE(b) == OTF2W_FLOW_START) {
            otf2_flows_join(flows, links, perm[i + 1], perm[i]);
            nlinks++;
        } else {
            uint32_t open = UINT32_MAX;
            for (size_t k = i; k < j; k++) {
                uint32_t f = perm[k];
                switch (OTF2W_FLOW_PHASE(&flows[f])) {
                case OTF2W_FLOW_START:
                    open = f;
                    break;
                case OTF2W_FLOW_STEP:
                    if (open != UINT32_MAX) {
                        otf2_flows_join(flows, links, open, f);
                        nlinks++;
                    }
                    open = f;
                    break;
                default:
                    if (open != UINT32_MAX) {
                        otf2_flows_join(flows, links, open, f);
                        nlinks++;
                    }
                    open = UINT32_MAX;
                }
            }
        }
        i = j;
    }
    free(perm);
    *unmatched = 0;
    for (size_t i = 0; i < n; i++)
        if (links[i].recv_from == OTF2W_NO_PEER && links[i].send_to == OTF2W_NO_PEER)
            (*unmatched)++;
    return nlinks;
}

void otf2_flows_chain(const otf2_flow *flows, size_t n, uint32_t *chain)
{
    uint32_t *perm = malloc((n ? n : 1) * sizeof(*perm));
    if (!perm) otf2_oom();
    for (size_t i = 0; i < n; i++)
        perm[i] = (uint32_t)i;
    otf2_flows_sorting = flows;
    qsort(perm, n, sizeof(*perm), otf2_flows_cmp);
    for (size_t i = 0; i < n;) {
        size_t j = i + 1;
        while (j < n && flows[perm[j]].cls >> 2 == flows[perm[i]].cls >> 2 &&
               flows[perm[j]].id == flows[perm[i]].id)
            j++;
        for (size_t k = i; k < j; k++)
            chain[perm[k]] = perm[i];
        i = j;
    }
    free(perm);
}

/* Parameters: each event keeps its phase and its chain's number; a flow with one end only is
 * written too, as the input had it. */
static void otf2_flows_number(otf2_state *st)
{
    st->chain = malloc((st->nflows ? st->nflows : 1) * sizeof(*st->chain));
    st->phase = malloc(st->nflows ? st->nflows : 1);
    if (!st->chain || !st->phase) otf2_oom();
    otf2_flows_chain(st->flows, st->nflows, st->chain);
    for (size_t i = 0; i < st->nflows; i++)
        st->phase[i] = (uint8_t)OTF2W_FLOW_PHASE(&st->flows[i]);
    free(st->flows);
    st->flows = NULL;
    st->flows_cap = 0;
}

void otf2_flows_pair(otf2_state *st)
{
    if (st->opt_flows == OTF2W_FLOWS_PARAMETERS) {
        otf2_flows_number(st);
        return;
    }
    uint64_t unmatched = 0;
    st->links = malloc((st->nflows ? st->nflows : 1) * sizeof(*st->links));
    if (!st->links) otf2_oom();
    st->nlinks = otf2_flows_link(st->flows, st->nflows, st->links, &unmatched);
    for (size_t i = 0; i < st->nflows; i++) {
        const otf2_link *l = &st->links[i];
        if (l->recv_from != OTF2W_NO_PEER || l->send_to != OTF2W_NO_PEER) continue;
        const otf2_flow *f = &st->flows[i];
        char label[256];
        tconv_warning_add(st->ctx, "otf2.unmatched-flow",
                          "a %s event at %lld ns on \"%s\" has no partner in its flow; not "
                          "written",
                          OTF2W_FLOW_PHASE(f) == OTF2W_FLOW_START  ? "flow start"
                          : OTF2W_FLOW_PHASE(f) == OTF2W_FLOW_STEP ? "flow step"
                                                                   : "flow end",
                          (long long)f->ts,
                          tconv_track_label(st->ctx, f->track, label, sizeof(label)));
    }
    /* Only the links are needed from here on. */
    free(st->flows);
    st->flows = NULL;
    st->flows_cap = 0;
}
