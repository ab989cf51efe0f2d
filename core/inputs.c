/* The inputs of a run: what the user named, with every directory replaced by the regular files
 * below it, depth first, in bytewise name order, so that a run folder always reads in the same
 * order. Hidden entries (a leading '.') are not read. */
#include <dirent.h>
#include <string.h>
#include <sys/stat.h>

#include "internal.h"

static int inputs_visible(const struct dirent *e)
{
    return e->d_name[0] != '.';
}

static void inputs_add(tconv_input_list *l, char *path, const char *dir)
{
    TCONV_GROW(l->items, l->cap, l->n + 1);
    l->items[l->n++] = (tconv_input_item){path, dir};
}

static void inputs_expand_dir(tconv_input_list *l, const char *dir, const char *top)
{
    struct dirent **ents = NULL;
    int m = scandir(dir, &ents, inputs_visible, alphasort);
    for (int i = 0; i < m; i++) {
        size_t len = strlen(dir) + strlen(ents[i]->d_name) + 2;
        char *p = tconv_xmalloc(len);
        snprintf(p, len, "%s/%s", dir, ents[i]->d_name);
        struct stat st;
        if (stat(p, &st) == 0 && S_ISDIR(st.st_mode)) {
            inputs_expand_dir(l, p, top);
            free(p);
        } else if (stat(p, &st) == 0 && S_ISREG(st.st_mode)) {
            inputs_add(l, p, top);
        } else {
            free(p);
        }
        free(ents[i]);
    }
    free(ents);
}

void tconv_inputs_expand(tconv_input_list *l, const char *const *args, size_t nargs)
{
    static const char *const stdin_only[] = {"-"};
    if (!nargs) {
        args = stdin_only;
        nargs = 1;
    }
    for (size_t i = 0; i < nargs; i++) {
        struct stat st;
        if (strcmp(args[i], "-") != 0 && stat(args[i], &st) == 0 && S_ISDIR(st.st_mode))
            inputs_expand_dir(l, args[i], args[i]);
        else
            inputs_add(l, tconv_xstrdup(args[i]), NULL);
    }
}

void tconv_inputs_free(tconv_input_list *l)
{
    for (size_t i = 0; i < l->n; i++)
        free(l->items[i].path);
    free(l->items);
    *l = (tconv_input_list){0};
}
