#include "tfmem_run.h"

#include <dirent.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char *const tfmem_run_mem_sfx[] = {".memory_profile.json.gz", ".memory_profile.json",
                                                NULL};
static const char *const tfmem_run_trace_sfx[] = {".trace.json.gz", ".trace.json", NULL};

/* The length of name before one of the suffixes, or 0 when it has none (or nothing before). */
static size_t tfmem_run_stem(const char *name, const char *const *sfx)
{
    size_t n = strlen(name);
    for (; *sfx; sfx++) {
        size_t m = strlen(*sfx);
        if (n > m && strcmp(name + n - m, *sfx) == 0) return n - m;
    }
    return 0;
}

static const char *tfmem_run_base(const char *path)
{
    const char *slash = strrchr(path, '/');
    return slash ? slash + 1 : path;
}

char *tfmem_run_host(const char *path)
{
    const char *base = tfmem_run_base(path);
    size_t n = tfmem_run_stem(base, tfmem_run_mem_sfx);
    if (!n) return NULL;
    char *host = malloc(n + 1);
    if (!host) return NULL;
    memcpy(host, base, n);
    host[n] = 0;
    return host;
}

/* ---- a growing message ------------------------------------------------------------------ */

typedef struct tfmem_text {
    char *p;
    size_t len, cap;
} tfmem_text;

static void tfmem_text_add(tfmem_text *t, const char *fmt, ...) TCONV_PRINTF(2, 3);
static void tfmem_text_add(tfmem_text *t, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(NULL, 0, fmt, ap);
    va_end(ap);
    if (n < 0) return;
    if (t->len + (size_t)n + 1 > t->cap) {
        size_t cap = (t->len + (size_t)n + 1) * 2;
        char *p = realloc(t->p, cap);
        if (!p) return;
        t->p = p;
        t->cap = cap;
    }
    va_start(ap, fmt);
    vsnprintf(t->p + t->len, t->cap - t->len, fmt, ap);
    va_end(ap);
    t->len += (size_t)n;
}

static const char *tfmem_text_get(const tfmem_text *t)
{
    return t->p ? t->p : "";
}

/* ---- what a folder holds ---------------------------------------------------------------- */

static int tfmem_run_is_tf_file(const struct dirent *e)
{
    return tfmem_run_stem(e->d_name, tfmem_run_mem_sfx) ||
           tfmem_run_stem(e->d_name, tfmem_run_trace_sfx);
}

typedef struct tfmem_run_dir {
    struct dirent **ents;
    int n;
} tfmem_run_dir;

static void tfmem_run_dir_read(tfmem_run_dir *d, const char *dir)
{
    d->ents = NULL;
    d->n = scandir(dir, &d->ents, tfmem_run_is_tf_file, alphasort);
    if (d->n < 0) d->n = 0;
}

static void tfmem_run_dir_free(tfmem_run_dir *d)
{
    for (int i = 0; i < d->n; i++)
        free(d->ents[i]);
    free(d->ents);
    d->ents = NULL;
    d->n = 0;
}

/* "'dir': a.memory_profile.json.gz, a.trace.json.gz" */
static void tfmem_run_describe_dir(tfmem_text *t, const char *dir)
{
    tfmem_run_dir d;
    tfmem_run_dir_read(&d, dir);
    tfmem_text_add(t, "'%s': ", dir);
    for (int i = 0; i < d.n; i++)
        tfmem_text_add(t, "%s%s", i ? ", " : "", d.ents[i]->d_name);
    if (!d.n) tfmem_text_add(t, "(no profiler files)");
    tfmem_run_dir_free(&d);
}

static char *tfmem_run_dirname(const char *path)
{
    const char *slash = strrchr(path, '/');
    size_t n = slash ? (size_t)(slash - path) : 1;
    if (slash == path) n = 1; /* "/x" lives in "/" */
    char *dir = malloc(n + 1);
    if (!dir) return NULL;
    memcpy(dir, slash ? path : ".", n);
    dir[n] = 0;
    return dir;
}

/* ---- what this run has read ------------------------------------------------------------- */

typedef struct tfmem_run_file {
    char *path, *dir, *realdir, *host;
    uint32_t input;
    int has_track; /* the profile's first track, to tell this conversion from a later one */
    uint32_t track;
    tconv_str pid;
} tfmem_run_file;

/* Plugins get no call at the end of a run, so the record lives here and starts over when it is
 * not this conversion's: another context, input numbering that restarts, or tracks recorded
 * earlier that the context does not hold (a new context at the address of a freed one). */
static struct {
    const tconv_ctx *ctx;
    uint32_t last_index;
    tfmem_run_file *v;
    size_t n, cap;
} tfmem_run_seen;

void tfmem_run_reset(void)
{
    for (size_t i = 0; i < tfmem_run_seen.n; i++) {
        free(tfmem_run_seen.v[i].path);
        free(tfmem_run_seen.v[i].dir);
        free(tfmem_run_seen.v[i].realdir);
        free(tfmem_run_seen.v[i].host);
    }
    free(tfmem_run_seen.v);
    memset(&tfmem_run_seen, 0, sizeof(tfmem_run_seen));
}

static tconv_status tfmem_run_host_twice(tconv_ctx *ctx, const char *path, const char *host,
                                         const tfmem_run_file *earlier)
{
    tconv_error_at(ctx, path, 0,
                   "host '%s' has more than one memory profile; found '%s' (read already) and "
                   "'%s'. Keep one profile per host: name the file to read, or convert the runs "
                   "separately",
                   host, earlier->path, path);
    return TCONV_FATAL;
}

