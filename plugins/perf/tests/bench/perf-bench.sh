#!/usr/bin/env bash
# perf -> folded throughput and peak memory of tconv, against stackcollapse-perf.pl and a bare awk
# pass over the same bytes (the floor any line-by-line tool pays). Not a CI test.
#
# usage: perf-bench.sh TCONV [WORKDIR]
#   CORPUS=dir             the shared corpus (default: ../shared/corpus beside the repo)
#   STACKCOLLAPSE_PERF=pl  FlameGraph's stackcollapse-perf.pl, fetched outside the repo; skipped
#                          when unset
#   BIG_MB=n               size of the repeated-capture file (default 500)
#
# Inputs: the largest perf capture of the corpus (FlameGraph example-perf-stacks, 3.1 MB
# decompressed, a system-wide `perf record -a -g`), and a file of at least BIG_MB made by
# repeating real captures that share one event (cycles), so every tool folds every sample.
set -euo pipefail
tconv=$1
work=${2:-$(mktemp -d)}
here=$(cd "$(dirname "$0")" && pwd)
corpus=${CORPUS:-$here/../../../../../shared/corpus}
big_mb=${BIG_MB:-500}
mkdir -p "$work"

if [ ! -d "$corpus" ]; then
    echo "corpus not found at $corpus" >&2
    exit 1
fi
gzip -dc "$corpus/FlameGraph/example-perf-stacks.txt.gz" >"$work/largest.perf"
unit=$work/unit.perf
{
    for f in FlameGraph/example-perf-stacks.txt.gz FlameGraph/test/perf-java-stacks-01.txt \
        FlameGraph/test/perf-java-stacks-02.txt firefox-profiler/src/test/fixtures/upgrades/graphviz.perf.gz \
        firefox-profiler/src/test/fixtures/upgrades/gzip.perf.gz; do
        gzip -dcf "$corpus/$f"
        echo
    done
} >"$unit"
if [ ! -f "$work/big.perf" ] || [ "$(stat -c %s "$work/big.perf")" -lt $((big_mb * 1000000)) ]; then
    n=$((big_mb * 1000000 / $(stat -c %s "$unit") + 1))
    for _ in $(seq "$n"); do cat "$unit"; done >"$work/big.perf"
fi

# best wall time of RUNS runs (clock in ns: /usr/bin/time counts in 10 ms steps) and the peak
# RSS as /usr/bin/time -v reports it: "seconds kilobytes"
measure() {
    local runs=$1
    shift
    local best="" rss t0 t1 t
    for _ in $(seq "$runs"); do
        t0=$(date +%s%N)
        "$@" >"$work/out" 2>/dev/null
        t1=$(date +%s%N)
        t=$((t1 - t0))
        if [ -z "$best" ] || [ "$t" -lt "$best" ]; then best=$t; fi
    done
    /usr/bin/time -v "$@" 2>"$work/time" >"$work/out"
    rss=$(awk -F': ' '/Maximum resident set size/ { print $2 }' "$work/time")
    cpu=$(awk -F': ' '/User time|System time/ { s += $2 } END { printf "%.3f", s }' "$work/time")
    echo "$(awk -v t="$best" 'BEGIN { printf "%.4f", t / 1e9 }') $rss $cpu"
}

report() { # LABEL FILE SECONDS KB CPU-SECONDS
    local mb
    mb=$(awk -v b="$(stat -c %s "$2")" 'BEGIN { printf "%.1f", b / 1e6 }')
    awk -v l="$1" -v mb="$mb" -v s="$3" -v k="$4" -v c="$5" 'BEGIN {
        rate = s > 0 ? mb / s : 0
        printf "  %-26s %8.3f s wall %9.1f MB/s %8.2f s cpu %8.1f MB peak RSS\n", l, s, rate, c, k / 1024 }'
}

for input in "$work/largest.perf" "$work/big.perf"; do
    size=$(stat -c %s "$input")
    runs=3
    [ "$size" -lt 50000000 ] && runs=20
    echo "$(basename "$input"): $(awk -v b="$size" 'BEGIN { printf "%.1f MB", b / 1e6 }'), best of $runs"
    cat "$input" >/dev/null # warm the page cache for everyone
    read -r s k c < <(measure "$runs" "$tconv" -r perf -w folded -o "$work/tconv.folded" --force "$input")
    report "tconv -r perf -w folded" "$input" "$s" "$k" "$c"
    read -r s k c < <(measure "$runs" awk '{ n += NF } END { print n }' "$input")
    report "awk '{ n += NF }'" "$input" "$s" "$k" "$c"
    if [ -n "${STACKCOLLAPSE_PERF:-}" ]; then
        prun=$runs
        [ "$size" -ge 50000000 ] && prun=1
        read -r s k c < <(measure "$prun" perl "$STACKCOLLAPSE_PERF" "$input")
        report "stackcollapse-perf.pl" "$input" "$s" "$k" "$c"
    fi
done
echo "distinct stacks in the big file: $(wc -l <"$work/tconv.folded")"
