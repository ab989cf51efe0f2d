#!/usr/bin/env bash
# Benchmark of chrome -> otf2 (not a CI test): throughput and peak RSS on a trace of the shared
# corpus and on a generated Kineto-like trace of about 250 MB.
# Usage: otf2_bench.sh TCONV CORPUS_TRACE [SCRATCH_DIR]
#   TCONV          a Release build's tconv (its plugins/ beside it)
#   CORPUS_TRACE   e.g. ../shared/corpus/HolisticTraceAnalysis/tests/data/mtia_trace_single_rank/mtia_rank_0.json.gz
# Prints, per input: uncompressed MB, JSON and OTF2 events, seconds (best of 3), MB/s, peak RSS and
# RSS; then the growth of peak RSS per JSON event between a half-size and a full-size generated
# trace (the bound to keep: under 40 bytes per event plus a fixed part). Then the streaming
# directions, whose peak RSS must not grow with the input: each archive written above read back
# to Chrome JSON and to text (MB/s of the archive's files), and each JSON input to Chrome JSON.
set -euo pipefail
TCONV=$1
CORPUS_TRACE=$2
SCRATCH=${3:-$(mktemp -d)}
mkdir -p "$SCRATCH"

# One training step per iteration on one CPU thread and one GPU stream: a step span holding
# 8 operators, each with a cudaLaunchKernel (args as Kineto writes them) and an ac2g flow to
# its kernel, a [memory] instant per operator and a memory counter per step. 22 000 steps make
# about 220 MB and 1.2 million JSON events. (Big integers go through %.0f: awk's %d may be
# 32-bit.)
generate() {
    awk -v steps="${STEPS:-22000}" 'BEGIN {
        print "{\"schemaVersion\": 1, \"distributedInfo\": {\"rank\": 0}, \"traceEvents\": ["
        print "{\"ph\": \"M\", \"name\": \"process_name\", \"pid\": 4242, \"tid\": 0, \"args\": {\"name\": \"python3\"}},"
        print "{\"ph\": \"M\", \"name\": \"process_labels\", \"pid\": 0, \"tid\": 0, \"args\": {\"labels\": \"GPU 0\"}},"
        t = 1712195495000000; id = 1
        for (s = 0; s < steps; s++) {
            printf "{\"ph\": \"X\", \"cat\": \"user_annotation\", \"name\": \"ProfilerStep#%d\", \"pid\": 4242, \"tid\": 4242, \"ts\": %.0f.%03d, \"dur\": 900.5, \"args\": {\"External id\": %d}},\n", s, t, s % 1000, id
            printf "{\"ph\": \"C\", \"name\": \"Memory\", \"pid\": 4242, \"ts\": %.0f.%03d, \"args\": {\"allocated\": %d, \"reserved\": %d}},\n", t, s % 1000, s * 1024, 1048576
            for (o = 0; o < 8; o++) {
                b = t + 10 + o * 100
                printf "{\"ph\": \"X\", \"cat\": \"cpu_op\", \"name\": \"aten::op%d\", \"pid\": 4242, \"tid\": 4242, \"ts\": %.0f.%03d, \"dur\": 80.25, \"args\": {\"External id\": %d, \"Record function id\": 0, \"Input Dims\": [[64, 128], [128, 256]], \"Input type\": [\"float\", \"float\"], \"Ev Idx\": %d}},\n", o, b, o, id, id
                printf "{\"ph\": \"X\", \"cat\": \"cuda_runtime\", \"name\": \"cudaLaunchKernel\", \"pid\": 4242, \"tid\": 4242, \"ts\": %.0f.%03d, \"dur\": 5.125, \"args\": {\"External id\": %d, \"cbid\": 211, \"correlation\": %d}},\n", b + 20, o, id, id
                printf "{\"ph\": \"s\", \"id\": %d, \"pid\": 4242, \"tid\": 4242, \"ts\": %.0f.%03d, \"cat\": \"ac2g\", \"name\": \"ac2g\"},\n", id, b + 20, o
                printf "{\"ph\": \"X\", \"cat\": \"kernel\", \"name\": \"volta_sgemm_128x64_nn_%d\", \"pid\": 0, \"tid\": 7, \"ts\": %.0f.%03d, \"dur\": 40.5, \"args\": {\"External id\": %d, \"queued\": 0, \"device\": 0, \"context\": 1, \"stream\": 7, \"correlation\": %d, \"registers per thread\": 128, \"shared memory\": 16384, \"grid\": [256, 1, 1], \"block\": [256, 1, 1]}},\n", o, b + 40, o, id, id
                printf "{\"ph\": \"f\", \"id\": %d, \"pid\": 0, \"tid\": 7, \"ts\": %.0f.%03d, \"cat\": \"ac2g\", \"name\": \"ac2g\", \"bp\": \"e\"},\n", id, b + 40, o
                printf "{\"ph\": \"i\", \"s\": \"t\", \"name\": \"[memory]\", \"pid\": 4242, \"tid\": 4242, \"ts\": %.0f.%03d, \"args\": {\"Device Type\": 1, \"Device Id\": 0, \"Addr\": %d, \"Bytes\": 4096, \"Total Allocated\": %d, \"Total Reserved\": 1048576}},\n", b + 30, o, 140000000 + id, id * 4096
                id++
            }
            t += 1000
        }
        print "{\"ph\": \"i\", \"s\": \"g\", \"name\": \"Record Window End\", \"pid\": \"\", \"tid\": \"\", \"ts\": " t "}"
        print "]}"
    }'
}

