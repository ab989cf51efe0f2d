#!/usr/bin/env bash
# The speedscope reader and writer from the command line: the writer picked by the output's
# name (x.speedscope.json, while x.json stays Chrome's), every corpus input converted, broken
# documents refused with a message and no output left behind.
# usage: cli.sh TCONV SOURCE_DIR CORPUS_DIR WORKDIR
set -uo pipefail
TCONV=$1
SRC=$2
CORPUS=$3
W=$4
rm -rf "$W"
mkdir -p "$W"
fails=0
fail() {
    echo "FAIL: $*"
    fails=$((fails + 1))
}
DATA=$SRC/plugins/speedscope/tests/data

# The output's name picks the writer: the longest ending wins.
"$TCONV" -q "$SRC/tests/data/chrome/flow_simple.json" -o "$W/x.speedscope.json" || fail "-o x.speedscope.json"
grep -q '"\$schema":"https://www.speedscope.app/file-format-schema.json"' "$W/x.speedscope.json" ||
    fail "x.speedscope.json is not a speedscope file"
grep -q '"exporter":"tconv@' "$W/x.speedscope.json" || fail "no exporter"
"$TCONV" -q "$SRC/tests/data/chrome/flow_simple.json" -o "$W/x.json" || fail "-o x.json"
grep -q '"traceEvents"' "$W/x.json" || fail "x.json is no longer the Chrome writer's"

# Every speedscope file to pprof, folded and a flame graph, whose root holds what the folded
# lines sum to; every Chrome trace of the corpus and every profile format to speedscope.
for f in "$DATA"/*.speedscope.json; do
    b=$(basename "$f")
    "$TCONV" -q "$f" -w pprof -o "$W/$b.pb.gz" || fail "$b -> pprof"
    "$TCONV" -q "$f" -w folded -o "$W/$b.folded" || fail "$b -> folded"
    "$TCONV" -q "$f" -o "$W/$b.svg" || fail "$b -> svg"
    [ -s "$W/$b.folded" ] || fail "$b: no folded stacks"
    grep -q '<title>all (' "$W/$b.svg" || fail "$b: the flame graph has no root"
done
inputs=()
while IFS= read -r f; do inputs+=("$f"); done < <(
    { [ -d "$CORPUS" ] && find "$CORPUS" -type f \( -name '*.json' -o -name '*.json.gz' \) -size -40M \
        -not -path '*/_generated/*' -not -path '*/rocm/*'; ls "$SRC"/tests/data/chrome/*.json; } | sort)
n=0
for f in "${inputs[@]}"; do
    # inputs no reader recognises (broken test traces) are refused; the rest must convert
    "$TCONV" -q "$f" -o "$W/t.speedscope.json" 2>"$W/err"
    rc=$?
    if [ $rc = 0 ]; then
        python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); assert d["profiles"] is not None' \
            "$W/t.speedscope.json" 2>/dev/null || fail "$f: the speedscope output is not JSON"
        n=$((n + 1))
    elif ! grep -q "cannot tell the format\|invalid JSON\|truncated\|expected\|error" "$W/err"; then
        fail "$f: exit $rc without a message"
    fi
done
echo "$n of ${#inputs[@]} JSON inputs converted to speedscope"

# Broken documents: a message, exit 1, no output.
printf '{"$schema":"https://www.speedscope.app/file-format-schema.json","profiles":[{"type":"sampled","name":"a","unit":"none","startValue":0,"endValue":1,"samples":[[5]],"weights":[1]}],"shared":{"frames":[{"name":"x"}]}}' >"$W/badframe.speedscope.json"
printf '{"$schema":"https://www.speedscope.app/file-format-schema.json","profiles":[{"type":"sampled","name":"a","unit":"none","startValue":0,"endValue":1,"samples":[[0],[0]],"weights":[1]}],"shared":{"frames":[{"name":"x"}]}}' >"$W/counts.speedscope.json"
printf '{"$schema":"https://www.speedscope.app/file-format-schema.json","profiles":[' >"$W/cut.speedscope.json"
expect_err() { # expect_err FILE TEXT
    "$TCONV" -w folded -o "$W/out.folded" "$W/$1" 2>"$W/err"
    local rc=$?
    [ $rc = 1 ] || fail "$1: exit $rc, not 1"
    grep -qF -- "$2" "$W/err" || fail "$1: expected '$2' in: $(cat "$W/err")"
    [ ! -e "$W/out.folded" ] || fail "$1: output left"
}
expect_err badframe.speedscope.json "profile 1: sample 1 names frame 5, which shared.frames does not have"
expect_err counts.speedscope.json "profile 1: 2 samples but 1 weights"
expect_err cut.speedscope.json "cut.speedscope.json:"

echo "speedscope cli: $fails failures"
[ $fails = 0 ]
