/* Profile-level tests: convert small hand-written inputs with the tconv CLI, decode the output
 * with protobuf-c, and check the invariants and the exact samples.
 * Usage: pprof_profile_test TCONV PLUGIN_DIR DATA_DIR TMP_DIR */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cmocka.h>

#include "pprof_decode.h"

static const char *pprof_test_tconv_bin, *pprof_test_plugin_dir, *pprof_test_data_dir,
    *pprof_test_tmp_dir;

/* Run tconv -w pprof on data files (NULL-terminated) with extra -W options; returns its exit
 * status. */
static int pprof_test_run_tconv_inputs(const char *const *inputs, const char *out,
                                       const char *const *wopts)
{
    char in_paths[4][4096], out_path[4096];
    snprintf(out_path, sizeof out_path, "%s/%s", pprof_test_tmp_dir, out);
    const char *argv[64];
    int n = 0;
    argv[n++] = pprof_test_tconv_bin;
    argv[n++] = "-q";
    argv[n++] = "--force";
    argv[n++] = "-w";
    argv[n++] = "pprof";
    for (; wopts && *wopts; wopts++) {
        argv[n++] = "-W";
        argv[n++] = *wopts;
    }
    argv[n++] = "-o";
    argv[n++] = out_path;
    for (int i = 0; inputs[i] && i < 4; i++) {
        snprintf(in_paths[i], sizeof in_paths[i], "%s/%s", pprof_test_data_dir, inputs[i]);
        argv[n++] = in_paths[i];
    }
    argv[n] = NULL;
    pid_t pid = fork();
    if (pid == 0) {
        setenv("TCONV_PLUGIN_PATH", pprof_test_plugin_dir, 1);
        execv(pprof_test_tconv_bin, (char *const *)argv);
        _exit(127);
    }
    int status = 0;
    waitpid(pid, &status, 0);
    return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

static int pprof_test_run_tconv(const char *input, const char *out, const char *const *wopts)
{
    const char *inputs[] = {input, NULL};
    return pprof_test_run_tconv_inputs(inputs, out, wopts);
}

static Perftools__Profiles__Profile *
pprof_test_convert_inputs(const char *const *inputs, const char *out, const char *const *wopts)
{
    assert_int_equal(pprof_test_run_tconv_inputs(inputs, out, wopts), 0);
    char path[4096], err[512];
    snprintf(path, sizeof path, "%s/%s", pprof_test_tmp_dir, out);
    Perftools__Profiles__Profile *p = pprof_decode_file(path, err, sizeof err);
    if (!p) fail_msg("%s", err);
    if (pprof_decode_check(p, err, sizeof err) != 0) fail_msg("%s: %s", path, err);
    return p;
}

static const char *pprof_test_str(const Perftools__Profiles__Profile *p, int64_t i)
{
    return pprof_decode_string(p, i);
}

static Perftools__Profiles__Profile *pprof_test_convert(const char *input, const char *out,
                                                        const char *const *wopts)
{
    const char *inputs[] = {input, NULL};
    return pprof_test_convert_inputs(inputs, out, wopts);
}

/* "root;...;leaf" of a sample, by function name. */
static void pprof_test_stack_text(const Perftools__Profiles__Profile *p,
                                  const Perftools__Profiles__Sample *s, char *buf, size_t cap)
{
    buf[0] = '\0';
    for (size_t j = s->n_location_id; j-- > 0;) {
        const Perftools__Profiles__Location *l = pprof_decode_location(p, s->location_id[j]);
        const Perftools__Profiles__Function *f = pprof_decode_function(p, l->line[0]->function_id);
        size_t len = strlen(buf);
        snprintf(buf + len, cap - len, "%s%s", len ? ";" : "", pprof_test_str(p, f->name));
    }
}

/* "key=value ..." of a sample's labels, in the file's order. */
static void pprof_test_label_text(const Perftools__Profiles__Profile *p,
                                  const Perftools__Profiles__Sample *s, char *buf, size_t cap)
{
    buf[0] = '\0';
    for (size_t j = 0; j < s->n_label; j++) {
        const Perftools__Profiles__Label *l = s->label[j];
        size_t len = strlen(buf);
        if (l->str)
            snprintf(buf + len, cap - len, "%s%s=%s", len ? " " : "", pprof_test_str(p, l->key),
                     pprof_test_str(p, l->str));
        else
            snprintf(buf + len, cap - len, "%s%s=%lld", len ? " " : "", pprof_test_str(p, l->key),
                     (long long)l->num);
    }
}

/* One line per sample: "values | labels | stack". */
static void pprof_test_expect_samples(const Perftools__Profiles__Profile *p,
                                      const char *const *want)
{
    size_t n = 0;
    while (want[n])
        n++;
    if (p->n_sample != n) {
        for (size_t i = 0; i < p->n_sample; i++) {
            char st[1024], lb[1024];
            pprof_test_stack_text(p, p->sample[i], st, sizeof st);
            pprof_test_label_text(p, p->sample[i], lb, sizeof lb);
            print_message("sample %zu: %s | %s\n", i, lb, st);
        }
        fail_msg("%zu samples, expected %zu", p->n_sample, n);
    }
    for (size_t i = 0; i < n; i++) {
        const Perftools__Profiles__Sample *s = p->sample[i];
        char line[4096], st[1024], lb[1024];
        pprof_test_stack_text(p, s, st, sizeof st);
        pprof_test_label_text(p, s, lb, sizeof lb);
        size_t len = 0;
        line[0] = '\0';
        for (size_t v = 0; v < s->n_value; v++)
            len += (size_t)snprintf(line + len, sizeof line - len, "%s%lld", v ? "," : "",
                                    (long long)s->value[v]);
        snprintf(line + len, sizeof line - len, " | %s | %s", lb, st);
        assert_string_equal(line, want[i]);
    }
}

static int64_t pprof_test_total(const Perftools__Profiles__Profile *p, size_t v)
{
    int64_t t = 0;
    for (size_t i = 0; i < p->n_sample; i++)
        t += p->sample[i]->value[v];
    return t;
}

static void pprof_test_expect_types(const Perftools__Profiles__Profile *p, const char *want,
                                    const char *def)
{
    char buf[512] = "";
    for (size_t i = 0; i < p->n_sample_type; i++) {
        size_t len = strlen(buf);
        snprintf(buf + len, sizeof buf - len, "%s%s/%s", i ? "," : "",
                 pprof_test_str(p, p->sample_type[i]->type),
                 pprof_test_str(p, p->sample_type[i]->unit));
    }
    assert_string_equal(buf, want);
    assert_string_equal(pprof_test_str(p, p->default_sample_type), def);
}

static const Perftools__Profiles__Function *
pprof_test_function_named(const Perftools__Profiles__Profile *p, const char *name)
{
    const Perftools__Profiles__Function *found = NULL;
    for (size_t i = 0; i < p->n_function; i++) {
        if (strcmp(pprof_test_str(p, p->function[i]->name), name) == 0) {
            assert_null(found);
            found = p->function[i];
        }
    }
    assert_non_null(found);
    return found;
}

static void pprof_test_spans_self_time_per_thread(void **state)
{
    (void)state;
    Perftools__Profiles__Profile *p = pprof_test_convert("two_processes.pptest", "two.pb.gz", NULL);
    pprof_test_expect_types(p, "samples/count,wall/nanoseconds", "wall");
    static const char *const want[] = {
        "2,500 | pid=1 tid=7 thread=main process=proc one | outer;inner",
        "1,500 | pid=1 tid=7 thread=main process=proc one | outer",
        "1,100 | pid=2 tid=7 thread=worker process=proc two | outer;leaf",
        "2,550 | pid=2 tid=7 thread=worker process=proc two | outer",
        NULL,
    };
    pprof_test_expect_samples(p, want);
    /* Busy time: 1000 on the first thread, 600 + 50 on the second. */
    assert_int_equal(pprof_test_total(p, 1), 1650);
    assert_int_equal(pprof_test_total(p, 0), 6);
    /* Times of a few µs since an unknown zero: no date (pprof would say 1970). */
    assert_int_equal(p->time_nanos, 0);
    assert_int_equal(p->duration_nanos, 2050);
    /* One mapping, naming the input for pprof's "File:", that no location refers to. */
    assert_int_equal(p->n_mapping, 1);
    assert_string_equal(pprof_test_str(p, p->mapping[0]->filename), "two_processes.pptest");
    assert_true(p->mapping[0]->has_functions);
    for (size_t i = 0; i < p->n_location; i++)
        assert_int_equal(p->location[i]->mapping_id, 0);
    /* One function and one location per distinct frame. */
    assert_int_equal(p->n_function, 3);
    assert_int_equal(p->n_location, 3);
    assert_string_equal(pprof_test_str(p, pprof_test_function_named(p, "inner")->filename),
                        "cpu_op");
    perftools__profiles__profile__free_unpacked(p, NULL);
}

static void pprof_test_labels_none_merges_threads(void **state)
{
    (void)state;
    static const char *const opts[] = {"labels=none", NULL};
    Perftools__Profiles__Profile *p =
        pprof_test_convert("two_processes.pptest", "none.pb.gz", opts);
    static const char *const want[] = {
        "2,500 |  | outer;inner",
        "3,1050 |  | outer",
        "1,100 |  | outer;leaf",
        NULL,
    };
    pprof_test_expect_samples(p, want);
    perftools__profiles__profile__free_unpacked(p, NULL);
}

static void pprof_test_labels_pid_merges_threads_of_a_process(void **state)
{
    (void)state;
    static const char *const opts[] = {"labels=pid", NULL};
    Perftools__Profiles__Profile *p = pprof_test_convert("two_processes.pptest", "pid.pb.gz", opts);
    static const char *const want[] = {
        "2,500 | pid=1 process=proc one | outer;inner",
        "1,500 | pid=1 process=proc one | outer",
        "1,100 | pid=2 process=proc two | outer;leaf",
        "2,550 | pid=2 process=proc two | outer",
        NULL,
    };
    pprof_test_expect_samples(p, want);
    perftools__profiles__profile__free_unpacked(p, NULL);
}

static void pprof_test_gpu_stream_root_and_python_frames(void **state)
{
    (void)state;
    Perftools__Profiles__Profile *p = pprof_test_convert("gpu_python.pptest", "gpu.pb.gz", NULL);
    static const char *const want[] = {
        "2,500 | pid=0 tid=7 thread=stream 7 device=0 | 0/stream 7;gemm_kernel",
        "1,100 | pid=0 tid=7 thread=stream 7 device=0 | 0/stream 7;Memcpy HtoD",
        "1,300 | pid=1 tid=9 thread=main | forward;aten::mm",
        "1,700 | pid=1 tid=9 thread=main | forward",
        NULL,
    };
    pprof_test_expect_samples(p, want);
    const Perftools__Profiles__Function *fwd = pprof_test_function_named(p, "forward");
    assert_string_equal(pprof_test_str(p, fwd->filename), "models/net.py");
    assert_string_equal(pprof_test_str(p, fwd->system_name), "models/net.py(42): forward");
    assert_int_equal(fwd->start_line, 42);
    const Perftools__Profiles__Sample *s = p->sample[3];
    const Perftools__Profiles__Location *l = pprof_decode_location(p, s->location_id[0]);
    assert_int_equal(l->line[0]->function_id, fwd->id);
    assert_int_equal(l->line[0]->line, 42);
    /* The stream's root frame is a function of its own, with no category. */
    const Perftools__Profiles__Function *root = pprof_test_function_named(p, "0/stream 7");
    assert_int_equal(root->filename, 0);
    perftools__profiles__profile__free_unpacked(p, NULL);
}

static void pprof_test_root_and_category_modes(void **state)
{
    (void)state;
    static const char *const opts[] = {"root=none", "category=system", NULL};
    Perftools__Profiles__Profile *p = pprof_test_convert("gpu_python.pptest", "modes.pb.gz", opts);
    static const char *const want[] = {
        "2,500 | pid=0 tid=7 thread=stream 7 device=0 | gemm_kernel",
        "1,100 | pid=0 tid=7 thread=stream 7 device=0 | Memcpy HtoD",
        "1,300 | pid=1 tid=9 thread=main | forward;aten::mm",
        "1,700 | pid=1 tid=9 thread=main | forward",
        NULL,
    };
    pprof_test_expect_samples(p, want);
    const Perftools__Profiles__Function *mm = pprof_test_function_named(p, "aten::mm");
    assert_string_equal(pprof_test_str(p, mm->system_name), "cpu_op");
    assert_int_equal(mm->filename, 0);
    /* A Python frame keeps its real file whatever the mode. */
    assert_string_equal(pprof_test_str(p, pprof_test_function_named(p, "forward")->filename),
                        "models/net.py");
    perftools__profiles__profile__free_unpacked(p, NULL);

    static const char *const all[] = {"root=all", NULL};
    p = pprof_test_convert("gpu_python.pptest", "rootall.pb.gz", all);
    static const char *const want_all[] = {
        "2,500 | pid=0 tid=7 thread=stream 7 device=0 | 0/stream 7;gemm_kernel",
        "1,100 | pid=0 tid=7 thread=stream 7 device=0 | 0/stream 7;Memcpy HtoD",
        "1,300 | pid=1 tid=9 thread=main | main;forward;aten::mm",
        "1,700 | pid=1 tid=9 thread=main | main;forward",
        NULL,
    };
    pprof_test_expect_samples(p, want_all);
    perftools__profiles__profile__free_unpacked(p, NULL);
}

/* Steps are one frame and a step label (the core's steps stage), on CPU threads and GPU streams
 * alike; -W steps=keep keeps a frame per step and the label. A Kineto thread name is labelled
 * by the name inside it, the tid being its own label; the period type is the default type's. */
static void pprof_test_steps_are_a_label(void **state)
{
    (void)state;
    Perftools__Profiles__Profile *p = pprof_test_convert("steps.pptest", "steps.pb.gz", NULL);
    static const char *const want[] = {
        "1,300 | pid=1 tid=7 thread=python process=trainer step=5 | ProfilerStep;aten::mm",
        "1,700 | pid=1 tid=7 thread=python process=trainer step=5 | ProfilerStep",
        "1,500 | pid=1 tid=7 thread=python process=trainer step=6 | ProfilerStep;aten::mm",
        "1,300 | pid=1 tid=7 thread=python process=trainer step=6 | ProfilerStep",
        "1,200 | pid=0 tid=3 thread=stream 3 device=0 step=5 | 0/stream 3;ProfilerStep;gemm",
        "1,400 | pid=0 tid=3 thread=stream 3 device=0 step=5 | 0/stream 3;ProfilerStep",
        NULL,
    };
    pprof_test_expect_samples(p, want);
    /* The CPU step and the GPU annotation stay apart by their category (the filename). */
    size_t steps = 0;
    for (size_t i = 0; i < p->n_function; i++)
        steps += strcmp(pprof_test_str(p, p->function[i]->name), "ProfilerStep") == 0;
    assert_int_equal(steps, 2);
    assert_non_null(p->period_type);
    assert_string_equal(pprof_test_str(p, p->period_type->type), "wall");
    assert_string_equal(pprof_test_str(p, p->period_type->unit), "nanoseconds");
    assert_int_equal(p->period, 1);
    perftools__profiles__profile__free_unpacked(p, NULL);

    static const char *const keep[] = {"steps=keep", "unit=us", NULL};
    p = pprof_test_convert("steps.pptest", "keep.pb.gz", keep);
    static const char *const want_keep[] = {
        "1,0 | pid=1 tid=7 thread=python process=trainer step=5 | ProfilerStep#5;aten::mm",
        "1,1 | pid=1 tid=7 thread=python process=trainer step=5 | ProfilerStep#5",
        "1,1 | pid=1 tid=7 thread=python process=trainer step=6 | ProfilerStep#6;aten::mm",
        "1,0 | pid=1 tid=7 thread=python process=trainer step=6 | ProfilerStep#6",
        "1,0 | pid=0 tid=3 thread=stream 3 device=0 step=5 | 0/stream 3;ProfilerStep#5;gemm",
        "1,0 | pid=0 tid=3 thread=stream 3 device=0 step=5 | 0/stream 3;ProfilerStep#5",
        NULL,
    };
    pprof_test_expect_samples(p, want_keep);
    assert_string_equal(pprof_test_str(p, p->period_type->unit), "microseconds");
    perftools__profiles__profile__free_unpacked(p, NULL);
}

static void pprof_test_stack_samples_keep_their_types(void **state)
{
    (void)state;
    Perftools__Profiles__Profile *p = pprof_test_convert("samples.pptest", "samples.pb.gz", NULL);
    pprof_test_expect_types(p, "samples/count,cpu/nanoseconds", "cpu");
    /* The one-value sample does not fit two sample types: dropped with a warning. */
    static const char *const want[] = {
        "2,20000 | pid=5 tid=5 thread=app | _start;main;work",
        "2,20000 | pid=5 tid=5 thread=app | _start;main;work",
        "1,10000 | pid=5 tid=6 | _start;main",
        NULL,
    };
    pprof_test_expect_samples(p, want);
    /* work at two addresses: two locations, one function. */
    assert_int_equal(p->n_location, 4);
    assert_int_equal(p->n_function, 3);
    assert_int_not_equal(p->sample[0]->location_id[0], p->sample[1]->location_id[0]);
    const Perftools__Profiles__Location *l = pprof_decode_location(p, p->sample[1]->location_id[0]);
    assert_int_equal(l->address, 0x401180);
    assert_string_equal(pprof_test_str(p, pprof_test_function_named(p, "work")->filename), "app");
    perftools__profiles__profile__free_unpacked(p, NULL);
}

static void pprof_test_undeclared_types_get_names(void **state)
{
    (void)state;
    Perftools__Profiles__Profile *p = pprof_test_convert("untyped.pptest", "untyped.pb.gz", NULL);
    pprof_test_expect_types(p, "samples/count,value2/count", "samples");
    static const char *const want[] = {
        "4,9 | pid=1 tid=1 | main;work",
        "1,1 | pid=1 tid=1 | main",
        NULL,
    };
    pprof_test_expect_samples(p, want);
    perftools__profiles__profile__free_unpacked(p, NULL);
}

static void pprof_test_unit_option_rounds(void **state)
{
    (void)state;
    static const char *const opts[] = {"unit=us", NULL};
    Perftools__Profiles__Profile *p = pprof_test_convert("two_processes.pptest", "us.pb.gz", opts);
    pprof_test_expect_types(p, "samples/count,wall/microseconds", "wall");
    static const char *const want[] = {
        "2,1 | pid=1 tid=7 thread=main process=proc one | outer;inner",
        "1,1 | pid=1 tid=7 thread=main process=proc one | outer",
        "1,0 | pid=2 tid=7 thread=worker process=proc two | outer;leaf",
        "2,1 | pid=2 tid=7 thread=worker process=proc two | outer",
        NULL,
    };
    pprof_test_expect_samples(p, want);
    perftools__profiles__profile__free_unpacked(p, NULL);
}

static void pprof_test_window_and_track_filters(void **state)
{
    (void)state;
    static const char *const win[] = {"start=1100", "end=3000", NULL};
    Perftools__Profiles__Profile *p = pprof_test_convert("two_processes.pptest", "win.pb.gz", win);
    static const char *const want[] = {
        "2,500 | pid=1 tid=7 thread=main process=proc one | outer;inner",
        "1,100 | pid=2 tid=7 thread=worker process=proc two | outer;leaf",
        NULL,
    };
    pprof_test_expect_samples(p, want);
    assert_int_equal(p->time_nanos, 0);
    assert_int_equal(p->duration_nanos, 1900);
    perftools__profiles__profile__free_unpacked(p, NULL);

    static const char *const trk[] = {"track=2/*,nothing", NULL};
    p = pprof_test_convert("two_processes.pptest", "trk.pb.gz", trk);
    static const char *const want_trk[] = {
        "1,100 | pid=2 tid=7 thread=worker process=proc two | outer;leaf",
        "2,550 | pid=2 tid=7 thread=worker process=proc two | outer",
        NULL,
    };
    pprof_test_expect_samples(p, want_trk);
    perftools__profiles__profile__free_unpacked(p, NULL);

    static const char *const by_name[] = {"track=ma*", NULL};
    p = pprof_test_convert("two_processes.pptest", "trk2.pb.gz", by_name);
    assert_int_equal(p->n_sample, 2);
    assert_int_equal(pprof_test_total(p, 1), 1000);
    perftools__profiles__profile__free_unpacked(p, NULL);
}

static void pprof_test_empty_input_is_a_valid_profile(void **state)
{
    (void)state;
    Perftools__Profiles__Profile *p = pprof_test_convert("empty.pptest", "empty.pb.gz", NULL);
    assert_int_equal(p->n_sample, 0);
    pprof_test_expect_types(p, "samples/count", "samples");
    assert_int_equal(p->time_nanos, 0);
    perftools__profiles__profile__free_unpacked(p, NULL);
}

static void pprof_test_bad_options_fail(void **state)
{
    (void)state;
    static const char *const bad_type[] = {"sample_type=cpu", NULL};
    assert_int_equal(pprof_test_run_tconv("two_processes.pptest", "bad1.pb.gz", bad_type), 1);
    static const char *const bad_window[] = {"start=10", "end=10", NULL};
    assert_int_equal(pprof_test_run_tconv("two_processes.pptest", "bad2.pb.gz", bad_window), 2);
    static const char *const bad_enum[] = {"labels=some", NULL};
    assert_int_equal(pprof_test_run_tconv("two_processes.pptest", "bad3.pb.gz", bad_enum), 2);
    /* A failed run leaves no output behind. */
    char path[4096];
    struct stat sb;
    snprintf(path, sizeof path, "%s/bad1.pb.gz", pprof_test_tmp_dir);
    assert_int_not_equal(stat(path, &sb), 0);
}

/* The input's rank becomes the label rank, its time origin dates the profile, and no
 * function's system_name equals its name (pprof would cut `<...>` and `(...)` out of it). */
static void pprof_test_rank_date_and_whole_names(void **state)
{
    (void)state;
    Perftools__Profiles__Profile *p = pprof_test_convert("dated_rank.pptest", "dated.pb.gz", NULL);
    static const char *const want[] = {
        "1,300 | pid=1 tid=7 thread=main process=trainer  rank=5 | void at::native::kernel<4, "
        "float>(int);"
        "<forked function>",
        "1,700 | pid=1 tid=7 thread=main process=trainer  rank=5 | void at::native::kernel<4, "
        "float>(int)",
        NULL,
    };
    pprof_test_expect_samples(p, want);
    assert_int_equal(p->time_nanos, INT64_C(1727740800000000000) + 1000);
    assert_int_equal(p->duration_nanos, 1000);
    for (size_t i = 0; i < p->n_function; i++)
        assert_int_equal(p->function[i]->system_name, 0);
    perftools__profiles__profile__free_unpacked(p, NULL);

    /* Two inputs that claim the same rank keep their positions too. */
    static const char *const twice[] = {"dated_rank.pptest", "dated_rank.pptest", NULL};
    p = pprof_test_convert_inputs(twice, "dated2.pb.gz", NULL);
    static const char *const want2[] = {
        "1,300 | pid=1 tid=7 thread=main process=trainer  rank=5 input=0 | void "
        "at::native::kernel<4, float>(int);"
        "<forked function>",
        "1,700 | pid=1 tid=7 thread=main process=trainer  rank=5 input=0 | void "
        "at::native::kernel<4, float>(int)",
        "1,300 | pid=1 tid=7 thread=main process=trainer  rank=5 input=1 | void "
        "at::native::kernel<4, float>(int);"
        "<forked function>",
        "1,700 | pid=1 tid=7 thread=main process=trainer  rank=5 input=1 | void "
        "at::native::kernel<4, float>(int)",
        NULL,
    };
    pprof_test_expect_samples(p, want2);
    assert_string_equal(pprof_test_str(p, p->mapping[0]->filename), "dated_rank.pptest and 1 more");
    perftools__profiles__profile__free_unpacked(p, NULL);
}

static void pprof_test_same_input_same_bytes(void **state)
{
    (void)state;
    for (int i = 0; i < 2; i++) {
        assert_int_equal(
            pprof_test_run_tconv("gpu_python.pptest", i ? "det2.pb.gz" : "det1.pb.gz", NULL), 0);
    }
    char a[4096], b[4096];
    snprintf(a, sizeof a, "%s/det1.pb.gz", pprof_test_tmp_dir);
    snprintf(b, sizeof b, "%s/det2.pb.gz", pprof_test_tmp_dir);
    FILE *fa = fopen(a, "rb"), *fb = fopen(b, "rb");
    assert_non_null(fa);
    assert_non_null(fb);
    int ca, cb;
    size_t n = 0;
    do {
        ca = fgetc(fa);
        cb = fgetc(fb);
        assert_int_equal(ca, cb);
        n++;
    } while (ca != EOF);
    assert_true(n > 20);
    fclose(fa);
    fclose(fb);
}

int main(int argc, char **argv)
{
    if (argc != 5) {
        fprintf(stderr, "usage: %s TCONV PLUGIN_DIR DATA_DIR TMP_DIR\n", argv[0]);
        return 2;
    }
    pprof_test_tconv_bin = argv[1];
    pprof_test_plugin_dir = argv[2];
    pprof_test_data_dir = argv[3];
    pprof_test_tmp_dir = argv[4];
    mkdir(pprof_test_tmp_dir, 0777);
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(pprof_test_spans_self_time_per_thread),
        cmocka_unit_test(pprof_test_labels_none_merges_threads),
        cmocka_unit_test(pprof_test_labels_pid_merges_threads_of_a_process),
        cmocka_unit_test(pprof_test_gpu_stream_root_and_python_frames),
        cmocka_unit_test(pprof_test_root_and_category_modes),
        cmocka_unit_test(pprof_test_steps_are_a_label),
        cmocka_unit_test(pprof_test_stack_samples_keep_their_types),
        cmocka_unit_test(pprof_test_undeclared_types_get_names),
        cmocka_unit_test(pprof_test_unit_option_rounds),
        cmocka_unit_test(pprof_test_window_and_track_filters),
        cmocka_unit_test(pprof_test_empty_input_is_a_valid_profile),
        cmocka_unit_test(pprof_test_bad_options_fail),
        cmocka_unit_test(pprof_test_rank_date_and_whole_names),
        cmocka_unit_test(pprof_test_same_input_same_bytes),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
