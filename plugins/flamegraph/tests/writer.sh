#!/usr/bin/env bash
# The flamegraph writer end to end: golden SVGs (deterministic bytes), well-formed XML, every
# frame's value against the folded writer's stacks for the same input and selection, on in-tree
# data and on the corpus's traces and profiles, the options and their errors.
# usage: writer.sh TCONV TESTDIR DATADIR TEVT_PLUGIN_DIR CORPUS
set -euo pipefail
tconv=$1 dir=$2 data=$3 tevt=$4 corpus=$5
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
check="python3 $dir/check_svg.py"
pass=0 fail=0
ok() { pass=$((pass + 1)); }
bad() {
    fail=$((fail + 1))
    echo "FAIL $*"
}
T() { "$tconv" --plugin-path "$tevt" -q "$@"; }

well_formed() { # FILE: xmllint when present, python's parser always (check_svg parses too)
    if command -v xmllint >/dev/null && ! xmllint --noout "$1"; then return 1; fi
    python3 -c 'import sys, xml.etree.ElementTree as E; E.parse(sys.argv[1])' "$1"
}

golden() { # NAME ARGS...: output equals golden/NAME.svg, twice, and is well-formed
    local name=$1
    shift
    if T -w flamegraph "$@" >"$tmp/$name.svg" && T -w flamegraph "$@" >"$tmp/$name.again" &&
        cmp -s "$tmp/$name.svg" "$dir/golden/$name.svg" && cmp -s "$tmp/$name.svg" "$tmp/$name.again" &&
        well_formed "$tmp/$name.svg"; then
        ok
    else
        bad "golden $name (to review: diff $dir/golden/$name.svg against tconv -w flamegraph $*)"
        diff "$dir/golden/$name.svg" "$tmp/$name.svg" | head -20 | cut -c1-200 || true
    fi
}

agree() { # LABEL MINWIDTH ARGS...: frames equal the folded writer's stacks (ns) for ARGS
    local label=$1 minw=$2
    shift 2
    local fu=()
    # span self times: the folded writer's exact nanoseconds, not its µs rounding
    case "$*" in *.json* | *.tevt* | *value=gpu*) fu=(-W unit=ns) ;; esac
    if ! T -w folded "${fu[@]}" "$@" >"$tmp/a.folded" 2>"$tmp/err" ||
        ! T -w flamegraph -W minwidth="$minw" "$@" >"$tmp/a.svg" 2>>"$tmp/err"; then
        bad "$label: conversion failed"
        cat "$tmp/err"
        return
    fi
    if well_formed "$tmp/a.svg" && $check "$tmp/a.svg" "$tmp/a.folded" "$minw" >"$tmp/log"; then
        ok
    else
        bad "$label"
        cat "$tmp/log"
    fi
}

# --- golden: a small trace of every role, its icicle, and GPU time charged to launch stacks
golden small "$dir/data/small.tevt"
golden small-icicle -W icicle=true -W 'title=Loader & main <threads>' -W width=800 \
    "$dir/data/small.tevt"
golden kineto-gpu -W value=gpu "$data/gpu/kineto.json"

# --- the output name picks the writer: -o x.svg is a flame graph
T -o "$tmp/picked.svg" "$dir/data/small.tevt" && cmp -s "$tmp/picked.svg" "$dir/golden/small.svg" &&
    ok || bad "-o picked.svg does not give the flamegraph writer's output"

# --- roles pick the hue (the golden pins the bytes; this says what they mean)
if python3 - "$tmp/small.svg" <<'PY'; then ok; else bad "role colours"; fi
import re, sys, xml.etree.ElementTree as ET
ns = "{http://www.w3.org/2000/svg}"
fill = {}
for g in ET.parse(sys.argv[1]).getroot().iter(ns + "g"):
    t = g.find(ns + "title")
    if t is not None:
        fill[t.text[: t.text.rfind(" (")]] = tuple(map(int, re.findall(r"\d+", g.find(ns + "rect").get("fill"))))
def hue(name):
    r, g, b = fill[name]
    if g > r and g > b: return "green"
    if b > r and b > g and r == g: return "blue"
    if r == g and b < r: return "yellow"
    if g == b and g > r: return "aqua"
    if r == b and r > g: return "purple"
    if r >= 205 and b <= 55: return "warm"
    return "other"
want = {"train.py(12):_main": "green", "aten::addmm": "warm", "cudaLaunchKernel": "yellow",
        "cuLaunchKernel": "yellow", "sgemm_128x64_nn": "blue", "Memcpy_HtoD": "aqua",
        "Memset": "purple", "ProfilerStep": "other"}
