/* The plugin loader: the only file that knows about libltdl. Each plugin is opened with local
 * symbol scope (so every plugin can export the same entry symbol) and checked before use; a
 * broken plugin costs one warning naming the file and the reason, never the run. A plugin that
 * crashes while it loads ends the run naming the file (core/loadguard.c).
 *
 * A plugin is code the user runs: one that someone else could have put there or changed is
 * not loaded, as ld.so's secure rules do for libraries. A folder or a plugin file that anyone
 * may write to, or that belongs to another user than the one running tconv (root aside), is
 * skipped with a warning. */
#define _GNU_SOURCE /* dladdr1 */
#include <dirent.h>
#include <dlfcn.h>
#include <elf.h>
#include <link.h>
#include <ltdl.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "plugin.h"

static int loader_is_plugin(const struct dirent *e)
{
    size_t n = strlen(e->d_name);
    return n > 3 && strcmp(e->d_name + n - 3, ".so") == 0 && e->d_name[0] != '.';
}

static void loader_say(tconv_registry *r, tconv_notice_level level, const char *text)
{
    if (r->notice) r->notice(r->notice_user, level, text);
}

static void loader_warn(tconv_registry *r, const char *path, const char *fmt, const char *a,
                        const char *b)
{
    r->nwarnings++;
    char why[2048], line[4096 + 64];
    snprintf(why, sizeof(why), fmt, a, b);
    snprintf(line, sizeof(line), "skipping plugin '%s': %s", path, why);
    loader_say(r, TCONV_NOTICE_WARNING, line);
}

/* libltdl only says "file not found" when loading fails, whatever the reason; dlopen itself
 * tells the truth (an undefined symbol, a bad ELF header), so ask it. */
static void loader_explain(tconv_registry *r, const char *path)
{
    void *h = dlopen(path, RTLD_NOW | RTLD_LOCAL);
    if (h) {
        dlclose(h);
        loader_warn(r, path, "cannot be loaded (%s)", lt_dlerror(), "");
        return;
    }
    const char *why = dlerror();
    loader_warn(r, path, "not a loadable shared object: %s%s", why ? why : "unknown reason",
                strstr(why ? why : "", "undefined symbol")
                    ? " (the plugin needs a symbol that neither tconv nor its libraries provide)"
                    : "");
}

static int loader_has_name(const tconv_registry *r, const char *name)
{
    for (size_t i = 0; i < r->n; i++)
        if (strcmp(r->plugins[i].desc->name, name) == 0) return 1;
    return 0;
}

/* NULL if every class is usable, else what is wrong with the first that is not. */
static const char *loader_check_classes(const tconv_plugin_desc *d)
{
    for (const tconv_reader_class *const *c = d->readers; c && *c; c++)
        if ((*c)->struct_size < offsetof(tconv_reader_class, read) + sizeof((*c)->read) ||
            !(*c)->name || !(*c)->name[0] || !(*c)->read)
            return "a reader class is incomplete (struct_size, name or read missing)";
    for (const tconv_writer_class *const *c = d->writers; c && *c; c++)
        if ((*c)->struct_size < offsetof(tconv_writer_class, destroy) + sizeof((*c)->destroy) ||
            !(*c)->name || !(*c)->name[0] || !(*c)->open || !(*c)->event || !(*c)->destroy)
            return "a writer class is incomplete (struct_size, name, open, event or destroy "
                   "missing)";
    return NULL;
}

/* 1 when the entry symbol is code. A plugin that exports the name as data (a descriptor named
 * like the entry) would otherwise be called and jump into its data. The ELF symbol's type says,
 * without calling it; where the dynamic linker cannot tell, the symbol is trusted as before. */
static int loader_is_function(void *sym)
{
    Dl_info info;
    const ElfW(Sym) *es = NULL;
    if (!dladdr1(sym, &info, (void **)&es, RTLD_DL_SYMENT) || !es) return 1;
    unsigned type = ELF64_ST_TYPE(es->st_info); /* the same macro as ELF32_ST_TYPE */
    return type == STT_FUNC || type == STT_GNU_IFUNC;
}

