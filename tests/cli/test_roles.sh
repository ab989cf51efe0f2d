# Spans that are not work of the thread they sit on (Kineto's profiler window, async spans) stay
# out of self time by default, with a note; --all-spans brings them back. Events outputs keep
# them as events.
source "$(dirname "$0")/lib.sh"
export TCONV_PLUGIN_PATH=$TEST_PLUGINS
IN=$DATA/roles/window-async.json

expect_rc 0 "$TCONV" -w folded -W unit=ns -o "$TMP/def.folded" "$IN"
printf '%s\n' "aten::mm 150000" "aten::mm;aten::add 50000" >"$TMP/want"
diff "$TMP/want" "$TMP/def.folded" >&2 || fail "default folded output"
expect_grep "$TMP/err" "tconv: note: 3 spans that are not work of their thread left out of self time (1 window, 2 async); --all-spans counts them"

expect_rc 0 "$TCONV" --all-spans -w folded -W unit=ns -o "$TMP/all.folded" "$IN"
printf '%s\n' "PyTorch Profiler (0) 1000000" "aten::mm 150000" "aten::mm;aten::add 50000" \
    "fetch 1380000" >"$TMP/want"
diff "$TMP/want" "$TMP/all.folded" >&2 || fail "--all-spans folded output"
! grep -q "note:" "$TMP/err" || fail "a note with --all-spans: $(cat "$TMP/err")"

expect_rc 0 "$TCONV" -q -w folded -o "$TMP/q.folded" "$IN"
[ ! -s "$TMP/err" ] || fail "-q printed: $(cat "$TMP/err")"

# The csv stacks table holds the same self times as folded, and says what it left out.
expect_rc 0 "$TCONV" -w csv -W table=stacks -o "$TMP/def.csv" "$IN"
printf '%s\n' "stack,depth,samples_count,wall_nanoseconds" "aten::mm,1,1,150000" \
    "aten::mm;aten::add,2,1,50000" >"$TMP/want"
diff "$TMP/want" <(tr -d '\r' <"$TMP/def.csv") >&2 || fail "default csv stacks table"
expect_grep "$TMP/err" "tconv: note: csv: 3 spans that are not work of their thread left out of the stacks table; --all-spans counts them"
expect_rc 0 "$TCONV" --all-spans -w csv -W table=stacks -o "$TMP/all.csv" "$IN"
expect_grep "$TMP/all.csv" "PyTorch Profiler (0),1,1,1000000"

# The text writer (every event as pushed) still sees the window and the async spans.
expect_rc 0 "$TCONV" -w text -o "$TMP/all.txt" "$IN"
expect_grep "$TMP/all.txt" "PyTorch Profiler (0)"
[ "$(grep -c 'name="fetch" cat="net"' "$TMP/all.txt")" = 4 ] || fail "async events missing from text output"
echo "roles: ok"
