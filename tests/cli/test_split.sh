# One input read in parts on several threads (core/split.c): the event array of a Chrome trace
# cut at any ',' between events, every part read on a worker into a recording or in line, gives
# the output bytes, the messages on stderr and the exit status of -j 1, which reads it whole:
# for parts of 1 byte (one event each) up to the whole array, on 2 and 3 threads, with every
# writer; on traces that hold every kind of event and every state the reader keeps between
# events (split-gen.py); on traces damaged at places spread over the array (a stray byte, a cut,
# an unescaped quote, a missing ',', a ',' before ']'), so that the failure lies in every
# position among the parts; with --strict, -v and gzip input (decompressed on one thread).
# Reads of 1 to 61 bytes at a time put read boundaries everywhere in the array.
# TCONV_SPLIT_TRACE shows each run read the array in parts, and where a failure made it go on in
# line.
source "$(dirname "$0")/lib.sh"
export TCONV_PLUGIN_PATH=$TEST_PLUGINS
command -v python3 >/dev/null || {
    echo "skip: python3 makes the inputs"
    exit 77
}
G=$TMP/in
mkdir -p "$G"
python3 "$(dirname "$0")/split-gen.py" "$G"
gzip -c "$G/kineto.json" >"$G/kineto.json.gz"
head -c 30000 "$G/kineto.json.gz" >"$G/cut.json.gz" # a gzip stream cut short

ALL_SIZES="1 7 64 997 20000 1000000000"
FEW_SIZES="1 997 1000000000"
TRACE=$TMP/trace

# one NAME SIZES JOBS ARGS...: -j 1, then each part size on each -j of JOBS, with the same
# ARGS; stderr, exit status and output (a file or a directory) must be -j 1's.
one() {
    local name=$1 sizes=$2 jobs=$3
    shift 3
    local rc out=$TMP/$name
    set +e
    timeout 120 "$TCONV" -j 1 "$@" -o "$out.1" >/dev/null 2>"$out.1.err"
    echo $? >"$out.1.rc"
    set -e
    sed -i -e "s#$out.1#OUT#g" -e '/ MB\/s of input$/d' "$out.1.err"
    for j in $jobs; do
        for size in $sizes; do
            local o=$out.$j.$size
            set +e
            TCONV_SPLIT_BYTES=$size TCONV_SPLIT_TRACE=$TRACE timeout 120 "$TCONV" -j "$j" "$@" \
                -o "$o" >/dev/null 2>"$o.err"
            rc=$?
            set -e
            [ "$rc" != 124 ] || fail "$name -j $j, parts of $size: no end after 120 s"
            sed -i -e "s#$o#OUT#g" -e '/ MB\/s of input$/d' "$o.err"
            [ "$rc" = "$(cat "$out.1.rc")" ] ||
                fail "$name -j $j, parts of $size: exit $rc, -j 1 exits $(cat "$out.1.rc")"
            diff -u "$out.1.err" "$o.err" >&2 || fail "$name -j $j, parts of $size: stderr differs"
            if [ -e "$out.1" ] || [ -e "$o" ]; then
                diff -r "$out.1" "$o" >&2 || fail "$name -j $j, parts of $size: output differs"
            fi
            rm -rf "$o" "$o.err"
        done
    done
    echo "ok $name (exit $(cat "$out.1.rc"))"
}

# ---- whole traces: every writer, every cut --------------------------------------------------
for f in kineto legacy worker1.trace; do
    for w in pprof text; do
        one "$f-$w" "$ALL_SIZES" "2 3" -r chrome -w "$w" "$G/$f.json"
    done
    for w in folded chrome csv summary otf2; do
        one "$f-$w" "$FEW_SIZES" "2" -r chrome -w "$w" "$G/$f.json"
    done
