#!/usr/bin/env bash
# Throughput and peak memory of the Chrome reader (not a CI test).
#
# usage: tests/bench/chrome-bench.sh BUILD_DIR [SIZE_MB]
#   BUILD_DIR  a Release build of tconv (cmake -DCMAKE_BUILD_TYPE=Release)
#   SIZE_MB    size of the generated Kineto-like trace, default 220
#
# For each input (a generated trace of SIZE_MB MB, gzipped, and the largest Chrome trace of the
# corpus) it prints, for `gzip -dc` and for `tconv -r chrome -w WRITER` with each available
# streaming writer (text, csv): seconds, MB/s of decompressed JSON, CPU seconds, peak RSS, and
# the ratio to
# `gzip -dc` (decompression is the floor: the reader cannot be faster than its input). It also
# times the reader on the decompressed JSON, which shows the cost of parsing alone.
set -euo pipefail
BUILD=${1:?usage: chrome-bench.sh BUILD_DIR [SIZE_MB]}
SIZE_MB=${2:-220}
TCONV=$BUILD/tconv
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
CORPUS=$ROOT/../shared/corpus
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT

# A Kineto-like trace: CPU ops with args, runtime calls with correlation ids and ac2g flows,
# kernels and memcpys on GPU streams, [memory] instants; microsecond timestamps with three
# decimals; names drawn from a fixed vocabulary so that the string table stays small.
gen_trace() {
    python3 - "$1" "$2" <<'PY'
import random, sys
out, size = sys.argv[1], int(sys.argv[2]) * 1000 * 1000
rnd = random.Random(7)
ops = ["aten::linear", "aten::addmm", "aten::relu", "aten::conv2d", "aten::convolution",
       "aten::_convolution", "aten::cudnn_convolution", "aten::add_", "aten::mul",
       "aten::empty", "aten::copy_", "aten::to", "aten::batch_norm", "aten::softmax"]
kernels = ["void at::native::vectorized_elementwise_kernel<4, at::native::CUDAFunctor_add<float>>",
           "sm80_xmma_fprop_implicit_gemm_f32f32_tf32f32_f32_nhwckrsc_nhwc",
           "ampere_sgemm_128x64_tn", "void cudnn::bn_fw_tr_1C11_kernel_NCHW<float, float>"]
with open(out, "w") as f:
    f.write('{\n  "schemaVersion": 1,\n  "deviceProperties": [{"id": 0, "name": "GPU", "totalGlobalMem": 42297524224}],\n  "traceEvents": [\n')
    f.write('  {"name": "process_name", "ph": "M", "ts": 1712195495519000.000, "pid": 1234, "tid": 0, "args": {"name": "python"}},\n')
    f.write('  {"name": "thread_name", "ph": "M", "ts": 1712195495519000.000, "pid": 1234, "tid": 1234, "args": {"name": "thread 1234 (python)"}}')
    ts = 1712195495519689.047
    written, corr, ext = 0, 1000, 1
    buf = []
    while written < size:
        op = rnd.choice(ops)
        dur = rnd.randint(5000, 90000) / 1000
        buf.append(',\n  {"ph": "X", "cat": "cpu_op", "name": "%s", "pid": 1234, "tid": 1234, "ts": %.3f, "dur": %.3f, "args": {"External id": %d, "Record function id": 0, "Ev Idx": %d, "Input Dims": [[32, 128], [128]], "Input type": ["float", "float"]}}' % (op, ts, dur, ext, ext))
        buf.append(',\n  {"ph": "X", "cat": "cuda_runtime", "name": "cudaLaunchKernel", "pid": 1234, "tid": 1234, "ts": %.3f, "dur": 4.512, "args": {"External id": %d, "cbid": 211, "correlation": %d}}' % (ts + 1.25, ext, corr))
        buf.append(',\n  {"ph": "s", "id": %d, "pid": 1234, "tid": 1234, "ts": %.3f, "cat": "ac2g", "name": "ac2g"}' % (corr, ts + 1.25))
        kts = ts + 20.5
        buf.append(',\n  {"ph": "X", "cat": "kernel", "name": "%s", "pid": 0, "tid": 7, "ts": %.3f, "dur": %.3f, "args": {"External id": %d, "queued": 0, "device": 0, "context": 1, "stream": 7, "correlation": %d, "registers per thread": 32, "shared memory": 0, "blocks per SM": 0.009259, "grid": [1, 1, 1], "block": [128, 1, 1]}}' % (rnd.choice(kernels), kts, rnd.randint(1500, 9000) / 1000, ext, corr))
        buf.append(',\n  {"ph": "f", "id": %d, "pid": 0, "tid": 7, "ts": %.3f, "cat": "ac2g", "name": "ac2g", "bp": "e"}' % (corr, kts))
        if ext % 4 == 0:
            buf.append(',\n  {"ph": "i", "cat": "cpu_instant_event", "s": "t", "name": "[memory]", "pid": 1234, "tid": 1234, "ts": %.3f, "args": {"Device Type": 1, "Device Id": 0, "Addr": %d, "Bytes": 4096, "Total Allocated": %d, "Total Reserved": 20971520}}' % (ts + 2, 139800000000 + ext * 4096, 1000000 + ext % 1000 * 4096))
        ts += dur + rnd.randint(100, 3000) / 1000
        corr += 1
        ext += 1
        if len(buf) > 2000:
            s = "".join(buf)
            f.write(s)
            written += len(s)
            buf = []
    f.write("".join(buf))
    f.write('\n  ],\n  "traceName": "generated.pt.trace.json"\n}\n')
PY
}

