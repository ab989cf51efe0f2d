# Names come from the input: printed for a person (the summary report, warnings, errors), their
# control bytes are escaped, so a trace cannot drive the terminal.
source "$(dirname "$0")/lib.sh"
export TCONV_PLUGIN_PATH=$TEST_PLUGINS
printf '[{"ph":"X","pid":1,"tid":1,"ts":0,"dur":5,"name":"evil\\u001b[31mred\\u0007\\u0085x"},
{"ph":"X","pid":1,"tid":1,"ts":1,"dur":9,"name":"child\\u001b]0;title\\u0007"}]' >"$TMP/evil.json"
expect_rc 0 "$TCONV" -w summary "$TMP/evil.json"
! grep -q $'[\x01-\x09\x0b-\x1f\x7f]' "$TMP/out" || fail "summary printed control bytes"
! grep -q $'\xc2[\x80-\x9f]' "$TMP/out" || fail "summary printed C1 controls"
expect_grep "$TMP/out" 'evil\x1b[31mred\x07\x85x'
# The child outlives its parent: the warning names both, escaped.
! grep -q $'[\x01-\x09\x0b-\x1f\x7f]' "$TMP/err" || fail "warning printed control bytes"
expect_grep "$TMP/err" 'child\x1b]0;title\x07'
echo "escape: ok"
