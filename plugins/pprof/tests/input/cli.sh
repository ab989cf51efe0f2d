#!/usr/bin/env bash
# The pprof reader from the command line: detection by content, every corpus profile to a flame
# graph, the default sample type and -R sample=, time and metadata kept, labels as tracks and
# args, legacy and broken profiles refused with the offset and no output left behind.
# usage: cli.sh TCONV DATA_DIR WORKDIR
set -uo pipefail
TCONV=$1
DATA=$2
W=$3
rm -rf "$W"
mkdir -p "$W"
fails=0
fail() {
    echo "FAIL: $*"
    fails=$((fails + 1))
}

# Every profile, gzip or not, is detected by content and drawn.
for f in "$DATA"/*.pb.gz "$DATA"/*.pprof "$DATA"/*.prof; do
    b=$(basename "$f")
    if ! "$TCONV" -q "$f" -o "$W/$b.svg" 2>"$W/err"; then
        fail "$b -> svg: $(head -c 300 "$W/err")"
    elif ! grep -q '<svg' "$W/$b.svg" || ! grep -q 'all' "$W/$b.svg"; then
        fail "$b -> svg: no flame graph"
    fi
done
# The same bytes under a name that says nothing, and through standard input.
cp "$DATA/speedscope-simple.prof" "$W/noext"
"$TCONV" -q -w folded "$W/noext" >"$W/a.folded" || fail "detection without an extension"
"$TCONV" -q -w folded - <"$DATA/speedscope-simple.prof" >"$W/b.folded" || fail "standard input"
cmp -s "$W/a.folded" "$W/b.folded" || fail "standard input gives other stacks"

# Default sample type: the last (cpu), as go tool pprof; -R sample= by name or index.
"$TCONV" -q -w text "$DATA/parca-pkg_query_testdata_fib.pb.gz" >"$W/fib.txt"
grep -q '^sampletype cpu/nanoseconds default$' "$W/fib.txt" || fail "the last sample type is not the default"
"$TCONV" -q -R sample=samples -w text "$DATA/parca-pkg_query_testdata_fib.pb.gz" >"$W/fib.txt"
grep -q '^sampletype samples/count default$' "$W/fib.txt" || fail "-R sample=samples"
"$TCONV" -q -R sample=0 -w folded "$DATA/parca-pkg_query_testdata_fib.pb.gz" >"$W/fib.folded"
[ "$(head -1 "$W/fib.folded")" = "main.allocMem;runtime.growslice;runtime.memmove 1" ] ||
    fail "-R sample=0 does not give counts: $(head -1 "$W/fib.folded")"
"$TCONV" -q -R sample=nosuch -w folded "$DATA/parca-pkg_query_testdata_fib.pb.gz" >/dev/null 2>"$W/err"
rc=$?
[ $rc = 2 ] || fail "-R sample=nosuch: exit $rc, not 2"
grep -q "has no sample type 'nosuch'; it has: samples, cpu" "$W/err" || fail "nosuch: $(cat "$W/err")"

# Time, duration, period and labels.
"$TCONV" -q -w text "$DATA/parca-pkg_normalizer_node-profile.pb.gz" >"$W/node.txt"
for want in 'name="baseTimeNanoseconds" text="1693307883846545167"' \
    'name="pprof.duration_nanos" text="9994752020"' \
    'name="pprof.period_type" text="cpu/nanoseconds"' 'name="pprof.period" text="52631578"' \
    'name="thread_name" text="node"' 'pid="" tid="2115135" thread="node"'; do
    grep -qF "$want" "$W/node.txt" || fail "node profile: no $want"
done
grep -q '"LazyCompile:\*fib /usr/src/app/main.js:1"@"jit"' "$W/node.txt" ||
    fail "node profile: frames lack their mapping"
grep -q '"node+0x1287610"@"/usr/local/bin/node" addr=0x1687610' "$W/node.txt" ||
    fail "node profile: an unsymbolized frame is not mapping+offset"
"$TCONV" -q -w text "$DATA/go-cpu-labels.pb.gz" >"$W/labels.txt"
grep -q 'args={"worker":"beta","phase":"load"}' "$W/labels.txt" || fail "string labels as args"
grep -qF '"main.mix"@"/opt/example/profdemo" file="./main.go":17 addr=0x4b28a1 ff=4' "$W/labels.txt" ||
    fail "an inlined frame lacks its file, line or flag"
"$TCONV" -q -w text "$DATA/go-heap.pb.gz" >"$W/heap.txt"
grep -q 'args={"bytes":65536}' "$W/heap.txt" || fail "numeric labels"

# pprof -> pprof: threads of tconv's own labels come back as the same tracks.
"$TCONV" -q -w pprof -o "$W/two.pb.gz" "$DATA/../../data/chrome/nested_two_processes.json" 2>/dev/null &&
    "$TCONV" -q -w text "$W/two.pb.gz" | grep -c '^track ' >"$W/ntracks" &&
    [ "$(cat "$W/ntracks")" -ge 2 ] || fail "tconv's pid/tid labels do not make tracks"

# Refusals: the legacy binary CPU profile says how to convert it; nothing is written.
"$TCONV" "$DATA/google-pprof-cppbench.cpu" -o "$W/legacy.svg" 2>"$W/err"
rc=$?
[ $rc = 1 ] || fail "legacy profile: exit $rc"
grep -q 'legacy binary CPU profile' "$W/err" && grep -q 'go tool pprof -proto' "$W/err" ||
    fail "legacy profile: $(cat "$W/err")"
[ ! -e "$W/legacy.svg" ] || fail "legacy profile: an output was left"
printf 'heap profile: 1: 2 [3: 4] @ heap/1048576\n' >"$W/heap.txt.prof"
"$TCONV" -r pprof -w folded "$W/heap.txt.prof" >/dev/null 2>"$W/err" && fail "legacy text profile read"
grep -q 'legacy text profile' "$W/err" || fail "legacy text: $(cat "$W/err")"

# Broken profiles: the position and what is wrong.
python3 - "$W" <<'EOF'
import gzip, sys
w = sys.argv[1]
def varint(v):
    out = b""
    while v >= 0x80:
        out += bytes([v & 0x7f | 0x80]); v >>= 7
    return out + bytes([v])
def field(n, body):
    return varint(n << 3 | 2) + varint(len(body)) + body
def num(n, v):
    return varint(n << 3) + varint(v)
vt = field(1, num(1, 1) + num(2, 2))
strs = field(6, b"") + field(6, b"samples") + field(6, b"count") + field(6, b"main")
fn = field(5, num(1, 1) + num(2, 3))
loc = field(4, num(1, 1) + field(4, num(1, 1)))
good = vt + strs + fn + loc + field(2, field(1, varint(1)) + field(2, varint(5)))
open(w + "/good.pb", "wb").write(good)
open(w + "/cut.pb", "wb").write(good[:-3])
# a sample that names location 9, which does not exist
open(w + "/noloc.pb", "wb").write(vt + strs + fn + loc + field(2, field(1, varint(9)) + field(2, varint(5))))
# a function whose name is string 40
open(w + "/nostr.pb", "wb").write(vt + strs + field(5, num(1, 1) + num(2, 40)) + loc +
                                  field(2, field(1, varint(1)) + field(2, varint(5))))
# two values where one sample type is declared
open(w + "/values.pb", "wb").write(vt + strs + fn + loc + field(2, field(1, varint(1)) + field(2, varint(5) + varint(6))))
# sample type with a wire type 5 (fixed32) where a varint belongs: protobuf-c refuses it
open(w + "/badsub.pb", "wb").write(strs + field(1, varint(1 << 3 | 5) + b"\0\0\0\0") + vt)
gzip.open(w + "/good.pb.gz", "wb").write(good)
# a numeric label with a unit, a string label, and a thread label
lstrs = strs + field(6, b"size") + field(6, b"bytes") + field(6, b"thread") + field(6, b"io")
label = field(3, num(1, 4) + num(3, 42) + num(4, 5)) + field(3, num(1, 6) + num(2, 7))
# drop_frames, keep_frames, two comments, a duration
mstrs = strs + field(6, b"runtime\\..*") + field(6, b"main\\..*") + field(6, b"a comment") + field(6, b"another")
open(w + "/meta.pb", "wb").write(vt + mstrs + fn + loc + field(2, field(1, varint(1)) + field(2, varint(5))) +
                                 num(7, 4) + num(8, 5) + num(13, 6) + num(13, 7) + num(10, 123456789))
open(w + "/labels.pb", "wb").write(vt + lstrs + fn + loc + field(2, field(1, varint(1)) + field(2, varint(5)) + label))
EOF
[ "$("$TCONV" -q -w folded "$W/good.pb")" = "main 5" ] ||
    fail "a minimal profile: $("$TCONV" -w folded "$W/good.pb" 2>&1)"
[ "$("$TCONV" -q -w folded "$W/good.pb.gz")" = "main 5" ] || fail "a minimal gzipped profile"
"$TCONV" -q -w text "$W/labels.pb" >"$W/labels.out"
grep -q 'args={"size":42,"size.unit":"bytes"}' "$W/labels.out" || fail "a numeric label's unit"
grep -q 'pid="" tid="io" thread="io"' "$W/labels.out" || fail "a thread known by its name"
# ... and pprof -> pprof keeps them.
"$TCONV" -q -w text "$W/meta.pb" >"$W/meta.txt"
for want in 'name="pprof.drop_frames" text="runtime\\..*"' 'name="pprof.keep_frames" text="main\\..*"' \
    'name="pprof.comment" text="another"' 'name="pprof.duration_nanos" text="123456789"'; do
    grep -qF "$want" "$W/meta.txt" || fail "meta.pb: no $want"
done
"$TCONV" -q -o "$W/meta2.pb.gz" "$W/meta.pb"
if command -v go >/dev/null; then
    go tool pprof -raw "$W/meta2.pb.gz" 2>/dev/null >"$W/meta2.raw"
    for want in 'Comment: a comment' 'Comment: another' 'Duration: 123.'; do
        grep -qF "$want" "$W/meta2.raw" || fail "pprof -> pprof: no '$want' in -raw"
    done
fi
python3 - "$W/meta2.pb.gz" <<'EOF2' || fail "pprof -> pprof: drop_frames or keep_frames lost"
import gzip, sys
b = gzip.open(sys.argv[1]).read()
def varint(b, i):
    v = s = 0
    while True:
        c = b[i]; i += 1; v |= (c & 0x7f) << s; s += 7
        if c < 0x80: return v, i
i, strs, top = 0, [], {}
while i < len(b):
    tag, i = varint(b, i)
    if tag & 7 == 2:
        n, i = varint(b, i)
        if tag >> 3 == 6: strs.append(b[i:i + n].decode())
        i += n
    else:
        v, i = varint(b, i)
        top[tag >> 3] = v
sys.exit(0 if strs[top.get(7, 0)] == "runtime\\..*" and strs[top.get(8, 0)] == "main\\..*" else 1)
EOF2

expect_err() { # expect_err FILE TEXT
    "$TCONV" -r pprof -w folded -o "$W/out.folded" "$W/$1" 2>"$W/err"
    local rc=$?
    [ $rc = 1 ] || fail "$1: exit $rc, not 1"
    grep -qF -- "$2" "$W/err" || fail "$1: expected '$2' in: $(cat "$W/err")"
    [ ! -e "$W/out.folded" ] || fail "$1: output left"
}
expect_err cut.pb "cut.pb:44: a field's length runs past the end of the data"
expect_err noloc.pb "noloc.pb:44: sample 1 refers to location 9, which the profile does not have"
expect_err nostr.pb "function 1 refers to string 40, beyond the string table of 4"
expect_err values.pb "values.pb:44: sample 1 has 2 values, the profile 1 sample types"
expect_err badsub.pb "badsub.pb:24: sample type 1 cannot be decoded"

echo "pprof reader cli: $fails failures"
[ $fails = 0 ]