# measure LABEL BYTES CMD...: the best of three runs (the machine may be shared): elapsed
# seconds, MB/s, CPU seconds (user + system), peak RSS; sets LAST_S
measure() {
    local label=$1 bytes=$2
    shift 2
    local best= secs usr sys rss cpu best_cpu best_rss
    for _ in 1 2 3; do
        /usr/bin/time -f "%e %U %S %M" -o "$TMP/time" "$@" >/dev/null 2>"$TMP/stderr" || {
            cat "$TMP/stderr" >&2
            echo "failed: $*" >&2
            exit 1
        }
        read -r secs usr sys rss <"$TMP/time"
        cpu=$(awk -v u="$usr" -v s="$sys" 'BEGIN{print u + s}')
        if [ -z "$best" ] || awk -v a="$secs" -v b="$best" 'BEGIN{exit !(a < b)}'; then
            best=$secs best_cpu=$cpu best_rss=$rss
        fi
    done
    LAST_S=$best
    LAST_CPU=$best_cpu
    awk -v l="$label" -v s="$best" -v c="$best_cpu" -v b="$bytes" -v r="$best_rss" \
        -v g="${GZIP_S:-0}" -v gc="${GZIP_CPU:-0}" 'BEGIN {
        mbs = s > 0 ? b / 1e6 / s : 0
        ratio = g > 0 && gc > 0 ? sprintf("%.2fx gzip -dc (CPU %.2fx)", s / g, c / gc) : "-"
        printf "  %-40s %6.2f s %7.1f MB/s %6.2f s CPU %6.1f MB peak RSS   %s\n", l, s, mbs, c, r / 1024, ratio }'
}

writers=()
for w in text csv; do
    "$TCONV" --list 2>/dev/null | grep -qE "writer +$w " && writers+=("$w")
done

bench() {
    local gz=$1
    local bytes
    bytes=$(gzip -dc "$gz" | wc -c)
    echo "$(basename "$gz"): $(awk -v b="$bytes" 'BEGIN{printf "%.1f", b/1e6}') MB of JSON, $(awk -v b="$(stat -c %s "$gz")" 'BEGIN{printf "%.1f", b/1e6}') MB gzipped"
    GZIP_S=
    GZIP_CPU=
    measure "gzip -dc" "$bytes" gzip -dc "$gz"
    GZIP_S=$LAST_S
    GZIP_CPU=$LAST_CPU
    for w in "${writers[@]}"; do
        measure "tconv -r chrome -w $w" "$bytes" "$TCONV" -q -r chrome -w "$w" -o "$TMP/out.$w" "$gz"
        rm -f "$TMP/out.$w"
        gzip -dc "$gz" >"$TMP/plain.json"
        measure "tconv -r chrome -w $w (plain JSON)" "$bytes" "$TCONV" -q -r chrome -w "$w" -o "$TMP/out.$w" "$TMP/plain.json"
        rm -f "$TMP/out.$w" "$TMP/plain.json"
    done
}

echo "generating a ${SIZE_MB} MB Kineto-like trace ..."
gen_trace "$TMP/generated.pt.trace.json" "$SIZE_MB"
gzip -1 "$TMP/generated.pt.trace.json"
bench "$TMP/generated.pt.trace.json.gz"
largest=$CORPUS/HolisticTraceAnalysis/tests/data/mtia_trace_single_rank/mtia_rank_0.json.gz
if [ -f "$largest" ]; then
    bench "$largest"
fi
