#!/usr/bin/env bash
# The firefox reader from the command line: a gzipped samply profile to folded stacks and a flame
# graph, its sample types (samples, and cpu from threadCPUDelta), its time origin, library+offset
# names, files through a table of sources, and damaged documents refused.
# usage: cli.sh TCONV DATA_DIR VARIANTS_DIR WORKDIR
set -uo pipefail
TCONV=$1
DATA=$2
VAR=$3
W=$4
rm -rf "$W"
mkdir -p "$W"
fails=0
fail() {
    echo "FAIL: $*"
    fails=$((fails + 1))
}
gzip -c "$DATA/samply-ls-linux-ls-profile.json" >"$W/samply.json.gz"
"$TCONV" -q "$W/samply.json.gz" -w folded >"$W/gz.folded" || fail "samply.json.gz -w folded"
"$TCONV" -q "$DATA/samply-ls-linux-ls-profile.json" -w folded >"$W/plain.folded"
cmp -s "$W/gz.folded" "$W/plain.folded" && [ -s "$W/gz.folded" ] || fail "gzip changes the stacks"
for f in "$DATA"/*.json "$VAR"/*; do
    "$TCONV" -q "$f" -o "$W/$(basename "$f").svg" || fail "$f -> svg"
done
# A version the reader does not know is read as the nearest it knows, with a warning that says so.
python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); d["meta"]["version"]=11; json.dump(d,open(sys.argv[2],"w"))' \
    "$DATA/firefox-profiler-fixture-gecko-2.json" "$W/gecko-v11.json"
"$TCONV" "$W/gecko-v11.json" -w folded -o "$W/v11.folded" 2>"$W/v11.err" || fail "gecko v11 refused"
grep -q 'Gecko profile version 11, older than 12 (Firefox 63), the oldest this reader knows \[firefox.version\]' \
    "$W/v11.err" || fail "gecko v11: no version warning: $(cat "$W/v11.err")"
[ -s "$W/v11.folded" ] || fail "gecko v11: no stacks"
"$TCONV" -q -w text "$DATA/samply-ls-linux-ls-profile.json" >"$W/samply.txt"
for want in '^sampletype samples/count default$' '^sampletype cpu/nanoseconds$' \
    'name="baseTimeNanoseconds" text="1671458961578105' '"ls+0x58af"@"ls" addr=0x58af' \
    '"\[kernel.kallsyms\]+0x11e37"@"\[kernel.kallsyms\]" addr=0x11e37 ff=1'; do
    grep -q "$want" "$W/samply.txt" || fail "samply: no $want"
done
"$TCONV" -q -w text "$VAR/processed-shared.json" >"$W/shared.txt"
grep -q 'file="src/file' "$W/shared.txt" || fail "a function's file through the table of sources"
"$TCONV" -q -w text "$DATA/speedscope-sample-Firefox63-simple-firefox.json" >"$W/ff63.txt"
grep -q '"alpha" file="http://localhost:8000/simple.js":1' "$W/ff63.txt" ||
    fail "a Gecko JavaScript location"

printf '{"meta":{"preprocessedProfileVersion":41},"threads":[{"stackTable":{"length":1,"prefix":[0],"frame":[0]},"frameTable":{"length":0},"samples":{"length":0}}]}' >"$W/cycle.json"
"$TCONV" -w folded -o "$W/out.folded" "$W/cycle.json" 2>"$W/err" && fail "a stack that is its own prefix read"
grep -q "stack 0 has prefix 0 and frame 0; a prefix must be an earlier stack" "$W/err" ||
    fail "cycle: $(cat "$W/err")"
[ ! -e "$W/out.folded" ] || fail "cycle: output left"
printf '{"meta":{"preprocessedProfileVersion":41},"threads":[' >"$W/cut.json"
"$TCONV" -r firefox -w folded "$W/cut.json" >/dev/null 2>"$W/err" && fail "a cut document read"
grep -q "cut.json:.*invalid JSON" "$W/err" || fail "cut: $(cat "$W/err")"
echo "firefox cli: $fails failures"
[ $fails = 0 ]