bad = {n: hue(n) for n in want if hue(n) != want[n]}
if bad:
    print("wrong hues:", bad)
    sys.exit(1)
PY

# --- values: in-tree data, every option that changes which stacks are drawn
agree small 0 "$dir/data/small.tevt"
agree small-minwidth 0.1 "$dir/data/small.tevt"
agree small-wide-minwidth 5 "$dir/data/small.tevt"
agree kineto 0 "$data/gpu/kineto.json"
agree kineto-gpu 0 -W value=gpu "$data/gpu/kineto.json"
# a GPU stream's work sits under a frame naming its device and stream, as in pprof; no kernel at
# the root beside the CPU's stacks
T -w flamegraph -W minwidth=0 "$data/gpu/kineto.json" >"$tmp/k.svg"
if python3 - "$tmp/k.svg" <<'PY'; then ok; else bad "GPU stream root frames"; fi
import sys, xml.etree.ElementTree as ET
ns = "{http://www.w3.org/2000/svg}"
frames = [g for g in ET.parse(sys.argv[1]).getroot().iter(ns + "g") if g.get("data-o") is not None]
ys = sorted({int(g.find(ns + "rect").get("y")) for g in frames}, reverse=True)
top = [g.find(ns + "title").text for g in frames if int(g.find(ns + "rect").get("y")) == ys[1]]
streams = [g.find(ns + "title").text for g in frames if g.get("data-stream") == "1"]
names = sorted(t[: t.rfind(" (")] for t in streams)
if names != ["0/stream 7", "0/stream 7 #2", "0/stream 8"] or \
        any(t.startswith(("sgemm", "relu_kernel", "orphan_kernel", "Memcpy")) for t in top):
    print("stream roots %s, frames at the root: %s" % (streams, top))
    sys.exit(1)
PY
agree hostile 0 "$dir/data/hostile.json"
# selection is a core stage before the writer: the graph shows only what it kept
agree steps-2 0 --steps 2 "$data/roles/steps.json"
agree window 0 --window 150us:700us "$data/roles/steps.json"
T -w flamegraph -W steps=keep --steps 2 "$data/roles/steps.json" >"$tmp/steps.svg"
grep -qF '<title>ProfilerStep#2 (' "$tmp/steps.svg" && ! grep -qF 'ProfilerStep#1' "$tmp/steps.svg" &&
    ok || bad "--steps 2: expected step 2 alone"
# every step one ProfilerStep frame (the core's steps stage), unless -W steps=keep
T -w flamegraph "$data/roles/steps.json" >"$tmp/merged.svg"
[ "$(grep -c '<title>ProfilerStep (' "$tmp/merged.svg")" = 1 ] &&
    ! grep -qF 'ProfilerStep#' "$tmp/merged.svg" && ok || bad "steps not merged into one frame"
# the check itself can fail: a graph of step 2 does not agree with the whole trace's stacks
T -w folded -W unit=ns "$data/roles/steps.json" >"$tmp/all.folded"
T -w flamegraph -W minwidth=0 --steps 2 "$data/roles/steps.json" >"$tmp/s2.svg"
$check "$tmp/s2.svg" "$tmp/all.folded" >/dev/null && bad "check_svg accepted a wrong selection" || ok

# --- options and errors
T -w flamegraph -W width=50 "$dir/data/small.tevt" >/dev/null 2>"$tmp/err" && bad "width=50 accepted" ||
    { [ $? = 1 ] && grep -q "width must be between 100 and 100000" "$tmp/err" && ok || bad "width=50 message"; }
T -w flamegraph -W minwidth=-1 "$dir/data/small.tevt" >/dev/null 2>"$tmp/err" && bad "minwidth=-1 accepted" ||
    { [ $? = 1 ] && grep -q "minwidth must be 0 or more" "$tmp/err" && ok || bad "minwidth=-1 message"; }
set +e
T -w flamegraph -W nosuch=1 "$dir/data/small.tevt" >/dev/null 2>&1
rc=$?
set -e
[ $rc = 2 ] && ok || bad "unknown option: exit $rc, expected 2"
# no samples at all: still a well-formed graph that says so
printf '#tevt\nM 1 1 thread_name idle\n' >"$tmp/empty.tevt"
T -w flamegraph "$tmp/empty.tevt" >"$tmp/empty.svg" && well_formed "$tmp/empty.svg" &&
    grep -qF '>No samples<' "$tmp/empty.svg" && ok || bad "empty input"

