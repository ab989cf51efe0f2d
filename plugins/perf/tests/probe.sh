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
pass=0 fail=0
for f in FlameGraph/test/perf-*.txt FlameGraph/example-perf-stacks.txt.gz \
    inferno/tests/data/collapse-perf/{cpp-stacks-std-function,empty-line,go-stacks,java-inline}.txt \
    inferno/tests/data/collapse-perf/{single-event,single-line-stacks,sourcepawn-jitdump}.txt \
    inferno/tests/data/collapse-perf/{versioned-vmlinux,weird-stack-line}.txt \
    speedscope/sample/profiles/linux-perf/*.txt firefox-profiler/src/test/fixtures/upgrades/*.perf.gz \
    firefox-profiler/src/test/fixtures/upgrades/simple-perf.txt.gz flamescope/examples/perf.test01; do
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
    if ! "$tconv" -w folded "$f" >/dev/null 2>"${TMPDIR:-/tmp}/probe.$$" &&
        grep -q "cannot tell the format" "${TMPDIR:-/tmp}/probe.$$"; then
        pass=$((pass + 1))
    else
        fail=$((fail + 1))
        echo "FAIL accepted: $f"
    fi
    rm -f "${TMPDIR:-/tmp}/probe.$$"
done
echo "$pass passed, $fail failed"
[ "$fail" = 0 ] && [ "$pass" = 36 ]
