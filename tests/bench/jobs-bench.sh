#!/usr/bin/env bash
# tconv -j: wall time, CPU time and peak RSS of converting several rank traces with -j 1 and
# -j N (on demand; not a CI test). The numbers of docs/scale.md come from this script.
#
# usage: tests/bench/jobs-bench.sh BUILD_DIR [SIZE_MB] [RANKS]
#   BUILD_DIR  a build of tconv (RelWithDebInfo or Release)
#   SIZE_MB    size of each rank's trace (plain JSON), default 50
#   RANKS      how many rank traces, default 8
# environment:
#   WRITERS    default "pprof folded"
#   JOBS       the -j values, default "1 2"
#   RUNS       runs per measurement, the best of which is shown (default 3)
#   GZ=1       gzip the traces (then each input also inflates on a thread of its own)
#
# The traces are the Kineto-like trace of tests/bench/gen_trace.py, one per rank, each with
# the rank's own pid. Every -j's output is checked to be byte-identical to -j 1's. The load of
# the machine (uptime) is printed before and after: on a shared machine, CPU seconds (user +
# system) are the steadier figure, and wall time is only as good as the cores that were free.
set -euo pipefail
BUILD=${1:?usage: jobs-bench.sh BUILD_DIR [SIZE_MB] [RANKS]}
SIZE_MB=${2:-50}
NRANKS=${3:-8}
RUNS=${RUNS:-3}
TCONV=$BUILD/tconv
HERE=$(cd "$(dirname "$0")" && pwd)
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT

python3 "$HERE/gen_trace.py" --ranks "$NRANKS" "$TMP" "$SIZE_MB"
inputs=()
for ((r = 0; r < NRANKS; r++)); do
    f=$TMP/rank-$r.pt.trace.json
    if [ "${GZ:-0}" = 1 ]; then
        gzip -1 "$f"
        f=$f.gz
    fi
    inputs+=("$f")
done
total=$(cat "${inputs[@]}" | wc -c)
echo "$NRANKS traces of $SIZE_MB MB ($(awk -v b="$total" 'BEGIN{printf "%.0f", b/1e6}') MB in all)," \
    "$(nproc) online CPUs"
echo "load before: $(uptime)"

for w in ${WRITERS:-pprof folded}; do
    for j in ${JOBS:-1 2}; do
        best=
        for ((i = 0; i < RUNS; i++)); do
            rm -f "$TMP/out.$j"
            /usr/bin/time -f "%e %U %S %M" -o "$TMP/time" "$TCONV" -q -j "$j" -w "$w" \
                -o "$TMP/out.$j" "${inputs[@]}"
            read -r secs usr sys rss <"$TMP/time"
            line=$(awk -v s="$secs" -v u="$usr" -v y="$sys" -v r="$rss" \
                'BEGIN{printf "%6.2f s wall %6.2f s user+sys %7.1f MB peak RSS", s, u + y, r / 1024}')
            echo "  -w $w -j $j run $i: $line"
            if [ -z "$best" ] || awk -v a="$secs" -v b="$best" 'BEGIN{exit !(a < b)}'; then
                best=$secs
            fi
        done
        echo "-w $w -j $j: best $best s"
        if [ "$j" != 1 ] && [ -e "$TMP/out.1" ]; then
            cmp "$TMP/out.1" "$TMP/out.$j" || {
                echo "-j $j output differs from -j 1" >&2
                exit 1
            }
        fi
    done
done
echo "load after: $(uptime)"
