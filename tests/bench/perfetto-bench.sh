#!/usr/bin/env bash
# Speed and size of the perfetto writer and reader (on demand; not a CI test).
#
# usage: tests/bench/perfetto-bench.sh BUILD_DIR [TRACE]
#   BUILD_DIR  a Release or RelWithDebInfo build of tconv
#   TRACE      a Chrome trace (.json or .json.gz); default: the largest Kineto trace of the
#              corpus (../shared/corpus)
# environment:
#   RUNS          runs per measurement, the best of which is shown (default 3)
#   CALLGRIND=1   also count instructions with valgrind --tool=callgrind (steady on a shared
#                 machine, where wall times are not)
#
# Prints, for the decompressed JSON: JSON -> chrome (the Chrome writer) and JSON -> perfetto
# (the writer, with the ordering stage it asks for), and the readers through the same writer:
# JSON -> chrome and .pftrace -> chrome: seconds, CPU seconds, peak RSS, MB/s of JSON or events/s;
# then the sizes: JSON, .pftrace, their ratio, .pftrace.gz. The load average is printed with
# the timings: on a shared machine compare CPU seconds or instruction counts.
set -euo pipefail
BUILD=${1:?usage: perfetto-bench.sh BUILD_DIR [TRACE]}
RUNS=${RUNS:-3}
TCONV=$BUILD/tconv
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
CORPUS=$ROOT/../shared/corpus
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT
TRACE=${2:-$CORPUS/HolisticTraceAnalysis/tests/data/mtia_trace_single_rank/mtia_rank_0.json.gz}
[ -f "$TRACE" ] || { echo "no trace: $TRACE" >&2; exit 1; }

gzip -dcf "$TRACE" >"$TMP/in.json"
bytes=$(stat -c %s "$TMP/in.json")
"$TCONV" -q -o "$TMP/in.pftrace" "$TMP/in.json"
events=$("$TCONV" -q -w text "$TMP/in.json" | grep -vc '^track \|^sampletype ' || true)

# measure LABEL CMD...: best of RUNS: seconds, CPU seconds, peak RSS (KB) in LAST_*.
measure() {
    local label=$1
    shift
    local best= best_cpu= best_rss=0
    for ((i = 0; i < RUNS; i++)); do
        /usr/bin/time -f "%e %U %S %M" -o "$TMP/time" "$@" >/dev/null 2>"$TMP/err" || {
            cat "$TMP/err" >&2
            exit 1
        }
        read -r secs usr sys rss <"$TMP/time"
        cpu=$(echo "$usr + $sys" | bc)
        if [ -z "$best" ] || [ "$(echo "$cpu < $best_cpu" | bc)" = 1 ]; then
            best=$secs best_cpu=$cpu best_rss=$rss
        fi
    done
    LAST_S=$best LAST_CPU=$best_cpu LAST_RSS=$best_rss
    local ins=""
    if [ "${CALLGRIND:-0}" = 1 ]; then
        valgrind --tool=callgrind --callgrind-out-file="$TMP/cg.out" "$@" >/dev/null 2>"$TMP/cg.err"
        ins=$(sed -n 's/.*Collected : \([0-9]*\).*/\1/p' "$TMP/cg.err")
        ins=" $(echo "scale=2; $ins / 1000000000" | bc) G instructions"
    fi
    printf '%-34s %6.2f s  cpu %6.2f s  rss %7.1f MB%s\n' "$label" "$LAST_S" "$LAST_CPU" \
        "$(echo "scale=1; $LAST_RSS / 1024" | bc)" "$ins"
}
mbs() { echo "scale=0; $bytes / 1048576 / $1" | bc; }
eps() { echo "scale=0; $events / $1" | bc; }

echo "trace: $TRACE"
echo "JSON $((bytes / 1048576)) MB, $events events; load average: $(cut -d' ' -f1-3 /proc/loadavg)"
measure "JSON -> chrome (writer baseline)" "$TCONV" -q -r chrome -w chrome -o "$TMP/o.json" "$TMP/in.json"
echo "    $(mbs "$LAST_CPU") MB/s of JSON per CPU second"
measure "JSON -> perfetto" "$TCONV" -q -r chrome -w perfetto -o "$TMP/o.pftrace" "$TMP/in.json"
echo "    $(mbs "$LAST_CPU") MB/s of JSON per CPU second"
measure "JSON -> text-ordered (ordering)" "$TCONV" -q -r chrome -w text-ordered -o /dev/null "$TMP/in.json"
measure "reader: JSON -> chrome" "$TCONV" -q -r chrome -w chrome -o "$TMP/o.json" "$TMP/in.json"
echo "    $(eps "$LAST_CPU") events per CPU second"
measure "reader: .pftrace -> chrome" "$TCONV" -q -r perfetto -w chrome -o "$TMP/o.json" "$TMP/in.pftrace"
echo "    $(eps "$LAST_CPU") events per CPU second"
pf=$(stat -c %s "$TMP/in.pftrace")
gzip -6 -c "$TMP/in.pftrace" >"$TMP/in.pftrace.gz"
echo "sizes: JSON $bytes, .pftrace $pf ($(echo "scale=1; 100 * $pf / $bytes" | bc) % of the JSON)," \
    ".pftrace.gz $(stat -c %s "$TMP/in.pftrace.gz")"
echo "load average after: $(cut -d' ' -f1-3 /proc/loadavg)"
