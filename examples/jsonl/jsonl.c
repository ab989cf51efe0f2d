/* jsonl: an out-of-tree tconv writer plugin. It writes one JSON object per event, which makes
 * any trace tconv can read queryable with jq:
 *
 *   tconv -w jsonl trace.json.gz | jq -r 'select(.kind=="complete") | .name' | sort | uniq -c
 *
 * It is built only against an installed tconv, through pkg-config (see the Makefile), as any
 * third-party plugin would be. */
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <tconv/tconv.h>

typedef struct jsonl_state {
    tconv_ctx *ctx;
    tconv_output *out;
    int args;
    char *buf;
    size_t len, cap;
} jsonl_state;

static void jsonl_put(jsonl_state *j, const char *s, size_t n)
{
    if (j->len + n > j->cap) {
        size_t cap = j->cap ? j->cap : 1024;
        while (cap < j->len + n)
            cap *= 2;
        char *p = realloc(j->buf, cap);
        if (!p) abort();
        j->buf = p;
        j->cap = cap;
    }
    memcpy(j->buf + j->len, s, n);
    j->len += n;
}

static void jsonl_lit(jsonl_state *j, const char *s)
{
    jsonl_put(j, s, strlen(s));
}

/* A JSON string. Bytes that are not valid UTF-8 become U+FFFD, so every line is valid JSON
 * whatever the trace held. */
static void jsonl_string(jsonl_state *j, tconv_str id)
{
    const unsigned char *s = (const unsigned char *)tconv_string_get(j->ctx, id);
    size_t n = tconv_string_length(j->ctx, id);
    jsonl_put(j, "\"", 1);
    for (size_t i = 0; i < n;) {
        unsigned char c = s[i];
        char esc[8];
        if (c == '"' || c == '\\') {
            esc[0] = '\\';
            esc[1] = (char)c;
            jsonl_put(j, esc, 2);
            i++;
        } else if (c < 0x20) {
            snprintf(esc, sizeof(esc), "\\u%04x", c);
            jsonl_put(j, esc, 6);
            i++;
        } else if (c < 0x80) {
            jsonl_put(j, (const char *)&s[i], 1);
            i++;
        } else {
            size_t len = c >= 0xf0 && c < 0xf5 ? 4 : c >= 0xe0 ? 3 : c >= 0xc2 && c < 0xe0 ? 2 : 0;
            int ok = len && i + len <= n;
            for (size_t k = 1; ok && k < len; k++)
                ok = (s[i + k] & 0xc0) == 0x80;
            if (ok) {
                jsonl_put(j, (const char *)&s[i], len);
                i += len;
            } else {
                jsonl_lit(j, "\\ufffd");
                i++;
            }
        }
    }
    jsonl_put(j, "\"", 1);
}

static void jsonl_key(jsonl_state *j, const char *key)
{
    jsonl_lit(j, ",\"");
    jsonl_lit(j, key);
    jsonl_lit(j, "\":");
}

static void jsonl_int(jsonl_state *j, int64_t v)
{
    char tmp[32];
    jsonl_put(j, tmp, (size_t)snprintf(tmp, sizeof(tmp), "%" PRId64, v));
}

static void jsonl_double(jsonl_state *j, double d)
{
    char tmp[40];
    if (!isfinite(d)) {
        jsonl_lit(j, "null");
        return;
    }
    jsonl_put(j, tmp, (size_t)snprintf(tmp, sizeof(tmp), "%.17g", d));
}

static void jsonl_arg(jsonl_state *j, const tconv_arg *a)
{
    switch (a->type) {
    case TCONV_ARG_BOOL:
        jsonl_lit(j, a->v.i ? "true" : "false");
        break;
    case TCONV_ARG_INT:
        jsonl_int(j, a->v.i);
        break;
    case TCONV_ARG_UINT: {
        char tmp[32];
        jsonl_put(j, tmp, (size_t)snprintf(tmp, sizeof(tmp), "%" PRIu64, a->v.u));
        break;
    }
    case TCONV_ARG_DOUBLE:
        jsonl_double(j, a->v.d);
        break;
    case TCONV_ARG_STRING:
        jsonl_string(j, a->v.s);
        break;
    case TCONV_ARG_JSON: /* already JSON text */
        jsonl_put(j, tconv_string_get(j->ctx, a->v.s), tconv_string_length(j->ctx, a->v.s));
        break;
    default:
        jsonl_lit(j, "null");
    }
}

