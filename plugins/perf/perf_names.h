/* Frame naming rules of the flame-graph tools (stackcollapse-perf.pl and inferno): how a raw
 * `perf script` symbol becomes the name of a folded-stack frame. Each function works on a
 * caller-owned buffer so that the hot path allocates nothing. */
#ifndef PERF_NAMES_H
#define PERF_NAMES_H

#include <stddef.h>

/* Length of s without a trailing "+0x<hex>" symbol offset. */
size_t perf_names_strip_offset(const char *s, size_t n);

/* Rewrite a Rust symbol that perf left partially demangled ("Foo$LT$T$GT$::bar::h0123…") into
 * its readable form, writing at most cap bytes into out. Returns the new length, or 0 when the
 * symbol needs no fixing (out is then untouched). */
size_t perf_names_fix_rust(const char *s, size_t n, char *out, size_t cap);

/* In place: ';' becomes ':' and an argument list is cut off, except for Go method names
 * ("pkg.(*T).M"), C++ "(anonymous namespace)" and parentheses inside <>, {} or []. Returns the
 * new length. */
size_t perf_names_tidy_generic(char *s, size_t n);

/* In place: a Java signature "Lorg/foo/Bar;..." loses its leading 'L'. Returns the new length. */
size_t perf_names_tidy_java(char *s, size_t n);

/* A dso that is the kernel or a kernel module: "[kernel.kallsyms]", "[nf_conntrack]", "*.ko",
 * ".../vmlinux-5.4.14-…"; never "[unknown]". */
int perf_names_is_kernel(const char *dso, size_t n);

/* A dso of JIT-compiled code: a perf map "/tmp/perf-PID.map" or a jitdump "…/jitted-PID-N.so". */
int perf_names_is_jit(const char *dso, size_t n);

/* Name for an "[unknown]" symbol: "[<dso basename>]", or "[unknown]" when the dso is unknown too;
 * with addrs, the address is kept: "[<basename> <pc>]" / "[unknown <pc>]". Writes into out (at
 * most cap bytes) and returns the length. */
size_t perf_names_unknown(const char *dso, size_t dson, const char *pc, size_t pcn, int addrs,
                          char *out, size_t cap);

/* 1 if needle occurs in s[0..n). */
int perf_names_contains(const char *s, size_t n, const char *needle);

#endif
