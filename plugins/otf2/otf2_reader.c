/* The otf2 reader: an OTF2 archive, named by its anchor file (traces.otf2) or found in a folder,
 * read through the OTF2 reader API. The core hands readers a byte stream, but OTF2 archives are
 * a set of files the library opens itself: the reader takes the anchor file's path from its
 * input and opens the archive there. When a folder is read, the core lists only the anchor of
 * an archive in it (core/io/inputs.c); another file of an archive named on its own is refused with
 * the anchor to give instead. */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "otf2_reader.h"

/* Every OTF2 file starts with a buffer header: 0x03, then 'B' or 'L' (the byte order). The
 * anchor file continues with "OTF2\0"; definition, event and marker files with a chunk header.
 * Only the anchor is claimed: the others cannot be read alone. */
static int otf2r_is_otf2(const unsigned char *buf, size_t len)
{
    return len >= 3 && buf[0] == 0x03 && (buf[1] == 'B' || buf[1] == 'L');
}

static int otf2r_is_anchor(const unsigned char *buf, size_t len)
{
    return otf2r_is_otf2(buf, len) && len >= 7 && memcmp(buf + 2, "OTF2", 5) == 0;
}

static int otf2r_probe(const unsigned char *buf, size_t len)
{
    if (otf2r_is_anchor(buf, len)) return 100;
    return 0;
}

static char *otf2r_strndup(const char *s, size_t n)
{
    char *p = malloc(n + 1);
    if (!p) otf2r_oom();
    memcpy(p, s, n);
    p[n] = 0;
    return p;
}

/* The anchor file of the archive a companion file belongs to: D/B.otf2 for D/B.def and
 * D/B.marker, D/B.otf2 for D/B/N.evt and D/B/N.def. NULL when the name fits neither. */
static char *otf2r_anchor_of(const char *path)
{
    size_t len = strlen(path);
    const char *dot = strrchr(path, '.'), *slash = strrchr(path, '/');
    if (!dot || (slash && dot < slash)) return NULL;
    if (strcmp(dot, ".evt") == 0 || strcmp(dot, ".def") == 0) {
        /* a location's file: its folder is named after the archive */
        if (slash && slash > path) {
            char *dir = otf2r_strndup(path, (size_t)(slash - path));
            char *anchor = malloc(strlen(dir) + 6);
            if (!anchor) otf2r_oom();
            sprintf(anchor, "%s.otf2", dir);
            free(dir);
            if (access(anchor, R_OK) == 0) return anchor;
            free(anchor);
        }
    }
    if (strcmp(dot, ".def") == 0 || strcmp(dot, ".marker") == 0) {
        char *anchor = malloc(len + 6);
        if (!anchor) otf2r_oom();
        snprintf(anchor, len + 6, "%.*s.otf2", (int)(dot - path), path);
        if (access(anchor, R_OK) == 0) return anchor;
        free(anchor);
    }
    return NULL;
}

/* The archive's folder and name of the anchor file at path: "d/traces.otf2" is "d", "traces". */
static void otf2r_split(const char *path, char **dir, char **base)
{
    const char *slash = strrchr(path, '/'), *file = slash ? slash + 1 : path;
    const char *dot = strrchr(file, '.');
    *dir = slash ? otf2r_strndup(path, (size_t)(slash - path)) : otf2r_strndup(".", 1);
    *base = otf2r_strndup(file, dot ? (size_t)(dot - file) : strlen(file));
}

/* What libotf2 opens through an anchor file: the global definitions, the markers and the
 * trace folder with each location's files. Only a regular file that starts as an anchor is
 * looked at (opened without blocking: a FIFO named like one is no archive). */
static void otf2r_members(const char *path, void (*add)(void *arg, const char *member), void *arg)
{
    unsigned char head[7];
    int fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC);
    if (fd < 0) return;
    struct stat st;
    ssize_t n = fstat(fd, &st) == 0 && S_ISREG(st.st_mode) ? read(fd, head, sizeof(head)) : -1;
    close(fd);
    if (n != (ssize_t)sizeof(head) || !otf2r_is_anchor(head, sizeof(head))) return;
    char *dir, *base;
    otf2r_split(path, &dir, &base);
    static const char *const forms[] = {"%s/%s.def", "%s/%s.marker", "%s/%s"};
    for (size_t i = 0; i < sizeof(forms) / sizeof(forms[0]); i++) {
        size_t len = strlen(dir) + strlen(base) + 16;
        char *m = malloc(len);
        if (!m) otf2r_oom();
        snprintf(m, len, forms[i], dir, base);
        add(arg, m);
        free(m);
    }
    free(dir);
    free(base);
}

