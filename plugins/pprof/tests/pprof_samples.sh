#!/usr/bin/env bash
# Stack samples into pprof: a real perf script capture (perf reader) and the folded stacks that
# inferno makes of it (folded reader) must give, per leaf function, exactly the sample counts of
# inferno's expected output; the same input must give the same bytes; go tool pprof reads both.
# Usage: pprof_samples.sh TCONV PPROF_DUMP CORPUS_DIR
set -euo pipefail

tconv=$1 dump=$2 corpus=$3
perf_in=$corpus/FlameGraph/example-perf-stacks.txt.gz
folded_in=$corpus/inferno/tests/data/collapse-perf/results/example-perf-stacks-collapsed.txt
if [[ ! -f "$perf_in" || ! -f "$folded_in" ]]; then
    echo "corpus not found at $corpus: skipping" >&2
    exit 77
fi

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
export LC_ALL=C

# Expected: the count of every stack summed on its leaf frame.
awk '{ n = $NF; $NF = ""; sub(/ $/, ""); k = split($0, f, ";"); s[f[k]] += n }
     END { for (x in s) print x "\t" s[x] }' "$folded_in" | sort >"$tmp/want"
[[ $(wc -l <"$tmp/want") -eq 354 ]]

check() { # name reader input
    local name=$1 reader=$2 input=$3
    "$tconv" -q -r "$reader" -w pprof -o "$tmp/$name.pb.gz" "$input"
    "$tconv" -q -r "$reader" -w pprof -o "$tmp/$name.again.pb.gz" "$input"
    cmp "$tmp/$name.pb.gz" "$tmp/$name.again.pb.gz"
    "$dump" flat "$tmp/$name.pb.gz" >"$tmp/$name.flat"
    grep -qx 'types samples/count' "$tmp/$name.flat"
    grep -qx 'total 1315' "$tmp/$name.flat"
    awk -F'\t' '$1 == "flat" { print $2 "\t" $3 }' "$tmp/$name.flat" | sort >"$tmp/$name.got"
    if ! diff -u "$tmp/want" "$tmp/$name.got"; then
        echo "FAIL: $name: flat counts differ from inferno's" >&2
        exit 1
    fi
}
check perf perf "$perf_in"
check folded folded "$folded_in"

# The perf capture names its processes and threads: every sample has pid and tid labels.
"$dump" samples "$tmp/perf.pb.gz" | tail -n +3 >"$tmp/perf.samples"
[[ $(grep -c ' pid=[0-9]* tid=[0-9]* ' "$tmp/perf.samples") -eq $(wc -l <"$tmp/perf.samples") ]]

if command -v go >/dev/null 2>&1; then
    export HOME=$tmp/home GOCACHE=$tmp/gocache GOPATH=$tmp/gopath GOFLAGS= GOPROXY=off TZ=UTC
    export PPROF_TMPDIR=$tmp/pprof
    mkdir -p "$HOME"
    for name in perf folded; do
        for view in -raw -traces -top; do
            go tool pprof -symbolize=none "$view" "$tmp/$name.pb.gz" >"$tmp/out" 2>"$tmp/err"
        done
        grep -q ' of 1315 total$' "$tmp/out"
    done
else
    echo "go is not installed: go tool pprof checks skipped" >&2
fi