static tconv_status tfmem_run_several(tconv_ctx *ctx, const char *path, const char *dir,
                                      const char *realdir)
{
    tfmem_text t = {0};
    size_t shown = 0;
    for (size_t i = 0; i < tfmem_run_seen.n; i++) {
        const tfmem_run_file *f = &tfmem_run_seen.v[i];
        int dup = 0;
        for (size_t j = 0; j < i; j++)
            dup |= strcmp(tfmem_run_seen.v[j].realdir, f->realdir) == 0;
        if (dup || strcmp(f->realdir, realdir) == 0) continue;
        tfmem_text_add(&t, "%s", shown++ ? "; " : "");
        tfmem_run_describe_dir(&t, f->dir);
    }
    tfmem_text_add(&t, "; ");
    tfmem_run_describe_dir(&t, dir);
    tconv_error_at(ctx, path, 0,
                   "memory profiles of more than one profiler run; found %s. A run folder "
                   "(plugins/profile/<run>) holds one profiling session: give one run folder, "
                   "or read the memory profiles alone onto one time base with -r tfmem -R "
                   "merge-runs=true",
                   tfmem_text_get(&t));
    free(t.p);
    return TCONV_FATAL;
}

static void tfmem_run_trace_note(tconv_ctx *ctx, const char *path, const char *host,
                                 const char *dir)
{
    tfmem_run_dir d;
    tfmem_run_dir_read(&d, dir);
    int traces = 0, mine = 0;
    tfmem_text t = {0};
    for (int i = 0; i < d.n; i++) {
        const char *name = d.ents[i]->d_name;
        size_t n = tfmem_run_stem(name, tfmem_run_trace_sfx);
        if (!n) continue;
        tfmem_text_add(&t, "%s%s", traces++ ? ", " : "", name);
        mine |= n == strlen(host) && memcmp(name, host, n) == 0;
    }
    tfmem_run_dir_free(&d);
    if (traces && !mine)
        tconv_warning_add(ctx, "tfmem.no-trace",
                          "%s: the memory profile of host '%s' has no trace next to it (found "
                          "%s); its counters are read alone",
                          path, host, tfmem_text_get(&t));
    free(t.p);
}

#if defined(__GNUC__)
/* The record outlives every call into the plugin: free it when the plugin is unloaded. */
__attribute__((destructor)) static void tfmem_run_unload(void)
{
    tfmem_run_reset();
}
#endif

static int tfmem_run_stale(const tconv_ctx *ctx, uint32_t index)
{
    if (tfmem_run_seen.ctx != ctx || (tfmem_run_seen.n && index <= tfmem_run_seen.last_index))
        return 1;
    for (size_t i = 0; i < tfmem_run_seen.n; i++) {
        const tfmem_run_file *f = &tfmem_run_seen.v[i];
        const tconv_track *t = f->has_track ? tconv_track_describe(ctx, f->track) : NULL;
        if (f->has_track && (!t || t->input != f->input || t->pid != f->pid)) return 1;
    }
    return 0;
}

void tfmem_run_track(const tconv_ctx *ctx, uint32_t index, uint32_t track)
{
    if (tfmem_run_seen.ctx != ctx || !tfmem_run_seen.n) return;
    tfmem_run_file *f = &tfmem_run_seen.v[tfmem_run_seen.n - 1];
    const tconv_track *t = tconv_track_describe(ctx, track);
    if (f->input != index || f->has_track || !t) return;
    f->has_track = 1;
    f->track = track;
    f->pid = t->pid;
}

tconv_status tfmem_run_check(tconv_ctx *ctx, const char *path, const char *host, uint32_t index,
                             int merge_runs)
{
    if (tfmem_run_stale(ctx, index)) {
        tfmem_run_reset();
        tfmem_run_seen.ctx = ctx;
    }
    tfmem_run_seen.last_index = index;
    char *dir = tfmem_run_dirname(path);
    char real[PATH_MAX];
    char *realdir = dir && realpath(dir, real) ? strdup(real) : dir ? strdup(dir) : NULL;
    char *host_copy = host ? strdup(host) : NULL;
    char *path_copy = strdup(path);
    tconv_status st = TCONV_OK;
    if (!dir || !realdir || !path_copy || (host && !host_copy)) {
        tconv_error_set(ctx, "%s: out of memory", path);
        st = TCONV_FATAL;
    }
    for (size_t i = 0; st == TCONV_OK && i < tfmem_run_seen.n; i++) {
        const tfmem_run_file *f = &tfmem_run_seen.v[i];
        if (host && f->host && strcmp(f->host, host) == 0)
            st = tfmem_run_host_twice(ctx, path, host, f);
    }
    for (size_t i = 0; st == TCONV_OK && !merge_runs && i < tfmem_run_seen.n; i++)
        if (strcmp(tfmem_run_seen.v[i].realdir, realdir) != 0)
            st = tfmem_run_several(ctx, path, dir, realdir);
    if (st == TCONV_OK && host) tfmem_run_trace_note(ctx, path, host, dir);
    if (st == TCONV_OK && tfmem_run_seen.n == tfmem_run_seen.cap) {
        size_t cap = tfmem_run_seen.cap ? tfmem_run_seen.cap * 2 : 8;
        tfmem_run_file *v = realloc(tfmem_run_seen.v, cap * sizeof(*v));
        if (!v) {
            tconv_error_set(ctx, "%s: out of memory", path);
            st = TCONV_FATAL;
        } else {
            tfmem_run_seen.v = v;
            tfmem_run_seen.cap = cap;
        }
    }
    if (st != TCONV_OK) {
        free(dir);
        free(realdir);
        free(host_copy);
        free(path_copy);
        return st;
    }
    tfmem_run_seen.v[tfmem_run_seen.n++] =
        (tfmem_run_file){path_copy, dir, realdir, host_copy, index, 0, 0, 0};
    return TCONV_OK;
}