done
# Parts of one byte are one event each: thousands of parts, some replayed, some read in line.
# (Which thread takes a part is timing: under ThreadSanitizer, TCONV_TEST_ANY_MIX=1 drops the
# mix and keeps the comparisons.)
[ -n "${TCONV_TEST_ANY_MIX:-}" ] ||
    awk '$2 > 2000 && $6 > 100 && $4 > 100 { ok = 1 } END { exit !ok }' "$TRACE" ||
    fail "no run read thousands of parts, a hundred of them in line and a hundred replayed"
: >"$TRACE"
# Reads of a few bytes: every read ends inside a string, an escape, a number, between any two
# bytes of the array past the reader's first chunk (256 KiB), and the index carries on from one
# read to the next.
TCONV_SPLIT_READ=1 one kineto-read1 "1 997" "2" -r chrome -w pprof "$G/kineto.json"
TCONV_SPLIT_READ=7 one kineto-read7 "1 997" "2 3" -r chrome -w pprof "$G/kineto.json"
TCONV_SPLIT_READ=61 one legacy-read61 "7 20000" "2 3" -r chrome -w text "$G/legacy.json"
one kineto-v "1 997" "2 3" -v -r chrome -w pprof "$G/kineto.json"
one kineto-gz "1 997 20000" "2" -r chrome -w folded "$G/kineto.json.gz"
one kineto-budget "997" "2 3" --jobs-memory 1 -r chrome -w text "$G/kineto.json"
grep -q "resumed-at\|failed-at" "$TRACE" && fail "a whole trace did not read to its end in parts"
: >"$TRACE"
one kineto-strict "1 64 997" "2" --strict -r chrome -w text "$G/kineto.json"
grep -qv "resumed-at\|failed-at" "$TRACE" && fail "--strict: a bad event did not stop the parts"

