#!/usr/bin/env bash
# The reader's fast path for flat event objects (chrome_fast.c) against its general path
# (TCONV_CHROME_FAST=0): on generated inputs near the fast path's shape (fastpath_gen.py), plain
# and under --strict, both must give the same output bytes, the same messages (warnings and
# file:offset errors) and the same exit status.
# usage: fastpath.sh TCONV
set -uo pipefail
tconv=${1:?usage: fastpath.sh TCONV}
here=$(cd "$(dirname "$0")" && pwd)
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

python3 "$here/fastpath_gen.py" "$work/in" 35 || exit 1

# One conversion into $work/$1.{out,err,st}.
run() {
    local tag=$1 in=$2
    shift 2
    rm -f "$work/$tag.out"
    "$tconv" "$@" -r chrome -w chrome -o "$work/$tag.out" "$in" >/dev/null 2>"$work/$tag.err"
    echo $? >"$work/$tag.st"
    [ -e "$work/$tag.out" ] || : >"$work/$tag.out"
}

n=0 bad=0 errors=0
for f in "$work"/in/*.json; do
    for mode in plain strict; do
        args=()
        [ $mode = strict ] && args=(--strict)
        run fast "$f" "${args[@]}"
        TCONV_CHROME_FAST=0 run slow "$f" "${args[@]}"
        n=$((n + 1))
        [ "$(cat "$work/fast.st")" = 0 ] || errors=$((errors + 1))
        if ! cmp -s "$work/fast.out" "$work/slow.out" || ! cmp -s "$work/fast.err" "$work/slow.err" ||
            ! cmp -s "$work/fast.st" "$work/slow.st"; then
            bad=$((bad + 1))
            echo "FAIL: $(basename "$f") ($mode): the fast path differs from the general path"
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
