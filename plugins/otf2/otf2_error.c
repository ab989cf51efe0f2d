/* OTF2 prints its errors to stderr unless a callback takes them. The callback keeps the last
 * report; a failing call then becomes the run's error with that report as its text, and reports
 * on calls that still succeeded become one counted warning. The callback is process-wide, so it
 * is installed for the writer's lifetime and the previous one is put back afterwards. */
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "otf2_reader.h"
#include "otf2_writer.h"

static OTF2_ErrorCallback otf2_error_previous;
static int otf2_error_installed;
static otf2_state *otf2_error_writer; /* the writer's state while its callback is installed */
static OTF2_ErrorCallback otf2_error_reader_previous;

static OTF2_ErrorCode otf2_error_callback(void *user, const char *file, uint64_t line,
                                          const char *function, OTF2_ErrorCode code,
                                          const char *fmt, va_list va)
{
    (void)file;
    (void)line;
    (void)function;
    otf2_state *st = user;
    vsnprintf(st->lib_msg, sizeof(st->lib_msg), fmt ? fmt : "", va);
    st->lib_code = code;
    st->lib_reports++;
    /* OTF2 reports a failed write where it happens (a file buffer flushed), but the call that
     * fails is often a later one (closing a writer) whose report is generic. */
    if (st->lib_cause_code == OTF2_SUCCESS && code >= OTF2_ERROR_E2BIG &&
        code <= OTF2_ERROR_EXDEV) {
        const char *msg = st->lib_msg;
        if (strncmp(msg, "POSIX: ", 7) == 0) msg += 7;
        snprintf(st->lib_cause, sizeof(st->lib_cause), "%s", msg);
        st->lib_cause_code = code;
    }
    return code;
}

void otf2_error_install(otf2_state *st)
{
    otf2_error_previous = OTF2_Error_RegisterCallback(otf2_error_callback, st);
    otf2_error_installed = 1;
    otf2_error_writer = st;
}

void otf2_error_uninstall(void)
{
    if (!otf2_error_installed) return;
    /* OTF2 does not hand back the previous callback's data; its default has none. */
    OTF2_Error_RegisterCallback(otf2_error_previous, NULL);
    otf2_error_installed = 0;
    otf2_error_writer = NULL;
}

/* The reader's reports: the last one is kept as the text of the error its call returns. An
 * otf2 writer of the same run (otf2 to otf2) gets its own callback back afterwards, with its
 * state, which OTF2 would not hand back. */
static OTF2_ErrorCode otf2_error_reader_callback(void *user, const char *file, uint64_t line,
                                                 const char *function, OTF2_ErrorCode code,
                                                 const char *fmt, va_list va)
{
    (void)file;
    (void)line;
    (void)function;
    otf2r *r = user;
    vsnprintf(r->lib_msg, sizeof(r->lib_msg), fmt ? fmt : "", va);
    r->lib_error = 1;
    r->lib_code = code;
    return code;
}

/* libotf2 sizes the arrays of a record (a group's members, a mapping table) by the count the
 * record states, before it reads them: a damaged count of four billion asks for 32 GB, and the
 * failure reads as if the machine were short of memory. Its failed allocations say
 * OTF2_ERROR_MEM_FAULT (a group's members) or OTF2_ERROR_MEM_ALLOC_FAILED. */
static int otf2_error_is_alloc(OTF2_ErrorCode code)
{
    return code == OTF2_ERROR_MEM_FAULT || code == OTF2_ERROR_MEM_ALLOC_FAILED;
}

void otf2_error_reader_hint(otf2r *r, OTF2_ErrorCode code)
{
    if (otf2_error_is_alloc(code) || (r->lib_error && otf2_error_is_alloc(r->lib_code)))
        tconv_error_hint(r->ctx, "libotf2 sizes its arrays by the counts in the archive: a count "
                                 "far larger than its file is damage, not a lack of memory");
}

void otf2_error_reader_install(otf2r *r)
{
    otf2_error_reader_previous = OTF2_Error_RegisterCallback(otf2_error_reader_callback, r);
}

void otf2_error_reader_uninstall(void)
{
    if (otf2_error_writer)
        OTF2_Error_RegisterCallback(otf2_error_callback, otf2_error_writer);
    else
        OTF2_Error_RegisterCallback(otf2_error_reader_previous, NULL);
}

tconv_status otf2_error_fail(otf2_state *st, const char *what, OTF2_ErrorCode code)
{
    if (st->lib_cause_code != OTF2_SUCCESS) {
        tconv_error_set(st->ctx, "otf2: %s failed: %s (first failure: %s)", what,
                        OTF2_Error_GetDescription(st->lib_cause_code), st->lib_cause);
        st->lib_cause_code = OTF2_SUCCESS;
        st->lib_reports = 0;
    } else if (st->lib_reports) {
        tconv_error_set(st->ctx, "otf2: %s failed: %s: %s", what, OTF2_Error_GetName(st->lib_code),
                        st->lib_msg);
        st->lib_reports = 0;
    } else {
        tconv_error_set(st->ctx, "otf2: %s failed: %s (%s)", what, OTF2_Error_GetName(code),
                        OTF2_Error_GetDescription(code));
    }
    return TCONV_FATAL;
}

tconv_status otf2_error_flush_warnings(otf2_state *st)
{
    /* A write that failed (EFBIG past the file size limit, ENOSPC) may have been reported by
     * a call that still returned success: the archive lacks data, so the run fails. */
    if (st->lib_cause_code != OTF2_SUCCESS)
        return otf2_error_fail(st, "writing the archive", st->lib_cause_code);
    if (!st->lib_reports) return TCONV_OK;
    tconv_warning_add(st->ctx, "otf2.library", "the OTF2 library reported: %s: %s",
                      OTF2_Error_GetName(st->lib_code), st->lib_msg);
    st->lib_reports = 0;
    return TCONV_OK;
}
