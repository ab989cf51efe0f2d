/* Messages for invalid JSON: "where: what was expected, found what", the expectation rebuilt
 * from the nesting the handlers saw. */
#include <stdio.h>
#include <string.h>

#include "chrome_reader.h"

static int chrome_is_ws(unsigned char c)
{
    return c == ' ' || c == '\t' || c == '\n' || c == '\r';
}

static int chrome_in_record(const chrome_reader *r)
{
    for (size_t i = 0; i < r->nlv; i++)
        if (r->lv[i] == CHROME_LV_RECORD) return 1;
    return 0;
}

/* What the grammar allows next, given the last token and whether a ',' followed it. */
static void chrome_expectation(const chrome_reader *r, int comma, char *buf, size_t cap)
{
    if (!r->depth) {
        if (r->nlv && r->lv[0] == CHROME_LV_ROOT)
            snprintf(buf, cap, "expected '[' or '{' at the start of a trace");
        else
            snprintf(buf, cap, "expected the end of input after the trace");
        return;
    }
    const struct chrome_nest *n = &r->nest[r->depth - 1];
    if (n->kind == 'm') {
        if (r->last == 'k')
            snprintf(buf, cap, "expected a value for \"%s\"", n->key);
        else if (r->last == 's')
            snprintf(buf, cap, "expected a member name in double quotes or '}'");
        else if (comma)
            snprintf(buf, cap, "expected a member name in double quotes after ','");
        else if (n->key[0])
            snprintf(buf, cap, "expected ',' or '}' after the value of \"%s\"", n->key);
        else
            snprintf(buf, cap, "expected ',' or '}'");
    } else {
        if (r->last == 's')
            snprintf(buf, cap, "expected a value or ']'");
        else if (comma)
            snprintf(buf, cap, "expected a value after ','");
        else
            snprintf(buf, cap, "expected ',' or ']' after an array element");
    }
}

static void chrome_describe_byte(const unsigned char *p, const unsigned char *end, char *buf,
                                 size_t cap)
{
    if (p >= end)
        snprintf(buf, cap, "the end of the data read");
    else if (*p == '\'')
        snprintf(buf, cap, "\"'\"");
    else if (*p >= 0x20 && *p < 0x7f)
        snprintf(buf, cap, "'%c'", *p);
    else
        snprintf(buf, cap, "byte 0x%02x", *p);
}

void chrome_error_syntax(chrome_reader *r, const char *detail)
{
    /* The offending token starts at the first non-blank after the last good token, past a
     * ',' if there is one. */
    const unsigned char *begin = r->chunk, *end = r->chunk ? r->chunk + r->chunk_len : NULL;
    uint64_t off = r->last_tok_end > r->chunk_base ? r->last_tok_end : r->chunk_base;
    const unsigned char *p = NULL;
    int comma = 0;
    if (begin) {
        p = begin + (off - r->chunk_base);
        while (p < end && chrome_is_ws(*p))
            p++;
        if (p < end && *p == ',' && r->last == 'v') {
            comma = 1;
            p++;
            while (p < end && chrome_is_ws(*p))
                p++;
        }
        off = r->chunk_base + (uint64_t)(p - begin);
    }

    char found[32];
    chrome_describe_byte(p, end, found, sizeof found);
    char what[200];
    /* Errors inside one token (a string or a number) have a precise cause of their own. */
    if (detail)
        snprintf(what, sizeof what, "%s", detail);
    else {
        chrome_expectation(r, comma, what, sizeof what);
        size_t n = strlen(what);
        snprintf(what + n, sizeof what - n, ", found %s", found);
    }
    if (chrome_in_record(r))
        tconv_error_at(r->ctx, r->input_name, off, "invalid JSON: %s (in the event at byte %llu)",
                       what, (unsigned long long)r->rec.offset);
    else
        tconv_error_at(r->ctx, r->input_name, off, "invalid JSON: %s", what);
    r->failed = 1;
}

void chrome_error_truncated(chrome_reader *r, uint64_t total)
{
    if (chrome_in_record(r))
        tconv_error_at(r->ctx, r->input_name, total,
                       "unexpected end of input inside the event at byte %llu: the trace was "
                       "cut off mid-event",
                       (unsigned long long)r->rec.offset);
    else if (r->depth && r->nest[r->depth - 1].kind == 'm' && r->last == 'k')
        tconv_error_at(r->ctx, r->input_name, total,
                       "unexpected end of input: expected a value for \"%s\"",
                       r->nest[r->depth - 1].key);
    else
        tconv_error_at(r->ctx, r->input_name, total,
                       "unexpected end of input: %zu JSON value(s) not closed", r->depth);
    r->failed = 1;
}
