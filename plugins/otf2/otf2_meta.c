/* Metadata the writer uses beyond what the core keeps in the track table and per input (the
 * input's rank, which tells the processes of several inputs apart: tconv_ctx_rank, read at
 * layout):
 *   - process_labels (Kineto's "CPU", "GPU 0"): part of a location group's name;
 *   - the input's host (top-level host_name or hostname, or the "host" metadata that the
 *     tfmem reader and the chrome reader for TensorFlow traces put on their tracks): a node of
 *     the system tree.
 * Top-level members reach the writer as metadata events named after the member, whose text is
 * the member's value (objects as compact JSON). */
#include <string.h>

#include "otf2_writer.h"

tconv_status otf2_meta_event(otf2_state *st, const tconv_event *ev)
{
    const char *what = tconv_string_get(st->ctx, ev->name);
    const char *text = tconv_string_get(st->ctx, ev->text);
    const tconv_track *t = tconv_track_describe(st->ctx, ev->track);
    uint32_t input = t ? t->input : ev->input;
    if (strcmp(what, "process_labels") == 0) {
        if (t && *text) {
            tconv_map_set(&st->labels_map, input, t->pid, ev->text);
            otf2_bytes_reserve(&st->labels_log, 15);
            otf2_put_uv(&st->labels_log, input);
            otf2_put_uv(&st->labels_log, t->pid);
            otf2_put_uv(&st->labels_log, ev->text);
        }
    } else if (strcmp(what, "host_name") == 0 || strcmp(what, "hostname") == 0 ||
               strcmp(what, "host") == 0) {
        if (*text) otf2_collect_input(st, input)->host = ev->text;
    }
    return TCONV_OK;
}
