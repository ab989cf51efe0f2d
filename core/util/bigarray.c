/* Arrays of tens of MB that are appended to and read once (a -j recording's events). Grown with
 * realloc, such an array is copied at each step into pages never touched, and the page faults cost
 * more than the work that fills it. On Linux an array of a MB or more is a mapping of its own,
 * which mremap grows without a copy (the pages move), with transparent huge pages where the system
 * gives them on request (a fault per 2 MB). Faulting the pages in ahead (MADV_POPULATE_WRITE) was
 * tried: a third fewer page faults, no less CPU, and the spare capacity of every array in memory (a
 * -j 2 benchmark run at 126 MB, not 101). */
/* ThreadSanitizer does not follow mremap (pages it moves keep the shadow of their old address,
 * and the new address the stale shadow of whatever was there): under it, realloc. */
#if defined(__has_feature)
#if __has_feature(thread_sanitizer)
#define BIG_TSAN 1
#endif
#endif
#if defined(__linux__) && !defined(__SANITIZE_THREAD__) && !defined(BIG_TSAN)
#define BIG_MREMAP 1
#define _GNU_SOURCE /* mremap */
#include <sys/mman.h>
#include <unistd.h>
#endif
#include <stdint.h>
#include <string.h>

#include "util.h"

enum { BIG_MAP_MIN = 1u << 20 };

#ifdef BIG_MREMAP
static int big_mapped(size_t cap, size_t size)
{
    return cap * size >= BIG_MAP_MIN;
}

static size_t big_round(size_t cap, size_t size)
{
    size_t page = (size_t)sysconf(_SC_PAGESIZE);
    return (cap * size + page - 1) & ~(page - 1);
}
#endif

void tconv_big_grow(void **p, size_t *capp, size_t used, size_t need, size_t size)
{
    if (need <= *capp) return;
    size_t old = *capp, cap = old ? old : 16;
    if (need > SIZE_MAX / 2 / size) tconv_oom_fatal(SIZE_MAX);
    while (cap < need)
        cap = cap > SIZE_MAX / 4 / size ? need : cap + cap / 2 + 16;
#ifdef BIG_MREMAP
    if (big_mapped(cap, size)) {
        void *q;
        if (old && big_mapped(old, size)) {
            q = mremap(*p, big_round(old, size), big_round(cap, size), MREMAP_MAYMOVE);
        } else {
            q = mmap(NULL, big_round(cap, size), PROT_READ | PROT_WRITE,
                     MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
            if (q != MAP_FAILED && used) memcpy(q, *p, used * size);
            if (q != MAP_FAILED) free(*p);
        }
        if (q == MAP_FAILED) tconv_oom_fatal(cap * size);
#ifdef MADV_HUGEPAGE
        (void)madvise(q, big_round(cap, size), MADV_HUGEPAGE);
#endif
        *p = q;
        *capp = cap;
        return;
    }
#endif
    (void)used;
    *p = tconv_xrealloc(*p, cap * size);
    *capp = cap;
}

void tconv_big_free(void *p, size_t cap, size_t size)
{
#ifdef BIG_MREMAP
    if (p && big_mapped(cap, size)) {
        munmap(p, big_round(cap, size));
        return;
    }
#endif
    (void)cap;
    (void)size;
    free(p);
}
