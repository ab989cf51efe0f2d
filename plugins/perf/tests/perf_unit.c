/* Unit tests of the perf reader's naming rules and line grammar. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

#include "perf_line.h"
#include "perf_names.h"

static void perf_unit_tidy_one(const char *in, const char *want)
{
    char buf[256];
    size_t n = strlen(in);
    memcpy(buf, in, n);
    n = perf_names_tidy_generic(buf, n);
    buf[n] = 0;
    assert_string_equal(buf, want);
}

/* The cases inferno's own tests list for its tidy_generic. */
static void perf_unit_tidy_generic(void **state)
{
    (void)state;
    perf_unit_tidy_one("go/build.(*importReader).readByte", "go/build.(*importReader).readByte");
    perf_unit_tidy_one("foo<Vec::<usize>>(Vec<usize>)", "foo<Vec::<usize>>");
    perf_unit_tidy_one(".run()V", ".run");
    perf_unit_tidy_one("base(BasicType) const", "base");
    perf_unit_tidy_one("std::function<void (int, int)>::operator(int, int)",
                       "std::function<void (int, int)>::operator");
    perf_unit_tidy_one("{lambda(int, int)#2}::operator()", "{lambda(int, int)#2}::operator");
    perf_unit_tidy_one("(anonymous namespace)::myBar()", "(anonymous namespace)::myBar");
    perf_unit_tidy_one("[(foo)]::bar()", "[(foo)]::bar");
    perf_unit_tidy_one("a;b;c", "a:b:c");
}

static void perf_unit_tidy_java(void **state)
{
    (void)state;
    char a[] = "Lorg/mozilla/javascript/ContextFactory:.call";
    size_t n = perf_names_tidy_java(a, strlen(a));
    a[n] = 0;
    assert_string_equal(a, "org/mozilla/javascript/ContextFactory:.call");
    char b[] = "Lnoslash";
    assert_int_equal(perf_names_tidy_java(b, strlen(b)), strlen(b));
}

static void perf_unit_strip_offset(void **state)
{
    (void)state;
    const char *s = "main+0x1f";
    assert_int_equal(perf_names_strip_offset(s, strlen(s)), 4);
    s = "cpu_startup_entry+0x800047c022ec";
    assert_int_equal(perf_names_strip_offset(s, strlen(s)), 17);
    s = "foo+0x";
    assert_int_equal(perf_names_strip_offset(s, strlen(s)), 3);
    s = "foo+0xzz";
    assert_int_equal(perf_names_strip_offset(s, strlen(s)), strlen(s));
    s = "plain";
    assert_int_equal(perf_names_strip_offset(s, strlen(s)), 5);
}

static void perf_unit_rust_one(const char *in, const char *want)
{
    char out[512];
    size_t n = perf_names_fix_rust(in, strlen(in), out, sizeof(out));
    if (!want) {
        assert_int_equal(n, 0);
        return;
    }
    out[n] = 0;
    assert_string_equal(out, want);
}

static void perf_unit_fix_rust(void **state)
{
    (void)state;
    perf_unit_rust_one("std::sys::unix::fs::File::open::hb90e1c1c787080f0",
                       "std::sys::unix::fs::File::open");
    perf_unit_rust_one("_$LT$std..fs..ReadDir$u20$as$u20$core..iter..traits..iterator..Iterator$GT$"
                       "::next::hc14f1750ca79129b",
                       "<std::fs::ReadDir as core::iter::traits::iterator::Iterator>::next");
    perf_unit_rust_one("rg::search_parallel::_$u7b$$u7b$closure$u7d$$u7d$::_$u7b$$u7b$closure$u7d$"
                       "$u7d$::h6e849b55a66fcd85",
                       "rg::search_parallel::_{{closure}}::_{{closure}}");
    perf_unit_rust_one("std::sync::mpsc::shared::Packet$LT$T$GT$::recv::hfde2d9e28d13fd56",
                       "std::sync::mpsc::shared::Packet<T>::recv");
    /* fully mangled or already demangled symbols are left alone */
    perf_unit_rust_one("_ZN3std2rt19lang_start_internal17h540c897fe52ba9c5E", NULL);
    perf_unit_rust_one("<F as alloc::boxed::FnBox<A>>::call_box", NULL);
}