static tconv_status otf2r_companion(tconv_ctx *ctx, const char *name)
{
    char *anchor = otf2r_anchor_of(name);
    if (!anchor) {
        tconv_error_set(ctx,
                        "%s: a file of an OTF2 archive whose anchor file (.otf2) is not next to "
                        "it; give the archive's anchor file or its folder",
                        name);
        return TCONV_FATAL;
    }
    tconv_error_set(ctx, "%s: a file of the OTF2 archive '%s', which is read through that file",
                    name, anchor);
    tconv_error_hint(ctx, "give the anchor file '%s' or the archive's folder", anchor);
    free(anchor);
    return TCONV_FATAL;
}

#define OTF2R_TRY(r, what, call)                                                                   \
    do {                                                                                           \
        OTF2_ErrorCode e_ = (call);                                                                \
        if (e_ != OTF2_SUCCESS) return otf2r_lib_fail(r, what, e_);                                \
    } while (0)

static tconv_status otf2r_lib_fail(otf2r *r, const char *what, OTF2_ErrorCode code)
{
    if (r->status != TCONV_OK) return TCONV_FATAL; /* a callback already said why */
    if (r->lib_error)
        tconv_error_set(r->ctx, "%s: %s failed: %s", r->anchor, what, r->lib_msg);
    else
        tconv_error_set(r->ctx, "%s: %s failed: %s", r->anchor, what,
                        OTF2_Error_GetDescription(code));
    otf2_error_reader_hint(r, code);
    return TCONV_FATAL;
}

/* A location's local definitions (the mapping tables Score-P writes per location). A missing
 * file is repaired by reading the events with the global references, and counted. */
static tconv_status otf2r_local_defs(otf2r *r, const otf2r_loc *loc)
{
    char path[4096];
    snprintf(path, sizeof(path), "%s/%s/%" PRIu64 ".def", r->dir, r->base, loc->id);
    int there = otf2r_file_there(r, path, "a location's definition file");
    if (there < 0) return TCONV_FATAL;
    if (!there) {
        tconv_warning_add(r->ctx, "otf2.no-local-defs",
                          "%s: location %" PRIu64 " has no local definition file; its events are "
                          "read with the global definitions",
                          path, loc->id);
        return TCONV_OK;
    }
    OTF2_DefReader *dr = OTF2_Reader_GetDefReader(r->evreader, loc->id);
    if (!dr) return otf2r_lib_fail(r, "opening a location's local definitions", OTF2_ERROR_INVALID);
    uint64_t n;
    OTF2_ErrorCode e = OTF2_Reader_ReadAllLocalDefinitions(r->evreader, dr, &n);
    OTF2_Reader_CloseDefReader(r->evreader, dr);
    if (e != OTF2_SUCCESS) {
        tconv_error_set(r->ctx,
                        "%s: reading the local definitions of location %" PRIu64 " failed: %s",
                        path, loc->id, r->lib_error ? r->lib_msg : OTF2_Error_GetDescription(e));
        otf2_error_reader_hint(r, e);
        return TCONV_FATAL;
    }
    return TCONV_OK;
}

