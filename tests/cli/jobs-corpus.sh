# -j on the larger multi-rank Kineto traces of the shared corpus (HolisticTraceAnalysis: 15 to
# 87 MB each, too large for the in-tree slice): -j 1, 2, 4 and the default give the same output
# bytes, stderr and exit status, for the writers that hold the whole trace (pprof, folded, otf2,
# csv, summary). usage: jobs-corpus.sh TCONV TEST_PLUGINS BROKEN_PLUGINS SRC CORPUS
source "$(dirname "$0")/lib.sh"
source "$(dirname "$0")/jobs-lib.sh"
CORPUS=$5
HTA=$CORPUS/HolisticTraceAnalysis/tests/data
inputs=()
for f in trace_diff/control/control.json.gz trace_diff/test/test.json.gz \
    negative_queue_length_values_check/rank0.json.gz \
    ns_resolution_trace/rank-0.Apr_03_18_51_38.1102.pt.trace.json.gz \
    mtia_trace_single_rank/mtia_rank_0.json.gz trace_filter/sampled_rank-0.json.gz \
    trace_filter/sampled_rank-1.json.gz; do
    if [ -f "$HTA/$f" ]; then inputs+=("$HTA/$f"); else echo "absent: $f"; fi
done
[ "${#inputs[@]}" -ge 2 ] || {
    echo "SKIP: fewer than two HTA rank traces in $CORPUS"
    exit 77
}
echo "${#inputs[@]} traces"
for w in pprof folded otf2 csv summary; do
    same "hta-$w" -w "$w" "${inputs[@]}"
done
same hta-gpu -w folded -W value=gpu "${inputs[@]}"
