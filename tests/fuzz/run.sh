#!/usr/bin/env bash
# run.sh SECONDS [READER...]: builds the libFuzzer targets (clang, ASan+UBSan) in build-fuzz/ and
# runs each for SECONDS, one after the other, one job each. The corpus in
# build-fuzz/fuzz/corpus/<reader> starts from seeds.sh and keeps what the runs add; a crash, leak,
# timeout or out-of-memory input lands in build-fuzz/fuzz/artifacts/<reader>/ and makes the script
# exit 1 after the other targets ran. Copy such an input to tests/fuzz/regressions/<reader>/ once
# it is fixed. Environment: FUZZ_BUILD (build folder), FUZZ_ARGS (more libFuzzer options).
set -uo pipefail
here=$(cd "$(dirname "$0")" && pwd)
repo=$(cd "$here/../.." && pwd)
secs=${1:?usage: run.sh SECONDS [READER...]}
shift
readers=("$@")
# otf2 reads its anchor file itself before libotf2 does, which sized allocations by the file's
# counts (a crafted anchor asked for 3 GB): bounded now, it runs with the others (its leaks on
# libotf2's own error paths are in lsan-fuzz.supp).
# firefox is on demand (run.sh 60 firefox): its inputs are whole JSON documents of tens of
# KiB, about 90 runs a second, too few for the short default pass.
[ ${#readers[@]} -gt 0 ] || readers=(chrome tfmem perf folded json otf2 pprof speedscope perfetto rocprof)
build=${FUZZ_BUILD:-$repo/build-fuzz}
jobs=$(nproc 2>/dev/null || echo 2)

cmake -S "$repo" -B "$build" -DCMAKE_C_COMPILER=clang -DCMAKE_BUILD_TYPE=RelWithDebInfo \
    -DTCONV_FUZZ=ON >/dev/null || exit 1
targets=()
for r in "${readers[@]}"; do targets+=("fuzz_$r"); done
cmake --build "$build" -j "$jobs" --target "${targets[@]}" >"$build/fuzz-build.log" 2>&1 || {
    cat "$build/fuzz-build.log"
    exit 1
}
work=$build/fuzz
bash "$here/seeds.sh" "$work/corpus" >/dev/null || exit 1

failed=0
nfailed=0
for r in "${readers[@]}"; do
    mkdir -p "$work/artifacts/$r"
    log=$work/$r.log
    dict=()
    [ -f "$here/$r.dict" ] && dict=(-dict="$here/$r.dict")
    # libotf2 sizes a record's arrays by the count the record states and checks the allocation:
    # a damaged count asks for up to 32 GB, which fails and ends in a positioned error (tested
    # by otf2.reader-hostile). Here such a request gets NULL, as it does in a release build,
    # instead of stopping the sanitizer; the plugin's own allocations end the run on NULL
    # (otf2r_oom), which the fuzzer still reports.
    asan=${ASAN_OPTIONS:-detect_leaks=1}
    [ "$r" = otf2 ] && asan=$asan:allocator_may_return_null=1:max_allocation_size_mb=1024
    # -timeout: an input that takes 10 s is a hang (time must stay linear in the input).
    # The reports themselves come from the sanitizers, which must stop at the first error.
    # Leaks inside system libraries that tconv cannot free are named in lsan-fuzz.supp.
    LSAN_OPTIONS=suppressions=$here/lsan-fuzz.supp \
    ASAN_OPTIONS=$asan UBSAN_OPTIONS=halt_on_error=1:print_stacktrace=1 \
        "$build/fuzz_$r" "$work/corpus/$r" -max_total_time="$secs" -timeout=10 -rss_limit_mb=2048 \
        -print_final_stats=1 -artifact_prefix="$work/artifacts/$r/" "${dict[@]}" ${FUZZ_ARGS:-} \
        >"$log" 2>&1
    rc=$?
    runs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log")
    speed=$(sed -n 's/^stat::average_exec_per_sec: *//p' "$log")
    if [ -z "$runs" ]; then # -fork mode prints no final stats: take its last status line
        last=$(grep -E '^#[0-9]+' "$log" | tail -n 1)
        runs=$(sed -n 's/^#\([0-9]*\).*/\1/p' <<<"$last")
        speed=$(sed -n 's/.*exec\/s:\{0,1\} \([0-9]*\).*/\1/p' <<<"$last")
        # with -ignore_crashes the exit status is 0: the counts tell
        grep -q 'oom/timeout/crash: 0/0/0' <<<"$last" || rc=1
    fi
    if [ $rc -ne 0 ]; then
        failed=1
        nfailed=$((nfailed + 1))
        echo "fuzz: $r: FAILED (exit $rc) after ${runs:-?} runs; log $log"
        grep -E '^(==[0-9]+==ERROR|SUMMARY|.*runtime error|artifact_prefix|Test unit written)' "$log" |
            head -n 8
    else
        echo "fuzz: $r: ok, ${runs:-?} runs in ${secs} s (${speed:-?}/s), corpus" \
            "$(ls "$work/corpus/$r" | wc -l) inputs"
    fi
done
echo "fuzz: $((${#readers[@]} - nfailed)) passed, $nfailed failed"
exit $failed
