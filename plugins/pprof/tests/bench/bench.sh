#!/usr/bin/env bash
# chrome -> pprof throughput and peak memory against `gzip -dc` of the same file (not a CI test).
# Usage: bench.sh TCONV TRACE.json.gz [RUNS]
# Prints the best of RUNS (default 3) wall and CPU (user + sys) times, MB/s of decompressed JSON,
# and peak RSS. CPU time is the steadier measure on a loaded machine.
set -euo pipefail

tconv=$1 trace=$2 runs=${3:-3}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

measure() { # command... ; prints "wall cpu kilobytes" per run
    for _ in $(seq "$runs"); do
        /usr/bin/time -f "%e %U %S %M" -o "$tmp/time" "$@" >/dev/null
        awk '{ printf "%s %.2f %s\n", $1, $2 + $3, $4 }' "$tmp/time"
    done
}
col_min() { awk -v c="$1" '{ print $c }' "$2" | sort -n | head -1; }

bytes=$(gzip -dc "$trace" | wc -c)
measure gzip -dc "$trace" >"$tmp/gzip"
measure "$tconv" -q --force -r chrome -w pprof -o "$tmp/out.pb.gz" "$trace" >"$tmp/tconv"
awk -v b="$bytes" -v name="$(basename "$trace")" \
    -v gw="$(col_min 1 "$tmp/gzip")" -v gc="$(col_min 2 "$tmp/gzip")" \
    -v tw="$(col_min 1 "$tmp/tconv")" -v tc="$(col_min 2 "$tmp/tconv")" \
    -v rss="$(awk '{ print $3 }' "$tmp/tconv" | sort -n | tail -1)" 'BEGIN {
    printf "%s: %.1f MB JSON\n", name, b / 1e6
    printf "  wall: gzip -dc %.2f s, tconv %.2f s (%.2fx, %.0f MB/s)\n", gw, tw, tw / gw, b / 1e6 / tw
    printf "  cpu:  gzip -dc %.2f s, tconv %.2f s (%.2fx)\n", gc, tc, tc / gc
    printf "  peak RSS %.1f MB\n", rss / 1024 }'
