/* failalloc: an LD_PRELOAD shim that makes one allocation of a tconv run fail, so that a test can
 * sweep every allocation of a small conversion and check that each failure ends in a clean error.
 *
 *   FAILALLOC_N=N        fail the Nth malloc, calloc or realloc after the run starts (1-based);
 *                        0 or unset fails nothing
 *   FAILALLOC_REPORT=F   at exit, write to F how many allocations the run made after it started
 *
 * "The run starts" when tconv creates its output (the first mkstemp or mkdtemp): plugins are
 * loaded and options checked by then, and what fails before is the loader's business. Counting
 * from the process start would spend most of a sweep inside the dynamic loader.
 *
 * The real allocator is glibc's (__libc_malloc and friends), which needs no dlsym and so cannot
 * recurse. Not for sanitizer builds: ASan replaces malloc itself. */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

void *__libc_malloc(size_t n);
void *__libc_calloc(size_t n, size_t size);
void *__libc_realloc(void *p, size_t n);

static unsigned long failalloc_target; /* 0: never */
static unsigned long failalloc_count;
static int failalloc_armed;

__attribute__((constructor)) static void failalloc_init(void)
{
    const char *n = getenv("FAILALLOC_N");
    if (n) failalloc_target = strtoul(n, NULL, 10);
}

/* Written with write(2) only: this runs in exit handlers after a failed allocation. */
__attribute__((destructor)) static void failalloc_report(void)
{
    const char *path = getenv("FAILALLOC_REPORT");
    if (!path) return;
    int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
    if (fd < 0) return;
    char buf[32];
    int len = snprintf(buf, sizeof(buf), "%lu\n", failalloc_count);
    if (len > 0 && write(fd, buf, (size_t)len) < 0) {
        /* nothing to do: the sweep reads a missing count as an error */
    }
    close(fd);
}

/* Is this allocation the one to fail? */
static int failalloc_fail(void)
{
    if (!failalloc_armed) return 0;
    failalloc_count++;
    if (failalloc_target && failalloc_count == failalloc_target) {
        errno = ENOMEM;
        return 1;
    }
    return 0;
}

void *malloc(size_t n)
{
    return failalloc_fail() ? NULL : __libc_malloc(n);
}

void *calloc(size_t n, size_t size)
{
    return failalloc_fail() ? NULL : __libc_calloc(n, size);
}

void *realloc(void *p, size_t n)
{
    return failalloc_fail() ? NULL : __libc_realloc(p, n);
}

static void *failalloc_next(const char *name)
{
    return dlsym(RTLD_NEXT, name);
}

int mkstemp(char *tmpl)
{
    int (*real)(char *) = (int (*)(char *))failalloc_next("mkstemp");
    failalloc_armed = 1;
    return real(tmpl);
}

char *mkdtemp(char *tmpl)
{
    char *(*real)(char *) = (char *(*)(char *))failalloc_next("mkdtemp");
    failalloc_armed = 1;
    return real(tmpl);
}
