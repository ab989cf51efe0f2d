/* Parsing of single `perf script` lines. perf prints a header as
 *   comm  pid/tid [cpu] secs.usecs: period event: [ip sym (dso)]
 * where comm is padded and may contain spaces, and every field can be left out with -F. The
 * thread id is found from the fields that follow it (cpu, time), which keeps comms such as
 * "Thread 2" whole; without those fields the first all-digit word after the comm is the thread
 * id, as in stackcollapse-perf.pl and inferno. */
#include "perf_line.h"

#include <string.h>

enum { PERF_LINE_MAX_TOKENS = 64 };

typedef struct perf_tok {
    size_t b, e;
} perf_tok;

static int perf_line_ws(char c)
{
    return c == ' ' || c == '\t';
}

static int perf_line_digit(char c)
{
    return c >= '0' && c <= '9';
}

static int perf_line_hexval(char c)
{
    if (c >= '0' && c <= '9') return c - '0';
    if (c >= 'a' && c <= 'f') return c - 'a' + 10;
    if (c >= 'A' && c <= 'F') return c - 'A' + 10;
    return -1;
}

size_t perf_line_trim_end(const char *s, size_t n)
{
    while (n && (s[n - 1] == ' ' || s[n - 1] == '\t' || s[n - 1] == '\r' || s[n - 1] == '\v' ||
                 s[n - 1] == '\f'))
        n--;
    return n;
}

static int perf_line_all_digits(const char *s, size_t n)
{
    if (!n) return 0;
    for (size_t i = 0; i < n; i++)
        if (!perf_line_digit(s[i])) return 0;
    return 1;
}

/* "1234" or "1234/5678" */
static int perf_line_is_thread(const char *s, size_t n, size_t *slash)
{
    const char *sl = memchr(s, '/', n);
    if (!sl) {
        *slash = n;
        return perf_line_all_digits(s, n);
    }
    size_t k = (size_t)(sl - s);
    *slash = k;
    return perf_line_all_digits(s, k) && perf_line_all_digits(sl + 1, n - k - 1);
}

/* "[003]" */
static int perf_line_is_cpu(const char *s, size_t n, int *cpu)
{
    if (n < 3 || s[0] != '[' || s[n - 1] != ']' || !perf_line_all_digits(s + 1, n - 2)) return 0;
    int v = 0;
    for (size_t i = 1; i + 1 < n && v < 1000000; i++)
        v = v * 10 + (s[i] - '0');
    *cpu = v;
    return 1;
}

/* "7628263.042515:" (µs) or with --ns "7628263.042515123:" */
static int perf_line_is_time(const char *s, size_t n, int64_t *ns)
{
    if (n < 4 || s[n - 1] != ':') return 0;
    const char *dot = memchr(s, '.', n - 1);
    if (!dot) return 0;
    size_t ip = (size_t)(dot - s), fp = n - 2 - ip;
    if (!perf_line_all_digits(s, ip) || !perf_line_all_digits(dot + 1, fp)) return 0;
    int64_t secs = 0, frac = 0;
    for (size_t i = 0; i < ip && i < 11; i++)
        secs = secs * 10 + (s[i] - '0');
    size_t k = 0;
    for (; k < fp && k < 9; k++)
        frac = frac * 10 + (dot[1 + k] - '0');
    for (; k < 9; k++)
        frac *= 10;
    /* Eleven digits of seconds overflow int64 nanoseconds. Times stay below 2^62 ns (146 years)
     * so that the difference of two fits in int64 too: beyond, they saturate. */
    const int64_t limit = ((int64_t)1 << 62) - 1;
    *ns = secs > (limit - frac) / 1000000000 ? limit : secs * 1000000000 + frac;
    return 1;
}

static size_t perf_line_next_tok(const char *s, size_t n, size_t i, perf_tok *t)
{
    while (i < n && perf_line_ws(s[i]))
        i++;
    t->b = i;
    while (i < n && !perf_line_ws(s[i]))
        i++;
    t->e = i;
    return i;
}

