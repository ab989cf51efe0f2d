#!/usr/bin/env bash
# folded -> folded is the identity on sorted input: every folded result in the corpus (the
# stackcollapse-perf.pl and inferno expected outputs) must come back byte for byte.
# usage: identity.sh TCONV CORPUS
set -euo pipefail
tconv=$1 corpus=$2
if [ ! -d "$corpus" ]; then
    echo "corpus not found at $corpus: skipped"
    exit 77
fi
cd "$corpus"
# The results of the 13 FlameGraph captures are named one by one, so that the ones absent from a
# partial corpus are counted rather than lost.
gen=_generated/stackcollapse-perf-41fee1f
files=()
for n in cycles-instructions-01 dd-stacks-01 funcab-cmd-01 funcab-pid-01 iperf-stacks-pidtid-01 \
    java-faults-01 java-stacks-01 java-stacks-02 js-stacks-01 mirageos-stacks-01 numa-stacks-01 \
    rust-Yamakaky-dcpu vertx-stacks-01; do
    files+=(FlameGraph/test/results/perf-$n-collapsed-{pid,tid,kernel,jit,all,addrs}.txt)
done
for n in java-faults-01 java-stacks-01 java-stacks-02 vertx-stacks-01; do
    files+=("$gen"/FlameGraph/test/results/perf-$n-collapsed-{pid,tid}.txt)
done
files+=(inferno/tests/data/collapse-perf/results/*.txt)
while IFS= read -r f; do files+=("$f"); done < <(find "$gen" -name '*.txt' -not -path "$gen/FlameGraph/*" 2>/dev/null | sort)
pass=0 fail=0 absent=0
for f in "${files[@]}"; do
    [ -f "$f" ] || { absent=$((absent + 1)); continue; }
    if "$tconv" -r folded -w folded "$f" | cmp -s - "$f"; then
        pass=$((pass + 1))
    else
        fail=$((fail + 1))
        echo "FAIL $f"
        "$tconv" -r folded -w folded "$f" | diff - "$f" | head -6 | cut -c1-160
    fi
done
echo "$pass passed, $fail failed, $absent absent from the corpus (skipped)"
if [ "$pass" = 0 ] && [ "$fail" = 0 ]; then
    echo "no folded result in $corpus: skipped"
    exit 77
fi
# 78 FlameGraph results, 15 inferno results, 28 generated with the Perl script
[ "$fail" = 0 ] && [ $((pass + absent)) = 121 ]
