/* The demangler is libstdc++'s __cxa_demangle, looked up at run time: the plugin stays plain C
 * with no link-time C++ dependency, and the library is on every system that has a compiler. */
#include "perf_demangle.h"
#include "perf_oom.h"

#include <dlfcn.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

typedef char *(*perf_demangle_fn)(const char *mangled, char *buf, size_t *n, int *status);

/* Looked up once per process; the library stays loaded, as the plugin may run again. */
static int perf_demangle_looked;
static perf_demangle_fn perf_demangle_cxa;

static perf_demangle_fn perf_demangle_lookup(void)
{
    if (!perf_demangle_looked) {
        perf_demangle_looked = 1;
        void *h = dlopen("libstdc++.so.6", RTLD_LAZY | RTLD_LOCAL);
        if (h) {
            /* cast through an integer: ISO C has no conversion from void * to a function */
            perf_demangle_cxa = (perf_demangle_fn)(uintptr_t)dlsym(h, "__cxa_demangle");
        }
    }
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
