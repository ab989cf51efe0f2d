/* C++ (Itanium ABI) demangling for captures whose perf could not demangle ("_ZN3foo3barEv"). */
#ifndef PERF_DEMANGLE_H
#define PERF_DEMANGLE_H

#include <stddef.h>

/* 1 if demangling is available (libstdc++ found at run time). */
int perf_demangle_available(void);
/* The demangled form of s[0..n) as a malloc'd string, or NULL when s is not a mangled C++ name. */
char *perf_demangle(const char *s, size_t n);

#endif