/* 1 when the file or folder at path may be loaded from: written by nobody but the user running
 * tconv and root. Else a warning, and 0. */
static int loader_trusted(tconv_registry *r, const char *path, int folder)
{
    struct stat st;
    if (stat(path, &st) != 0) return 1; /* opening it says why */
    const char *what = folder ? "plugin folder" : "plugin";
    char why[256];
    if (st.st_mode & S_IWOTH) {
        snprintf(why, sizeof(why),
                 "it is writable by every user, so anyone could have put code there (chmod o-w "
                 "it)");
    } else if (st.st_uid != geteuid() && st.st_uid != 0) {
        snprintf(why, sizeof(why),
                 "it belongs to user %lu, neither the one running tconv nor root, who could have "
                 "put code there",
                 (unsigned long)st.st_uid);
    } else {
        return 1;
    }
    r->nwarnings++;
    char line[4096 + 384];
    snprintf(line, sizeof(line), "skipping %s '%s': %s", what, path, why);
    loader_say(r, TCONV_NOTICE_WARNING, line);
    return 0;
}

static void loader_open(tconv_registry *r, const char *path)
{
    lt_dladvise adv;
    lt_dladvise_init(&adv);
    lt_dladvise_local(&adv);
    lt_dlhandle h = lt_dlopenadvise(path, adv);
    lt_dladvise_destroy(&adv);
    if (!h) {
        loader_explain(r, path);
        return;
    }
    tconv_plugin_entry_fn entry;
    void *sym = lt_dlsym(h, TCONV_PLUGIN_ENTRY);
    memcpy(&entry, &sym, sizeof(entry));
    if (!sym) {
        loader_warn(r, path,
                    "no entry point '%s' (is it a tconv plugin? plugins define it with "
                    "TCONV_PLUGIN())%s",
                    TCONV_PLUGIN_ENTRY, "");
        lt_dlclose(h);
        return;
    }
    if (!loader_is_function(sym)) {
        loader_warn(r, path,
                    "'%s' is not a function (plugins define it with TCONV_PLUGIN(), which "
                    "exports a function returning the descriptor)%s",
                    TCONV_PLUGIN_ENTRY, "");
        lt_dlclose(h);
        return;
    }
    if (tconv_registry_add(r, path, entry(), h) < 0) {
        lt_dlclose(h);
        return;
    }
#ifdef TCONV_KEEP_PLUGINS_LOADED
    /* A leak report at exit names a plugin's frames (and its libraries') only if they are
     * still mapped: sanitizer builds mark an accepted plugin never to be unmapped, below
     * libltdl, whose own bookkeeping is still freed. */
    void *keep = dlopen(path, RTLD_NOW | RTLD_NOLOAD | RTLD_NODELETE);
    if (keep) dlclose(keep);
#endif
}

static void loader_try(tconv_registry *r, const char *path)
{
    if (!loader_trusted(r, path, 0)) return;
    tconv_loadguard *g = tconv_loadguard_begin(path);
    loader_open(r, path);
    tconv_loadguard_end(g);
}

