/* The inputs of a run: what the user named, with every directory replaced by the regular files
 * below it, depth first, in bytewise name order, so that a run folder always reads in the same
 * order. Hidden entries (a leading '.') are not read, nor the parts of an OTF2 archive other
 * than its anchor file (X.def, X.marker and the folder X/ next to X.otf2).
 *
 * Invariant: a regular file found below a directory is listed once however many names lead to
 * it, and not again when the user names it too (a file named twice is read twice: that was
 * asked); a directory is walked once however many links lead to it; both are known by (st_dev,
 * st_ino). The directories above a named directory count as walked, so a link to ".." or "/" inside
 * it neither loops nor escapes. What cannot be read below a named directory is a counted warning
 * that names it, never a silent gap. */
#include <dirent.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "io.h"

/* A set of (device, inode) pairs, open addressing. */
typedef struct inputs_ids {
    struct inputs_id {
        dev_t dev;
        ino_t ino;
        int used;
    } * slots;
    size_t n, cap;
} inputs_ids;

static size_t inputs_ids_slot(const inputs_ids *s, dev_t dev, ino_t ino)
{
    uint64_t h = ((uint64_t)dev * 0x9e3779b97f4a7c15u) ^ ((uint64_t)ino * 0xc2b2ae3d27d4eb4fu);
    size_t i = (size_t)(h ^ (h >> 29)) & (s->cap - 1);
    while (s->slots[i].used && !(s->slots[i].dev == dev && s->slots[i].ino == ino))
        i = (i + 1) & (s->cap - 1);
    return i;
}

static int inputs_ids_has(const inputs_ids *s, dev_t dev, ino_t ino)
{
    return s->cap && s->slots[inputs_ids_slot(s, dev, ino)].used;
}

/* 1 if (dev, ino) was new and is now in the set. */
static int inputs_ids_add(inputs_ids *s, dev_t dev, ino_t ino)
{
    if (2 * (s->n + 1) > s->cap) {
        inputs_ids old = *s;
        s->cap = old.cap ? 2 * old.cap : 64;
        s->slots = tconv_xcalloc(s->cap, sizeof(*s->slots));
        s->n = 0;
        for (size_t i = 0; i < old.cap; i++)
            if (old.slots[i].used) inputs_ids_add(s, old.slots[i].dev, old.slots[i].ino);
        free(old.slots);
    }
    struct inputs_id *e = &s->slots[inputs_ids_slot(s, dev, ino)];
    if (e->used) return 0;
    *e = (struct inputs_id){dev, ino, 1};
    s->n++;
    return 1;
}

typedef struct inputs_walk {
    tconv_ctx *ctx;
    tconv_input_list *l;
    inputs_ids files, dirs; /* found by a walk, or named */
    inputs_ids above;       /* directories that hold a named directory */
    inputs_ids walked;      /* files a walk found */
} inputs_walk;

static int inputs_visible(const struct dirent *e)
{
    return e->d_name[0] != '.';
}

/* Bytewise, whatever the locale: the same folder reads in the same order everywhere. */
static int inputs_bytewise(const struct dirent **a, const struct dirent **b)
{
    return strcmp((*a)->d_name, (*b)->d_name);
}

static void inputs_add(tconv_input_list *l, char *path, const char *dir)
{
    TCONV_GROW(l->items, l->cap, l->n + 1);
    l->items[l->n++] = (tconv_input_item){path, dir};
}

/* dir/name with one '/' between them, whatever dir ends with. */
static char *inputs_join(const char *dir, const char *name)
{
    size_t dl = strlen(dir);
    while (dl > 1 && dir[dl - 1] == '/')
        dl--;
    int slash = !(dl == 1 && dir[0] == '/');
    size_t len = dl + (size_t)slash + strlen(name) + 1;
    char *p = tconv_xmalloc(len);
    snprintf(p, len, "%.*s%s%s", (int)dl, dir, slash ? "/" : "", name);
    return p;
}

/* The directories that hold dir, up to "/", count as walked: a link to one of them would read
 * dir again, or everything around it. */
static void inputs_mark_above(inputs_walk *w, const char *dir)
{
    char *real = realpath(dir, NULL);
    if (!real) return;
    for (char *cut; (cut = strrchr(real, '/'));) {
        if (cut == real)
            cut[1] = 0;
        else
            *cut = 0;
        struct stat st;
        if (stat(real, &st) == 0) inputs_ids_add(&w->above, st.st_dev, st.st_ino);
        if (cut == real) break;
    }
    free(real);
}

/* An OTF2 archive is one input spread over files: its anchor X.otf2 is what a reader opens,
 * and the library reads X.def, X.marker and the folder X/ through it. Listed, they would be
 * inputs of their own that no reader can read alone. 1 if the entry at i is such a file. */
