/* A thread's frames. The processed format names a frame through its function (name, file,
 * resource, library); Gecko writes each frame as one location string, which the Firefox
 * Profiler itself takes apart on import:
 *   "0x7fff2a3b4c5d"                          an unsymbolicated native address
 *   "XRE_main (in libxul.so)"                 a native symbol and its library
 *   "onLoad (https://a.example/app.js:12:5)"  JavaScript: name, script, line, column
 *   "Startup::XRE_Main"                       a label frame
 * An address without a symbol becomes `lib+0xOFFSET`, the offset in the library (the processed
 * format's functions of unsymbolicated frames are named "0x<offset>" already); the library is
 * the frame's module either way. Frames in the Kernel category are flagged as kernel frames,
 * inlined ones (inlineDepth > 0) as inlined. */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "firefox_reader.h"

static int firefox_frames_is_hex(const char *s)
{
    if (s[0] != '0' || (s[1] != 'x' && s[1] != 'X') || !s[2]) return 0;
    for (s += 2; *s; s++)
        if (!((*s >= '0' && *s <= '9') || (*s >= 'a' && *s <= 'f') || (*s >= 'A' && *s <= 'F')))
            return 0;
    return 1;
}

static const char *firefox_frames_text(json_t *obj, const char *key)
{
    json_t *v = json_object_get(obj, key);
    return json_is_string(v) ? json_string_value(v) : NULL;
}

static uint32_t firefox_frames_flags(const firefox_thread *th, int64_t category)
{
    if (category < 0) return 0;
    const char *name =
        firefox_frames_text(json_array_get(th->categories, (size_t)category), "name");
    return name && strcmp(name, "Kernel") == 0 ? TCONV_FRAME_KERNEL : 0;
}

static tconv_str firefox_frames_cat(firefox_reader *r, const char *a, const char *b, size_t bn)
{
    char buf[1024];
    snprintf(buf, sizeof buf, "%s+%.*s", a, (int)bn, b);
    return tconv_string_intern_cstr(r->ctx, buf);
}

/* The processed format: frame -> function -> resource -> library. */
static int firefox_frames_processed(firefox_reader *r, const firefox_thread *th)
{
    firefox_table ft, fn, rs;
    firefox_table_open(firefox_thread_table(r, th, "frameTable"), &ft);
    firefox_table_open(firefox_thread_table(r, th, "funcTable"), &fn);
    firefox_table_open(firefox_thread_table(r, th, "resourceTable"), &rs);
    firefox_col f_func = firefox_table_col(&ft, "func"), f_addr = firefox_table_col(&ft, "address"),
                f_depth = firefox_table_col(&ft, "inlineDepth"),
                f_line = firefox_table_col(&ft, "line"), f_cat = firefox_table_col(&ft, "category");
    firefox_col u_name = firefox_table_col(&fn, "name"), u_res = firefox_table_col(&fn, "resource"),
                u_file = firefox_table_col(&fn, "fileName"),
                u_line = firefox_table_col(&fn, "lineNumber");
    firefox_col s_lib = firefox_table_col(&rs, "lib"), s_name = firefox_table_col(&rs, "name");
    /* a function's file as an index into a table of sources, where a version keeps one */
    firefox_table src;
    firefox_table_open(json_object_get(r->shared, "sources"), &src);
    firefox_col u_src = firefox_table_col(&fn, "source"),
                c_file = firefox_table_col(&src, "filename");
    for (size_t i = 0; i < ft.length; i++) {
        tconv_frame *fr = &r->frames[i];
        memset(fr, 0, sizeof *fr);
        int64_t func = firefox_cell_index(&f_func, i);
        if (func < 0 || (size_t)func >= fn.length) {
            tconv_error_set(r->ctx,
                            "%s: thread %zu: frame %zu names function %" PRId64
                            ", which the function table (%zu) does not have",
                            r->name, th->index, i, func, fn.length);
            return -1;
        }
        fr->name = firefox_string(r, th, firefox_cell_index(&u_name, (size_t)func));
        fr->file = firefox_string(r, th, firefox_cell_index(&u_file, (size_t)func));
        int64_t source = firefox_cell_index(&u_src, (size_t)func);
        if (!fr->file && source >= 0)
            fr->file = firefox_string(r, th, firefox_cell_index(&c_file, (size_t)source));
        double d;
        if (firefox_cell_number(&f_line, i, &d) || firefox_cell_number(&u_line, (size_t)func, &d))
            fr->line = d > 0 && d <= UINT32_MAX ? (uint32_t)d : 0;
        if (firefox_cell_number(&f_addr, i, &d) && d >= 0) fr->addr = (uint64_t)d;
        if (firefox_cell_number(&f_depth, i, &d) && d > 0) fr->flags |= TCONV_FRAME_INLINED;
        fr->flags |= firefox_frames_flags(th, firefox_cell_index(&f_cat, i));
        int64_t res = firefox_cell_index(&u_res, (size_t)func);
        if (res >= 0 && (size_t)res < rs.length) {
            int64_t lib = firefox_cell_index(&s_lib, (size_t)res);
            const char *libname =
                lib >= 0 ? firefox_frames_text(json_array_get(th->libs, (size_t)lib), "name")
                         : NULL;
            fr->module = libname ? tconv_string_intern_cstr(r->ctx, libname)
                                 : firefox_string(r, th, firefox_cell_index(&s_name, (size_t)res));
        }
        const char *name = tconv_string_get(r->ctx, fr->name);
        if (fr->module && firefox_frames_is_hex(name))
            fr->name =
                firefox_frames_cat(r, tconv_string_get(r->ctx, fr->module), name, strlen(name));
        if (!fr->name) fr->name = tconv_string_intern_cstr(r->ctx, "(unnamed)");
    }
    return 0;
}

