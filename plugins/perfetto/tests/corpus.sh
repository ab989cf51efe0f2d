#!/usr/bin/env bash
# The perfetto reader on the corpus's Perfetto traces: what it reads equals an independent
# decode (check_trace.py --counts, python3-protobuf against the project's proto): slice begins
# and ends, instants, CPU samples with a callstack. Each also converts to pprof, and the pprof of
# the systing trace (callstack samples of a BPF tracer) holds one sample per perf_sample packet
# (go tool pprof). Each trace read twice gives the same events; gzip input reads the same.
# usage: corpus.sh TCONV CORPUS_DIR SOURCE_DIR    (exit 77 when no trace is there)
set -euo pipefail
TCONV=$1
CORPUS=$2
SRC=$3
HERE=$(cd "$(dirname "$0")" && pwd)
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT
unset TCONV_PLUGIN_PATH
PY=/usr/bin/python3
files=()
for f in "$CORPUS"/perfetto/*.pftrace "$CORPUS"/perfetto/*.perfetto-trace "$CORPUS"/perfetto/*.pb; do
    [ -f "$f" ] && files+=("$f")
done
[ ${#files[@]} -gt 0 ] || { echo "no Perfetto trace in the corpus: skipped"; exit 77; }
$PY -c 'import google.protobuf' 2>/dev/null && command -v protoc >/dev/null || {
    echo "python3-protobuf or protoc missing: skipped"; exit 77; }

passed=0
failed=0
fail() { echo "FAIL: $*" >&2; failed=$((failed + 1)); }
for f in "${files[@]}"; do
    name=$(basename "$f")
    if ! "$TCONV" -q -w text -o "$TMP/a.txt" "$f" 2>"$TMP/err"; then
        fail "$name: $(head -c 300 "$TMP/err")"
        continue
    fi
    "$PY" "$HERE/check_trace.py" "$SRC/proto" "$f" --counts >"$TMP/counts"
    want() { awk -v k="$1" '$1 == k { print $2 }' "$TMP/counts" | grep . || echo 0; }
    got() { grep -c "^$1 " "$TMP/a.txt" || true; }
    line="$name:"
    ok=1
    for pair in begin:event.type1 end:event.type2 instant:event.type3 sample:sample.perf; do
        g=$(got "${pair%%:*}")
        w=$(want "${pair#*:}")
        line="$line ${pair%%:*} $g/$w"
        [ "$g" = "$w" ] || ok=0
    done
    echo "$line"
    [ $ok = 1 ] || { fail "$name: counts differ from the independent decode"; continue; }
    "$TCONV" -q -w text -o "$TMP/b.txt" "$f"
    cmp -s "$TMP/a.txt" "$TMP/b.txt" || { fail "$name: two reads differ"; continue; }
    gzip -c "$f" >"$TMP/$name.gz"
    "$TCONV" -q -w text -o "$TMP/c.txt" "$TMP/$name.gz"
    cmp -s "$TMP/a.txt" "$TMP/c.txt" || { fail "$name: the gzip of it reads otherwise"; continue; }
    if ! "$TCONV" -q -o "$TMP/p.pb.gz" "$f" 2>"$TMP/err"; then
        fail "$name: to pprof: $(head -c 300 "$TMP/err")"
        continue
    fi
    passed=$((passed + 1))
done

# pprof of the systing trace: one sample per perf_sample packet with a callstack.
sys=$CORPUS/perfetto/systing-14325815-trace.pb
if [ -f "$sys" ] && command -v go >/dev/null; then
    "$TCONV" -q -o "$TMP/s.pb.gz" "$sys"
    want=$("$PY" "$HERE/check_trace.py" "$SRC/proto" "$sys" --counts | awk '$1 == "sample.perf" { print $2 }')
    got=$(go tool pprof -raw "$TMP/s.pb.gz" 2>/dev/null |
        awk '/^Samples:/ { on = 1; next } /^Locations/ { on = 0 } on && $1 ~ /^[0-9]+:$/ { n += $1 } END { print n + 0 }')
    echo "systing: pprof samples $got, perf_sample packets $want"
    if [ -n "$want" ] && [ "$got" = "$want" ]; then
        passed=$((passed + 1))
    else
        fail "systing: pprof holds $got samples, the trace $want"
    fi
fi
echo "$passed passed, $failed failed"
[ "$failed" = 0 ]
