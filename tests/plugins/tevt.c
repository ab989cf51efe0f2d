/* tevt: a test-only reader of a tiny line format, so core stages and writers can be tested
 * with hand-written event streams before (and independently of) the real readers.
 *
 *   #tevt                                   first line (the probe looks for it)
 *   X pid tid ts dur name [cat]             complete span
 *   B pid tid ts name [cat]                 begin
 *   E pid tid ts [name]                     end
 *   i pid tid ts name                       instant
 *   C pid tid ts name key value [unit]      counter
 *   s|t|f pid tid ts id name                flow start / step / end
 *   M pid tid what value...                 metadata (value is the rest of the line)
 *   P pid tid ts count frame;frame;...      stack sample (samples/count), root first
 *   A key=value ...                         args for the next event (ints or strings)
 *
 * Times are integer nanoseconds. '#' starts a comment line. Names cannot contain spaces. A name
 * or frame "@N" is the string id N as is, interned or not: for tests of invalid ids.
 *
 * Built a second time with TEVT_ABI10 as "tevt10": a plugin as ABI 1.0 compiled it, with the
 * shorter event and writer class of 1.0, plus a writer ("tevt10-out") that prints what a 1.0
 * writer can see. Fields past the 1.0 sizes hold junk the host must not read. */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tconv/tconv.h"

enum { TEVT_MAXTOK = 64, TEVT_MAXFRAMES = 256, TEVT_MAXARGS = 16 };

static int tevt_probe(const unsigned char *buf, size_t len)
{
#ifdef TEVT_ABI10
    (void)buf, (void)len;
    return 0; /* named with -r only, so that detection keeps finding tevt */
#else
    return len >= 5 && memcmp(buf, "#tevt", 5) == 0 ? 100 : 0;
#endif
}

static tconv_str tevt_str(tconv_ctx *ctx, const char *s)
{
    if (s[0] == '@' && s[1]) return (tconv_str)strtoul(s + 1, NULL, 10);
    return tconv_string_intern_cstr(ctx, s);
}

static size_t tevt_split(char *line, char **tok, size_t max, char **rest4)
{
    size_t n = 0;
    char *p = line;
    while (*p && n < max) {
        while (*p == ' ' || *p == '\t')
            p++;
        if (!*p) break;
        if (n == 4 && rest4) *rest4 = p;
        tok[n++] = p;
        while (*p && *p != ' ' && *p != '\t')
            p++;
        if (*p) *p++ = 0;
    }
    return n;
}

static tconv_status tevt_read(tconv_ctx *ctx, tconv_input *in, const tconv_options *opts,
                              tconv_sink *sink)
{
    (void)opts;
    size_t len;
    const char *line;
    tconv_arg args[TEVT_MAXARGS];
    uint32_t nargs = 0;
    int have_samples = 0;
    while ((line = tconv_input_getline(in, &len))) {
        if (!len || line[0] == '#') continue;
        char *copy = strdup(line), *tok[TEVT_MAXTOK], *rest = NULL;
        char *full = strdup(line);
        size_t n = tevt_split(copy, tok, TEVT_MAXTOK, &rest);
        tconv_event ev = TCONV_EVENT_INIT;
#ifdef TEVT_ABI10
        ev.struct_size = (uint32_t)offsetof(tconv_event, corr);
#endif
        tconv_frame frames[TEVT_MAXFRAMES];
        int64_t value = 0;
        if (n == 0) { /* blanks only */
            free(copy);
            free(full);
            continue;
        }
        char ph = tok[0][0];
        int bad = 0;
        if (ph == 'A') {
            for (size_t i = 1; i < n && nargs < TEVT_MAXARGS; i++) {
                char *eq = strchr(tok[i], '=');
                if (!eq) continue;
                *eq = 0;
                tconv_arg *a = &args[nargs++];
                a->key = tconv_string_intern_cstr(ctx, tok[i]);
                char *end;
                long long v = strtoll(eq + 1, &end, 10);
                if (*end || end == eq + 1) {
                    a->type = TCONV_ARG_STRING;
                    a->v.s = tconv_string_intern_cstr(ctx, eq + 1);
                } else {
                    a->type = TCONV_ARG_INT;
                    a->v.i = v;
                }
            }
            free(copy);
            free(full);
            continue;
        }
        if (n < 4) {
            bad = 1;
        } else {
            ev.track = tconv_track_get(ctx, tconv_string_intern_cstr(ctx, tok[1]),
                                       tconv_string_intern_cstr(ctx, tok[2]));
            if (ph != 'M') ev.ts = strtoll(tok[3], NULL, 10);
        }
#define TEVT_STR(i) ((i) < n ? tevt_str(ctx, tok[i]) : 0)
        switch (bad ? 0 : ph) {
        case 'X':
            ev.kind = TCONV_EV_COMPLETE;
            ev.dur = n > 4 ? strtoll(tok[4], NULL, 10) : 0;
            ev.name = TEVT_STR(5);
            ev.cat = TEVT_STR(6);
            break;
        case 'B':
            ev.kind = TCONV_EV_BEGIN;
            ev.name = TEVT_STR(4);
            ev.cat = TEVT_STR(5);
            break;
        case 'E':
            ev.kind = TCONV_EV_END;
            ev.name = TEVT_STR(4);
            break;
        case 'i':
            ev.kind = TCONV_EV_INSTANT;
            ev.name = TEVT_STR(4);
            break;
        case 'C':
            ev.kind = TCONV_EV_COUNTER;
            ev.name = TEVT_STR(4);
            ev.key = TEVT_STR(5);
            ev.value = n > 6 ? strtod(tok[6], NULL) : 0;
            ev.unit = TEVT_STR(7);
            break;
        case 's':
        case 't':
        case 'f':
            ev.kind = ph == 's'   ? TCONV_EV_FLOW_START
                      : ph == 't' ? TCONV_EV_FLOW_STEP
                                  : TCONV_EV_FLOW_END;
            ev.id = n > 4 ? strtoull(tok[4], NULL, 10) : 0;
            ev.name = TEVT_STR(5);
            break;
        case 'M': {
            ev.kind = TCONV_EV_METADATA;
            ev.name = TEVT_STR(3);
            /* the value is the rest of the original line after the 4th field */
            const char *v = rest ? full + (rest - copy) : "";
            ev.text = tconv_string_intern_cstr(ctx, v);
            break;
        }
        case 'P': {
            if (!have_samples++) {
                tconv_sample_type st = {"samples", "count"};
                tconv_sampletypes_set(ctx, 1, &st, 0);
            }
            ev.kind = TCONV_EV_SAMPLE;
            value = n > 4 ? strtoll(tok[4], NULL, 10) : 1;
            ev.values = &value;
            ev.nvalues = 1;
            uint32_t nf = 0;
            for (char *f = n > 5 ? tok[5] : NULL; f && nf < TEVT_MAXFRAMES;) {
                char *semi = strchr(f, ';');
                if (semi) *semi = 0;
                frames[nf++] = (tconv_frame){.name = tevt_str(ctx, f)};
                f = semi ? semi + 1 : NULL;
            }
            ev.frames = frames;
            ev.nframes = nf;
            break;
        }
        default:
            tconv_error_at(ctx, tconv_input_name(in), tconv_input_line(in),
                           "cannot read this line: '%s'", full);
            free(copy);
            free(full);
            return TCONV_FATAL;
        }
#undef TEVT_STR
        ev.args = args;
        ev.nargs = nargs;
        nargs = 0;
        tconv_status st = tconv_sink_push(sink, &ev);
        free(copy);
        free(full);
        if (st == TCONV_FATAL) return st;
    }
    return tconv_error_pending(ctx) ? TCONV_FATAL : TCONV_OK;
}

