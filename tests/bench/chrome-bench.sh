#!/usr/bin/env bash
# Throughput and peak memory of Chrome trace conversions (on demand; not a CI test).
#
# usage: tests/bench/chrome-bench.sh BUILD_DIR [SIZE_MB]
#   BUILD_DIR  a Release build of tconv (cmake -DCMAKE_BUILD_TYPE=Release)
#   SIZE_MB    size of the generated Kineto-like trace, default 220
# environment:
#   WRITERS    the writers to measure, default "text csv pprof otf2" (those installed)
#   RUNS       runs per measurement, the best of which is shown (default 3)
#   PLAIN=1    also convert the decompressed JSON, which shows the cost without inflating
#
# For each input (a generated trace of SIZE_MB MB, gzipped, and the largest Kineto trace of the
# corpus) it prints, for `gzip -dc` and for `tconv -r chrome -w WRITER`: seconds, MB/s of
# decompressed JSON, CPU seconds (user + system), peak RSS and the ratio to `gzip -dc`, the
# floor a reader of a .json.gz cannot beat with one core. tconv inflates on a second thread, so
# on two free cores its time can approach max(inflate, parse); CPU seconds are the steadier
# figure when the machine is shared. For the writers that buffer events until the end (pprof
# buffers spans for its stack stage, otf2 every event for its ordering stage) it also prints
# the bytes per event: the peak RSS above that of a conversion of a tiny trace (the input's
# first 100 events), over the number of events the reader pushed; for pprof also per span.
set -euo pipefail
BUILD=${1:?usage: chrome-bench.sh BUILD_DIR [SIZE_MB]}
SIZE_MB=${2:-220}
RUNS=${RUNS:-3}
TCONV=$BUILD/tconv
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
CORPUS=$ROOT/../shared/corpus
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT

# The Kineto-like trace of tests/bench/gen_trace.py (CPU ops with args, runtime calls, kernels,
# ac2g flows, [memory] instants; fixed vocabulary and seed).
gen_trace() {
    python3 "$(dirname "$0")/gen_trace.py" "$1" "$2"
}

# The output of one run of writer $1: a file, or for a directory writer a fresh directory
# (removed before each run, outside the timing).
out_of() {
    case $1 in
    otf2) echo "$TMP/out-otf2" ;;
    pprof) echo "$TMP/out.pb.gz" ;;
    *) echo "$TMP/out.$1" ;;
    esac
}

# measure LABEL BYTES CMD...: the best of RUNS runs (the machine may be shared): elapsed
# seconds, MB/s, CPU seconds (user + system), peak RSS. Before each run, $PREP is evaluated.
# Sets LAST_S, LAST_CPU, LAST_RSS (KB) and LAST_LINE.
measure() {
    local label=$1 bytes=$2
    shift 2
    local best= secs usr sys rss cpu best_cpu= best_rss=0
    for ((i = 0; i < RUNS; i++)); do
        eval "${PREP:-:}"
        /usr/bin/time -f "%e %U %S %M" -o "$TMP/time" "$@" >/dev/null 2>"$TMP/stderr" || {
            cat "$TMP/stderr" >&2
            echo "failed: $*" >&2
            exit 1
        }
        read -r secs usr sys rss <"$TMP/time"
        cpu=$(awk -v u="$usr" -v s="$sys" 'BEGIN{print u + s}')
        if [ -z "$best" ] || awk -v a="$secs" -v b="$best" 'BEGIN{exit !(a < b)}'; then
            best=$secs
        fi
        if [ -z "$best_cpu" ] || awk -v a="$cpu" -v b="$best_cpu" 'BEGIN{exit !(a < b)}'; then
            best_cpu=$cpu
        fi
        [ "$rss" -gt "$best_rss" ] && best_rss=$rss
    done
    LAST_S=$best
    LAST_CPU=$best_cpu
    LAST_RSS=$best_rss
    awk -v l="$label" -v s="$best" -v c="$best_cpu" -v b="$bytes" -v r="$best_rss" \
        -v g="${GZIP_S:-0}" -v gc="${GZIP_CPU:-0}" 'BEGIN {
        mbs = s > 0 ? b / 1e6 / s : 0
        ratio = g > 0 && gc > 0 ? sprintf("%.2fx gzip -dc (CPU %.2fx)", s / g, c / gc) : ""
        printf "  %-34s %6.2f s %7.1f MB/s %6.2f s CPU %7.1f MB RSS  %s", l, s, mbs, c, r / 1024, ratio }'
}

