/* The host: the plugins a program loaded, where it looks for them, and how it picks a reader
 * and a writer. Search order is priority order (the first plugin of a name wins), a process
 * that runs with privileges its user lacks never loads code the user can name, and the
 * environment's path holds absolute folders only. */
#include <libgen.h>
#include <limits.h>
#include <string.h>
#include <sys/auxv.h>
#include <unistd.h>

#include "plugin.h"

#ifndef TCONV_PLUGINDIR
#define TCONV_PLUGINDIR "/usr/local/lib/tconv/plugins"
#endif

TCONV_API tconv_host *tconv_host_new(const tconv_host_hooks *hooks)
{
    tconv_host *h = tconv_xcalloc(1, sizeof(*h));
    if (hooks) {
        /* A program built against an older minor knows a shorter struct. */
        size_t n = hooks->struct_size < sizeof(h->hooks) ? hooks->struct_size : sizeof(h->hooks);
        memcpy(&h->hooks, hooks, n);
    }
    h->hooks.struct_size = sizeof(h->hooks);
    h->reg.notice = h->hooks.notice;
    h->reg.notice_user = h->hooks.user;
    return h;
}

TCONV_API void tconv_host_free(tconv_host *h)
{
    if (!h) return;
    tconv_registry_free(&h->reg);
    for (size_t i = 0; i < h->nseen; i++)
        free(h->seen[i]);
    free(h->seen);
    free(h);
}

TCONV_API int tconv_host_load_dir(tconv_host *h, const char *dir)
{
    char real[PATH_MAX];
    if (!realpath(dir, real)) return -1;
    /* A folder named twice (a link, the build tree inside the install) is read once. */
    for (size_t i = 0; i < h->nseen; i++)
        if (strcmp(h->seen[i], real) == 0) return 0;
    h->seen = tconv_xrealloc(h->seen, (h->nseen + 1) * sizeof(*h->seen));
    h->seen[h->nseen++] = tconv_xstrdup(real);
    return tconv_registry_load_dir(&h->reg, real);
}

TCONV_API int tconv_host_load_file(tconv_host *h, const char *path)
{
    return tconv_registry_load_file(&h->reg, path);
}

TCONV_API int tconv_host_add_plugin(tconv_host *h, const tconv_plugin_desc *desc)
{
    char where[512];
    snprintf(where, sizeof(where), "(built into the program: %s)",
             desc && desc->name ? desc->name : "?");
    return tconv_registry_add(&h->reg, where, desc, NULL);
}

TCONV_API int tconv_host_privileged(void)
{
    /* AT_SECURE covers setuid, setgid and file capabilities alike; comparing ids does not. */
    return getauxval(AT_SECURE) != 0;
}

TCONV_API void tconv_host_load_standard(tconv_host *h, const char *const *extra_dirs, size_t n)
{
    if (tconv_host_privileged()) {
        tconv_host_load_dir(h, TCONV_PLUGINDIR);
        return;
    }
    const char *env = getenv("TCONV_PLUGIN_PATH");
    if (env && *env) {
        char *copy = tconv_xstrdup(env), *save = NULL;
        for (char *d = strtok_r(copy, ":", &save); d; d = strtok_r(NULL, ":", &save)) {
            if (d[0] == '/') {
                tconv_host_load_dir(h, d);
                continue;
            }
            /* Relative to wherever tconv runs: a folder anyone can make where someone else's
             * user will run it. Named on the command line (--plugin-path), it is the user's. */
            char line[4096 + 160];
            snprintf(line, sizeof(line),
                     "ignoring TCONV_PLUGIN_PATH entry '%s': not an absolute path, it would load "
                     "plugins from whatever folder tconv runs in",
                     d);
            h->reg.nwarnings++;
            if (h->reg.notice) h->reg.notice(h->reg.notice_user, TCONV_NOTICE_WARNING, line);
        }
        free(copy);
    }
    for (size_t i = 0; i < n; i++)
        tconv_host_load_dir(h, extra_dirs[i]);
    const char *home = getenv("HOME");
    if (home && *home) {
        char user[PATH_MAX];
        snprintf(user, sizeof(user), "%s/.local/lib/tconv/plugins", home);
        tconv_host_load_dir(h, user);
    }
    /* Relative to the executable: build tree (tconv next to plugins/), then an installed
     * prefix (bin/../lib/tconv/plugins), so a relocated install still finds its plugins. */
    char exe[PATH_MAX];
    ssize_t len = readlink("/proc/self/exe", exe, sizeof(exe) - 1);
    if (len > 0) {
        exe[len] = 0;
        char *dir = dirname(exe);
        char p[PATH_MAX + 32];
        snprintf(p, sizeof(p), "%s/plugins", dir);
        tconv_host_load_dir(h, p);
        snprintf(p, sizeof(p), "%s/../lib/tconv/plugins", dir);
        tconv_host_load_dir(h, p);
    }
    tconv_host_load_dir(h, TCONV_PLUGINDIR);
}

