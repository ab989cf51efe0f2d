# The otf2 writer on every rank of an MPI run (TCONV_WRITER_COLLECTIVE): mpirun -n 1, 2 and 3
# give the single process's archive byte for byte, and as otf2-print reads it (events and -G
# definitions), while the event files are written by the ranks that read the inputs (each rank
# says with -v how many locations' event files it wrote, and they add up to the archive's). A
# malformed input on rank 1 ends the run on every rank: its message once, the single process's
# exit status, no archive and no temporary directory left. Inputs on different ranks whose
# sample types differ fail as in one process (the same stderr, exit status and input named),
# however the run splits them, and a read failure before them wins over them as it does there;
# with --keep-going each is refused in its place.
# With --window the writer runs on rank 0 alone, and says so.
# Arguments: TCONV TEST_PLUGINS SRC(tests) CORPUS
set -euo pipefail
TCONV=$1
export TCONV_PLUGIN_PATH=$2
SRC=$3
CORPUS=$4
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT
fail() {
    echo "FAIL: $*" >&2
    exit 1
}
command -v mpirun >/dev/null || fail "no mpirun (install openmpi-bin)"
MPIRUN=(mpirun -q --oversubscribe --allow-run-as-root)
HTA=$SRC/corpus/HolisticTraceAnalysis/tests/data
CH=$SRC/data/chrome

# check NAME N ARGS...: tconv ARGS alone and under mpirun -n N, with -v; the same archive and
# otf2-print output; with N > 1 every rank wrote some locations' event files.
check() {
    local name=$1 n=$2
    shift 2
    local s=$TMP/$name.s out=$TMP/$name.$n
    rm -rf "$s" "$out"
    "$TCONV" -v -w otf2 "$@" -o "$s" 2>"$s.err" || fail "$name: the single process failed"
    timeout 300 "${MPIRUN[@]}" -n "$n" "$TCONV" -v -w otf2 "$@" -o "$out" </dev/null 2>"$out.err" ||
        { cat "$out.err" >&2; fail "$name -n $n: failed"; }
    diff -r "$s" "$out" >&2 || fail "$name -n $n: the archive differs"
    for g in "" -G; do
        otf2-print $g "$s/traces.otf2" >"$s.print"
        otf2-print $g "$out/traces.otf2" >"$out.print"
        diff -q "$s.print" "$out.print" >&2 || fail "$name -n $n: otf2-print $g differs"
    done
    if [ "$n" -gt 1 ]; then
        grep -q "every rank runs the otf2 writer" "$out.err" || fail "$name -n $n: not on every rank"
        local locs total=0 q k nfiles=0 a
        for a in "$@"; do [ ! -f "$a" ] || nfiles=$((nfiles + 1)); done
        locs=$(grep -c '^LOCATION ' "$out.print")
        for ((q = 0; q < n; q++)); do
            k=$(sed -n "s/^tconv: otf2: rank $q wrote the event files of \([0-9]*\) locations.*/\1/p" "$out.err")
            [ -n "$k" ] || fail "$name -n $n: rank $q did not say what it wrote"
            # Inputs go largest first to the least loaded rank: each rank has one, if there
            # are enough (a rank without one still takes part, with nothing to write).
            [ "$k" -gt 0 ] || [ "$q" -ge "$nfiles" ] || fail "$name -n $n: rank $q wrote no event file"
            total=$((total + k))
        done
        [ "$total" = "$locs" ] || fail "$name -n $n: the ranks wrote $total of $locs locations"
    fi
    echo "ok $name -n $n ($(du -sk "$out" | cut -f1) KB)"
}

IN=("$HTA/trace_filter/sampled_rank-0.json.gz" "$HTA/trace_filter/sampled_rank-1.json.gz"
    "$HTA/cpu_only/rank-34.Jul_15_10_52_41.1074.pt.trace.json.gz"
    "$HTA/trace_file_list/inference_rank_1.json.gz" "$HTA/rank_non_gpu/rank_non_gpu.json.gz"
    "$HTA/amd_trace/mi250_minitoy_train_ROCm6_2_kineto.json.gz"
    "$HTA/critical_path/alexnet/benchmark_result_2869224_1695835535_trace.json.gz"
    "$HTA/cupti_profiler/benchmark_result_924719_1679055439_trace.json.gz")
for n in 1 2 3; do
    check hta2 "$n" "${IN[@]:0:2}"
    check hta8 "$n" "${IN[@]}"
done
check hta8-args 3 -W args=true "${IN[@]}"
# Flows, counters, instants of every scope, args, in several inputs.
check chrome 3 -W args=true "$CH/all-phases.json" "$CH/multi-thread-with-samples.json" \
    "$CH/flow_events_json_v2.json" "$CH/string-pid-tid.json" "$CH/metadata-after.json" \
    "$CH/nestable_async.json"

# A malformed input read by rank 1 (the largest input goes to rank 0, then the least loaded
# rank takes the next): its message once, the single process's status, no archive.
mkdir -p "$TMP/bad"
set +e
"$TCONV" -w otf2 -o "$TMP/bad/s" "${IN[7]}" "$CH/truncated-in-event.json" 2>"$TMP/bad.s.err"
want=$?
timeout 300 "${MPIRUN[@]}" -n 2 "$TCONV" -v -w otf2 -o "$TMP/bad/m" "${IN[7]}" \
    "$CH/truncated-in-event.json" </dev/null 2>"$TMP/bad.m.err"
