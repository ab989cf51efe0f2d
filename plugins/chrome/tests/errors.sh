# Behaviour at the edges: positioned errors with exit 1 and no output file left, --strict,
# truncated traces, empty inputs, auto-detection, and plain vs gzip.
# usage: errors.sh TCONV DATA_DIR
set -euo pipefail
TCONV=$(cd "$(dirname "$1")" && pwd)/$(basename "$1")
DATA=$2
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT
unset TCONV_PLUGIN_PATH
cd "$DATA"

fail() {
    echo "FAIL: $*" >&2
    exit 1
}
# run CODE ARGS...: run tconv, expect exit CODE; output in $TMP/out and $TMP/err
run() {
    local want=$1
    shift
    set +e
    "$TCONV" "$@" >"$TMP/out" 2>"$TMP/err"
    local got=$?
    set -e
    if [ "$got" != "$want" ]; then
        cat "$TMP/err" >&2
        fail "exit $got, expected $want: tconv $*"
    fi
}
expect_err() { # exact line expected on stderr
    grep -qxF -- "$1" "$TMP/err" || { cat "$TMP/err" >&2; fail "stderr lacks: $1"; }
}
count() { # count KIND: events of that kind in the text dump
    grep -c "^$1 " "$TMP/out" || true
}
checks=0
ok() { checks=$((checks + 1)); }

# Invalid JSON (PyTorch 1.13 does not escape quotes in names): positioned error, exit 1, and
# no output file.
run 1 -r chrome -w text -o "$TMP/o.txt" unescaped-quote.json
expect_err "tconv: error: unescaped-quote.json:18: invalid JSON: expected ',' or '}' after the value of \"name\", found 'q' (in the event at byte 1)"
[ ! -e "$TMP/o.txt" ] || fail "an output file was left after a failed conversion"
ok
# The same through gzip: the offset counts decompressed bytes.
gzip -c unescaped-quote.json >"$TMP/q.json.gz"
run 1 -r chrome -w text "$TMP/q.json.gz"
expect_err "tconv: error: $TMP/q.json.gz:18: invalid JSON: expected ',' or '}' after the value of \"name\", found 'q' (in the event at byte 1)"
ok
# Cut inside an event.
run 1 -r chrome -w text truncated-in-event.json
expect_err "tconv: error: truncated-in-event.json:60: unexpected end of input inside the event at byte 1: the trace was cut off mid-event"
ok
# Other syntax errors name what was expected.
printf '[{"ph":"X" "ts":1}]' >"$TMP/colon.json"
run 1 -r chrome -w text "$TMP/colon.json"
expect_err "tconv: error: $TMP/colon.json:11: invalid JSON: expected ',' or '}' after the value of \"ph\", found '\"' (in the event at byte 1)"
printf '[{"ph":"X"},]' >"$TMP/comma.json"
run 1 -r chrome -w text "$TMP/comma.json"
expect_err "tconv: error: $TMP/comma.json:12: invalid JSON: expected a value after ',', found ']'"
printf '{"traceEvents":[]} x' >"$TMP/garbage.json"
run 1 -r chrome -w text "$TMP/garbage.json"
expect_err "tconv: error: $TMP/garbage.json:19: invalid JSON: expected the end of input after the trace, found 'x'"
printf '{"traceEvents":{}}' >"$TMP/obj.json"
run 1 -r chrome -w text "$TMP/obj.json"
expect_err "tconv: error: $TMP/obj.json:15: expected an array as the value of \"traceEvents\""
printf '[{"name":"a\x01b"}]' >"$TMP/ctl.json"
run 1 -r chrome -w text "$TMP/ctl.json"
grep -qF "$TMP/ctl.json:" "$TMP/err" && grep -qF "invalid character inside string" "$TMP/err" ||
    fail "control character in a string: $(cat "$TMP/err")"
ok

# Malformed events: skipped and counted, or an error under --strict / -R strict=true.
run 0 -r chrome -w text bad-events.json
[ "$(count complete)" = 1 ] || fail "bad-events: expected 1 complete event"
[ "$(count counter)" = 2 ] || fail "bad-events: expected 2 counter values"
expect_err 'tconv: warning: bad-events.json:10: event skipped: missing "ph" [chrome.bad-event, 6 times; first shown]'
run 1 --strict -r chrome -w text -o "$TMP/s.txt" bad-events.json
expect_err 'tconv: error: bad-events.json:10: invalid event: missing "ph"'
[ ! -e "$TMP/s.txt" ] || fail "an output file was left after a strict failure"
printf '[{"ph":"X","name":"a","ts":"soon","pid":1,"tid":1}]' >"$TMP/ts.json"
run 1 -R strict=true -r chrome -w text "$TMP/ts.json"
expect_err "tconv: error: $TMP/ts.json:1: invalid event: \"ts\" is not a number"
ok