int perf_line_header(const char *s, size_t n, perf_header *h)
{
    memset(h, 0, sizeof(*h));
    n = perf_line_trim_end(s, n);
    perf_tok tok[PERF_LINE_MAX_TOKENS];
    size_t ntok = 0, i = 0, slash = 0;
    long anchor = -1, fallback = -1;
    while (ntok < PERF_LINE_MAX_TOKENS) {
        perf_tok t;
        i = perf_line_next_tok(s, n, i, &t);
        if (t.b == t.e) break;
        const char *w = s + t.b;
        size_t wn = t.e - t.b;
        int64_t ns;
        int cpu;
        tok[ntok] = t;
        if (perf_line_is_cpu(w, wn, &cpu) || perf_line_is_time(w, wn, &ns)) {
            anchor = (long)ntok;
            break;
        }
        /* Like the reference tools, the thread id must be followed by something. */
        if (fallback < 0 && ntok >= 1 && t.e < n && perf_line_is_thread(w, wn, &slash))
            fallback = (long)ntok;
        ntok++;
    }
    long pid_at = -1;
    if (anchor >= 0) {
        if (anchor >= 1 && perf_line_is_thread(s + tok[anchor - 1].b,
                                               tok[anchor - 1].e - tok[anchor - 1].b, &slash))
            pid_at = anchor - 1;
    } else {
        if (fallback < 0) return 0;
        pid_at = fallback;
    }

    size_t comm_end, cur;
    if (pid_at >= 0) {
        perf_tok t = tok[pid_at];
        (void)perf_line_is_thread(s + t.b, t.e - t.b, &slash);
        if (slash < t.e - t.b) {
            h->pid = (perf_span){s + t.b, slash};
            h->tid = (perf_span){s + t.b + slash + 1, t.e - t.b - slash - 1};
        } else {
            h->tid = (perf_span){s + t.b, t.e - t.b};
        }
        comm_end = t.b;
        cur = t.e;
    } else {
        comm_end = tok[anchor].b;
        cur = tok[anchor].b;
    }
    size_t cb = 0;
    while (cb < comm_end && perf_line_ws(s[cb]))
        cb++;
    size_t ce = comm_end;
    while (ce > cb && perf_line_ws(s[ce - 1]))
        ce--;
    h->comm = (perf_span){s + cb, ce - cb};

    perf_tok t;
    size_t after = perf_line_next_tok(s, n, cur, &t);
    if (t.b < t.e && perf_line_is_cpu(s + t.b, t.e - t.b, &h->cpu)) {
        h->has_cpu = 1;
        cur = after;
        after = perf_line_next_tok(s, n, cur, &t);
    }
    if (t.b < t.e && perf_line_is_time(s + t.b, t.e - t.b, &h->time_ns)) {
        h->has_time = 1;
        cur = after;
        after = perf_line_next_tok(s, n, cur, &t);
    }
    if (t.b < t.e && perf_line_all_digits(s + t.b, t.e - t.b)) {
        uint64_t v = 0;
        for (size_t k = t.b; k < t.e; k++)
            v = v * 10 + (uint64_t)(s[k] - '0');
        h->has_period = 1;
        h->period = v;
        cur = after;
        after = perf_line_next_tok(s, n, cur, &t);
    }
    if (t.e - t.b >= 2 && s[t.e - 1] == ':') {
        h->has_event = 1;
        h->event = (perf_span){s + t.b, t.e - t.b - 1};
        cur = after;
    }
    while (cur < n && perf_line_ws(s[cur]))
        cur++;
    h->rest = (perf_span){s + cur, n - cur};
    return 1;
}

