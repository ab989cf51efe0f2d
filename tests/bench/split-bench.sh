#!/usr/bin/env bash
# One large trace read in parts (core/split.c): wall time, CPU time and peak RSS of -j 1 and
# -j N on one dense trace, the outputs compared byte for byte, and what each part cost the
# calling thread and the workers, with a projection for more cores (on demand; not a CI test).
# The numbers of docs/scale.md ("One large input") come from this script.
#
# usage: tests/bench/split-bench.sh BUILD_DIR [SIZE_MB]
#   BUILD_DIR  a build of tconv (Release or RelWithDebInfo)
#   SIZE_MB    size of the dense trace, default 1000
# environment:
#   TRACE=FILE  convert FILE instead of generating one (tests/bench/gen_dense.py)
#   WRITER      default pprof
#   JOBS        the -j values after -j 1, default "2"
#   RUNS        rounds of alternating runs (-j 1, then each of JOBS), default 5; medians shown
#   ARGS        more options for every run (say --jobs-memory 64M)
#
# The machine's load (/proc/loadavg) is printed before each run: on shared cores, user CPU
# seconds and the per-part costs are the steadier figures, and wall time is as good as the
# cores that were free. The projection: the calling thread makes every part and replays the
# parts others recorded (its serial share S); the whole work W is that plus reading every
# part; with n threads the array takes about max(S, W / n), the rest of the run (the writer's
# end, before the array) as with -j 1, whose time on idle cores is its CPU time.
set -euo pipefail
BUILD=${1:?usage: split-bench.sh BUILD_DIR [SIZE_MB]}
SIZE_MB=${2:-1000}
RUNS=${RUNS:-5}
W=${WRITER:-pprof}
TCONV=$BUILD/tconv
HERE=$(cd "$(dirname "$0")" && pwd)
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT

IN=${TRACE:-}
if [ -z "$IN" ]; then
    IN=$TMP/dense.json
    python3 "$HERE/gen_dense.py" "$IN" "$SIZE_MB"
fi
bytes=$(stat -c %s "$IN")
echo "$IN: $(awk -v b="$bytes" 'BEGIN{printf "%.0f", b/1e6}') MB, -w $W, $(nproc) online CPUs"
cat "$IN" >/dev/null # in the page cache for every run alike

# run J ROUND: one conversion; its wall, user, sys, RSS (KB) appended to $TMP/J.times
run() {
    local j=$1 i=$2
    rm -f "$TMP/out.$j"
    echo "  load $(cut -d' ' -f1-3 /proc/loadavg) before -j $j round $i"
    TCONV_SPLIT_TRACE=$TMP/split.$j /usr/bin/time -f "%e %U %S %M" -o "$TMP/time" \
        "$TCONV" -q -j "$j" ${ARGS:-} -w "$W" -o "$TMP/out.$j" "$IN"
    cat "$TMP/time" >>"$TMP/$j.times"
    read -r secs usr sys rss <"$TMP/time"
    printf '  -j %s round %s: %6.2f s wall %6.2f s user %5.2f s sys %7.1f MB peak RSS\n' \
        "$j" "$i" "$secs" "$usr" "$sys" "$(awk -v r="$rss" 'BEGIN{print r/1024}')"
}

for ((i = 0; i < RUNS; i++)); do
    run 1 "$i"
    for j in ${JOBS:-2}; do
        run "$j" "$i"
        cmp "$TMP/out.1" "$TMP/out.$j" || {
            echo "FAIL: -j $j output differs from -j 1" >&2
            exit 1
        }
    done
done
echo "load after: $(cat /proc/loadavg)"

median() { sort -g | awk '{a[NR] = $1} END {print (NR % 2) ? a[(NR + 1) / 2] : (a[NR / 2] + a[NR / 2 + 1]) / 2}'; }
declare -A WALL
CPU1=
for j in 1 ${JOBS:-2}; do
    wall=$(cut -d' ' -f1 "$TMP/$j.times" | median)
    usr=$(cut -d' ' -f2 "$TMP/$j.times" | median)
    sys=$(cut -d' ' -f3 "$TMP/$j.times" | median)
    rss=$(cut -d' ' -f4 "$TMP/$j.times" | median)
    WALL[$j]=$wall
    [ -n "$CPU1" ] || CPU1=$(awk -v u="$usr" -v s="$sys" 'BEGIN{print u + s}')
    printf -- '-j %s median of %s: %6.2f s wall (%.2fx -j 1) %6.2f s user %5.2f s sys %7.1f MB peak RSS %6.0f MB/s\n' \
        "$j" "$RUNS" "$wall" "$(awk -v a="$wall" -v b="${WALL[1]}" 'BEGIN{print a/b}')" "$usr" "$sys" \
        "$(awk -v r="$rss" 'BEGIN{print r/1024}')" "$(awk -v b="$bytes" -v s="$wall" 'BEGIN{print b/1e6/s}')"
done

# Per part, from the last -j run's TCONV_SPLIT_TRACE line (CPU seconds of each task).
for j in ${JOBS:-2}; do
    [ -s "$TMP/split.$j" ] || {
        echo "-j $j: the input was not read in parts"
        continue
    }
    echo "-j $j, TCONV_SPLIT_TRACE of the last run: $(tail -n 1 "$TMP/split.$j")"
    tail -n 1 "$TMP/split.$j" | awk -v t1="${CPU1}" -v j="$j" '{
        parts = $2; inl = $4; rep = $6
        for (i = 1; i <= NF; i++) {
            if ($i == "make") make = $(i + 1); if ($i == "inline") tin = $(i + 1)
            if ($i == "replay") trep = $(i + 1); if ($i == "record") trec = $(i + 1)
            if ($i == "wait") wait = $(i + 1); if ($i == "workers") work = $(i + 1)
            if ($i ~ /^[(]/) mrec = substr($i, 2)
        }
        printf "-j %s: %d parts (%d read in line, %d recorded: %d by the calling thread), last run\n", j, parts, inl, rep, mrec
        printf "  calling thread: make %.3f s, in line %.3f s, replay %.3f s, record %.3f s, waited %.3f s; workers %.3f s CPU\n", make, tin, trep, trec, wait, work
        mk = make / parts; ri = inl ? tin / inl : 0; rr = (trec + work) / rep; rp = trep / rep
        printf "  per part (ms): make %.2f, read in line %.2f, record %.2f, replay %.2f\n", mk * 1e3, ri * 1e3, rr * 1e3, rp * 1e3
        # On idle cores -j 1 takes its CPU time (t1). Its array is about parts x read in line
        # (making no parts); the rest of the run is t1 less that.
        arr1 = parts * ri; rest = t1 - arr1; if (rest < 0) rest = 0
        S = parts * (mk + rp); Wk = parts * (mk + rr + rp)
        printf "  projection on idle cores, from -j 1 CPU %.2f s (array %.2f s, rest %.2f s); serial share %.2f s, work %.2f s:\n", t1, arr1, rest, S, Wk
        n = split("2 8 64", ns, " ")
        for (k = 1; k <= n; k++) {
            t = Wk / ns[k]; if (t < S) t = S
            printf "    %2d threads: %.2f s (%.2fx -j 1)\n", ns[k], rest + t, (rest + t) / t1
        }
    }'
done
