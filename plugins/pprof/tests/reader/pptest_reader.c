/* A test-only reader with a line format that states events exactly, so that the pprof writer's
 * tests do not depend on another reader's interpretation. One event per line, fields separated
 * by single spaces, the last field takes the rest of the line; '#' starts a comment line.
 *
 *   T <type>/<unit>[,<type>/<unit>...] <default index>   declare sample types
 *   M <pid> <tid> <process_name|thread_name> <text>        metadata
 *   G <pid> <tid>                                         the track is a GPU stream
 *   B <pid> <tid> <ts> <cat> <name>                       span begins
 *   E <pid> <tid> <ts> [name]                             span ends
 *   X <pid> <tid> <ts> <dur> <cat> <name>                 complete span
 *   S <pid> <tid> <ts> <v1,v2,...> <frame;frame;...>      sample, root first; a frame is
 *                                                         [module`]name[@hexaddr]
 * Times are integer ns. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <tconv/plugin.h>

enum { PPTEST_MAX_FIELDS = 8, PPTEST_MAX_FRAMES = 256, PPTEST_MAX_TYPES = 8 };

/* Split off up to n-1 space-separated fields; the n-th is the rest of the line. */
static int pptest_split(char *line, char **f, int n)
{
    int k = 0;
    char *p = line;
    while (k < n - 1 && p) {
        f[k++] = p;
        p = strchr(p, ' ');
        if (p) *p++ = '\0';
    }
    if (p) f[k++] = p;
    return k;
}

static tconv_str pptest_str(tconv_ctx *ctx, const char *s)
{
    return tconv_string_intern_cstr(ctx, s);
}

static uint32_t pptest_track(tconv_ctx *ctx, const char *pid, const char *tid)
{
    return tconv_track_get(ctx, pptest_str(ctx, pid), pptest_str(ctx, tid));
}

static tconv_status pptest_types(tconv_ctx *ctx, char *spec, const char *def)
{
    static char pptest_names[PPTEST_MAX_TYPES][2][64];
    tconv_sample_type types[PPTEST_MAX_TYPES];
    size_t n = 0;
    for (char *save = NULL, *t = strtok_r(spec, ",", &save); t && n < PPTEST_MAX_TYPES;
         t = strtok_r(NULL, ",", &save)) {
        char *slash = strchr(t, '/');
        if (!slash) return TCONV_FATAL;
        *slash = '\0';
        snprintf(pptest_names[n][0], sizeof pptest_names[n][0], "%s", t);
        snprintf(pptest_names[n][1], sizeof pptest_names[n][1], "%s", slash + 1);
        types[n] = (tconv_sample_type){pptest_names[n][0], pptest_names[n][1]};
        n++;
    }
    return tconv_sampletypes_set(ctx, n, types, (size_t)atoi(def)) == 0 ? TCONV_OK : TCONV_FATAL;
}