# The "{}" that closes every TensorFlow trace is no event, even under --strict; an object with
# members but no "ph" still is a malformed one.
printf '{"traceEvents":[{"ph":"X","name":"a","ts":1,"pid":1,"tid":1},{ },{}]}' >"$TMP/tf.json"
run 0 --strict -r chrome -w text "$TMP/tf.json"
[ "$(count complete)" = 1 ] && [ ! -s "$TMP/err" ] || fail "empty objects: $(cat "$TMP/err")"
printf '[{"ph":"X","name":"a","ts":1,"pid":1,"tid":1},{"args":{}}]' >"$TMP/noph.json"
run 1 --strict -r chrome -w text "$TMP/noph.json"
expect_err "tconv: error: $TMP/noph.json:46: invalid event: missing \"ph\""
ok

# Truncated traces that viewers accept: no closing bracket, a trailing comma, only "[".
for f in truncated.json trailing-comma.json simple-partial.json simple-partial-trailing-comma.json; do
    run 0 -r chrome -w text "$f"
    [ ! -s "$TMP/err" ] || fail "$f: unexpected messages: $(cat "$TMP/err")"
done
run 0 -r chrome -w text only-bracket.json
[ ! -s "$TMP/out" ] && [ ! -s "$TMP/err" ] || fail "only-bracket: expected no events and no message"
run 0 -r chrome -w text truncated-object.json
expect_err "tconv: warning: truncated-object.json: the trace object is not closed (the producer may have stopped mid-write): read up to the end of input [chrome.truncated]"
run 0 -r chrome -w text empty.json
expect_err "tconv: warning: empty.json: no JSON value in the input: read as an empty trace [chrome.empty]"
[ ! -s "$TMP/out" ] || fail "empty.json: expected no output"
ok

# Auto-detection from the first bytes, plain and gzip, whatever the file name.
for f in all-phases.json truncated.json triton_example.json.gz; do
    cp "$f" "$TMP/noext"
    run 0 -w text "$TMP/noext"
    "$TCONV" -r chrome -w text "$f" >"$TMP/want" 2>/dev/null
    cmp -s "$TMP/out" "$TMP/want" || fail "auto-detected $f differs from -r chrome"
done
ok

# A UTF-8 byte order mark before the JSON is skipped; offsets still count it.
printf '\xef\xbb\xbf' | cat - all-phases.json >"$TMP/bom.json"
run 0 -w text "$TMP/bom.json"
"$TCONV" -r chrome -w text all-phases.json >"$TMP/want" 2>/dev/null
cmp -s "$TMP/out" "$TMP/want" || fail "a byte order mark changes the conversion"
printf '\xef\xbb\xbf[{"ph":"X" "ts":1}]' >"$TMP/bom-bad.json"
run 1 -r chrome -w text "$TMP/bom-bad.json"
expect_err "tconv: error: $TMP/bom-bad.json:14: invalid JSON: expected ',' or '}' after the value of \"ph\", found '\"' (in the event at byte 4)"
ok

# Plain and gzip inputs give the same bytes.
for f in all-phases.json float-noise.json non-utf8.json; do
    "$TCONV" -r chrome -w text "$f" >"$TMP/plain" 2>/dev/null
    gzip -c "$f" >"$TMP/z.gz"
    "$TCONV" -r chrome -w text "$TMP/z.gz" >"$TMP/gz" 2>/dev/null
    cmp -s "$TMP/plain" "$TMP/gz" || fail "$f: gzip input differs from plain"
done
ok

# Exact nanoseconds from the decimal text.
run 0 -r chrome -w text float-noise.json
grep -qE '^complete +551132 dur=1000 .*name="noise"' "$TMP/out" &&
    grep -qE '^complete +1712195495519689047 dur=1760 .*name="kineto"' "$TMP/out" &&
    ! grep -q 'name="max"' "$TMP/out" && # beyond 2^62 ns: skipped (docs/security.md)
    grep -qE '^complete +-2001 dur=0 .*name="negative"' "$TMP/out" ||
    { cat "$TMP/out" >&2; fail "float-noise: nanoseconds differ"; }
ok

echo "errors: $checks passed, 0 failed"
