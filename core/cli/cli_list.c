/* --list and --help-plugin: what the loaded plugins offer, from their descriptors. Every text
 * of a descriptor is escaped as input text is (cli_put_safe): a plugin found on the path may be
 * anyone's, and its name must not drive the user's terminal. */
#define _POSIX_C_SOURCE 200809L
#include <stdlib.h>
#include <string.h>

#include "cli.h"

/* s as cli_put_safe writes it; valid until eight more calls. */
static const char *cli_esc(const char *s)
{
    static char *ring[8];
    static unsigned at;
    char **slot = &ring[at++ % 8];
    free(*slot);
    *slot = NULL;
    size_t n;
    FILE *f = open_memstream(slot, &n);
    if (!f) return "?";
    cli_put_safe(f, s ? s : "");
    fclose(f);
    return *slot ? *slot : "?";
}

void cli_list(const tconv_host *h)
{
    size_t n = tconv_host_plugin_count(h);
    if (!n) printf("no plugins found (set TCONV_PLUGIN_PATH or use --plugin-path)\n");
    for (size_t i = 0; i < n; i++) {
        const char *path;
        const tconv_plugin_desc *d = tconv_host_plugin(h, i, &path);
        printf("%s ", cli_esc(d->name));
        printf("%s  ", cli_esc(d->version));
        printf("%s\n", cli_esc(path));
        if (d->description) printf("    %s\n", cli_esc(d->description));
        for (const tconv_reader_class *const *c = d->readers; c && *c; c++)
            printf("    reader  %-12s %s\n", cli_esc((*c)->name), cli_esc((*c)->description));
        for (const tconv_writer_class *const *c = d->writers; c && *c; c++)
            printf("    writer  %-12s %s\n", cli_esc((*c)->name), cli_esc((*c)->description));
    }
}

void cli_writer_endings(const tconv_host *h, FILE *f, int indent, int width)
{
    int col = indent, any = 0;
    fprintf(f, "%*s", indent, "");
    for (size_t i = 0; i < tconv_host_plugin_count(h); i++) {
        const tconv_plugin_desc *d = tconv_host_plugin(h, i, NULL);
        for (const tconv_writer_class *const *c = d->writers; c && *c; c++) {
            const char *exts = TCONV_CLASS_HAS(*c, extensions) ? (*c)->extensions : NULL;
            if (!exts || !*exts) continue;
            /* ".json .json.gz -> chrome", kept on one line */
            char item[256];
            int n = 0;
            for (const char *p = exts; *p && n < (int)sizeof(item) - 1;) {
                size_t k = strcspn(p, "|");
                n += snprintf(item + n, sizeof(item) - (size_t)n, "%s.%.*s", n ? " " : "", (int)k,
                              p);
                p += k + (p[k] == '|');
            }
            if (n < (int)sizeof(item) - 1)
                snprintf(item + n, sizeof(item) - (size_t)n, " -> %s", (*c)->name);
            int len = (int)strlen(item) + (any ? 2 : 0);
            if (any && col + len > width) {
                fprintf(f, ",\n%*s", indent, "");
                col = indent;
                len -= 2;
            } else if (any) {
                fputs(", ", f);
            }
            fputs(item, f);
            col += len;
            any = 1;
        }
    }
    fputs(any ? "\n" : "(no writer claims an extension: see --list)\n", f);
}

static void cli_list_names(const tconv_host *h, int writers, FILE *f)
{
    int any = 0;
    for (size_t i = 0; i < tconv_host_plugin_count(h); i++) {
        const tconv_plugin_desc *d = tconv_host_plugin(h, i, NULL);
        if (writers) {
            for (const tconv_writer_class *const *c = d->writers; c && *c; c++)
                fprintf(f, "%s%s", any++ ? ", " : "", cli_esc((*c)->name));
        } else {
            for (const tconv_reader_class *const *c = d->readers; c && *c; c++)
                fprintf(f, "%s%s", any++ ? ", " : "", cli_esc((*c)->name));
        }
    }
    if (!any) fprintf(f, "none (no plugins found; see --list and TCONV_PLUGIN_PATH)");
}

static void cli_print_options(const tconv_option_desc *o, const char *flag)
{
    if (!o || !o->name) {
        printf("  no options\n");
        return;
    }
    printf("  options (%s key=val):\n", flag);
    for (; o->name; o++) {
        const char *type = o->type == TCONV_OPT_BOOL     ? "bool"
                           : o->type == TCONV_OPT_INT    ? "int"
                           : o->type == TCONV_OPT_DOUBLE ? "number"
                           : o->type == TCONV_OPT_ENUM   ? cli_esc(o->choices)
                                                         : "text";
        char typed[64];
        /* A number's range (choices of an int or number option), as the plugin wrote it. */
        if ((o->type == TCONV_OPT_INT || o->type == TCONV_OPT_DOUBLE) && o->choices) {
            snprintf(typed, sizeof(typed), "%s %s", type, cli_esc(o->choices));
            type = typed;
        }
        printf("    %-14s %-12s %s", cli_esc(o->name), type, cli_esc(o->help));
        if (o->default_value) printf(" (default: %s)", cli_esc(o->default_value));
        printf("\n");
    }
}

int cli_help_plugin(const tconv_host *h, const char *name)
{
    int found = 0;
    for (size_t i = 0; i < tconv_host_plugin_count(h); i++) {
        const char *path;
        const tconv_plugin_desc *d = tconv_host_plugin(h, i, &path);
        int whole = strcmp(d->name, name) == 0;
        for (const tconv_reader_class *const *c = d->readers; c && *c; c++) {
            if (!whole && strcmp((*c)->name, name) != 0) continue;
            printf("reader %s (plugin %s, %s)\n  %s\n", cli_esc((*c)->name), cli_esc(d->name),
                   cli_esc(path), cli_esc((*c)->description));
            if ((*c)->extensions) printf("  file extensions: %s\n", cli_esc((*c)->extensions));
            cli_print_options((*c)->options, "-R");
            found = 1;
        }
        for (const tconv_writer_class *const *c = d->writers; c && *c; c++) {
            if (!whole && strcmp((*c)->name, name) != 0) continue;
            printf("writer %s (plugin %s, %s)\n  %s\n", cli_esc((*c)->name), cli_esc(d->name),
                   cli_esc(path), cli_esc((*c)->description));
            if ((*c)->flags & TCONV_WRITER_DIRECTORY) printf("  writes a directory: -o DIR\n");
            if (TCONV_CLASS_HAS(*c, extensions) && (*c)->extensions)
                printf("  picked by output names ending in: %s\n", cli_esc((*c)->extensions));
            cli_print_options((*c)->options, "-W");
            found = 1;
        }
    }
    if (!found) {
        fprintf(stderr, "tconv: no plugin, reader or writer named '%s'; readers: ", name);
        cli_list_names(h, 0, stderr);
        fprintf(stderr, "; writers: ");
        cli_list_names(h, 1, stderr);
        fprintf(stderr, "\n");
        return CLI_EXIT_USAGE;
    }
    return 0;
}
