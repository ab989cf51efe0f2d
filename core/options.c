/* Plugin options (-R/-W key=val), checked against the plugin's descriptors before the plugin
 * runs, so a typo is a usage error that lists what is valid, not a silently ignored setting. */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>

#include "internal.h"

static const tconv_option_desc *options_find(const tconv_option_desc *desc, const char *name)
{
    for (const tconv_option_desc *d = desc; d && d->name; d++)
        if (strcmp(d->name, name) == 0) return d;
    return NULL;
}

static int options_bool(const char *v, int *out)
{
    static const char *const yes[] = {"true", "yes", "on", "1"};
    static const char *const no[] = {"false", "no", "off", "0"};
    for (size_t i = 0; i < 4; i++) {
        if (strcasecmp(v, yes[i]) == 0) return *out = 1, 1;
        if (strcasecmp(v, no[i]) == 0) return *out = 0, 1;
    }
    return 0;
}

static int options_int(const char *v, int64_t *out)
{
    char *end;
    errno = 0;
    long long x = strtoll(v, &end, 0);
    if (errno || end == v || *end) return 0;
    *out = x;
    return 1;
}

static int options_double(const char *v, double *out)
{
    char *end;
    errno = 0;
    double x = strtod(v, &end);
    if (errno || end == v || *end || !isfinite(x)) return 0;
    *out = x;
    return 1;
}

static int options_choice(const char *choices, const char *v)
{
    size_t n = strlen(v);
    for (const char *p = choices; p && *p;) {
        const char *bar = strchr(p, '|');
        size_t len = bar ? (size_t)(bar - p) : strlen(p);
        if (len == n && strncmp(p, v, n) == 0) return 1;
        p = bar ? bar + 1 : p + len;
    }
    return 0;
}

/* 1 if val fits the option's type. */
int tconv_option_value_check(const tconv_option_desc *d, const char *val)
{
    int b;
    int64_t i;
    double x;
    switch (d->type) {
    case TCONV_OPT_BOOL:
        return options_bool(val, &b);
    case TCONV_OPT_INT:
        return options_int(val, &i);
    case TCONV_OPT_DOUBLE:
        return options_double(val, &x);
    case TCONV_OPT_ENUM:
        return options_choice(d->choices, val);
    default:
        return 1;
    }
}

static const char *options_type_name(const tconv_option_desc *d)
{
    switch (d->type) {
    case TCONV_OPT_BOOL:
        return "true or false";
    case TCONV_OPT_INT:
        return "an integer";
    case TCONV_OPT_DOUBLE:
        return "a number";
    case TCONV_OPT_ENUM:
        return d->choices;
    default:
        return "text";
    }
}

int tconv_options_parse(tconv_options *o, const tconv_option_desc *desc, char *const *kv, size_t n,
                        char *err, size_t errcap)
{
    memset(o, 0, sizeof(*o));
    o->desc = desc;
    o->names = tconv_xcalloc(n, sizeof(char *));
    o->values = tconv_xcalloc(n, sizeof(char *));
    for (size_t i = 0; i < n; i++) {
        const char *eq = strchr(kv[i], '=');
        char name[256];
        size_t nlen = eq ? (size_t)(eq - kv[i]) : strlen(kv[i]);
        snprintf(name, sizeof(name), "%.*s", (int)nlen, kv[i]);
        const tconv_option_desc *d = options_find(desc, name);
        if (!d) {
            int off = snprintf(err, errcap, "unknown option '%s'; valid options:", name);
            if (!desc || !desc->name) snprintf(err + off, errcap - (size_t)off, " none");
            for (const tconv_option_desc *x = desc; x && x->name && (size_t)off < errcap; x++)
                off += snprintf(err + off, errcap - (size_t)off, " %s", x->name);
            return -1;
        }
        /* "-W flag" alone sets a boolean. */
        const char *val = eq ? eq + 1 : (d->type == TCONV_OPT_BOOL ? "true" : NULL);
        if (!val) {
            snprintf(err, errcap, "option '%s' needs a value: %s=VALUE (%s)", name, name,
                     options_type_name(d));
            return -1;
        }
        if (!tconv_option_value_check(d, val)) {
            snprintf(err, errcap, "option '%s': '%s' is not %s", name, val, options_type_name(d));
            return -1;
        }
        /* A later -W of the same name overrides an earlier one. */
        size_t j = 0;
        while (j < o->n && strcmp(o->names[j], name) != 0)
            j++;
        if (j == o->n) o->names[o->n++] = tconv_xstrdup(name);
        free(o->values[j]);
        o->values[j] = tconv_xstrdup(val);
    }
    return 0;
}

void tconv_options_free(tconv_options *o)
{
    for (size_t i = 0; i < o->n; i++) {
        free(o->names[i]);
        free(o->values[i]);
    }
    free(o->names);
    free(o->values);
    memset(o, 0, sizeof(*o));
}

TCONV_API int tconv_option_is_set(const tconv_options *o, const char *name)
{
    for (size_t i = 0; o && i < o->n; i++)
        if (strcmp(o->names[i], name) == 0) return 1;
    return 0;
}

TCONV_API const char *tconv_option_get_string(const tconv_options *o, const char *name)
{
    for (size_t i = 0; o && i < o->n; i++)
        if (strcmp(o->names[i], name) == 0) return o->values[i];
    const tconv_option_desc *d = o ? options_find(o->desc, name) : NULL;
    return d ? d->default_value : NULL;
}

TCONV_API int64_t tconv_option_get_int(const tconv_options *o, const char *name)
{
    const char *v = tconv_option_get_string(o, name);
    int64_t x = 0;
    return v && options_int(v, &x) ? x : 0;
}

TCONV_API double tconv_option_get_double(const tconv_options *o, const char *name)
{
    const char *v = tconv_option_get_string(o, name);
    double x = 0;
    return v && options_double(v, &x) ? x : 0.0;
}

TCONV_API int tconv_option_get_bool(const tconv_options *o, const char *name)
{
    const char *v = tconv_option_get_string(o, name);
    int b = 0;
    return v && options_bool(v, &b) ? b : 0;
}