rc=$?
set -e
[ "$want" != 0 ] || fail "bad: the malformed input did not fail"
[ "$rc" = "$want" ] || fail "bad: exit $rc, alone $want"
msg=$(grep '^tconv: error:' "$TMP/bad.s.err")
[ "$(grep -cF "$msg" "$TMP/bad.m.err")" = 1 ] || {
    cat "$TMP/bad.m.err" >&2
    fail "bad: the error is not said once"
}
grep -q "every rank runs the otf2 writer" "$TMP/bad.m.err" || fail "bad: not on every rank"
[ -z "$(ls -A "$TMP/bad")" ] || fail "bad: left $(ls -A "$TMP/bad")"
echo "ok bad (exit $rc)"

# Sample types that differ, in inputs read by different ranks (the largest input goes to rank 0,
# then each to the least loaded rank: the big folded file to rank 0, the others elsewhere), and
# a read failure before or after the first that differs: the single process's exit status and
# stderr byte for byte, no archive, no temporary directory. Each rank alone sees no conflict.
awk 'BEGIN { for (i = 0; i < 20000; i++) printf "prog;main;work%d %d\n", i % 50, i % 7 + 1 }' \
    >"$TMP/big.stacks"
printf 'prog;main;idle 3\n' >"$TMP/small.stacks"
mixed() {
    local name=$1 n=$2 want rc
    shift 2
    mkdir -p "$TMP/$name"
    set +e
    "$TCONV" -w otf2 -o "$TMP/$name/s" "$@" 2>"$TMP/$name.s.err"
    want=$?
    timeout 300 "${MPIRUN[@]}" -n "$n" "$TCONV" -w otf2 -o "$TMP/$name/m" "$@" </dev/null \
        2>"$TMP/$name.m.err"
    rc=$?
    set -e
    [ "$want" = 1 ] || fail "$name: the single process exited $want"
    [ "$rc" = "$want" ] || { cat "$TMP/$name.m.err" >&2; fail "$name -n $n: exit $rc, alone $want"; }
    diff "$TMP/$name.s.err" "$TMP/$name.m.err" >&2 || fail "$name -n $n: stderr differs"
    [ -z "$(ls -A "$TMP/$name")" ] || fail "$name -n $n: left $(ls -A "$TMP/$name")"
    echo "ok $name -n $n (exit $rc)"
}
SAMPLES=$CH/multi-thread-with-samples.json
for n in 2 3; do
    mixed "types$n" "$n" "$SAMPLES" "${IN[0]}" "$TMP/big.stacks"
    mixed "types-later$n" "$n" "${IN[0]}" "$TMP/big.stacks" "${IN[1]}" "$SAMPLES" "$TMP/small.stacks"
    mixed "types-then-bad$n" "$n" "$SAMPLES" "${IN[0]}" "$TMP/big.stacks" "$CH/truncated-in-event.json"
    mixed "bad-then-types$n" "$n" "$SAMPLES" "${IN[0]}" "$CH/truncated-in-event.json" "$TMP/big.stacks"
done
grep -q "have different sample types" "$TMP/types2.s.err" || fail "types: not the sample types' error"
grep -q "truncated-in-event.json" "$TMP/bad-then-types2.s.err" || fail "bad-then-types: not the read error"
# --keep-going (the writer runs on rank 0 alone): each refused input's message in its place, the
# same stderr, exit status and archive.
kg=(--keep-going -w otf2 "$SAMPLES" "${IN[0]}" "$TMP/big.stacks" "$CH/truncated-in-event.json"
    "$TMP/small.stacks")
set +e
"$TCONV" "${kg[@]}" -o "$TMP/kg.s" 2>"$TMP/kg.s.err"
want=$?
timeout 300 "${MPIRUN[@]}" -n 3 "$TCONV" "${kg[@]}" -o "$TMP/kg.3" </dev/null 2>"$TMP/kg.3.err"
rc=$?
set -e
[ "$rc" = "$want" ] || fail "keep-going: exit $rc, alone $want"
[ "$(grep -c "have different sample types" "$TMP/kg.s.err")" = 2 ] || fail "keep-going: not both refused"
diff "$TMP/kg.s.err" "$TMP/kg.3.err" >&2 || fail "keep-going: stderr differs"
diff -r "$TMP/kg.s" "$TMP/kg.3" >&2 || fail "keep-going: the archive differs"
echo "ok keep-going (exit $rc)"
# Spans of one input and samples of another: the otf2 writer keeps spans as spans, no conflict.
check spans-samples 2 "$SAMPLES" "${IN[0]}"

# --window needs the whole run before the stages: rank 0 writes alone, and says so.
w=(--window 10ms:50ms "${IN[@]:0:2}")
"$TCONV" -w otf2 "${w[@]}" -o "$TMP/win.s"
timeout 300 "${MPIRUN[@]}" -n 2 "$TCONV" -v -w otf2 "${w[@]}" -o "$TMP/win.2" </dev/null 2>"$TMP/win.err"
grep -q "runs on rank 0 alone" "$TMP/win.err" || fail "window: no word of rank 0 writing alone"
diff -r "$TMP/win.s" "$TMP/win.2" >&2 || fail "window: the archive differs"
echo "ok window"

# Larger rank traces of the shared corpus.
C=$CORPUS/HolisticTraceAnalysis/tests/data
BIG=("$C/trace_compare/base/base.json.gz" "$C/trace_compare/test/test.json.gz"
    "$C/mtia_inference_trace/mtia_inference_rank_0.json.gz" "$C/trace_filter/sampled_rank-0.json.gz")
for f in "${BIG[@]}"; do
    [ -f "$f" ] || {
        echo "SKIP: no HTA rank traces in the corpus ($f)"
        exit 77
    }
done
check corpus4 2 "${BIG[@]}"
check corpus4 3 "${BIG[@]}"