best() { # best LABEL BYTES CMD...: the best time of three runs, the largest peak RSS
    local label=$1 bytes=$2 secs=999999 rss=0 s r
    shift 2
    for _ in 1 2 3; do
        /usr/bin/time -f "%e %M" -o "$SCRATCH/best.time" "$@" >/dev/null
        read -r s r <"$SCRATCH/best.time"
        secs=$(awk -v a="$s" -v b="$secs" 'BEGIN{print (a < b ? a : b)}')
        [ "$r" -gt "$rss" ] && rss=$r
    done
    awk -v n="$label" -v b="$bytes" -v s="$secs" -v r="$rss" '
        BEGIN { printf "%-24s %7.1f MB %6.2f s %6.1f MB/s peak RSS %6.1f MB\n",
                       n, b / 1e6, s, b / 1e6 / (s > 0 ? s : 0.01), r / 1024 }'
}

readback() { # readback NAME FILE: the archive NAME.otf2 to chrome and text; FILE to chrome
    local archive=$SCRATCH/$1.otf2 bytes
    bytes=$(du -sb "$archive" | cut -f1)
    best "$1 otf2 -> chrome" "$bytes" "$TCONV" -q -r otf2 -w chrome -o "$SCRATCH/back.json" "$archive"
    best "$1 otf2 -> text" "$bytes" "$TCONV" -q -r otf2 -w text -o - "$archive"
    bytes=$(gzip -dcf "$2" | wc -c)
    best "$1 chrome -> chrome" "$bytes" "$TCONV" -q -r chrome -w chrome -o "$SCRATCH/back.json" "$2"
    rm -f "$SCRATCH/back.json"
}

measure() { # measure NAME FILE: the best time of three runs, the largest peak RSS
    local name=$1 file=$2 out=$SCRATCH/$1.otf2
    local bytes events json secs=999999 rss=0
    bytes=$(gzip -dcf "$file" | wc -c)
    json=$(gzip -dcf "$file" | grep -o '"ph" *:' | wc -l)
    for _ in 1 2 3; do
        rm -rf "$out"
        /usr/bin/time -f "%e %M" -o "$SCRATCH/$name.time" "$TCONV" -q -r chrome -w otf2 -o "$out" "$file"
        read -r s r <"$SCRATCH/$name.time"
        secs=$(awk -v a="$s" -v b="$secs" 'BEGIN{print (a < b ? a : b)}')
        [ "$r" -gt "$rss" ] && rss=$r
    done
    events=$(otf2-print "$out/traces.otf2" | grep -c -E '^(ENTER|LEAVE|METRIC|MPI_SEND|MPI_RECV) ')
    LAST_JSON=$json LAST_RSS=$rss
    awk -v n="$name" -v b="$bytes" -v e="$events" -v j="$json" -v s="$secs" -v r="$rss" '
        BEGIN { printf "%-10s %7.1f MB %8d JSON events %8d OTF2 events %6.2f s %6.1f MB/s peak RSS %6.1f MB\n",
                       n, b / 1e6, j, e, s, b / 1e6 / s, r / 1024 }'
}

measure corpus "$CORPUS_TRACE"
# Bytes per event: the slope of peak RSS between the generated trace at half and full size, so
# that fixed costs (program, libraries, OTF2's buffers) drop out.
[ -f "$SCRATCH/half.json" ] || STEPS=$((${STEPS:-22000} / 2)) generate >"$SCRATCH/half.json"
measure half "$SCRATCH/half.json"
half_json=$LAST_JSON half_rss=$LAST_RSS
[ -f "$SCRATCH/generated.json" ] || generate >"$SCRATCH/generated.json"
measure generated "$SCRATCH/generated.json"
awk -v j1="$half_json" -v r1="$half_rss" -v j2="$LAST_JSON" -v r2="$LAST_RSS" 'BEGIN {
    printf "peak RSS grows by %.1f bytes per JSON event (fixed part %.1f MB)\n",
           (r2 - r1) * 1024 / (j2 - j1), (r1 - (r2 - r1) * j1 / (j2 - j1)) / 1024 }'
echo "streaming directions (peak RSS must not grow from half to generated):"
readback corpus "$CORPUS_TRACE"
readback half "$SCRATCH/half.json"
readback generated "$SCRATCH/generated.json"
