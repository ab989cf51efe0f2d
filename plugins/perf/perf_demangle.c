/* The demangler is libstdc++'s __cxa_demangle, looked up at run time: the plugin stays plain C
 * with no link-time C++ dependency, and the library is on every system that has a compiler. */
#include "perf_demangle.h"
#include "perf_oom.h"

#include <dlfcn.h>
#include <pthread.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

typedef char *(*perf_demangle_fn)(const char *mangled, char *buf, size_t *n, int *status);

/* Looked up once per process (readers may run on several threads at once: pthread_once); the
 * library stays loaded, as the plugin may run again. */
static pthread_once_t perf_demangle_once = PTHREAD_ONCE_INIT;
static perf_demangle_fn perf_demangle_cxa;

static void perf_demangle_find(void)
{
    void *h = dlopen("libstdc++.so.6", RTLD_LAZY | RTLD_LOCAL);
    /* cast through an integer: ISO C has no conversion from void * to a function */
    if (h) perf_demangle_cxa = (perf_demangle_fn)(uintptr_t)dlsym(h, "__cxa_demangle");
}

static perf_demangle_fn perf_demangle_lookup(void)
{
    pthread_once(&perf_demangle_once, perf_demangle_find);
    return perf_demangle_cxa;
}

int perf_demangle_available(void)
{
    return perf_demangle_lookup() != NULL;
}

char *perf_demangle(const char *s, size_t n)
{
    if (n < 3 || s[0] != '_' || s[1] != 'Z') return NULL;
    perf_demangle_fn fn = perf_demangle_lookup();
    if (!fn) return NULL;
    char *z = malloc(n + 1);
    if (!z) perf_oom(n + 1);
    memcpy(z, s, n);
    z[n] = 0;
    int status = -1;
    char *out = fn(z, NULL, NULL, &status);
    free(z);
    if (status != 0) {
        free(out);
        return NULL;
    }
    return out;
}
