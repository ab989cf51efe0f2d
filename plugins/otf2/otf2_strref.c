/* OTF2 string definitions. Every string the archive names is a tconv string: ids are handed out
 * densely on first use, so only strings that are referenced get defined, and each once. */
#include <string.h>

#include "otf2_writer.h"

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
        st->strings[st->nstrings++] = s;
        st->strref[s] = (uint32_t)st->nstrings;
    }
    return st->strref[s] - 1;
}

OTF2_StringRef otf2_strref_cstr(otf2_state *st, const char *s)
{
    return otf2_strref(st, tconv_string_intern_cstr(st->ctx, s));
}
