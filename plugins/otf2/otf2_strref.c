/* OTF2 string definitions. Every string the archive names is a tconv string: ids are handed out
 * densely on first use, so only strings that are referenced get defined, and each once. OTF2
 * strings end at a NUL byte, which a tconv string may hold ("\u0000" in JSON): such a string is
 * written with U+FFFD in place of each NUL, as invalid bytes are, and counted, rather than cut
 * short without a word. */
#include <stdlib.h>
#include <string.h>

#include "otf2_oom.h"
#include "otf2_writer.h"

tconv_str otf2_str_nul_free(otf2_state *st, tconv_str s)
{
    const char *text = tconv_string_get(st->ctx, s);
    size_t len = tconv_string_length(st->ctx, s);
    if (strlen(text) == len) return s;
    size_t nul = 0;
    for (size_t i = 0; i < len; i++)
        nul += !text[i];
    char *copy = malloc(len + 2 * nul + 1);
    if (!copy) otf2_oom();
    size_t n = 0;
    for (size_t i = 0; i < len; i++) {
        if (text[i]) {
            copy[n++] = text[i];
        } else {
            memcpy(copy + n, "\xEF\xBF\xBD", 3);
            n += 3;
        }
    }
    tconv_warning_add(st->ctx, "otf2.nul-in-string",
                      "a name holds a NUL byte, which ends an OTF2 string: written with U+FFFD "
                      "in its place");
    tconv_str t = tconv_string_intern(st->ctx, copy, n);
    free(copy);
    return t;
}

OTF2_StringRef otf2_strref(otf2_state *st, tconv_str s)
{
    if (s >= st->strref_cap) {
        size_t old = st->strref_cap;
        OTF2W_GROW(st->strref, st->strref_cap, (size_t)s + 1);
        memset(st->strref + old, 0, (st->strref_cap - old) * sizeof(*st->strref));
    }
    if (!st->strref[s]) {
        OTF2W_GROW(st->strings, st->strings_cap, st->nstrings + 1);
        OTF2W_GROW(st->string_input, st->string_input_cap, st->nstrings + 1);
        st->string_input[st->nstrings] = st->cur_input;
        st->strings[st->nstrings++] = otf2_str_nul_free(st, s);
        st->strref[s] = (uint32_t)st->nstrings;
    }
    return st->strref[s] - 1;
}

OTF2_StringRef otf2_strref_cstr(otf2_state *st, const char *s)
{
    return otf2_strref(st, tconv_string_intern_cstr(st->ctx, s));
}
