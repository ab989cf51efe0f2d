#!/usr/bin/env bash
# The folded writer: span input becomes self time (as stackcollapse-chrome-tracing.py computes
# it), in exact ns or µs rounded to nearest, one unit for CPU and GPU time, without zero lines;
# names are made safe for the format; the thread root frame option matches what the perf
# reader's own pid/tid options produce.
# usage: writer.sh TCONV TESTDIR CORPUS
set -euo pipefail
tconv=$1 dir=$2 corpus=$3
if [ ! -d "$corpus" ]; then
    echo "corpus not found at $corpus: skipped"
    exit 77
fi
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
pass=0 fail=0 absent=0
ok() { pass=$((pass + 1)); }
bad() {
    fail=$((fail + 1))
    echo "FAIL $*"
}
same() { # NAME EXPECTED-FILE COMMAND...
    local name=$1 want=$2
    shift 2
    if "$@" >"$tmp/out" 2>"$tmp/err" && cmp -s "$tmp/out" "$want"; then
        ok
    else
        bad "$name"
        diff "$tmp/out" "$want" | head -10 | cut -c1-160
        cat "$tmp/err"
    fi
}

if "$tconv" --list | grep -q "reader  chrome "; then
    # stackcollapse-chrome-tracing.py prints self times in µs as Python floats ("14.0"), and
    # stacks of 0 µs, which tconv leaves out
    gen=$corpus/_generated/stackcollapse-chrome-tracing-41fee1f
    for p in catapult/tracing/test_data/flow_simple.json \
        HolisticTraceAnalysis/tests/data/call_stack/backward_thread.json \
        HolisticTraceAnalysis/tests/data/trace_compare/base/base.json.gz; do
        base=${p%.gz}
        base=${base%.json}
        [ -f "$corpus/$p" ] && [ -f "$gen/$base-folded.txt" ] || {
            absent=$((absent + 1))
            continue
        }
        sed -e 's/\.0$//' -e '/ 0$/d' "$gen/$base-folded.txt" >"$tmp/want"
        same "chrome:$p" "$tmp/want" "$tconv" -r chrome -w folded -W unit=us -W steps=keep \
            "$corpus/$p"
        # by default every ProfilerStep#N is one ProfilerStep frame: the same lines so renamed,
        # summed per stack and sorted again
        sed 's/ProfilerStep#[0-9]*/ProfilerStep/g' "$tmp/want" |
            awk '{ n = match($0, / [^ ]*$/); s[substr($0, 1, n - 1)] += substr($0, n + 1) }
                 END { for (k in s) print k " " s[k] }' | LC_ALL=C sort >"$tmp/want-merged"
        same "chrome-merged:$p" "$tmp/want-merged" "$tconv" -r chrome -w folded -W unit=us \
            "$corpus/$p"
    done
    # ';' and line breaks in names; rounding to µs (the 0.5 ns span has no line); nanoseconds,
    # the default; the thread as root frame
    same spans-us "$dir/golden/spans-us.folded" "$tconv" -r chrome -w folded -W unit=us \
        "$dir/data/spans.json"
    same spans-ns "$dir/golden/spans-ns.folded" "$tconv" -r chrome -w folded -W unit=ns \
        -W root=comm-pid/tid "$dir/data/spans.json"
    same spans-default "$dir/golden/spans-ns.folded" "$tconv" -r chrome -w folded \
        -W root=comm-pid/tid "$dir/data/spans.json"
    # Kineto traces: CPU self time and GPU time both in ns unless asked, never a zero line
    for p in HolisticTraceAnalysis/tests/data/trace_compare/base/base.json.gz \
        HolisticTraceAnalysis/tests/data/critical_path/alexnet/benchmark_result_2869224_1695835535_trace.json.gz \
        kineto/tb_plugin/samples/resnet50_num_workers_0/worker0.1623143089861.pt.trace.json.gz; do
        [ -f "$corpus/$p" ] || { absent=$((absent + 1)); continue; }
        for value in cpu gpu; do
            "$tconv" -q -r chrome -w folded -W value=$value -W unit=ns "$corpus/$p" >"$tmp/ns"
            same "unit:$value:$p" "$tmp/ns" "$tconv" -q -r chrome -w folded -W value=$value "$corpus/$p"
            for unit in ns us; do
                "$tconv" -q -r chrome -w folded -W value=$value -W unit=$unit "$corpus/$p" >"$tmp/out"
                if [ -s "$tmp/out" ] && ! grep -q ' 0$' "$tmp/out"; then ok; else
                    bad "zero or no lines: $value $unit $p"
                    grep ' 0$' "$tmp/out" | head -3
                fi
            done
        done
    done
else
    echo "no chrome reader: span cases skipped"
fi

# -W root gives the root frame the perf reader's -R comm/pid/tid give, from the track table
for f in FlameGraph/test/perf-cycles-instructions-01.txt FlameGraph/test/perf-dd-stacks-01.txt \
    FlameGraph/test/perf-funcab-pid-01.txt FlameGraph/test/perf-vertx-stacks-01.txt \
    FlameGraph/example-perf-stacks.txt.gz speedscope/sample/profiles/linux-perf/forks.linux-perf.txt; do
    [ -f "$corpus/$f" ] || { absent=$((absent + 3)); continue; }
    for pair in -:comm pid:comm-pid tid:comm-pid/tid; do
        ropt=${pair%%:*}
        root=${pair#*:}
        args=()
        [ "$ropt" != - ] && args=(-R "$ropt")
        "$tconv" -r perf -w folded "${args[@]}" "$corpus/$f" >"$tmp/want" 2>/dev/null
        same "root:$root:$f" "$tmp/want" "$tconv" -r perf -w folded -R comm=false \
            -W root="$root" "$corpus/$f"
    done
done

echo "$pass passed, $fail failed, $absent skipped (inputs absent from the corpus)"
[ "$fail" = 0 ]