/* The library of an absolute address, and the address's offset in it. */
static const char *firefox_frames_lib(const firefox_thread *th, uint64_t addr, uint64_t *off)
{
    for (size_t i = 0; i < json_array_size(th->libs); i++) {
        json_t *lib = json_array_get(th->libs, i);
        json_t *start = json_object_get(lib, "start"), *end = json_object_get(lib, "end");
        if (!json_is_number(start) || !json_is_number(end)) continue;
        double s = json_number_value(start), e = json_number_value(end);
        if ((double)addr >= s && (double)addr < e) {
            *off = addr - (uint64_t)s;
            return firefox_frames_text(lib, "name");
        }
    }
    return NULL;
}

/* One Gecko location string into fr. */
static void firefox_frames_location(firefox_reader *r, const firefox_thread *th, const char *loc,
                                    tconv_frame *fr)
{
    size_t n = strlen(loc);
    if (firefox_frames_is_hex(loc)) {
        uint64_t addr = strtoull(loc, NULL, 16), off = 0;
        const char *lib = firefox_frames_lib(th, addr, &off);
        fr->addr = addr;
        if (lib) {
            char hex[24];
            snprintf(hex, sizeof hex, "0x%" PRIx64, off);
            fr->module = tconv_string_intern_cstr(r->ctx, lib);
            fr->name = firefox_frames_cat(r, lib, hex, strlen(hex));
            return;
        }
        fr->name = tconv_string_intern(r->ctx, loc, n);
        return;
    }
    const char *open = n && loc[n - 1] == ')' ? strstr(loc, " (") : NULL;
    for (const char *p = open; p;) { /* the last " (": names may hold parentheses */
        open = p;
        p = strstr(p + 2, " (");
    }
    if (!open) {
        fr->name = tconv_string_intern(r->ctx, loc, n);
        return;
    }
    const char *in = open + 2, *close = loc + n - 1;
    fr->name = tconv_string_intern(r->ctx, loc, (size_t)(open - loc));
    if ((size_t)(close - in) > 3 && memcmp(in, "in ", 3) == 0) {
        fr->module = tconv_string_intern(r->ctx, in + 3, (size_t)(close - in - 3));
        return;
    }
    /* "url:line:col" or "url:line"; a chain of loaders ("a.js -> b.js:3") names its last */
    const char *arrow = in;
    for (const char *p; (p = strstr(arrow, " -> ")) && p < close;)
        arrow = p + 4;
    const char *end = close;
    unsigned long nums[2] = {0, 0};
    int k = 0;
    while (k < 2) {
        const char *c = end;
        while (c > arrow && c[-1] >= '0' && c[-1] <= '9')
            c--;
        if (c == end || c <= arrow || c[-1] != ':') break;
        nums[k++] = strtoul(c, NULL, 10);
        end = c - 1;
    }
    unsigned long line = k == 2 ? nums[1] : k == 1 ? nums[0] : 0;
    if (k) {
        fr->file = tconv_string_intern(r->ctx, arrow, (size_t)(end - arrow));
        fr->line = line <= UINT32_MAX ? (uint32_t)line : 0;
    } else {
        fr->file = tconv_string_intern(r->ctx, arrow, (size_t)(close - arrow));
    }
}

static int firefox_frames_gecko(firefox_reader *r, const firefox_thread *th)
{
    firefox_table ft;
    firefox_table_open(firefox_thread_table(r, th, "frameTable"), &ft);
    firefox_col loc = firefox_table_col(&ft, "location"), line = firefox_table_col(&ft, "line"),
                cat = firefox_table_col(&ft, "category");
    for (size_t i = 0; i < ft.length; i++) {
        tconv_frame *fr = &r->frames[i];
        memset(fr, 0, sizeof *fr);
        tconv_str s = firefox_string(r, th, firefox_cell_index(&loc, i));
        firefox_frames_location(r, th, tconv_string_get(r->ctx, s), fr);
        double d;
        if (firefox_cell_number(&line, i, &d) && d > 0 && d <= UINT32_MAX) fr->line = (uint32_t)d;
        fr->flags |= firefox_frames_flags(th, firefox_cell_index(&cat, i));
        if (!fr->name) fr->name = tconv_string_intern_cstr(r->ctx, "(unnamed)");
    }
    return 0;
}

int firefox_frames_build(firefox_reader *r, const firefox_thread *th)
{
    firefox_table ft;
    firefox_table_open(firefox_thread_table(r, th, "frameTable"), &ft);
    r->nframes = ft.length;
    TCONV_ARRAY_GROW(r->frames, r->frames_cap, ft.length ? ft.length : 1);
    return th->gecko ? firefox_frames_gecko(r, th) : firefox_frames_processed(r, th);
}
