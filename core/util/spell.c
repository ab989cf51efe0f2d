/* "Did you mean": the known name closest to a mistyped one (-w ppof: pprof). Closeness is the
 * edit distance with adjacent transpositions (ppfor: one edit), case ignored; a name is offered
 * only when it is one edit away for words of up to four letters, two for longer ones, so that a
 * wrong word gets the list of names rather than a guess. */
#include <ctype.h>
#include <string.h>

#include "util.h"

enum { SPELL_MAX = 64 };

static size_t spell_min3(size_t a, size_t b, size_t c)
{
    size_t m = a < b ? a : b;
    return m < c ? m : c;
}

/* Optimal string alignment distance; SIZE_MAX for words too long to be names. */
static size_t spell_distance(const char *a, const char *b)
{
    size_t n = strlen(a), m = strlen(b);
    if (n >= SPELL_MAX || m >= SPELL_MAX) return SIZE_MAX;
    size_t d[SPELL_MAX + 1][SPELL_MAX + 1];
    for (size_t i = 0; i <= n; i++)
        d[i][0] = i;
    for (size_t j = 0; j <= m; j++)
        d[0][j] = j;
    for (size_t i = 1; i <= n; i++) {
        for (size_t j = 1; j <= m; j++) {
            int ca = tolower((unsigned char)a[i - 1]), cb = tolower((unsigned char)b[j - 1]);
            size_t cost = ca != cb;
            d[i][j] = spell_min3(d[i - 1][j] + 1, d[i][j - 1] + 1, d[i - 1][j - 1] + cost);
            if (i > 1 && j > 1 && ca == tolower((unsigned char)b[j - 2]) &&
                tolower((unsigned char)a[i - 2]) == cb && d[i - 2][j - 2] + 1 < d[i][j])
                d[i][j] = d[i - 2][j - 2] + 1;
        }
    }
    return d[n][m];
}

const char *tconv_spell_closest(const char *word, const char *const *names, size_t n)
{
    size_t limit = strlen(word) <= 4 ? 1 : 2, best = SIZE_MAX;
    const char *found = NULL;
    for (size_t i = 0; i < n; i++) {
        size_t d = spell_distance(word, names[i]);
        if (d <= limit && d < best && d < strlen(names[i])) {
            best = d;
            found = names[i];
        }
    }
    return found;
}