static tconv_status otf2r_location(otf2r *r, const otf2r_loc *loc, OTF2_EvtReaderCallbacks *ecb)
{
    if (otf2r_local_defs(r, loc) != TCONV_OK) return TCONV_FATAL;
    char path[4096];
    snprintf(path, sizeof(path), "%s/%s/%" PRIu64 ".evt", r->dir, r->base, loc->id);
    int there = otf2r_file_there(r, path, "a location's event file");
    if (there < 0) return TCONV_FATAL;
    if (!there) {
        if (!loc->nevents) return TCONV_OK; /* nothing recorded: OTF2 may write no file */
        tconv_error_set(r->ctx,
                        "%s: the event file of location %" PRIu64 " (%" PRIu64
                        " events by its definition) is missing",
                        path, loc->id, loc->nevents);
        return TCONV_FATAL;
    }
    OTF2_EvtReader *er = OTF2_Reader_GetEvtReader(r->evreader, loc->id);
    if (!er) return otf2r_lib_fail(r, "opening a location's events", OTF2_ERROR_INVALID);
    tconv_status st = otf2r_events_begin(r, loc);
    OTF2_ErrorCode e = OTF2_SUCCESS;
    uint64_t n = 0;
    if (st == TCONV_OK) e = OTF2_Reader_RegisterEvtCallbacks(r->evreader, er, ecb, r);
    r->lib_error = 0;
    if (st == TCONV_OK && e == OTF2_SUCCESS)
        e = OTF2_Reader_ReadAllLocalEvents(r->evreader, er, &n);
    if (st == TCONV_OK && r->status != TCONV_OK) st = TCONV_FATAL;
    if (st == TCONV_OK && e != OTF2_SUCCESS) {
        tconv_error_set(r->ctx, "%s: event %" PRIu64 " of location %" PRIu64 " cannot be read: %s",
                        path, r->nread + 1, loc->id,
                        r->lib_error ? r->lib_msg : OTF2_Error_GetDescription(e));
        otf2_error_reader_hint(r, e);
        st = TCONV_FATAL;
    }
    if (st == TCONV_OK) st = otf2r_events_end(r);
    OTF2_Reader_CloseEvtReader(r->evreader, er);
    return st;
}

static OTF2_Reader *otf2r_reader_open(otf2r *r)
{
    OTF2_Reader *rd = OTF2_Reader_Open(r->anchor);
    if (rd && OTF2_Reader_SetSerialCollectiveCallbacks(rd) != OTF2_SUCCESS) {
        OTF2_Reader_Close(rd);
        rd = NULL;
    }
    return rd;
}

static void otf2r_events_close(otf2r *r)
{
    if (!r->evreader) return;
    OTF2_Reader_CloseEvtFiles(r->evreader);
    OTF2_Reader_CloseDefFiles(r->evreader);
    OTF2_Reader_Close(r->evreader);
    r->evreader = NULL;
}

/* libotf2 keeps the locations a reader opened files of in an array, which it searches from the
 * start whenever another is opened (and grows by 64 entries): n locations through one reader
 * are n * n / 2 comparisons, 40 s for 200 000. So the locations' files are read through a
 * reader of their own, opened anew every OTF2R_LOCS_PER_READER locations (a reader costs what
 * reading the anchor file costs). No location is selected (OTF2_Reader_SelectLocation, the
 * same search): readers of plain files open each location's files when asked for them. */
static tconv_status otf2r_events_reader(otf2r *r)
{
    otf2r_events_close(r);
    r->lib_error = 0;
    if (!(r->evreader = otf2r_reader_open(r)))
        return otf2r_lib_fail(r, "opening the archive again", OTF2_ERROR_INVALID);
    OTF2R_TRY(r, "opening the local definition files", OTF2_Reader_OpenDefFiles(r->evreader));
    OTF2R_TRY(r, "opening the event files", OTF2_Reader_OpenEvtFiles(r->evreader));
    return TCONV_OK;
}

