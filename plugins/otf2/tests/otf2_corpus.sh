#!/usr/bin/env bash
# Real Kineto traces from the shared corpus, converted with -r chrome -w otf2: otf2-print reads
# each archive without an error, otf2-check finds every invariant holding, and the event counts
# equal what the JSON holds. The expected numbers were counted in the JSON itself: Enter = Leave
# = the "X" events; flow events = the s/t/f events, each a ParameterUnsignedInt (no MPI
# message); with -W flows=messages, messages = the s/t/f links of flows with the same (cat,
# name, id), in time order (a lone s or f has none); markers = the "i" events; metrics = the
# numeric args of "C" events. Multi-rank pairs merge into one archive, each rank's processes in
# their own groups (golden/corpus_<case>.groups).
source "$(dirname "$0")/otf2_lib.sh"

[ -n "$CORPUS" ] && [ -d "$CORPUS" ] || { echo "no corpus at '$CORPUS': skipping" >&2; exit 77; }
have_reader chrome || { echo "no chrome reader in this build: skipping" >&2; exit 77; }
HTA=$CORPUS/HolisticTraceAnalysis/tests/data
ran=0 skipped=0

corpus_case() { # corpus_case NAME ENTER FLOW_EVENTS MESSAGES MARKERS METRICS INPUT...
    local name=$1 enter=$2 flows=$3 messages=$4 markers=$5 metrics=$6
    shift 6
    for f in "$@"; do
        if [ ! -f "$f" ]; then
            echo "skipped $name: $f absent from the corpus"
            skipped=$((skipped + 1))
            return 0
        fi
    done
    ran=$((ran + 1))
    local out=$TMP/$name
    convert "$out" -r chrome "$@"
    readable "$out"
    check_value "$out" enter "$enter"
    check_value "$out" leave "$enter"
    check_value "$out" parameter_events "$flows"
    check_value "$out" mpi_send 0
    check_value "$out" markers "$markers"
    check_value "$out" metric "$metrics"
    check_value "$out" other_events 0
    check_value "$out" problems 0
    grep -E '^(group|location) ' "$out.check" >"$out.groups"
    golden "corpus_$name.groups" "$out.groups"
    rm -rf "$out" "$out.print" "$out.defs"
    # The same as messages: each link a send and a receive, no parameter.
    convert "$out" -W flows=messages -r chrome "$@"
    readable "$out"
    check_value "$out" mpi_send "$messages"
    check_value "$out" mpi_recv "$messages"
    check_value "$out" parameter_events 0
    check_value "$out" problems 0
    rm -rf "$out" "$out.print" "$out.defs"
}

# Two ranks of one job (distributedInfo rank 0 and 1); pids 0..7 collide between them.
corpus_case trace_filter 9487 0 0 0 0 \
    "$HTA/trace_filter/sampled_rank-0.json.gz" "$HTA/trace_filter/sampled_rank-1.json.gz"
# Two 30 MB traces (ranks 1 and 3) with ac2g CPU->GPU flows; 32073 lone flow ends have no start
# (kept as parameters; no message with -W flows=messages).
corpus_case trace_diff 143261 70941 19434 4 0 \
    "$HTA/trace_diff/control/control.json.gz" "$HTA/trace_diff/test/test.json.gz"
if [ -f "$TMP/trace_diff.stderr" ]; then
    grep -q 'otf2.unmatched-flow, 32073 times' "$TMP/trace_diff.stderr" ||
        fail "the lone flow events of trace_diff are not counted: $(cat "$TMP/trace_diff.stderr")"
fi
# One rank with flows, global instants and lone flow ends.
corpus_case simple_add 56 19 4 2 0 "$HTA/execution_trace/benchmark_simple_add_trace.json.gz"
# Kineto's tb_plugin GPU metrics: 78 counter values beside spans and flows.
corpus_case gpu_metrics 254 64 32 2 78 "$CORPUS/kineto/tb_plugin/test/gpu_metrics_expected.json"
echo "$ran cases ok, $skipped skipped (inputs absent from the corpus)"
[ "$ran" -gt 0 ] || { echo "no case's inputs are in $CORPUS: skipping" >&2; exit 77; }