int perf_line_frame_head(const char *s, size_t n, perf_frame_line *f)
{
    memset(f, 0, sizeof(*f));
    n = perf_line_trim_end(s, n);
    size_t i = 0;
    while (i < n && perf_line_ws(s[i]))
        i++;
    size_t b = i;
    uint64_t addr = 0;
    while (i < n && !perf_line_ws(s[i])) {
        int v = perf_line_hexval(s[i]);
        if (v < 0) return 0;
        addr = addr << 4 | (uint64_t)v;
        i++;
    }
    if (i == b) return 0;
    f->pc = (perf_span){s + b, i - b};
    f->addr = addr;
    while (i < n && perf_line_ws(s[i]))
        i++;
    f->text = (perf_span){s + i, n - i};
    return 1;
}

int perf_line_frame(const char *s, size_t n, perf_frame_line *f)
{
    return perf_line_frame_head(s, n, f) && perf_line_frame_body(f);
}

int perf_line_frame_body(perf_frame_line *f)
{
    const char *s = f->text.p;
    size_t i = 0, n = f->text.n;
    if (i == n) return 1;
    size_t e = n;
    if (s[e - 1] == ')') {
        /* The dso is the last balanced "(...)" preceded by a blank; it may hold parentheses
         * itself, as in "(/usr/lib/libfoo.so (deleted))". */
        int depth = 0;
        size_t open = (size_t)-1;
        for (size_t j = e; j > i; j--) {
            char c = s[j - 1];
            if (c == ')') depth++;
            if (c == '(' && --depth == 0) {
                open = j - 1;
                break;
            }
        }
        if (open == (size_t)-1 || !(open == i || perf_line_ws(s[open - 1]))) {
            /* unbalanced: fall back to the reference tools' rule, the last blank-separated
             * word in parentheses */
            size_t w = e;
            while (w > i && !perf_line_ws(s[w - 1]))
                w--;
            open = s[w] == '(' ? w : (size_t)-1;
        }
        if (open != (size_t)-1) {
            size_t db = open + 1, de = e - 1;
            /* --show-dso-offset (newer perf) appends "+0x<hex>" inside the parentheses. */
            for (size_t j = de; j >= db + 3; j--) {
                if (s[j - 3] == '+' && s[j - 2] == '0' && s[j - 1] == 'x') {
                    size_t k = j;
                    while (k < de && perf_line_hexval(s[k]) >= 0)
                        k++;
                    if (k == de && k > j) de = j - 3;
                    break;
                }
            }
            f->dso = (perf_span){s + db, de - db};
            f->has_dso = 1;
            size_t se = open;
            while (se > i && perf_line_ws(s[se - 1]))
                se--;
            f->sym = (perf_span){s + i, se - i};
            return 1;
        }
    }
    /* No dso: perf printed none (-F ip,sym), unless the line was cut inside "(dso": a
     * damaged line is not a frame. */
    for (size_t j = i; j + 1 < e; j++)
        if (perf_line_ws(s[j]) && s[j + 1] == '(') return 0;
    f->sym = (perf_span){s + i, e - i};
    return 1;
}

int perf_line_srcline(const char *s, size_t n, perf_span *file, uint32_t *lineno)
{
    n = perf_line_trim_end(s, n);
    size_t i = 0;
    while (i < n && perf_line_ws(s[i]))
        i++;
    if (i == n) return 0;
    /* "file.c:12 (discriminator 3)" */
    const char *disc = NULL;
    for (size_t j = i; j + 15 <= n; j++)
        if (memcmp(s + j, " (discriminator", 15) == 0) disc = s + j;
    size_t e = disc ? (size_t)(disc - s) : n;
    size_t colon = e;
    while (colon > i && s[colon - 1] != ':')
        colon--;
    if (colon <= i + 1) return 0;
    const char *num = s + colon;
    size_t numn = e - colon;
    if (!perf_line_all_digits(num, numn)) return 0;
    uint32_t v = 0;
    for (size_t k = 0; k < numn && v < 100000000u; k++)
        v = v * 10 + (uint32_t)(num[k] - '0');
    *file = (perf_span){s + i, colon - 1 - i};
    *lineno = v;
    return 1;
}