# --- differential graphs (-W diff=true): each frame against difffolded.pl's lines for the folded
# writer's output of each input. The reference is FlameGraph's difffolded.pl when it is found
# ($DIFFFOLDED, the corpus's FlameGraph/, the PATH; perl runs it), else the same join in python.
difffolded=${DIFFFOLDED:-}
[ -z "$difffolded" ] && [ -f "$corpus/FlameGraph/difffolded.pl" ] && difffolded=$corpus/FlameGraph/difffolded.pl
[ -z "$difffolded" ] && difffolded=$(command -v difffolded.pl || true)
if [ -n "$difffolded" ] && command -v perl >/dev/null; then
    echo "differential reference: $difffolded"
    join_folded() { perl "$difffolded" "$1" "$2"; }
else
    echo "differential reference: difffolded.pl not found, its join done in python"
    join_folded() {
        python3 - "$1" "$2" <<'PY'
import re, sys
cols = {}
for k, path in enumerate(sys.argv[1:3]):
    for line in open(path, encoding="utf-8", errors="replace"):
        m = re.match(r"^(.*)\s+?(\d+)$", line.rstrip("\n"))
        if m:
            cols.setdefault(m.group(1), [0, 0])[k] += int(m.group(2))
for stack, (a, b) in sorted(cols.items()):
    print("%s %d %d" % (stack, a, b))
PY
    }
fi

diffagree() { # LABEL MINWIDTH "SHARED ARGS" "SVG ARGS" BEFORE AFTER
    local label=$1 minw=$2 before=$5 after=$6 shared svgargs
    read -r -a shared <<<"$3"
    read -r -a svgargs <<<"$4"
    if ! T -w folded "${shared[@]}" "$before" >"$tmp/b.folded" 2>"$tmp/err" ||
        ! T -w folded "${shared[@]}" "$after" >"$tmp/a.folded" 2>>"$tmp/err" ||
        ! T -w flamegraph -W diff=true -W minwidth="$minw" "${shared[@]}" "${svgargs[@]}" \
            "$before" "$after" >"$tmp/d.svg" 2>>"$tmp/err"; then
        bad "diff $label: conversion failed"
        cat "$tmp/err"
        return
    fi
    join_folded "$tmp/b.folded" "$tmp/a.folded" >"$tmp/d.txt"
    if well_formed "$tmp/d.svg" && python3 "$dir/check_diff.py" "$tmp/d.svg" "$tmp/d.txt" "$minw" >"$tmp/log"; then
        ok
    else
        bad "diff $label"
        cat "$tmp/log"
    fi
}

golden small-diff -W diff=true "$dir/data/small.tevt" "$dir/data/after.tevt"
diffagree folded 0 "" "" "$dir/data/before.folded" "$dir/data/after.folded"
diffagree folded-size-before 0 "" "-W size=before" "$dir/data/before.folded" "$dir/data/after.folded"
diffagree folded-icicle 0 "" "-W icicle=true" "$dir/data/before.folded" "$dir/data/after.folded"
diffagree folded-reversed 0 "" "" "$dir/data/after.folded" "$dir/data/before.folded"
diffagree spans 0 "" "" "$dir/data/small.tevt" "$dir/data/after.tevt"
diffagree spans-minwidth 0.1 "" "-W width=200" "$dir/data/small.tevt" "$dir/data/after.tevt"
diffagree spans-size-before 0 "" "-W size=before" "$dir/data/small.tevt" "$dir/data/after.tevt"
diffagree spans-root 0 "-W root=comm-pid/tid" "" "$dir/data/small.tevt" "$dir/data/after.tevt"
# the check can fail: the graph of (before, after) against the lines of (after, before)
T -w folded "$dir/data/before.folded" >"$tmp/b.folded"
T -w folded "$dir/data/after.folded" >"$tmp/a.folded"
join_folded "$tmp/a.folded" "$tmp/b.folded" >"$tmp/swapped.txt"
T -w flamegraph -W diff=true "$dir/data/before.folded" "$dir/data/after.folded" >"$tmp/d.svg"
python3 "$dir/check_diff.py" "$tmp/d.svg" "$tmp/swapped.txt" >/dev/null && bad "check_diff accepted swapped inputs" || ok
# what the colours mean, by name: grown red, shrunk blue, unchanged white
if python3 - "$tmp/d.svg" <<'PY'; then ok; else bad "diff colours"; fi
import re, sys, xml.etree.ElementTree as ET
ns = "{http://www.w3.org/2000/svg}"
fill = {}
for g in ET.parse(sys.argv[1]).getroot().iter(ns + "g"):
    t = g.find(ns + "title")
    if t is not None:
        fill[t.text[: t.text.rfind(" (")]] = tuple(map(int, re.findall(r"\d+", g.find(ns + "rect").get("fill"))))
