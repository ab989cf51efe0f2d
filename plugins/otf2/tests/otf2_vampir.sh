#!/usr/bin/env bash
# What Vampir reads, as otf2-print shows it, for two ranks of a Kineto-like trace
# (data/vampir/rank0.json, rank1.json: an operator with shapes, a launch and its kernel with
# grid, block and correlation, an ac2g flow, PyTorch [memory] instants of which one has no
# device, a fractional counter):
#   - byte metrics are INT64 members whose events hold the exact values; a fractional counter
#     stays DOUBLE;
#   - kernel and launch args are attributes of their Enter events (grid, block, correlation,
#     shapes);
#   - the launch -> kernel flow is a pair of ParameterUnsignedInt records with the same value
#     and the producer's id as an attribute, not MPI messages (no MpiSend, no communicator);
#     -W flows=messages gives the messages back;
#   - a [memory] instant that a metric carries is no marker; the one without a device is;
#   - each rank without a host name is a system tree node of its own;
#   - GPU streams are named "stream N" alone and beside other inputs, with a trace that names
#     its streams (data/vampir) and one that does not (Kineto's tb_plugin GPU metrics test,
#     from the corpus).
source "$(dirname "$0")/otf2_lib.sh"

have_reader chrome || { echo "no chrome reader in this build: skipping" >&2; exit 77; }
V=$DATA/vampir
out=$TMP/two
convert "$out" "$V/rank0.json" "$V/rank1.json"
readable "$out"
print=$out.print defs=$out.defs

has() { # has FILE REGEX WHAT
    grep -Eq -- "$2" "$1" || fail "$3 (no line matches $2 in $(basename "$1"))"
}
hasnt() {
    ! grep -Eq -- "$2" "$1" || fail "$3 ($(grep -Em1 -- "$2" "$1"))"
}

# Metric types and exact values.
has "$defs" '^METRIC_MEMBER .*Name: "allocated bytes cuda:0".*Value Type: INT64' \
    "allocated bytes is not an INT64 metric"
has "$defs" '^METRIC_MEMBER .*Name: "reserved bytes cuda:0".*Value Type: INT64' \
    "reserved bytes is not an INT64 metric"
has "$defs" '^METRIC_MEMBER .*Name: "GPU Utilization".*Value Type: DOUBLE' \
    "a fractional counter is not DOUBLE"
has "$print" '"reserved bytes cuda:0" <[0-9]+>; INT64; 2097152\)' "a byte value is not exact"
hasnt "$print" 'bytes.*DOUBLE' "a byte value is DOUBLE"
check_value "$out" int64_metric_members 2

# Attributes of kernels, launches and operators.
grep -A1 -E '^ENTER .*Region: "gemm_kernel"' "$print" >"$TMP/kernel"
for a in '"grid" <[0-9]+>; STRING; "\[4,2,1\]"' '"block" <[0-9]+>; STRING; "\[128,1,1\]"' \
    '"correlation" <[0-9]+>; INT64; 5001'; do
    has "$TMP/kernel" "$a" "the kernel's attribute $a is missing"
done
grep -A1 -E '^ENTER .*Region: "cudaLaunchKernel"' "$print" >"$TMP/launch"
has "$TMP/launch" '"correlation" <[0-9]+>; INT64; 5001' "the launch has no correlation"
grep -A1 -E '^ENTER .*Region: "aten::mm"' "$print" >"$TMP/op"
has "$TMP/op" '"Input Dims" <[0-9]+>; STRING; "\[\[64,32\],\[32,16\]\]"' "the shapes are missing"

# Flows: parameters, no MPI.
hasnt "$print" '^MPI_(SEND|RECV)' "a flow was written as an MPI message"
hasnt "$defs" '^(COMM|GROUP) ' "a communicator was defined for flows"
check_value "$out" parameter_events 4
start=$(grep -A1 -E '^PARAMETER_UINT64 +1 .*"flow start"' "$print")
end=$(grep -A1 -E '^PARAMETER_UINT64 +2 .*"flow end"' "$print")
[ "$(sed -n 's/.*Value: \([0-9]*\).*/\1/p' <<<"$start")" = \
    "$(sed -n 's/.*Value: \([0-9]*\).*/\1/p' <<<"$end")" ] ||
    fail "the launch's flow start and the kernel's flow end have different values"
for e in "$start" "$end"; do
    grep -q '("id" <[0-9]*>; INT64; 5001)' <<<"$e" || fail "a flow end lacks the producer's id: $e"
done

# [memory] markers: only the instant no metric carries.
otf2-marker "$out/traces.otf2" >"$TMP/markers"
[ "$(grep -c '^MARKER ' "$TMP/markers")" = 2 ] || fail "expected 2 markers: $(cat "$TMP/markers")"
[ "$(grep -c 'Addr.:150000' "$TMP/markers")" = 2 ] || fail "the kept markers are not the deviceless ones"

# The system tree: a node per rank.
has "$defs" '^SYSTEM_TREE_NODE .*Name: "rank 0".*Class: "rank".*Parent: "machine::machine"' \
    "rank 0 has no node"
has "$defs" '^LOCATION_GROUP .*"rank 1: python \(CPU\)".*Parent: "rank::rank 1"' \
    "rank 1's process is not under its node"

# As messages on demand.
convert "$TMP/msg" -W flows=messages "$V/rank0.json" "$V/rank1.json"
readable "$TMP/msg"
check_value "$TMP/msg" mpi_send 2
check_value "$TMP/msg" parameter_events 0

# Stream names: the same alone and with another input.
streams() { # streams DIR: the names of its accelerator streams, one per line
    grep -E '^LOCATION .*Type: ACCELERATOR_STREAM' "$1.defs" | sed 's/.*Name: "\([^"]*\)".*/\1/'
}
convert "$TMP/one" "$V/rank0.json"
readable "$TMP/one"
streams "$TMP/one" >"$TMP/one.streams"
GM=${CORPUS:+$CORPUS/kineto/tb_plugin/test/gpu_metrics_input.json}
if [ -n "$GM" ] && [ -f "$GM" ]; then
    convert "$TMP/gm" "$GM"
    readable "$TMP/gm"
    convert "$TMP/both" "$V/rank0.json" "$GM"
    readable "$TMP/both"
    streams "$TMP/gm" >>"$TMP/one.streams"
    streams "$TMP/both" >"$TMP/both.streams"
    diff "$TMP/one.streams" "$TMP/both.streams" >&2 || fail "stream names differ with two inputs"
    echo "stream names: $(tr '\n' ',' <"$TMP/both.streams")"
else
    echo "corpus absent: stream names checked on data/vampir alone"
fi
bad=$(grep -Ev '^stream [0-9]+( #[0-9]+)?$' "$TMP/one.streams" || true)
[ -z "$bad" ] || fail "streams not named 'stream N': $bad"
echo "ok: INT64 byte metrics, kernel/launch attributes, parameter flows, carried [memory]" \
    "markers left out, a node per rank, stable stream names"