static tconv_status jsonl_event(void *state, const tconv_event *ev)
{
    jsonl_state *j = state;
    const tconv_track *t = tconv_track_describe(j->ctx, ev->track);
    j->len = 0;
    jsonl_lit(j, "{\"kind\":\"");
    jsonl_lit(j, tconv_event_kind_name(ev->kind));
    jsonl_lit(j, "\"");
    jsonl_key(j, "ts");
    jsonl_int(j, ev->ts);
    if (ev->kind == TCONV_EV_COMPLETE) {
        jsonl_key(j, "dur");
        jsonl_int(j, ev->dur);
    }
    jsonl_key(j, "pid");
    jsonl_string(j, t->pid);
    jsonl_key(j, "tid");
    jsonl_string(j, t->tid);
    if (ev->name) {
        jsonl_key(j, "name");
        jsonl_string(j, ev->name);
    }
    if (ev->cat) {
        jsonl_key(j, "cat");
        jsonl_string(j, ev->cat);
    }
    if (ev->id) {
        jsonl_key(j, "id");
        jsonl_int(j, (int64_t)ev->id);
    }
    if (ev->kind == TCONV_EV_COUNTER) {
        jsonl_key(j, "series");
        jsonl_string(j, ev->key);
        jsonl_key(j, "value");
        jsonl_double(j, ev->value);
    }
    if (ev->kind == TCONV_EV_METADATA) {
        jsonl_key(j, "value");
        jsonl_string(j, ev->text);
    }
    if (ev->nframes) {
        jsonl_key(j, "stack");
        jsonl_lit(j, "[");
        for (uint32_t i = 0; i < ev->nframes; i++) {
            if (i) jsonl_lit(j, ",");
            jsonl_string(j, ev->frames[i].name);
        }
        jsonl_lit(j, "]");
        jsonl_key(j, "values");
        jsonl_lit(j, "[");
        for (uint32_t i = 0; i < ev->nvalues; i++) {
            if (i) jsonl_lit(j, ",");
            jsonl_int(j, ev->values[i]);
        }
        jsonl_lit(j, "]");
    }
    if (j->args && ev->nargs) {
        jsonl_key(j, "args");
        jsonl_lit(j, "{");
        for (uint32_t i = 0; i < ev->nargs; i++) {
            if (i) jsonl_lit(j, ",");
            jsonl_string(j, ev->args[i].key);
            jsonl_lit(j, ":");
            jsonl_arg(j, &ev->args[i]);
        }
        jsonl_lit(j, "}");
    }
    jsonl_lit(j, "}\n");
    return tconv_output_write(j->out, j->buf, j->len) < 0 ? TCONV_FATAL : TCONV_OK;
}

static tconv_status jsonl_open(tconv_ctx *ctx, tconv_output *out, const tconv_options *opts,
                               void **state)
{
    jsonl_state *j = calloc(1, sizeof(*j));
    if (!j) {
        tconv_error_set(ctx, "jsonl: out of memory");
        return TCONV_FATAL;
    }
    j->ctx = ctx;
    j->out = out;
    j->args = tconv_option_get_bool(opts, "args");
    *state = j;
    return TCONV_OK;
}

static tconv_status jsonl_finish(void *state)
{
    (void)state;
    return TCONV_OK;
}

static void jsonl_destroy(void *state)
{
    jsonl_state *j = state;
    if (!j) return;
    free(j->buf);
    free(j);
}

static const tconv_option_desc jsonl_options[] = {
    {"args", TCONV_OPT_BOOL, "true", NULL, "include each event's args object"},
    {0},
};

static const tconv_writer_class jsonl_writer = {
    .struct_size = sizeof(tconv_writer_class),
    .name = "jsonl",
    .description = "one JSON object per event (JSON Lines), for jq and scripts",
    .options = jsonl_options,
    .accepts = TCONV_KINDS_ALL,
    .open = jsonl_open,
    .event = jsonl_event,
    .finish = jsonl_finish,
    .destroy = jsonl_destroy,
    .extensions = "jsonl", /* -o out.jsonl picks this writer */
};

static const tconv_writer_class *const jsonl_writers[] = {&jsonl_writer, NULL};

static const tconv_plugin_desc jsonl_plugin = {
    .struct_size = sizeof(tconv_plugin_desc),
    .abi_major = TCONV_ABI_MAJOR,
    .abi_minor = TCONV_ABI_MINOR,
    .name = "jsonl",
    .version = "1.0.0",
    .description = "Example third-party plugin: JSON Lines writer",
    .writers = jsonl_writers,
};

TCONV_PLUGIN(jsonl_plugin)
