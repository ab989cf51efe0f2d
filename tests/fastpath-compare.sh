#!/usr/bin/env bash
# A reader's fast path against its general path, which the environment variable SWITCH=0
# selects: on every file of a folder, plain and under --strict, both must give the same output
# bytes (-w chrome), the same messages (warnings and file:offset errors) and the same exit
# status; and the files must reach both outcomes, or the comparison proves little. The readers'
# own scripts (plugins/*/tests/fastpath.sh) make the inputs and call this.
# usage: fastpath-compare.sh TCONV READER SWITCH INPUT_DIR
set -uo pipefail
tconv=${1:?usage: fastpath-compare.sh TCONV READER SWITCH INPUT_DIR} reader=$2 switch=$3 dir=$4
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

# One conversion into $work/$1.{out,err,st}, the switch set to $2.
run() {
    local tag=$1 value=$2 in=$3
    shift 3
    rm -f "$work/$tag.out"
    env "$switch=$value" "$tconv" "$@" -r "$reader" -w chrome -o "$work/$tag.out" "$in" \
        >/dev/null 2>"$work/$tag.err"
    echo $? >"$work/$tag.st"
    [ -e "$work/$tag.out" ] || : >"$work/$tag.out"
}

n=0 bad=0 errors=0
for f in "$dir"/*; do
    [ -f "$f" ] || continue
    for mode in plain strict; do
        args=()
        [ $mode = strict ] && args=(--strict)
        run fast 1 "$f" "${args[@]}"
        run slow 0 "$f" "${args[@]}"
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
if [ $errors -eq 0 ] || [ $errors -eq $n ]; then
    echo "FAIL: expected both failing and succeeding inputs"
    exit 1
fi
[ $bad -eq 0 ]
