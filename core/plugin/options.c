/* Plugin options (-R/-W key=val), checked against the plugin's descriptors before the plugin
 * runs, so a typo is a usage error that lists what is valid, not a silently ignored setting. */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>

#include "plugin.h"

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

/* A number's range, in choices: alternatives "N", "A..B", "A.." or "..B" joined with '|'
 * ("0|8.."). A value outside it is the user's mistake, found before the plugin runs. */
static int options_in_range(const char *range, double x)
{
    for (const char *p = range; p && *p;) {
        const char *bar = strchr(p, '|');
        size_t len = bar ? (size_t)(bar - p) : strlen(p);
        char alt[64];
        snprintf(alt, sizeof(alt), "%.*s", (int)len, p);
        char *dots = strstr(alt, "..");
        if (dots) *dots = 0;
        const char *lo = alt, *hi = dots ? dots + 2 : alt;
        if ((!*lo || x >= strtod(lo, NULL)) && (!*hi || x <= strtod(hi, NULL))) return 1;
        p = bar ? bar + 1 : p + len;
    }
    return 0;
}

/* The range in words: "0 or at least 8". */
static void options_range_words(const char *range, char *out, size_t cap)
{
    size_t off = 0;
    out[0] = 0;
    for (const char *p = range; *p && off < cap;) {
        const char *bar = strchr(p, '|');
        size_t len = bar ? (size_t)(bar - p) : strlen(p);
        char alt[64];
        snprintf(alt, sizeof(alt), "%.*s", (int)len, p);
        char *dots = strstr(alt, "..");
        const char *sep = off ? " or " : "";
        if (!dots) {
            off += (size_t)snprintf(out + off, cap - off, "%s%s", sep, alt);
        } else {
            *dots = 0;
            if (!alt[0])
                off += (size_t)snprintf(out + off, cap - off, "%sat most %s", sep, dots + 2);
            else if (!dots[2])
                off += (size_t)snprintf(out + off, cap - off, "%sat least %s", sep, alt);
            else
                off +=
                    (size_t)snprintf(out + off, cap - off, "%sfrom %s to %s", sep, alt, dots + 2);
        }
        p = bar ? bar + 1 : p + len;
    }
}

/* 1 if val fits the option's type (and range). */
int tconv_option_value_check(const tconv_option_desc *d, const char *val)
{
    int b;
    int64_t i;
    double x;
    switch (d->type) {
    case TCONV_OPT_BOOL:
        return options_bool(val, &b);
    case TCONV_OPT_INT:
        return options_int(val, &i) && (!d->choices || options_in_range(d->choices, (double)i));
    case TCONV_OPT_DOUBLE:
        return options_double(val, &x) && (!d->choices || options_in_range(d->choices, x));
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
            int64_t iv;
            double x;
            int number = d->type == TCONV_OPT_INT      ? options_int(val, &iv)
                         : d->type == TCONV_OPT_DOUBLE ? options_double(val, &x)
                                                       : 0;
            if (number && d->choices) {
                char words[256];
                options_range_words(d->choices, words, sizeof(words));
                snprintf(err, errcap, "option '%s': %s is out of range; it must be %s", name, val,
                         words);
            } else {
                snprintf(err, errcap, "option '%s': '%s' is not %s", name, val,
                         options_type_name(d));
            }
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
