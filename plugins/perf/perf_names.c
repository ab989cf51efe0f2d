/* Frame naming rules shared by stackcollapse-perf.pl and inferno-collapse-perf. Where the two
 * disagree these follow inferno (see docs/perf.md). */
#include "perf_names.h"

#include <string.h>

static int perf_names_is_hex(char c)
{
    return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F');
}

static int perf_names_starts(const char *s, size_t n, const char *prefix)
{
    size_t k = strlen(prefix);
    return n >= k && memcmp(s, prefix, k) == 0;
}

static int perf_names_ends(const char *s, size_t n, const char *suffix)
{
    size_t k = strlen(suffix);
    return n >= k && memcmp(s + n - k, suffix, k) == 0;
}

int perf_names_contains(const char *s, size_t n, const char *needle)
{
    size_t k = strlen(needle);
    if (k == 0) return 1;
    for (size_t i = 0; i + k <= n; i++)
        if (s[i] == needle[0] && memcmp(s + i, needle, k) == 0) return 1;
    return 0;
}

size_t perf_names_strip_offset(const char *s, size_t n)
{
    /* The last "+0x" counts, and an empty hex tail still is an offset, as in inferno. */
    for (size_t i = n; i >= 3; i--) {
        size_t at = i - 3;
        if (s[at] != '+' || s[at + 1] != '0' || s[at + 2] != 'x') continue;
        for (size_t j = at + 3; j < n; j++)
            if (!perf_names_is_hex(s[j])) return n;
        return at;
    }
    return n;
}

/* Rust's legacy mangling escapes, as rustc-demangle decodes them. */
static const struct perf_names_escape {
    const char *code;
    char c;
} perf_names_rust_escapes[] = {
    {"$SP$", '@'},   {"$BP$", '*'},  {"$RF$", '&'},  {"$LT$", '<'},  {"$GT$", '>'},
    {"$LP$", '('},   {"$RP$", ')'},  {"$C$", ','},   {"$u7e$", '~'}, {"$u20$", ' '},
    {"$u27$", '\''}, {"$u3d$", '='}, {"$u5b$", '['}, {"$u5d$", ']'}, {"$u7b$", '{'},
    {"$u7d$", '}'},  {"$u3b$", ';'}, {"$u2b$", '+'}, {"$u21$", '!'}, {"$u22$", '"'},
};

size_t perf_names_fix_rust(const char *s, size_t n, char *out, size_t cap)
{
    enum { HASH_LEN = 17 }; /* "h" and 16 hex digits */
    if (n < HASH_LEN || s[n - HASH_LEN] != 'h') return 0;
    for (size_t i = n - HASH_LEN + 1; i < n; i++)
        if (!perf_names_is_hex(s[i])) return 0;
    const char *p = s;
    size_t left = n - HASH_LEN;
    if (left >= 2 && p[left - 2] == ':' && p[left - 1] == ':') left -= 2;
    if (left >= 2 && p[0] == '_' && p[1] == '$') p++, left--;
    size_t o = 0;
#define PERF_NAMES_PUT(ch)                                                                         \
    do {                                                                                           \
        if (o < cap) out[o] = (ch);                                                                \
        o++;                                                                                       \
    } while (0)
    while (left) {
        if (p[0] == '.') {
            if (left >= 2 && p[1] == '.') {
                PERF_NAMES_PUT(':');
                PERF_NAMES_PUT(':');
                p += 2, left -= 2;
            } else {
                PERF_NAMES_PUT('.');
                p++, left--;
            }
        } else if (p[0] == '$') {
            size_t k = 0,
                   nesc = sizeof(perf_names_rust_escapes) / sizeof(perf_names_rust_escapes[0]);
            for (; k < nesc; k++) {
                size_t cl = strlen(perf_names_rust_escapes[k].code);
                if (left >= cl && memcmp(p, perf_names_rust_escapes[k].code, cl) == 0) {
                    PERF_NAMES_PUT(perf_names_rust_escapes[k].c);
                    p += cl, left -= cl;
                    break;
                }
            }
            if (k == nesc) { /* an escape it does not know: keep the rest verbatim */
                while (left) {
                    PERF_NAMES_PUT(*p);
                    p++, left--;
                }
            }
        } else {
            PERF_NAMES_PUT(*p);
            p++, left--;
        }
    }
#undef PERF_NAMES_PUT
    return o < cap ? o : cap;
}