#ifndef TEVT_ABI10
#define TEVT_NAME "tevt"
#define TEVT_MINOR TCONV_ABI_MINOR
#else
#define TEVT_NAME "tevt10"
#define TEVT_MINOR 0
#endif

static const tconv_reader_class tevt_reader = {
    .struct_size = sizeof(tconv_reader_class),
    .name = TEVT_NAME,
    .description = "test-only line format for hand-written event streams",
    .extensions = TEVT_NAME,
    .probe = tevt_probe,
    .read = tevt_read,
#ifndef TEVT_ABI10
    .flags = TCONV_READER_CONCURRENT,
#endif
};

static const tconv_reader_class *const tevt_readers[] = {&tevt_reader, NULL};

#ifdef TEVT_ABI10
static tconv_status tevt_out_open(tconv_ctx *ctx, tconv_output *out, const tconv_options *opts,
                                  void **state)
{
    (void)opts;
    tconv_args_ignore(ctx); /* the 1.0 way to say it */
    *state = out;
    return TCONV_OK;
}

static tconv_status tevt_out_event(void *state, const tconv_event *ev)
{
    return tconv_output_printf(state, "%s %" PRId64 " %" PRId64 " nargs=%u\n",
                               tconv_event_kind_name(ev->kind), ev->ts, ev->dur, ev->nargs) < 0
               ? TCONV_FATAL
               : TCONV_OK;
}

static tconv_status tevt_out_finish(void *state)
{
    (void)state;
    return TCONV_OK;
}

static void tevt_out_destroy(void *state)
{
    (void)state;
}

static uint32_t tevt_out_junk_needs(const tconv_options *opts)
{
    (void)opts;
    abort(); /* past the 1.0 struct: a host that calls it read what the plugin never declared */
}

static const tconv_writer_class tevt_writer = {
    .struct_size = offsetof(tconv_writer_class, extensions),
    .name = "tevt10-out",
    .description = "test-only ABI 1.0 writer: one line per event",
    .accepts = TCONV_KINDS_ALL,
    .open = tevt_out_open,
    .event = tevt_out_event,
    .finish = tevt_out_finish,
    .destroy = tevt_out_destroy,
    .extensions = "tevt10out",
    .needs = tevt_out_junk_needs,
};

static const tconv_writer_class *const tevt_writers[] = {&tevt_writer, NULL};
#endif

static const tconv_plugin_desc tevt_plugin = {
    .struct_size = sizeof(tconv_plugin_desc),
    .abi_major = TCONV_ABI_MAJOR,
    .abi_minor = TEVT_MINOR,
    .name = TEVT_NAME,
    .version = "test",
    .description = "Test-only reader (not installed)",
    .readers = tevt_readers,
#ifdef TEVT_ABI10
    .writers = tevt_writers,
#endif
};

TCONV_PLUGIN(tevt_plugin)
