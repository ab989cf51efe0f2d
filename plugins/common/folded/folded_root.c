/* comm is the thread's name, else its process's, else the core's label of the track; spaces in
 * it become '_' and an unknown pid or tid is written '?', as stackcollapse-perf.pl writes them,
 * so that tconv's lines compare with its output. */
#include "folded_root.h"

#include <stdlib.h>
#include <string.h>

#include "folded_oom.h"

int folded_root_mode(const char *option)
{
    return strcmp(option, "comm") == 0           ? FOLDED_ROOT_COMM
           : strcmp(option, "comm-pid") == 0     ? FOLDED_ROOT_PID
           : strcmp(option, "comm-pid/tid") == 0 ? FOLDED_ROOT_TID
                                                 : FOLDED_ROOT_NONE;
}

tconv_str folded_root_name(tconv_ctx *ctx, uint32_t track, int mode)
{
    const tconv_track *t = tconv_track_describe(ctx, track);
    char label[512];
    const char *comm = "";
    if (t && t->thread_name)
        comm = tconv_string_get(ctx, t->thread_name);
    else if (t && t->process_name)
        comm = tconv_string_get(ctx, t->process_name);
    else
        comm = tconv_track_label(ctx, track, label, sizeof(label));
    const char *pid = t && t->pid ? tconv_string_get(ctx, t->pid) : "?";
    const char *tid = t && t->tid ? tconv_string_get(ctx, t->tid) : "?";
    size_t cn = strlen(comm), pn = strlen(pid), tn = strlen(tid);
    char *p = malloc(cn + pn + tn + 4);
    if (!p) folded_oom(cn + pn + tn + 4);
    size_t o = 0;
    for (size_t i = 0; i < cn; i++)
        p[o++] = comm[i] == ' ' ? '_' : comm[i];
    if (mode >= FOLDED_ROOT_PID) {
        p[o++] = '-';
        memcpy(p + o, pid, pn);
        o += pn;
    }
    if (mode == FOLDED_ROOT_TID) {
        p[o++] = '/';
        memcpy(p + o, tid, tn);
        o += tn;
    }
    tconv_str id = tconv_string_intern(ctx, p, o);
    free(p);
    return id;
}

tconv_str folded_stream_root(tconv_ctx *ctx, uint32_t track)
{
    const tconv_track *t = tconv_track_describe(ctx, track);
    if (!t || t->kind != TCONV_TRACK_GPU) return 0;
    const char *pid = tconv_string_get(ctx, t->pid);
    const char *stream = tconv_string_get(ctx, t->thread_name ? t->thread_name : t->tid);
    size_t np = strlen(pid), ns = strlen(stream);
    size_t at = np ? np + 1 : 0;
    char *name = malloc(at + ns + 1);
    if (!name) folded_oom(at + ns + 1);
    memcpy(name, pid, np);
    if (np) name[np] = '/';
    memcpy(name + at, stream, ns);
    tconv_str id = tconv_string_intern(ctx, name, at + ns);
    free(name);
    return id;
}