size_t perf_names_tidy_generic(char *s, size_t n)
{
    int depth = 0;
    size_t after_dot = (size_t)-1; /* index just after the last '.' */
    size_t cut = n;
    for (size_t i = 0; i < n; i++) {
        if (s[i] == ';') s[i] = ':';
    }
    for (size_t i = 0; i < n; i++) {
        char c = s[i];
        if (c == '<' || c == '{' || c == '[') {
            depth++;
        } else if (c == '>' || c == '}' || c == ']' || c == ')') {
            depth--;
        } else if (c == '(') {
            /* Only a top-level '(' starts an argument list: the ones inside C++ templates and
             * lambda names ({lambda(int)#1}) are part of the name. */
            if (depth == 0) {
                int is_go = after_dot == i;
                int is_anon = perf_names_starts(s + i, n - i, "(anonymous namespace)");
                if (!is_go && !is_anon) {
                    cut = i;
                    break;
                }
            }
            depth++;
        } else if (c == '.') {
            after_dot = i + 1;
        }
    }
    return cut;
}

size_t perf_names_tidy_java(char *s, size_t n)
{
    if (n && s[0] == 'L' && memchr(s, '/', n)) {
        memmove(s, s + 1, n - 1);
        return n - 1;
    }
    return n;
}

static int perf_names_is_vmlinux(const char *s, size_t n)
{
    size_t at = (size_t)-1;
    for (size_t i = 0; i + 7 <= n; i++)
        if (memcmp(s + i, "vmlinux", 7) == 0) at = i;
    if (at == (size_t)-1) return 0;
    for (size_t i = at; i < n; i++) {
        char c = s[i];
        int ok = (c >= '0' && c <= '9') || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
                 c == '-' || c == '.' || c == '_';
        if (!ok) return 0;
    }
    return 1;
}

int perf_names_is_kernel(const char *dso, size_t n)
{
    if (n == 9 && memcmp(dso, "[unknown]", 9) == 0) return 0;
    return (n && dso[0] == '[') || perf_names_ends(dso, n, ".ko") || perf_names_is_vmlinux(dso, n);
}

int perf_names_is_jit(const char *dso, size_t n)
{
    return (perf_names_starts(dso, n, "/tmp/perf-") && perf_names_ends(dso, n, ".map")) ||
           (perf_names_contains(dso, n, "/jitted-") && perf_names_ends(dso, n, ".so"));
}

size_t perf_names_unknown(const char *dso, size_t dson, const char *pc, size_t pcn, int addrs,
                          char *out, size_t cap)
{
    const char *base = "unknown";
    size_t basen = 7;
    int dso_known = dson && !(dson == 9 && memcmp(dso, "[unknown]", 9) == 0);
    if (dso_known) {
        base = dso;
        basen = dson;
        for (size_t i = dson; i > 0; i--) {
            if (dso[i - 1] == '/') {
                base = dso + i;
                basen = dson - i;
                break;
            }
        }
    }
    size_t o = 0;
#define PERF_NAMES_APPEND(src, len)                                                                \
    do {                                                                                           \
        size_t l_ = (len);                                                                         \
        if (o + l_ > cap) l_ = cap > o ? cap - o : 0;                                              \
        memcpy(out + o, (src), l_);                                                                \
        o += l_;                                                                                   \
    } while (0)
    PERF_NAMES_APPEND("[", 1);
    PERF_NAMES_APPEND(base, basen);
    if (addrs) {
        PERF_NAMES_APPEND(" <", 2);
        PERF_NAMES_APPEND(pc, pcn);
        PERF_NAMES_APPEND(">", 1);
    }
    PERF_NAMES_APPEND("]", 1);
#undef PERF_NAMES_APPEND
    return o;
}