static tconv_status otf2r_archive(otf2r *r)
{
    if (otf2r_anchor_check(r) != TCONV_OK) return TCONV_FATAL;
    char defs[4096];
    snprintf(defs, sizeof(defs), "%s/%s.def", r->dir, r->base);
    int there = otf2r_file_there(r, defs, "the archive's global definition file");
    if (there < 0) return TCONV_FATAL;
    if (!there) {
        tconv_error_set(r->ctx, "%s: the archive's global definitions cannot be read: %s", defs,
                        strerror(errno));
        return TCONV_FATAL;
    }
    r->reader = otf2r_reader_open(r);
    if (!r->reader) return otf2r_lib_fail(r, "opening the archive", OTF2_ERROR_INVALID);
    OTF2_GlobalDefReader *gdr = OTF2_Reader_GetGlobalDefReader(r->reader);
    if (!gdr) return otf2r_lib_fail(r, "opening the global definitions", OTF2_ERROR_INVALID);
    OTF2_GlobalDefReaderCallbacks *gcb = OTF2_GlobalDefReaderCallbacks_New();
    if (!gcb) otf2r_oom();
    otf2r_defs_register(gcb);
    OTF2_ErrorCode e = OTF2_Reader_RegisterGlobalDefCallbacks(r->reader, gdr, gcb, r);
    OTF2_GlobalDefReaderCallbacks_Delete(gcb);
    uint64_t ndefs = 0;
    if (e == OTF2_SUCCESS) e = OTF2_Reader_ReadAllGlobalDefinitions(r->reader, gdr, &ndefs);
    OTF2_Reader_CloseGlobalDefReader(r->reader, gdr);
    if (e != OTF2_SUCCESS && r->status == TCONV_OK) {
        /* named by the file that is damaged, not by the anchor */
        tconv_error_set(r->ctx, "%s/%s.def: the global definitions cannot be read: %s", r->dir,
                        r->base, r->lib_error ? r->lib_msg : OTF2_Error_GetDescription(e));
        otf2_error_reader_hint(r, e);
        return TCONV_FATAL;
    }
    if (e != OTF2_SUCCESS) return TCONV_FATAL; /* a callback already said why */
    if (!r->have_clock || !r->ticks_per_s) {
        tconv_error_set(r->ctx,
                        "%s: the archive has no clock properties (timer resolution), so "
                        "its times cannot be read",
                        r->anchor);
        return TCONV_FATAL;
    }
    otf2r_defs_resolve_comms(r);
    if (!r->nlocs) return TCONV_OK;
    OTF2_EvtReaderCallbacks *ecb = OTF2_EvtReaderCallbacks_New();
    if (!ecb) otf2r_oom();
    otf2r_events_register(ecb);
    tconv_status st = TCONV_OK;
    for (size_t i = 0; i < r->nlocs && st == TCONV_OK; i++) {
        if (i % OTF2R_LOCS_PER_READER == 0) st = otf2r_events_reader(r);
        if (st == TCONV_OK) st = otf2r_location(r, &r->locs[i], ecb);
    }
    OTF2_EvtReaderCallbacks_Delete(ecb);
    otf2r_events_close(r);
    if (st == TCONV_OK) st = otf2r_markers_read(r);
    if (st == TCONV_OK && tconv_ctx_verbosity(r->ctx) > 0)
        tconv_note(r->ctx, "otf2: %zu locations, deepest stack %zu regions", r->nlocs,
                   r->max_depth);
    return st;
}

static tconv_status otf2r_read(tconv_ctx *ctx, tconv_input *in, const tconv_options *opts,
                               tconv_sink *sink)
{
    (void)opts;
    const char *name = tconv_input_name(in);
    size_t hlen;
    const unsigned char *head = tconv_input_peek(in, &hlen);
    if (tconv_input_is_gzip(in) || strcmp(name, "<stdin>") == 0) {
        tconv_error_set(ctx,
                        "%s: the otf2 reader opens an archive by its anchor file "
                        "(traces.otf2) or folder, not as a stream",
                        name);
        return TCONV_FATAL;
    }
    if (!otf2r_is_anchor(head, hlen)) {
        if (otf2r_is_otf2(head, hlen)) return otf2r_companion(ctx, name);
        tconv_error_at(ctx, name, 0, "not an OTF2 anchor file (no OTF2 header)");
        return TCONV_FATAL;
    }
    otf2r r = {.ctx = ctx, .sink = sink, .in = in, .anchor = name, .status = TCONV_OK};
    r.args = tconv_args_wanted(ctx);
    otf2r_split(name, &r.dir, &r.base);
    r.s_empty = 0;
    r.s_message = tconv_string_intern_cstr(ctx, "message");
    r.s_process_name = tconv_string_intern_cstr(ctx, "process_name");
    r.s_thread_name = tconv_string_intern_cstr(ctx, "thread_name");
    r.s_host = tconv_string_intern_cstr(ctx, "host");
    otf2_error_reader_install(&r);
    tconv_status st = otf2r_archive(&r);
    otf2r_events_close(&r);
    if (r.reader) OTF2_Reader_Close(r.reader);
    otf2_error_reader_uninstall();
    otf2r_events_free(&r);
    otf2r_defs_free(&r);
    free(r.dir);
    free(r.base);
    return st;
}

const tconv_reader_class otf2_reader_class = {
    .struct_size = sizeof(tconv_reader_class),
    .name = "otf2",
    .description = "OTF2 trace archive (Score-P, tconv -w otf2): its traces.otf2 anchor file or "
                   "the folder holding it",
    .extensions = "otf2",
    .options = NULL,
    .probe = otf2r_probe,
    .read = otf2r_read,
    .members = otf2r_members,
};
