# The plugin author's harness passes a plugin that keeps the contract and fails one that does
# not, naming each broken rule.
source "$(dirname "$0")/lib.sh"
CHECK=$(dirname "$TCONV")/tconv-plugin-check
export TCONV_PLUGIN_PATH=$(dirname "$TCONV")/plugins

expect_rc 0 "$CHECK" "$TEST_PLUGINS/tconv-tevt10.so" "$DATA/core/nesting.tevt"
! grep -q "^FAIL" "$TMP/out" || fail "tevt10: $(cat "$TMP/out")"
expect_grep "$TMP/out" "ok   writer tevt10-out: every event kind, the same bytes twice"

expect_rc 1 "$CHECK" "$(dirname "$BROKEN_PLUGINS")/plugins-sloppy/tconv-sloppy.so"
expect_grep "$TMP/out" "FAIL reader sloppy: probe stays in 0..100 and does not claim junk"
expect_grep "$TMP/out" "FAIL reader sloppy: junk input is read or refused with a message: accepted with no event and no error"
expect_grep "$TMP/out" "FAIL writer sloppy-out: every event kind, the same bytes twice"

expect_rc 2 "$CHECK" "$BROKEN_PLUGINS/tconv-broken-major.so"
expect_grep "$TMP/err" "built for plugin ABI"
expect_rc 2 "$CHECK"
echo "plugin-check: ok"
