#!/usr/bin/env bash
# The folded reader: sorting and merging, several inputs, encodings, decimal counts, malformed
# lines (error with line number, or counted warnings with lenient), the extended per-sample form
# and format detection.
# usage: reader.sh TCONV TESTDIR CORPUS
set -euo pipefail
tconv=$1 dir=$2 corpus=$3
if [ ! -d "$corpus" ]; then
    echo "corpus not found at $corpus: skipped"
    exit 77
fi
fg=$corpus/inferno/tests/data/flamegraph
ss=$corpus/speedscope/sample/profiles/stackcollapse
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
pass=0 fail=0
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

# unsorted lines come out sorted bytewise, like LC_ALL=C sort (inputs of the full corpus only)
absent=0
if [ -f "$fg/unsorted-input/perf-vertx-stacks-01-collapsed-all-unsorted.txt" ]; then
    LC_ALL=C sort "$fg/unsorted-input/perf-vertx-stacks-01-collapsed-all-unsorted.txt" \
        >"$tmp/sorted"
    same unsorted "$tmp/sorted" "$tconv" -r folded -w folded \
        "$fg/unsorted-input/perf-vertx-stacks-01-collapsed-all-unsorted.txt"
    # the same stacks split over two inputs read as one
    same two-inputs "$tmp/sorted" "$tconv" -r folded -w folded \
        "$fg/multiple-inputs/perf-vertx-stacks-01-collapsed-all-unsorted-1.txt" \
        "$fg/multiple-inputs/perf-vertx-stacks-01-collapsed-all-unsorted-2.txt"
else
    absent=2
fi
# duplicate stacks are summed
printf 'a;b 5\na;b;c 5\na;b;d 4\n' >"$tmp/simple"
same merge "$tmp/simple" "$tconv" -r folded -w folded "$ss/simple.txt"
# CRLF, UTF-16 little and big endian with byte-order mark
for f in simple-crlf simple-utf16-le simple-utf16-be; do
    same "$f" "$tmp/simple" "$tconv" -r folded -w folded "$ss/$f.txt"
done
# gzip input
gzip -c "$ss/simple.txt" >"$tmp/simple.txt.gz"
same gzip "$tmp/simple" "$tconv" -r folded -w folded "$tmp/simple.txt.gz"
# detected without -r
same probe "$tmp/simple" "$tconv" -w folded "$ss/simple.txt"
# decimal counts stay exact; "6." and "31.0" are written as integers
same fractional "$dir/golden/fractional.folded" "$tconv" -r folded -w folded \
    "$fg/fractional-samples/fractional.txt"
same zero-fractionals "$fg/fractional-samples/no-fractionals.txt" "$tconv" -r folded -w folded \
    "$fg/fractional-samples/zero-fractionals.txt"
same with-space "$dir/golden/with-space.folded" "$tconv" -r folded -w folded \
    "$fg/fractional-samples/with-space.txt"
# an empty file gives an empty output
: >"$tmp/empty"
same empty "$tmp/empty" "$tconv" -r folded -w folded "$fg/empty/empty.txt"

# a line without a count is an error that names the line
if "$tconv" -r folded -w folded "$fg/bad-lines/bad-lines.txt" >"$tmp/out" 2>"$tmp/err"; then
    bad "bad-lines: accepted"
elif grep -qF "bad-lines.txt:3: expected 'frame;frame;... COUNT', got: THIS IS A BAD LINE" \
    "$tmp/err"; then
    ok
else
    bad "bad-lines: message"
    cat "$tmp/err"
fi
# lenient skips them, counted once per kind; the blank line is no record
same bad-lines-lenient "$dir/golden/bad-lines.folded" "$tconv" -r folded -w folded -R lenient \
    "$fg/bad-lines/bad-lines.txt"
if grep -q "\[folded.bad-line, 2 times; first shown\]" "$tmp/err"; then ok; else bad "lenient count"; fi
# --strict wins over lenient
if "$tconv" --strict -r folded -w folded -R lenient "$fg/bad-lines/bad-lines.txt" \
    >/dev/null 2>&1; then
    bad "strict"
else
    ok
fi

# a count is exact or refused: 64-bit integers, at most 9 decimals (zeros past them are fine)
printf 'a;b 9223372036854775807\na;c 12345678901\n' >"$tmp/wide.folded"
same wide-counts "$tmp/wide.folded" "$tconv" -r folded -w folded "$tmp/wide.folded"
printf 'a;c 1.5000000000000\n' >"$tmp/fine.folded"
printf 'a;c 1.5\n' >"$tmp/fine.expected"
same fine-counts "$tmp/fine.expected" "$tconv" -r folded -w folded "$tmp/fine.folded"
for c in 9223372036854775808 12345678901234567890123 1.0000000001; do
    printf 'a;b 1\na;c %s\n' "$c" >"$tmp/c.folded"
    if "$tconv" -w folded "$tmp/c.folded" >"$tmp/out" 2>"$tmp/err"; then
        bad "count $c accepted: $(cat "$tmp/out")"
    elif grep -qF "c.folded:2: expected a COUNT with" "$tmp/err" ||
        grep -qF "c.folded:2: expected a COUNT within 64-bit range" "$tmp/err"; then
        ok
    else
        bad "count $c: $(cat "$tmp/err")"
    fi
done

# the extended form keeps time and thread
same extended-events "$dir/golden/extended.text" "$tconv" -r folded -w text \
    "$dir/data/extended.folded"
same extended-root "$dir/golden/extended-tid.folded" "$tconv" -r folded -w folded \
    -W root=comm-pid/tid "$dir/data/extended.folded"
same extended-plain "$dir/golden/extended.folded" "$tconv" -r folded -w folded \
    "$dir/data/extended.folded"

echo "$pass passed, $fail failed, $absent skipped (inputs absent from the corpus)"
[ "$fail" = 0 ]
