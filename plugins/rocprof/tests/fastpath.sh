#!/usr/bin/env bash
# The rocprofv3 JSON reader's fast path for records (rocprof_jfast.c) against the lexer
# (TCONV_ROCPROF_FAST=0): on the test documents in other layouts and with records near the fast
# path's shape (fastpath_gen.py), plain and under --strict, both must give the same output
# bytes, the same messages (warnings and file:offset errors) and the same exit status.
# usage: fastpath.sh TCONV SRC WORK
set -uo pipefail
tconv=${1:?usage: fastpath.sh TCONV SRC WORK} src=$2 work=$3/fastpath
rm -rf "$work"
mkdir -p "$work"
trap 'rm -rf "$work"' EXIT

python3 "$src/fastpath_gen.py" "$work/in" "$src/data/synthetic-rocprofv3-api.json" \
    "$src/data/tracelens-908_results-cut.json.gz" || exit 1

# One conversion into $work/$1.{out,err,st}.
run() {
    local tag=$1 in=$2
    shift 2
    rm -f "$work/$tag.out"
    "$tconv" "$@" -r rocprof -w chrome -o "$work/$tag.out" "$in" >/dev/null 2>"$work/$tag.err"
    echo $? >"$work/$tag.st"
    [ -e "$work/$tag.out" ] || : >"$work/$tag.out"
}

n=0 bad=0 errors=0
for f in "$work"/in/*; do
    for mode in plain strict; do
        args=()
        [ $mode = strict ] && args=(--strict)
        TCONV_ROCPROF_FAST=1 run fast "$f" "${args[@]}"
        TCONV_ROCPROF_FAST=0 run slow "$f" "${args[@]}"
        n=$((n + 1))
        [ "$(cat "$work/fast.st")" = 0 ] || errors=$((errors + 1))
        if ! cmp -s "$work/fast.out" "$work/slow.out" || ! cmp -s "$work/fast.err" "$work/slow.err" ||
            ! cmp -s "$work/fast.st" "$work/slow.st"; then
            bad=$((bad + 1))
            echo "FAIL: $(basename "$f") ($mode): the fast path differs from the lexer"
            diff "$work/slow.err" "$work/fast.err" | head -n 6
            cmp "$work/slow.out" "$work/fast.out" | head -n 2
        fi
    done
done
echo "$n conversions ($errors of them failing as the input asks), $bad differ"
# The inputs must reach both kinds of outcome, or the comparison proves little.
if [ $errors -eq 0 ] || [ $errors -eq $n ]; then
    echo "FAIL: expected both failing and succeeding inputs"
    exit 1
fi
[ $bad -eq 0 ]