static void perf_unit_kernel_jit(void **state)
{
    (void)state;
#define K(s) perf_names_is_kernel(s, strlen(s))
#define J(s) perf_names_is_jit(s, strlen(s))
    assert_true(K("[kernel.kallsyms]"));
    assert_true(K("[nf_conntrack_ipv4]"));
    assert_true(K("/lib/modules/4.1.0-virtual/build/vmlinux"));
    assert_true(K("/usr/lib/debug/boot/vmlinux-5.4.14-cloudflare-2020.1.11"));
    assert_true(K("module.ko"));
    assert_false(K("[unknown]"));
    assert_false(K("vmlinux-5.4.14-cloudflare-2020.1.11)"));
    assert_false(K("/usr/lib/libc.so"));
    assert_true(J("/tmp/perf-1234.map"));
    assert_true(J("/home/u/.debug/jit/llvm-IR-jit-x/jitted-31714-7.so"));
    assert_false(J("/tmp/perf-1234.mapx"));
    assert_false(J("/usr/lib/libjitted.so"));
#undef K
#undef J
}

static void perf_unit_unknown(void **state)
{
    (void)state;
    char out[128];
    size_t n = perf_names_unknown("/bin/dd", 7, "31ef", 4, 0, out, sizeof(out));
    assert_int_equal(n, 4);
    assert_memory_equal(out, "[dd]", 4);
    n = perf_names_unknown("/bin/dd", 7, "31ef", 4, 1, out, sizeof(out));
    out[n] = 0;
    assert_string_equal(out, "[dd <31ef>]");
    n = perf_names_unknown("[unknown]", 9, "0", 1, 0, out, sizeof(out));
    out[n] = 0;
    assert_string_equal(out, "[unknown]");
    n = perf_names_unknown("[unknown]", 9, "7f00", 4, 1, out, sizeof(out));
    out[n] = 0;
    assert_string_equal(out, "[unknown <7f00>]");
}

static int perf_unit_span_is(perf_span s, const char *want)
{
    return s.n == strlen(want) && memcmp(s.p, want, s.n) == 0;
}

static void perf_unit_header_forms(void **state)
{
    (void)state;
    perf_header h;
    const char *l = "java 12688 [002] 6544038.708352: 10309278 cpu-clock:";
    assert_true(perf_line_header(l, strlen(l), &h));
    assert_true(perf_unit_span_is(h.comm, "java"));
    assert_int_equal(h.pid.n, 0);
    assert_true(perf_unit_span_is(h.tid, "12688"));
    assert_true(h.has_cpu);
    assert_int_equal(h.cpu, 2);
    assert_true(h.has_time);
    assert_int_equal(h.time_ns, 6544038708352000LL);
    assert_true(h.has_period);
    assert_int_equal(h.period, 10309278);
    assert_true(perf_unit_span_is(h.event, "cpu-clock"));
    assert_int_equal(h.rest.n, 0);

    l = "V8 WorkerThread 24636/25607 [000] 94564.109216123: cycles:uppp: ";
    assert_true(perf_line_header(l, strlen(l), &h));
    assert_true(perf_unit_span_is(h.comm, "V8 WorkerThread"));
    assert_true(perf_unit_span_is(h.pid, "24636"));
    assert_true(perf_unit_span_is(h.tid, "25607"));
    assert_int_equal(h.time_ns, 94564109216123LL);
    assert_false(h.has_period);
    assert_true(perf_unit_span_is(h.event, "cycles:uppp"));

    /* a comm with a number in it: the thread id is the word before cpu/time */
    l = "Thread 2  4242 1.000001: 1 cycles:";
    assert_true(perf_line_header(l, strlen(l), &h));
    assert_true(perf_unit_span_is(h.comm, "Thread 2"));
    assert_true(perf_unit_span_is(h.tid, "4242"));

    /* no time, no cpu: the first number after the comm */
    l = "func_ab 15294 cpu-clock:";
    assert_true(perf_line_header(l, strlen(l), &h));
    assert_true(perf_unit_span_is(h.tid, "15294"));
    assert_false(h.has_time);
    assert_true(perf_unit_span_is(h.event, "cpu-clock"));

    /* the frame of a sample without call chain */
    l = "           false 39654 19115.489713:          1 cycles:u:  ffffffff9b201293 [unknown] "
        "([unknown])";
    assert_true(perf_line_header(l, strlen(l), &h));
    assert_true(perf_unit_span_is(h.comm, "false"));
    assert_true(perf_unit_span_is(h.event, "cycles:u"));
    assert_true(perf_unit_span_is(h.rest, "ffffffff9b201293 [unknown] ([unknown])"));

    /* a tracepoint and its payload */
    l = "sleep 100 [001] 5.000000: sched:sched_switch: prev_comm=sleep prev_pid=100";
    assert_true(perf_line_header(l, strlen(l), &h));
    assert_true(perf_unit_span_is(h.event, "sched:sched_switch"));
    assert_true(perf_unit_span_is(h.rest, "prev_comm=sleep prev_pid=100"));

    /* frames are not headers */
    l = "\t          401b94 main+0x1c (./tests/data/inline-counter/inline-counter)";
    assert_false(perf_line_header(l, strlen(l), &h));
    l = "\t               0 [unknown] ([unknown])";
    assert_false(perf_line_header(l, strlen(l), &h));
}

