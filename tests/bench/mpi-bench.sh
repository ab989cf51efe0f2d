#!/usr/bin/env bash
# The MPI mode: wall time, CPU time and peak RSS per process of converting several rank traces
# with one process (-j 1) and with mpirun -n P (on demand; not a CI test). The MPI numbers of
# docs/scale.md come from this script.
#
# usage: tests/bench/mpi-bench.sh BUILD_DIR [SIZE_MB] [RANKS]
#   BUILD_DIR  a build of tconv with -DTCONV_MPI=ON (RelWithDebInfo or Release)
#   SIZE_MB    size of each rank's trace (plain JSON), default 50
#   RANKS      how many rank traces, default 8
# environment:
#   WRITERS    default "pprof folded"
#   PROCS      the mpirun -n values, default "2"
#   RUNS       runs per measurement, the best of which is shown (default 3)
#   OMPI_MCA_pml=ob1  on one machine: Open MPI without UCX, whose probing costs 0.2 s per start
#   MPIRUN1=1  also time `mpirun -n 1` (a plain run, plus mpirun's start-up), shown as P=m1:
#              the speed-up from more processes with the launcher's cost on both sides
#
# The traces are those of tests/bench/jobs-bench.sh. Each MPI run's output is checked to be
# byte-identical to the single process's. Wall time is the whole mpirun's (start-up included);
# CPU is the sum of user + system over the ranks; RSS is each rank's peak.
set -euo pipefail
BUILD=${1:?usage: mpi-bench.sh BUILD_DIR [SIZE_MB] [RANKS]}
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
    inputs+=("$f")
done
total=$(cat "${inputs[@]}" | wc -c)
echo "$NRANKS traces of $SIZE_MB MB ($(awk -v b="$total" 'BEGIN{printf "%.0f", b/1e6}') MB in all)," \
    "$(nproc) online CPUs"
echo "load before: $(uptime)"

# Each rank timed on its own: /usr/bin/time around tconv, its report named by the rank.
cat >"$TMP/rank.sh" <<'EOS'
#!/bin/sh
exec /usr/bin/time -f "%e %U %S %M" -o "$TIMES.${OMPI_COMM_WORLD_RANK:-${PMI_RANK:-0}}" "$@"
EOS
chmod +x "$TMP/rank.sh"
export TIMES=$TMP/time

for w in ${WRITERS:-pprof folded}; do
    for p in 1 ${MPIRUN1:+m1} ${PROCS:-2}; do
        best=
        for ((i = 0; i < RUNS; i++)); do
            rm -rf "$TMP/out.$p" "$TIMES".*
            start=$(date +%s.%N)
            if [ "$p" = 1 ]; then
                "$TMP/rank.sh" "$TCONV" -q -j 1 -w "$w" -o "$TMP/out.$p" "${inputs[@]}"
            elif [ "$p" = m1 ]; then
                mpirun -q --allow-run-as-root -n 1 "$TMP/rank.sh" "$TCONV" -q -j 1 -w "$w" \
                    -o "$TMP/out.$p" "${inputs[@]}"
            else
                mpirun -q --oversubscribe --allow-run-as-root -n "$p" "$TMP/rank.sh" "$TCONV" -q \
                    -w "$w" -o "$TMP/out.$p" "${inputs[@]}"
            fi
            end=$(date +%s.%N)
            secs=$(awk -v a="$start" -v b="$end" 'BEGIN{printf "%.2f", b - a}')
            line=$(cat "$TIMES".* | awk -v s="$secs" '{c += $2 + $3; rss = rss sprintf(" %.1f", $4 / 1024)}
                END{printf "%6.2f s wall %6.2f s user+sys, peak RSS per rank (MB):%s", s, c, rss}')
            echo "  -w $w P=$p run $i: $line"
            if [ -z "$best" ] || awk -v a="$secs" -v b="$best" 'BEGIN{exit !(a < b)}'; then
                best=$secs
            fi
        done
        echo "-w $w P=$p: best $best s"
        if [ "$p" != 1 ]; then
            # otf2 writes a directory: compared file by file
            diff -r "$TMP/out.1" "$TMP/out.$p" >/dev/null || {
                echo "mpirun -n $p output differs from one process's" >&2
                exit 1
            }
        fi
    done
done
# What mpirun itself costs (start, MPI_Init, MPI_Finalize): the same run on one small input.
small=$TMP/small.json
head -c 200000 "${inputs[0]}" | sed '$d' >"$small"
for p in ${PROCS:-2}; do
    for ((i = 0; i < RUNS; i++)); do
        rm -f "$TMP/small.out"
        start=$(date +%s.%N)
        mpirun -q --oversubscribe --allow-run-as-root -n "$p" "$TCONV" -q -w folded -r chrome \
            -o "$TMP/small.out" "$small" "$small" 2>/dev/null || true
        end=$(date +%s.%N)
        echo "  mpirun -n $p on a small input run $i: $(awk -v a="$start" -v b="$end" 'BEGIN{printf "%.2f", b - a}') s wall"
    done
done
echo "load after: $(uptime)"