static tconv_status pptest_read(tconv_ctx *ctx, tconv_input *in, const tconv_options *opts,
                                tconv_sink *sink)
{
    (void)opts;
    const char *l;
    size_t len;
    char buf[8192];
    while ((l = tconv_input_getline(in, &len)) != NULL) {
        if (len == 0 || l[0] == '#') continue;
        if (len >= sizeof buf) goto bad;
        memcpy(buf, l, len + 1);
        char *f[PPTEST_MAX_FIELDS];
        tconv_event ev = TCONV_EVENT_INIT;
        tconv_frame frames[PPTEST_MAX_FRAMES];
        int64_t values[PPTEST_MAX_TYPES];
        int n;
        switch (buf[0]) {
        case 'T':
            if (pptest_split(buf, f, 3) != 3 || pptest_types(ctx, f[1], f[2]) != TCONV_OK) goto bad;
            continue;
        case 'G':
            if (pptest_split(buf, f, 3) != 3) goto bad;
            tconv_track_set_kind(ctx, pptest_track(ctx, f[1], f[2]), TCONV_TRACK_GPU);
            continue;
        case 'M':
            if (pptest_split(buf, f, 5) != 5) goto bad;
            ev.kind = TCONV_EV_METADATA;
            ev.track = pptest_track(ctx, f[1], f[2]);
            ev.name = pptest_str(ctx, f[3]);
            ev.text = pptest_str(ctx, f[4]);
            break;
        case 'B':
            if (pptest_split(buf, f, 6) != 6) goto bad;
            ev.kind = TCONV_EV_BEGIN;
            ev.track = pptest_track(ctx, f[1], f[2]);
            ev.ts = strtoll(f[3], NULL, 10);
            ev.cat = pptest_str(ctx, f[4]);
            ev.name = pptest_str(ctx, f[5]);
            break;
        case 'E':
            n = pptest_split(buf, f, 5);
            if (n < 4) goto bad;
            ev.kind = TCONV_EV_END;
            ev.track = pptest_track(ctx, f[1], f[2]);
            ev.ts = strtoll(f[3], NULL, 10);
            ev.name = n == 5 ? pptest_str(ctx, f[4]) : 0;
            break;
        case 'X':
            if (pptest_split(buf, f, 7) != 7) goto bad;
            ev.kind = TCONV_EV_COMPLETE;
            ev.track = pptest_track(ctx, f[1], f[2]);
            ev.ts = strtoll(f[3], NULL, 10);
            ev.dur = strtoll(f[4], NULL, 10);
            ev.cat = pptest_str(ctx, f[5]);
            ev.name = pptest_str(ctx, f[6]);
            break;
        case 'S': {
            if (pptest_split(buf, f, 6) != 6) goto bad;
            ev.kind = TCONV_EV_SAMPLE;
            ev.track = pptest_track(ctx, f[1], f[2]);
            ev.ts = strtoll(f[3], NULL, 10);
            uint32_t nv = 0, nf = 0;
            for (char *save = NULL, *v = strtok_r(f[4], ",", &save); v && nv < PPTEST_MAX_TYPES;
                 v = strtok_r(NULL, ",", &save))
                values[nv++] = strtoll(v, NULL, 10);
            for (char *save = NULL, *fr = strtok_r(f[5], ";", &save); fr && nf < PPTEST_MAX_FRAMES;
                 fr = strtok_r(NULL, ";", &save)) {
                memset(&frames[nf], 0, sizeof frames[nf]);
                char *tick = strchr(fr, '`');
                if (tick) {
                    *tick = '\0';
                    frames[nf].module = pptest_str(ctx, fr);
                    fr = tick + 1;
                }
                char *at = strrchr(fr, '@');
                if (at) {
                    *at = '\0';
                    frames[nf].addr = strtoull(at + 1, NULL, 16);
                }
                frames[nf].name = pptest_str(ctx, fr);
                nf++;
            }
            ev.values = values;
            ev.nvalues = nv;
            ev.frames = frames;
            ev.nframes = nf;
            break;
        }
        default:
            goto bad;
        }
        if (tconv_sink_push(sink, &ev) == TCONV_FATAL) return TCONV_FATAL;
    }
    return tconv_error_pending(ctx) ? TCONV_FATAL : TCONV_OK;
bad:
    tconv_error_at(ctx, tconv_input_name(in), tconv_input_offset(in), "a pptest line");
    return TCONV_FATAL;
}

static int pptest_probe(const unsigned char *buf, size_t len)
{
    static const char magic[] = "# pptest";
    return len >= sizeof magic - 1 && memcmp(buf, magic, sizeof magic - 1) == 0 ? 100 : 0;
}

static const tconv_reader_class pptest_reader = {
    .struct_size = sizeof(tconv_reader_class),
    .name = "pptest",
    .description = "test-only event lines for the pprof writer's tests",
    .extensions = "pptest",
    .options = NULL,
    .probe = pptest_probe,
    .read = pptest_read,
};

static const tconv_reader_class *const pptest_readers[] = {&pptest_reader, NULL};

static const tconv_plugin_desc pptest_plugin = {
    .struct_size = sizeof(tconv_plugin_desc),
    .abi_major = TCONV_ABI_MAJOR,
    .abi_minor = TCONV_ABI_MINOR,
    .name = "pptest",
    .version = "0",
    .description = "test reader for the pprof writer",
    .readers = pptest_readers,
    .writers = NULL,
};

TCONV_PLUGIN(pptest_plugin)
