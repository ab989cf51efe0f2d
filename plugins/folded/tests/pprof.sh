#!/usr/bin/env bash
# folded -> pprof -> `go tool pprof -traces` gives back the same stacks and totals. (The inputs
# have no C++ templates: pprof shortens "f<T>::g" to "f::g" when it prints.)
# usage: pprof.sh TCONV CORPUS
set -euo pipefail
tconv=$1 corpus=$2
if [ ! -d "$corpus" ]; then
    echo "corpus not found at $corpus: skipped"
    exit 77
fi
if ! command -v go >/dev/null || ! "$tconv" --list | grep -q "writer  pprof "; then
    echo "needs go and the pprof writer: skipped"
    exit 77
fi
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
export HOME=${HOME:-$tmp}

# -traces prints each sample as a block: its value and the leaf frame on the first line, the
# callers below, blocks separated by "-----+-----" rules. Fold them back, root first.
traces_to_folded() {
    awk '
        /^-+\+-+$/ { col = index($0, "+"); if (n) emit(); started = 1; next }
        !started || col == 0 { next }
        {
            head = substr($0, 1, col - 1); frame = substr($0, col + 2)
            if (n == 0) { split(head, f, " "); value = f[1] }
            stack[n++] = frame
        }
        function emit(   s, i) {
            s = stack[n - 1]
            for (i = n - 2; i >= 0; i--) s = s ";" stack[i]
            sum[s] += value; n = 0
        }
        END { if (n) emit(); for (s in sum) print s " " sum[s] }' | LC_ALL=C sort
}

pass=0 fail=0 absent=0
for f in FlameGraph/test/results/perf-dd-stacks-01-collapsed-pid.txt \
    FlameGraph/test/results/perf-funcab-cmd-01-collapsed-tid.txt \
    FlameGraph/test/results/perf-java-stacks-01-collapsed-kernel.txt \
    FlameGraph/test/results/perf-cycles-instructions-01-collapsed-all.txt \
    FlameGraph/test/results/perf-iperf-stacks-pidtid-01-collapsed-tid.txt \
    FlameGraph/test/results/perf-mirageos-stacks-01-collapsed-all.txt \
    inferno/tests/data/collapse-perf/results/go-stacks-collapsed.txt; do
    [ -f "$corpus/$f" ] || { absent=$((absent + 1)); continue; }
    "$tconv" -r folded -w pprof -o "$tmp/p.pb.gz" "$corpus/$f"
    go tool pprof -traces "$tmp/p.pb.gz" 2>/dev/null | traces_to_folded >"$tmp/back"
    want_total=$(awk '{ s += $NF } END { print s }' "$corpus/$f")
    got_total=$(awk '{ s += $NF } END { print s }' "$tmp/back")
    if cmp -s "$tmp/back" "$corpus/$f" && [ "$want_total" = "$got_total" ]; then
        pass=$((pass + 1))
    else
        fail=$((fail + 1))
        echo "FAIL $f (total $got_total, want $want_total)"
        diff "$tmp/back" "$corpus/$f" | head -10 | cut -c1-160
    fi
done
echo "$pass passed, $fail failed, $absent absent from the corpus (skipped)"
if [ "$pass" = 0 ] && [ "$fail" = 0 ]; then
    echo "none of the inputs is in $corpus: skipped"
    exit 77
fi
[ "$fail" = 0 ]
