/* PyTorch's [memory] instants as the metric that carries them, not as markers too.
 *
 * The Chrome reader turns each [memory] instant (one per allocation and free) into the instant
 * and the memory counters of its process at the same time (allocated and reserved bytes per
 * device). The counters become metrics, which Vampir plots; the instants would become as many
 * markers again, each a triangle over the timeline saying what the metric's step says. So a
 * [memory] marker is left out when its process has a memory counter value (category "memory",
 * unit bytes) at its time, which is when the reader derived one from it; an instant the reader
 * could not turn into a counter (no device type, no size) stays a marker. What only the instant
 * held (the block's address, the size of that one allocation) is not in the archive.
 *
 * The instant sits on its thread's track and the counters on the process's, which the ordered
 * stream delivers in either order, so this runs at finish, on the buffered markers. An input
 * is read by one process of an MPI run, so each rank filters its own markers. */
#include "otf2_writer.h"

void otf2_markers_drop_carried(otf2_state *st)
{
    if (!st->nmarkers || !st->memts_map.slots) return;
    otf2_bytes kept = {0};
    uint64_t n = 0;
    otf2_cursor c = {st->markers.p, st->markers.p + st->markers.len};
    while (c.p < c.end) {
        const uint8_t *start = c.p;
        otf2_get_u8(&c);
        uint32_t track = (uint32_t)otf2_get_uv(&c);
        uint32_t def = (uint32_t)otf2_get_uv(&c);
        int64_t ts = otf2_get_sv(&c);
        size_t len = (size_t)otf2_get_uv(&c);
        c.p += len;
        if (def < st->nmarkdefs && st->markdefs[def].name == st->s_memory_instant) {
            const tconv_track *k = tconv_track_describe(st->ctx, track);
            uint32_t p = k ? tconv_map_get(&st->proc_map, k->input, k->pid) : UINT32_MAX;
            if (p != UINT32_MAX && tconv_map_get(&st->memts_map, (uint64_t)ts, p) != UINT32_MAX)
                continue;
        }
        otf2_bytes_reserve(&kept, (size_t)(c.p - start));
        otf2_put_raw(&kept, start, (size_t)(c.p - start));
        n++;
    }
    otf2_bytes_free(&st->markers);
    st->markers = kept;
    st->nmarkers = n;
}