int tconv_registry_add(tconv_registry *r, const char *path, const tconv_plugin_desc *d,
                       void *handle)
{
    char have[64], want[64];
    if (!d || d->struct_size < offsetof(tconv_plugin_desc, writers) + sizeof(d->writers) ||
        !d->name) {
        loader_warn(r, path, "its descriptor is invalid (NULL, too small or unnamed)%s%s", "", "");
        return -1;
    }
    if (!d->name[0]) {
        /* --list, --help-plugin and "the first plugin of a name wins" all go by the name. */
        loader_warn(r, path, "its name is empty (give the descriptor a name)%s%s", "", "");
        return -1;
    }
    snprintf(have, sizeof(have), "%u.%u", (unsigned)d->abi_major, (unsigned)d->abi_minor);
    snprintf(want, sizeof(want), "%u.%u", TCONV_ABI_MAJOR, TCONV_ABI_MINOR);
    if (d->abi_major != TCONV_ABI_MAJOR) {
        loader_warn(r, path,
                    "built for plugin ABI %s, but this tconv has ABI %s (rebuild the "
                    "plugin against this tconv's headers)",
                    have, want);
        return -1;
    }
    if (d->abi_minor > TCONV_ABI_MINOR) {
        loader_warn(r, path, "needs plugin ABI %s, newer than this tconv's %s (upgrade tconv)",
                    have, want);
        return -1;
    }
    const char *bad = loader_check_classes(d);
    if (bad) {
        loader_warn(r, path, "%s%s", bad, "");
        return -1;
    }
    if (loader_has_name(r, d->name)) {
        /* Search order is priority order: the first plugin of a name wins. */
        char line[4096 + 128];
        snprintf(line, sizeof(line), "plugin '%s' at '%s' is shadowed by an earlier one", d->name,
                 path);
        loader_say(r, TCONV_NOTICE_DEBUG, line);
        return -1;
    }
    TCONV_GROW(r->plugins, r->cap, r->n + 1);
    r->plugins[r->n++] = (tconv_plugin){tconv_xstrdup(path), d, handle};
    return 0;
}

static int loader_init(tconv_registry *r)
{
    if (!r->ltdl_ready) {
        if (lt_dlinit() != 0) {
            char line[512];
            snprintf(line, sizeof(line), "cannot initialise libltdl: %s", lt_dlerror());
            loader_say(r, TCONV_NOTICE_WARNING, line);
            return -1;
        }
        r->ltdl_ready = 1;
    }
    return 0;
}

int tconv_registry_load_file(tconv_registry *r, const char *path)
{
    if (loader_init(r) < 0) return -1;
    size_t n = r->n;
    loader_try(r, path);
    return r->n > n ? 0 : -1;
}

int tconv_registry_load_dir(tconv_registry *r, const char *dir)
{
    if (loader_init(r) < 0) return -1;
    if (!loader_trusted(r, dir, 1)) return -1;
    struct dirent **list = NULL;
    int n = scandir(dir, &list, loader_is_plugin, alphasort);
    for (int i = 0; i < n; i++) {
        size_t len = strlen(dir) + strlen(list[i]->d_name) + 2;
        char *path = tconv_xmalloc(len);
        snprintf(path, len, "%s/%s", dir, list[i]->d_name);
        loader_try(r, path);
        free(path);
        free(list[i]);
    }
    free(list);
    return n < 0 ? -1 : 0;
}

void tconv_registry_free(tconv_registry *r)
{
    for (size_t i = 0; i < r->n; i++) {
        if (r->plugins[i].handle) lt_dlclose(r->plugins[i].handle);
        free(r->plugins[i].path);
    }
    free(r->plugins);
    r->plugins = NULL;
    r->n = r->cap = 0;
    if (r->ltdl_ready) lt_dlexit();
    r->ltdl_ready = 0;
}

const tconv_reader_class *tconv_registry_reader(const tconv_registry *r, const char *name,
                                                const tconv_plugin **owner)
{
    for (size_t i = 0; i < r->n; i++)
        for (const tconv_reader_class *const *c = r->plugins[i].desc->readers; c && *c; c++)
            if (strcmp((*c)->name, name) == 0) {
                if (owner) *owner = &r->plugins[i];
                return *c;
            }
    return NULL;
}

const tconv_writer_class *tconv_registry_writer(const tconv_registry *r, const char *name,
                                                const tconv_plugin **owner)
{
    for (size_t i = 0; i < r->n; i++)
        for (const tconv_writer_class *const *c = r->plugins[i].desc->writers; c && *c; c++)
            if (strcmp((*c)->name, name) == 0) {
                if (owner) *owner = &r->plugins[i];
                return *c;
            }
    return NULL;
}
