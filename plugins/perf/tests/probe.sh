#!/usr/bin/env bash
# Format detection: every perf capture of the corpus is recognised without -r (and gives the same
# output as with -r perf); the inputs that inferno's collapse-guess rejects are rejected too.
# usage: probe.sh TCONV CORPUS
set -euo pipefail
tconv=$1 corpus=$2
if [ ! -d "$corpus" ]; then
    echo "corpus not found at $corpus: skipped"
    exit 77
fi
cd "$corpus"
# Named one by one (no globs), so that a file absent from a partial corpus is counted, not lost.
fg=FlameGraph/test/perf
ss=speedscope/sample/profiles/linux-perf
ff=firefox-profiler/src/test/fixtures/upgrades
pass=0 fail=0 absent=0
for f in $fg-{cycles-instructions-01,dd-stacks-01,funcab-cmd-01,funcab-pid-01}.txt \
    $fg-{iperf-stacks-pidtid-01,java-faults-01,java-stacks-01,java-stacks-02,js-stacks-01}.txt \
    $fg-{mirageos-stacks-01,numa-stacks-01,rust-Yamakaky-dcpu,vertx-stacks-01}.txt \
    FlameGraph/example-perf-stacks.txt.gz \
    inferno/tests/data/collapse-perf/{cpp-stacks-std-function,empty-line,go-stacks,java-inline}.txt \
    inferno/tests/data/collapse-perf/{single-event,single-line-stacks,sourcepawn-jitdump}.txt \
    inferno/tests/data/collapse-perf/{versioned-vmlinux,weird-stack-line}.txt \
    $ss/{forks,rust-mangled,simple-with-header,simple-with-pid,simple,system-wide}.linux-perf.txt \
    $ff/{graphviz,gzip,test}.perf.gz $ff/simple-perf.txt.gz flamescope/examples/perf.test01; do
    [ -f "$f" ] || { absent=$((absent + 1)); continue; }
    guessed=$("$tconv" -w folded "$f" 2>/dev/null || true)
    named=$("$tconv" -r perf -w folded "$f" 2>/dev/null)
    if [ -n "$guessed" ] && [ "$guessed" == "$named" ]; then
        pass=$((pass + 1))
    else
        fail=$((fail + 1))
        echo "FAIL not recognised: $f"
    fi
done
for f in inferno/tests/data/collapse-guess/unknown-format.txt \
    inferno/tests/data/collapse-guess/invalid-perf-with-empty-line-after-event-line.txt; do
    [ -f "$f" ] || { absent=$((absent + 1)); continue; }
    if ! "$tconv" -w folded "$f" >/dev/null 2>"${TMPDIR:-/tmp}/probe.$$" &&
        grep -q "cannot tell the format" "${TMPDIR:-/tmp}/probe.$$"; then
        pass=$((pass + 1))
    else
        fail=$((fail + 1))
        echo "FAIL accepted: $f"
    fi
    rm -f "${TMPDIR:-/tmp}/probe.$$"
done
echo "$pass passed, $fail failed, $absent absent from the corpus (skipped)"
if [ "$pass" = 0 ] && [ "$fail" = 0 ]; then
    echo "none of the 36 inputs is in $corpus: skipped"
    exit 77
fi
[ "$fail" = 0 ] && [ $((pass + absent)) = 36 ]