static void perf_unit_frame_forms(void **state)
{
    (void)state;
    perf_frame_line f;
    const char *l = "\t    7f533952bc77 _dl_check_map_versions+0x597 (/usr/lib/ld-2.28.so)";
    assert_true(perf_line_frame(l, strlen(l), &f));
    assert_true(perf_unit_span_is(f.pc, "7f533952bc77"));
    assert_int_equal(f.addr, 0x7f533952bc77ULL);
    assert_true(perf_unit_span_is(f.sym, "_dl_check_map_versions+0x597"));
    assert_true(perf_unit_span_is(f.dso, "/usr/lib/ld-2.28.so"));

    l = "\t    7f1e2215d058  (/lib/x86_64-linux-gnu/libc-2.15.so)";
    assert_true(perf_line_frame(l, strlen(l), &f));
    assert_int_equal(f.sym.n, 0);
    assert_true(f.has_dso);

    l = "\t    7f00 foo (/usr/lib/libfoo.so (deleted))";
    assert_true(perf_line_frame(l, strlen(l), &f));
    assert_true(perf_unit_span_is(f.sym, "foo"));
    assert_true(perf_unit_span_is(f.dso, "/usr/lib/libfoo.so (deleted)"));

    l = "\t    7f00 bar (/usr/lib/libbar.so+0x1f00)";
    assert_true(perf_line_frame(l, strlen(l), &f));
    assert_true(perf_unit_span_is(f.dso, "/usr/lib/libbar.so"));

    l = "\t    7f443cc70127 _dl_start_final (inlined)";
    assert_true(perf_line_frame(l, strlen(l), &f));
    assert_true(perf_unit_span_is(f.dso, "inlined"));

    /* -F ip,sym: no dso */
    l = "\t    4005d6 main";
    assert_true(perf_line_frame(l, strlen(l), &f));
    assert_false(f.has_dso);
    assert_true(perf_unit_span_is(f.sym, "main"));

    /* damaged: cut inside the dso */
    l = "\t    7fa4c73bc184 start_thread (/lib/x86_64-linux-gnu";
    assert_false(perf_line_frame(l, strlen(l), &f));
    l = "\t          THIS_IS_A_WEIRD_LINE";
    assert_false(perf_line_frame(l, strlen(l), &f));
}

static void perf_unit_srcline(void **state)
{
    (void)state;
    perf_span file;
    uint32_t line;
    const char *l = "  /src/app/main.c:42";
    assert_true(perf_line_srcline(l, strlen(l), &file, &line));
    assert_true(perf_unit_span_is(file, "/src/app/main.c"));
    assert_int_equal(line, 42);
    l = "  util.h:7 (discriminator 3)";
    assert_true(perf_line_srcline(l, strlen(l), &file, &line));
    assert_true(perf_unit_span_is(file, "util.h"));
    assert_int_equal(line, 7);
    l = "  no line number";
    assert_false(perf_line_srcline(l, strlen(l), &file, &line));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(perf_unit_tidy_generic), cmocka_unit_test(perf_unit_tidy_java),
        cmocka_unit_test(perf_unit_strip_offset), cmocka_unit_test(perf_unit_fix_rust),
        cmocka_unit_test(perf_unit_kernel_jit),   cmocka_unit_test(perf_unit_unknown),
        cmocka_unit_test(perf_unit_header_forms), cmocka_unit_test(perf_unit_frame_forms),
        cmocka_unit_test(perf_unit_srcline),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
