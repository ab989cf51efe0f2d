#!/usr/bin/env bash
# The stack writers (pprof, folded) get the samples of an input's spans as soon as the input is
# read, not after every input: what depends on when the ordering stage flushes must come out as
# with every flush at the end (TCONV_FLUSH_AT_END=1): output bytes, stderr and exit status.
# Usage: pprof_early.sh TCONV PLUGIN_DIR (the directory of the pptest reader)
set -euo pipefail
tconv=$1
export TCONV_PLUGIN_PATH=$2
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
failed=0

# same NAME WRITER INPUTS...: early (-j 1 and -j 2) against every flush at the end.
same() {
    local name=$1 w=$2 mode
    shift 2
    for mode in end early1 early2; do
        local env=(env TCONV_FLUSH_AT_END=0) j=1
        [ "$mode" = end ] && env=(env TCONV_FLUSH_AT_END=1)
        [ "$mode" = early2 ] && j=2
        set +e
        "${env[@]}" "$tconv" -j "$j" -r pptest -w "$w" -o "$tmp/$name.$mode" "$@" 2>"$tmp/$name.$mode.err"
        echo $? >"$tmp/$name.$mode.rc"
        set -e
        sed -i "s#$tmp/$name.$mode#OUT#g" "$tmp/$name.$mode.err"
    done
    for mode in early1 early2; do
        if ! cmp -s "$tmp/$name.end.rc" "$tmp/$name.$mode.rc" ||
            ! diff -u "$tmp/$name.end.err" "$tmp/$name.$mode.err" >&2 ||
            { [ -e "$tmp/$name.end" ] && ! cmp "$tmp/$name.end" "$tmp/$name.$mode"; }; then
            echo "FAIL: $name ($mode): differs from every flush at the end" >&2
            failed=1
        fi
    done
    echo "ok $name (exit $(cat "$tmp/$name.end.rc"))"
}

# A GPU stream whose kernels overlap is split into lanes, tracks made at the end of its input
# (for every run, early flush or not), so the next input's tracks come after them: the repair
# warning names the second input's track as track 3 (lanes.pptest has tracks 0 and 1, and the
# lane 2), whenever its spans are flushed.
cat >"$tmp/lanes.pptest" <<'IN'
# pptest
G 0 7
X 0 7 0 100 kernel k1
X 0 7 50 100 kernel k2
X 1 1 0 10 cpu_op f
IN
cat >"$tmp/open.pptest" <<'IN'
# pptest
B 2 2 0 cpu_op open
X 2 2 5 1 cpu_op g
X 3 3 0 4 cpu_op h
IN
for w in pprof folded; do
    same "lanes-$w" "$w" "$tmp/lanes.pptest" "$tmp/open.pptest" "$tmp/lanes.pptest"
    grep -q "on track 3 is never ended" "$tmp/lanes-$w.end.err" || {
        echo "FAIL: lanes-$w: not the expected repair warning" >&2
        failed=1
    }
done
# --window is relative to the first time of all inputs: flushed at the end (so are --steps, --rank
# and GPU attribution; cli.jobs compares those with every flush at the end too).
for w in pprof folded; do
    same "window-$w" "$w" --window 20ns:60ns "$tmp/open.pptest" "$tmp/lanes.pptest"
done
# The writer takes the sample types at its first sample: a span's, set for the early flush only.
# A later input's samples of no declared types are still refused against the spans.
cat >"$tmp/untyped.pptest" <<'IN'
# pptest
S 1 1 100 3 main;work
IN
for w in pprof folded; do
    same "untyped-$w" "$w" "$tmp/open.pptest" "$tmp/untyped.pptest"
    grep -q "one output cannot hold both" "$tmp/untyped-$w.end.err" || {
        echo "FAIL: untyped-$w: samples of no types were not refused" >&2
        failed=1
    }
done
exit $failed