writers=()
for w in ${WRITERS:-text csv pprof otf2}; do
    "$TCONV" --list 2>/dev/null | grep -qE "writer +$w " && writers+=("$w")
done

# The first 100 events of a trace as a trace of their own: a tiny conversion of the same kind
# of input, whose peak RSS is what a conversion costs before it holds any events.
head_trace() {
    { gzip -dc "$1" 2>/dev/null || true; } | head -c 16000000 | python3 -c '
import sys
d = sys.stdin.buffer.read()
i = d.index(b"[", d.index(b"\"traceEvents\"")) + 1
depth, n, instr, esc, j = 0, 0, False, False, i
while n < 100 and j < len(d):
    c = d[j]
    if instr:
        esc, instr = (not esc and c == 0x5c), instr and not (not esc and c == 0x22)
    elif c == 0x22:
        instr = True
    elif c in b"{[":
        depth += 1
    elif c in b"}]":
        depth -= 1
        n += depth == 0
    j += 1
sys.stdout.buffer.write(b"{\"traceEvents\": [" + d[i:j] + b"]}\n")'
}

bench() {
    local gz=$1 bytes events
    bytes=$(gzip -dc "$gz" | wc -c)
    events=$("$TCONV" -v -r chrome -w text -o /dev/null "$gz" 2>&1 >/dev/null |
        sed -n 's/^tconv: \([0-9]*\) events from.*/\1/p')
    spans=$("$TCONV" -q -r chrome -w text -W tracks=false "$gz" | grep -cE '^(complete|begin) ' || true)
    echo "$(basename "$gz"): $(awk -v b="$bytes" 'BEGIN{printf "%.1f", b/1e6}') MB of JSON," \
        "$(awk -v b="$(stat -c %s "$gz")" 'BEGIN{printf "%.1f", b/1e6}') MB gzipped," \
        "$events events, $spans spans"
    head_trace "$gz" >"$TMP/head.json"
    declare -A tiny_rss
    for w in "${writers[@]}"; do
        local out
        out=$(out_of "$w")
        rm -rf "$out"
        /usr/bin/time -f "%M" -o "$TMP/time" "$TCONV" -q -r chrome -w "$w" -o "$out" \
            "$TMP/head.json" >/dev/null
        tiny_rss[$w]=$(cat "$TMP/time")
        rm -rf "$out"
    done
    GZIP_S=
    GZIP_CPU=
    PREP=
    measure "gzip -dc" "$bytes" gzip -dc "$gz"
    echo
    GZIP_S=$LAST_S
    GZIP_CPU=$LAST_CPU
    if [ "${PLAIN:-0}" = 1 ]; then
        gzip -dc "$gz" >"$TMP/plain.json"
    fi
    for w in "${writers[@]}"; do
        local out inputs=("$gz")
        out=$(out_of "$w")
        [ "${PLAIN:-0}" = 1 ] && inputs+=("$TMP/plain.json")
        for in in "${inputs[@]}"; do
            local label="tconv -r chrome -w $w"
            [ "$in" = "$gz" ] || label="$label (plain)"
            PREP="rm -rf '$out'"
            measure "$label" "$bytes" "$TCONV" -q -r chrome -w "$w" -o "$out" "$in"
            case $w in
            pprof | otf2)
                awk -v r="$LAST_RSS" -v t="${tiny_rss[$w]}" -v n="$events" -v sp="$spans" \
                    -v w="$w" 'BEGIN {
                    if (n > 0) printf "  %.1f B/event", (r - t) * 1024 / n
                    if (w == "pprof" && sp > 0) printf " (%.1f B/span)", (r - t) * 1024 / sp }'
                ;;
            esac
            echo
            rm -rf "$out"
        done
    done
    rm -f "$TMP/plain.json"
}

echo "$(nproc) cores, load average $(cut -d' ' -f1-3 /proc/loadavg), best of $RUNS runs"
echo "generating a ${SIZE_MB} MB Kineto-like trace ..."
gen_trace "$TMP/generated.pt.trace.json" "$SIZE_MB"
gzip -1 "$TMP/generated.pt.trace.json"
bench "$TMP/generated.pt.trace.json.gz"
largest=$CORPUS/HolisticTraceAnalysis/tests/data/mtia_trace_single_rank/mtia_rank_0.json.gz
if [ -f "$largest" ]; then
    bench "$largest"
fi
