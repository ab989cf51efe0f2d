#!/usr/bin/env bash
# The perfetto writer's round trip: for every Chrome trace of the corpus that the Chrome reader
# converts, `tconv -w text-ordered IN` equals `tconv IN -o x.pftrace; tconv -w text-ordered
# x.pftrace` once tracks are named by (input, pid, tid) and flow ids compared by use
# (plugins/chrome/tests/roundtrip_norm.py, then renumber_flows.py). Traces with stack samples
# are compared by sample count (Perfetto's samples keep the stack, not the values). Every
# written file is also checked by check_trace.py (protoc --decode against the project's proto,
# no dangling interned ids or track uuids).
# usage: roundtrip.sh TCONV CORPUS_DIR SOURCE_DIR    (exit 77 when the corpus is absent)
set -euo pipefail
TCONV=$1
CORPUS=$2
SRC=$3
HERE=$(cd "$(dirname "$0")" && pwd)
[ -d "$CORPUS" ] || { echo "corpus absent: skipped"; exit 77; }
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT
unset TCONV_PLUGIN_PATH
T() { "$TCONV" -q "$@"; }
NORM=$SRC/plugins/chrome/tests/roundtrip_norm.py
PY=/usr/bin/python3
check=1
$PY -c 'import google.protobuf' 2>/dev/null && command -v protoc >/dev/null || check=0
[ $check = 1 ] || echo "python3-protobuf or protoc missing: the structure checks are skipped"

norm() {
    python3 "$NORM" "$1" "$1.n1"
    python3 "$HERE/renumber_flows.py" "$1.n1" "$2"
}

n=0
passed=0
failed=0
while IFS= read -r -d '' f; do
    first=$(gzip -dcf "$f" 2>/dev/null | head -c 64 | tr -d ' \t\r\n' | head -c 1 || true)
    [ "$first" = "{" ] || [ "$first" = "[" ] || continue
    T -r chrome -w text-ordered -o "$TMP/a.txt" "$f" 2>/dev/null || continue
    n=$((n + 1))
    if ! T -r chrome -o "$TMP/out.pftrace" "$f" 2>"$TMP/err" ||
        ! T -w text-ordered -o "$TMP/b.txt" "$TMP/out.pftrace" 2>>"$TMP/err"; then
        echo "FAIL: $f: $(head -c 400 "$TMP/err")" >&2
        failed=$((failed + 1))
        continue
    fi
    if [ $check = 1 ] && ! $PY "$HERE/check_trace.py" "$SRC/proto" "$TMP/out.pftrace" >"$TMP/chk" 2>&1; then
        echo "FAIL: $f: the written trace does not check: $(head -c 400 "$TMP/chk")" >&2
        failed=$((failed + 1))
        continue
    fi
    if grep -q '^sample ' "$TMP/a.txt"; then
        want=$(grep -c '^sample ' "$TMP/a.txt" || true)
        got=$(grep -c '^sample ' "$TMP/b.txt" || true)
        spans_a=$(grep -c '^begin ' "$TMP/a.txt" || true)
        spans_b=$(grep -c '^begin ' "$TMP/b.txt" || true)
        if [ "$want" = "$got" ] && [ "$spans_a" = "$spans_b" ]; then
            passed=$((passed + 1))
        else
            echo "FAIL: $f: $want samples and $spans_a spans, read back $got and $spans_b" >&2
            failed=$((failed + 1))
        fi
        continue
    fi
    norm "$TMP/a.txt" "$TMP/a.norm"
    norm "$TMP/b.txt" "$TMP/b.norm"
    if cmp -s "$TMP/a.norm" "$TMP/b.norm"; then
        passed=$((passed + 1))
    else
        echo "FAIL: $f: the round trip differs:" >&2
        { diff "$TMP/a.norm" "$TMP/b.norm" || true; } | head -6 | cut -c1-300 >&2
        failed=$((failed + 1))
    fi
done < <(find "$CORPUS" -type f \( -name '*.json' -o -name '*.gz' -o -name '*.trace' \) \
    -not -path '*/_generated/*' -print0 | sort -z)
echo "round trip: $n Chrome traces: $passed equal"
echo "$passed passed, $failed failed"
[ "$n" -gt 0 ] && [ "$failed" = 0 ]