TCONV_API size_t tconv_host_plugin_count(const tconv_host *h)
{
    return h->reg.n;
}

TCONV_API const tconv_plugin_desc *tconv_host_plugin(const tconv_host *h, size_t i,
                                                     const char **path)
{
    if (i >= h->reg.n) return NULL;
    if (path) *path = h->reg.plugins[i].path;
    return h->reg.plugins[i].desc;
}

TCONV_API const tconv_reader_class *tconv_host_reader(const tconv_host *h, const char *name)
{
    return tconv_registry_reader(&h->reg, name, NULL);
}

TCONV_API const tconv_writer_class *tconv_host_writer(const tconv_host *h, const char *name)
{
    return tconv_registry_writer(&h->reg, name, NULL);
}

/* The length of the longest of exts ("json|json.gz") that name ends in as ".EXT"; 0 if none. */
static size_t host_ext_matches(const char *exts, const char *name)
{
    size_t best = 0;
    for (const char *p = exts; name && p && *p;) {
        const char *bar = strchr(p, '|');
        size_t len = bar ? (size_t)(bar - p) : strlen(p);
        size_t n = strlen(name);
        if (len < n && name[n - len - 1] == '.' && strncmp(name + n - len, p, len) == 0 &&
            len > best)
            best = len;
        p = bar ? bar + 1 : p + len;
    }
    return best;
}

TCONV_API const tconv_writer_class *tconv_host_writer_for(const tconv_host *h, const char *output)
{
    /* The longest ending wins ("x.speedscope.json" is speedscope's, not any JSON's); between
     * equal ones, the plugin found first, as it wins a name. */
    const tconv_writer_class *best = NULL;
    size_t best_len = 0;
    for (size_t i = 0; output && i < h->reg.n; i++)
        for (const tconv_writer_class *const *c = h->reg.plugins[i].desc->writers; c && *c; c++) {
            size_t len = host_ext_matches(TCONV_CLASS_GET(*c, extensions), output);
            if (len > best_len) {
                best = *c;
                best_len = len;
            }
        }
    return best;
}

TCONV_API const tconv_reader_class *
tconv_host_detect(const tconv_host *h, const unsigned char *head, size_t len, const char *name)
{
    int score;
    return tconv_host_detect_scored(h, head, len, name, &score);
}

const tconv_reader_class *tconv_host_detect_scored(const tconv_host *h, const unsigned char *head,
                                                   size_t len, const char *name, int *score_out)
{
    const tconv_reader_class *best = NULL;
    int best_score = 0, best_ext = 0;
    for (size_t i = 0; i < h->reg.n; i++) {
        for (const tconv_reader_class *const *c = h->reg.plugins[i].desc->readers; c && *c; c++) {
            if (!(*c)->probe) continue;
            int score = (*c)->probe(head, len);
            int ext = host_ext_matches((*c)->extensions, name) > 0;
            if (score > 0 && (score > best_score || (score == best_score && ext && !best_ext))) {
                best = *c;
                best_score = score;
                best_ext = ext;
            }
        }
    }
    *score_out = best_score;
    return best;
}

TCONV_API const char *tconv_version_string(void)
{
    return TCONV_VERSION;
}

TCONV_API void tconv_version_abi(unsigned *major, unsigned *minor)
{
    if (major) *major = TCONV_ABI_MAJOR;
    if (minor) *minor = TCONV_ABI_MINOR;
}
