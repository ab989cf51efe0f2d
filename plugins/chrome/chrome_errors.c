/* Messages for invalid JSON: the lexer's, in a trace's words ("the start of a trace"), with the
 * event they stopped in. */
#include <stdio.h>
#include <string.h>

#include "chrome_reader.h"

static int chrome_in_record(const chrome_reader *r)
{
    for (size_t i = 0; i < r->nlv; i++)
        if (r->lv[i] == CHROME_LV_RECORD) return 1;
    return 0;
}

void chrome_error_json(chrome_reader *r, const tconv_json_error *e)
{
    r->failed = 1;
    switch (e->code) {
    case TCONV_JSON_ERR_NOMEM:
        tconv_error_set(r->ctx, "chrome: out of memory");
        return;
    case TCONV_JSON_ERR_STOPPED: /* a handler put its message on the context */
        return;
    case TCONV_JSON_ERR_TRUNCATED:
    case TCONV_JSON_ERR_EMPTY:
        if (chrome_in_record(r))
            tconv_error_at(r->ctx, r->input_name, e->offset,
                           "unexpected end of input inside the event at byte %llu: the trace was "
                           "cut off mid-event",
                           (unsigned long long)r->rec.offset);
        else
            tconv_error_at(r->ctx, r->input_name, e->offset, "%s", e->message);
        return;
    default:
        break;
    }
    char what[300];
    if (e->code == TCONV_JSON_ERR_TRAILING)
        snprintf(what, sizeof what, "expected the end of input after the trace, found %s",
                 e->found);
    else if (e->code == TCONV_JSON_ERR_UNEXPECTED && !e->depth)
        snprintf(what, sizeof what, "expected '[' or '{' at the start of a trace, found %s",
                 e->found);
    else
        snprintf(what, sizeof what, "%s", e->message);
    if (chrome_in_record(r))
        tconv_error_at(r->ctx, r->input_name, e->offset,
                       "invalid JSON: %s (in the event at byte %llu)", what,
                       (unsigned long long)r->rec.offset);
    else
        tconv_error_at(r->ctx, r->input_name, e->offset, "invalid JSON: %s", what);
}
