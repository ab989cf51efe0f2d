/* Malformed records. jansson keeps no byte offsets for values, so a record is named by its
 * place in the document: allocator "GPU_0_bfc", memoryProfileSnapshots[3].timeOffsetPs. */
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "tfmem_reader.h"

static void tfmem_where_format(const tfmem_where *w, char *buf, size_t cap)
{
    int n = 0;
    if (w->allocator) n = snprintf(buf, cap, "allocator \"%s\"", w->allocator);
    if (w->list && n >= 0 && (size_t)n < cap)
        n += snprintf(buf + n, cap - (size_t)n, "%s%s[%zu]", n ? ", " : "", w->list, w->index);
    if (w->member && n >= 0 && (size_t)n < cap)
        n += snprintf(buf + n, cap - (size_t)n, "%s%s", n ? (w->list ? "." : ", ") : "", w->member);
    if (n == 0) snprintf(buf, cap, "the document");
}

tconv_status tfmem_bad(tfmem_reader *r, const char *kind, const tfmem_where *w, const char *fmt,
                       ...)
{
    char what[512], where[512];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(what, sizeof(what), fmt, ap);
    va_end(ap);
    tfmem_where_format(w, where, sizeof(where));
    if (r->strict) {
        char *then = strrchr(what, ';');
        if (then) *then = 0;
        tconv_error_set(r->ctx, "%s: %s: %s (an error with strict=true)", r->name, where, what);
        return TCONV_FATAL;
    }
    tconv_warning_add(r->ctx, kind, "%s: %s: %s", r->name, where, what);
    return TCONV_RECORD;
}