# The chrome reader's fast path in parts: flat events (tconv's legacy shape) whose GPU streams
# get their kind at their first event in a later part, among Kineto kernels whose long names hold
# '}' (the fast path feeds the lexer up to each '}', and the lexer completes a long token only
# when its carry doubled: a part's last tokens must still be read before the part ends).
python3 -c "
import random
rnd = random.Random(7)
part = '::{lambda()#2}::operator()() const'
ev = []
for i in range(6000):
    k = rnd.randrange(10)
    if k < 6:
        ev.append('{\"name\": \"op%d\", \"ph\": \"X\", \"ts\": %d, \"dur\": 3, \"tid\": 1, \"pid\": \"CPU functions\", \"args\": {}}' % (k, 10 * i))
    elif k < 8:
        ev.append('{\"name\": \"gpu%d\", \"ph\": \"X\", \"ts\": %d, \"dur\": 2, \"tid\": \"stream %d\", \"pid\": \"CUDA functions\", \"args\": {}}' % (k, 10 * i, i // 700))
    else:
        long = 'void k<f' + part * rnd.randrange(1, 40) + '>'
        ev.append('{\n    \"ph\": \"X\", \"cat\": \"kernel\", \"name\": \"%s\", \"pid\": 0, \"tid\": %d,\n    \"ts\": %d, \"dur\": 1,\n    \"args\": {\n      \"stream\": %d, \"grid\": [2, 1, 1]\n    }\n  }' % (long, 20 + i // 900, 10 * i + 5, 20 + i // 900))
print('{\"traceEvents\": [\n  ' + ',\n  '.join(ev) + '\n]}')
" >"$G/fast.json"
for w in text pprof; do
    one "fast-$w" "1 997 20000 300000" "2 3" -r chrome -w "$w" "$G/fast.json"
done

# A key longer than the reader's chunk just before the array: the lexer completes it from its
# carry, at the input's end or in the next chunk, with the '[' after it.
for n in 300000 600000; do
    python3 -c "
import sys
ev = '{\"ph\": \"X\", \"pid\": 1, \"tid\": 1, \"ts\": %d, \"dur\": 1, \"name\": \"e\"}'
sys.stdout.write('{\"' + 'k' * $n + '\": 1, \"traceEvents\": [' + ', '.join(ev % i for i in range(3000)) + ']}')
" >"$G/longkey-$n.json"
    one "longkey-$n" "1 997" "2" -r chrome -w text "$G/longkey-$n.json"
done
printf '{"%s": 1, "traceEvents": []}' "$(head -c 300000 /dev/zero | tr '\0' k)" >"$G/longkey-empty.json"
one longkey-empty "1" "2" -r chrome -w text "$G/longkey-empty.json"

# ---- damaged traces: the failure in every position among the parts ---------------------------
: >"$TRACE"
for f in "$G"/err-*.json "$G"/cut-between-*.json; do
    b=$(basename "$f" .json)
    one "$b" "1 64 997 20000" "2" -r chrome -w text "$f"
    grep -q "error: .*$b.json:[0-9]*: " "$TMP/$b.1.err" || case $b in cut-*) ;; *)
        fail "$b: -j 1 gave no error at an offset" ;;
    esac
done
one cut-gz "1 997" "2" -r chrome -w pprof "$G/cut.json.gz"
TCONV_SPLIT_READ=13 one err-read13 "1 997" "2" -r chrome -w text "$(ls "$G"/err-*.json | head -n 1)"
if [ -z "${TCONV_TEST_ANY_MIX:-}" ]; then
    grep -q "resumed-at [1-9][0-9]* main" "$TRACE" || fail "no failure was met in a worker's part"
    grep -q "failed-at [1-9][0-9]* main" "$TRACE" || fail "no failure was met in a part read in line"
fi

# ---- small inputs are read whole by default ------------------------------------------------
: >"$TRACE"
TCONV_SPLIT_TRACE=$TRACE "$TCONV" -j 2 -r chrome -w pprof -o "$TMP/small.pb.gz" "$G/kineto.json"
[ ! -s "$TRACE" ] || fail "a 0.3 MB input was read in parts"
echo "ok small input read whole"

# ---- large inputs: in parts, unless the fast path reads their events ---------------------------
# 16 MiB and more: a Kineto-shaped trace (events with args) is read in parts at -j 2; a dense
# trace of the legacy exporter's shape, whose events the fast path reads, is read whole, as the
# stages after the reader bound it (docs/scale.md). Both give -j 1's bytes.
python3 - "$G" <<'PY'
import sys
d = sys.argv[1]
flat = ('{"name": "aten::op%d", "ph": "X", "ts": %d, "dur": 3, "tid": 1, '
        '"pid": "CPU functions", "args": {}}')
kin = ('{"ph": "X", "cat": "cpu_op", "name": "aten::op%d", "pid": 1, "tid": 1, "ts": %d, '
       '"dur": 3, "args": {"External id": %d, "Input Dims": [[64, 3], []]}}')
for name, fmt, n in (("dense-big", flat, 200000), ("kineto-big", kin, 160000)):
    with open("%s/%s.json" % (d, name), "w") as f:
        f.write('{"traceEvents": [\n')
        f.write(",\n".join(fmt % ((i % 50, 10 * i) if fmt is flat else (i % 50, 10 * i, i))
                           for i in range(n)))
        f.write("\n]}\n")
PY
for f in dense-big kineto-big; do
    [ "$(stat -c %s "$G/$f.json")" -ge $((16 << 20)) ] || fail "$f.json is under 16 MiB"
    : >"$TRACE"
    "$TCONV" -j 1 -r chrome -w pprof -o "$TMP/$f.1.pb.gz" "$G/$f.json"
    TCONV_SPLIT_TRACE=$TRACE "$TCONV" -j 2 -r chrome -w pprof -o "$TMP/$f.2.pb.gz" "$G/$f.json"
    cmp "$TMP/$f.1.pb.gz" "$TMP/$f.2.pb.gz" || fail "$f: -j 2 differs from -j 1"
    case $f in
    dense-*) [ ! -s "$TRACE" ] || fail "$f: a dense legacy-shape trace was read in parts" ;;
    *) grep -q "^parts [1-9]" "$TRACE" || fail "$f: a 16 MiB Kineto-shaped trace was read whole" ;;
    esac
    echo "ok $f"
done