static int inputs_archive_part(struct dirent **ents, int m, int i)
{
    const char *name = ents[i]->d_name;
    size_t stem = strlen(name);
    const char *dot = strrchr(name, '.');
    if (dot && (strcmp(dot, ".def") == 0 || strcmp(dot, ".marker") == 0))
        stem = (size_t)(dot - name);
    else if (dot && strcmp(dot, ".otf2") == 0)
        return 0;
    char *anchor = tconv_xmalloc(stem + 6);
    memcpy(anchor, name, stem);
    memcpy(anchor + stem, ".otf2", 6);
    int lo = 0, hi = m, found = 0; /* the entries are in bytewise order */
    while (lo < hi && !found) {
        int mid = lo + (hi - lo) / 2, c = strcmp(ents[mid]->d_name, anchor);
        if (c == 0)
            found = 1;
        else if (c < 0)
            lo = mid + 1;
        else
            hi = mid;
    }
    free(anchor);
    return found;
}

static void inputs_expand_dir(inputs_walk *w, const char *dir, const char *top)
{
    struct dirent **ents = NULL;
    int m = scandir(dir, &ents, inputs_visible, inputs_bytewise);
    if (m < 0) {
        tconv_warning_add(w->ctx, "core.unreadable-dir",
                          "cannot read the directory '%s' (in '%s'): %s; skipped", dir, top,
                          strerror(errno));
        return;
    }
    char *parts = tconv_xcalloc((size_t)m + 1, 1);
    for (int i = 0; i < m; i++)
        parts[i] = (char)inputs_archive_part(ents, m, i);
    for (int i = 0; i < m; i++) {
        if (parts[i]) {
            free(ents[i]);
            continue;
        }
        char *p = inputs_join(dir, ents[i]->d_name);
        free(ents[i]);
        struct stat st;
        if (stat(p, &st) != 0) {
            tconv_warning_add(w->ctx, "core.unreadable", "cannot read '%s' (in '%s'): %s; skipped",
                              p, top, strerror(errno));
        } else if (S_ISDIR(st.st_mode)) {
            /* Seen before: a link back up, or a second link to the same folder. */
            if (!inputs_ids_has(&w->above, st.st_dev, st.st_ino) &&
                inputs_ids_add(&w->dirs, st.st_dev, st.st_ino))
                inputs_expand_dir(w, p, top);
        } else if (S_ISREG(st.st_mode)) {
            if (inputs_ids_add(&w->files, st.st_dev, st.st_ino)) {
                inputs_ids_add(&w->walked, st.st_dev, st.st_ino);
                inputs_add(w->l, p, top);
                p = NULL;
            }
        } else {
            tconv_warning_add(w->ctx, "core.skipped-file",
                              "'%s' (in '%s') is not a regular file; skipped", p, top);
        }
        free(p);
    }
    free(parts);
    free(ents);
}

void tconv_inputs_expand(tconv_ctx *ctx, tconv_input_list *l, const char *const *args, size_t nargs)
{
    static const char *const stdin_only[] = {"-"};
    if (!nargs) {
        args = stdin_only;
        nargs = 1;
    }
    inputs_walk w = {ctx, l, {0}, {0}, {0}, {0}};
    for (size_t i = 0; i < nargs; i++) {
        struct stat st;
        int named = strcmp(args[i], "-") != 0 && stat(args[i], &st) == 0;
        if (named && S_ISDIR(st.st_mode)) {
            if (!inputs_ids_add(&w.dirs, st.st_dev, st.st_ino)) continue; /* named twice */
            inputs_mark_above(&w, args[i]);
            inputs_expand_dir(&w, args[i], args[i]);
            continue;
        }
        /* A file the user names is read as often as named (the same trace as two ranks is a
         * test people run), unless a named folder already gave it; a later walk skips it. */
        if (named && S_ISREG(st.st_mode)) {
            if (inputs_ids_has(&w.walked, st.st_dev, st.st_ino)) {
                tconv_note(ctx, "'%s' was already read under another name; read once", args[i]);
                continue;
            }
            inputs_ids_add(&w.files, st.st_dev, st.st_ino);
        }
        inputs_add(l, tconv_xstrdup(args[i]), NULL);
    }
    free(w.files.slots);
    free(w.dirs.slots);
    free(w.above.slots);
    free(w.walked.slots);
}

void tconv_inputs_free(tconv_input_list *l)
{
    for (size_t i = 0; i < l->n; i++)
        free(l->items[i].path);
    free(l->items);
    *l = (tconv_input_list){0};
}
