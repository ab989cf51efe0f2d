/* Metadata the writer uses beyond what the core keeps in the track table:
 *   - process_labels (Kineto's "CPU", "GPU 0"): part of a location group's name;
 *   - the input's rank: Kineto's top-level distributedInfo ({"rank": 0, ...}), or a plain
 *     "rank" member; it tells the processes of several inputs apart;
 *   - the input's host (top-level host_name or hostname, or the "host" metadata that the
 *     tfmem reader and the chrome reader for TensorFlow traces put on their tracks): a node of
 *     the system tree.
 * Top-level members reach the writer as metadata events named after the member, whose text is
 * the member's value (objects as compact JSON). */
#include <ctype.h>
#include <stdlib.h>
#include <string.h>

#include "otf2_writer.h"

static int otf2_meta_parse_int(const char *s, int64_t *out)
{
    char *end;
    while (isspace((unsigned char)*s))
        s++;
    if (!*s) return 0;
    long long v = strtoll(s, &end, 10);
    while (isspace((unsigned char)*end))
        end++;
    if (*end) return 0;
    *out = v;
    return 1;
}

/* Skip a JSON string starting at its opening quote; returns the position after the closing
 * quote. */
static const char *otf2_meta_skip_string(const char *p)
{
    for (p++; *p && *p != '"'; p++)
        if (*p == '\\' && p[1]) p++;
    return *p ? p + 1 : p;
}

int otf2_meta_json_rank(const char *json, int64_t *rank)
{
    int depth = 0;
    for (const char *p = json; *p;) {
        if (*p == '"') {
            const char *key = p + 1;
            const char *q = otf2_meta_skip_string(p);
            size_t len = (size_t)(q - key) - 1;
            p = q;
            if (depth != 1 || len != 4 || memcmp(key, "rank", 4) != 0) continue;
            while (isspace((unsigned char)*p))
                p++;
            if (*p != ':') continue;
            p++;
            char *end;
            long long v = strtoll(p, &end, 10);
            if (end == p || (*end && !strchr(",} \t\r\n", *end))) return 0;
            *rank = v;
            return 1;
        }
        if (*p == '{' || *p == '[') depth++;
        if (*p == '}' || *p == ']') depth--;
        p++;
    }
    return 0;
}

tconv_status otf2_meta_event(otf2_state *st, const tconv_event *ev)
{
    const char *what = tconv_string_get(st->ctx, ev->name);
    const char *text = tconv_string_get(st->ctx, ev->text);
    const tconv_track *t = tconv_track_describe(st->ctx, ev->track);
    uint32_t input = t ? t->input : ev->input;
    int64_t rank;
    if (strcmp(what, "process_labels") == 0) {
        if (t && *text) otf2_map_put(&st->labels_map, input, t->pid, ev->text);
    } else if (strcmp(what, "distributedInfo") == 0) {
        if (otf2_meta_json_rank(text, &rank)) {
            otf2_input *in = otf2_collect_input(st, input);
            in->has_rank = 1;
            in->rank = rank;
        }
    } else if (strcmp(what, "rank") == 0) {
        if (otf2_meta_parse_int(text, &rank)) {
            otf2_input *in = otf2_collect_input(st, input);
            in->has_rank = 1;
            in->rank = rank;
        }
    } else if (strcmp(what, "host_name") == 0 || strcmp(what, "hostname") == 0 ||
               strcmp(what, "host") == 0) {
        if (*text) otf2_collect_input(st, input)->host = ev->text;
    }
    return TCONV_OK;
}