want = {"mm": (255, 0, 0), "new": (255, 131, 131), "lex": (105, 105, 255), "io": (255, 255, 255)}
if "old" in fill or any(fill.get(n) != c for n, c in want.items()):
    print("fills:", fill)
    sys.exit(1)
PY
# exactly two inputs, else no output and a message saying so
for n in 1 3; do
    ins=("$dir/data/before.folded")
    [ $n = 3 ] && ins+=("$dir/data/after.folded" "$dir/data/after.folded")
    rm -f "$tmp/n.svg"
    set +e
    T -o "$tmp/n.svg" -W diff=true "${ins[@]}" 2>"$tmp/err"
    rc=$?
    set -e
    [ $rc = 2 ] && [ ! -e "$tmp/n.svg" ] && grep -q "diff=true compares two inputs, before and after, but $n" "$tmp/err" &&
        ok || { bad "diff with $n inputs: exit $rc"; cat "$tmp/err"; }
done
set +e
T -w flamegraph -W size=before "$dir/data/before.folded" >/dev/null 2>"$tmp/err"
rc=$?
set -e
[ $rc = 2 ] && grep -q "it needs -W diff=true" "$tmp/err" && ok || bad "size without diff: exit $rc"
# -W root: the thread frames of the folded writer's -W root
agree root-comm 0 -W root=comm "$dir/data/small.tevt"
agree root-tid 0 -W root=comm-pid/tid "$dir/data/small.tevt"
grep -qF '<title>loader-1/2 (' "$tmp/a.svg" && ok || bad "root=comm-pid/tid: no loader-1/2 frame"

# --- the corpus: Kineto, Chrome, perf and folded inputs
if [ -d "$corpus" ]; then
    for spec in \
        "HolisticTraceAnalysis/tests/data/mtia_trace_single_rank/mtia_rank_0.json.gz|" \
        "kineto/tb_plugin/samples/resnet50_num_workers_0/worker0.1623143089861.pt.trace.json.gz|" \
        "kineto/tb_plugin/samples/resnet50_num_workers_0/worker0.1623143089861.pt.trace.json.gz|-W value=gpu" \
        "HolisticTraceAnalysis/tests/data/ns_resolution_trace/rank-0.Apr_03_18_51_38.1102.pt.trace.json.gz|-W value=gpu" \
        "HolisticTraceAnalysis/tests/data/trace_compare/base/base.json.gz|--steps 1" \
        "catapult/tracing/test_data/lthi_cats.json.gz|" \
        "FlameGraph/example-perf-stacks.txt.gz|" \
        "FlameGraph/test/perf-vertx-stacks-01.txt|" \
        "inferno/tests/data/collapse-perf/results/go-stacks-collapsed.txt|"; do
        f=${spec%%|*}
        read -r -a opts <<<"${spec#*|}"
        [ -f "$corpus/$f" ] || continue
        agree "$f ${opts[*]}" 0 "${opts[@]}" "$corpus/$f"
    done
    mtia=$corpus/HolisticTraceAnalysis/tests/data/mtia_trace_single_rank/mtia_rank_0.json.gz
    [ -f "$mtia" ] && agree "mtia minwidth" 0.1 "$mtia"
    hta=$corpus/HolisticTraceAnalysis/tests/data/trace_compare
    fg=$corpus/FlameGraph/test
    [ -f "$hta/base/base.json.gz" ] &&
        diffagree hta-compare 0 "-W root=comm-pid/tid" "" "$hta/base/base.json.gz" "$hta/test/test.json.gz"
    [ -f "$fg/perf-java-stacks-01.txt" ] &&
        diffagree perf-java 0.1 "" "" "$fg/perf-java-stacks-01.txt" "$fg/perf-java-stacks-02.txt"
    [ -f "$fg/perf-java-stacks-01.txt" ] &&
        diffagree perf-java-before 0 "" "-W size=before" "$fg/perf-java-stacks-01.txt" "$fg/perf-java-stacks-02.txt"
    rn=$corpus/kineto/tb_plugin/samples/resnet50_num_workers_0/worker0.1623143089861.pt.trace.json.gz
    [ -f "$rn" ] && diffagree kineto-gpu 0 "-W value=gpu" "" "$data/gpu/kineto.json" "$rn"
else
    echo "corpus not found at $corpus: corpus cases skipped"
fi

echo "$pass passed, $fail failed"
[ "$fail" = 0 ]
