# End-to-end conversions with the test reader and the text writers: golden outputs for the
# event model and the ordering and stack stages, gzip, stdin, several inputs.
source "$(dirname "$0")/lib.sh"
IN=$DATA/core/nesting.tevt
export TCONV_PLUGIN_PATH=$TEST_PLUGINS

expect_rc 0 "$TCONV" -w text "$IN"
golden core-nesting.text "$TMP/out"

expect_rc 0 "$TCONV" -w text-ordered "$IN"
golden core-nesting.ordered "$TMP/out"
expect_grep "$TMP/err" "tconv: warning: span 'late_child' [1150, 1250] ns ends after its parent 'forward' (ends 1200); clipped to the parent's end [order.child-outlives-parent]"

expect_rc 0 "$TCONV" -w text-stacks "$IN"
golden core-nesting.stacks "$TMP/out"
# Events the writer has no place for are counted in a note: nothing is wrong with the input.
expect_grep "$TMP/err" "tconv: note: the text-stacks writer has no place for some events (1 instant, 1 counter, 1 flow-start, 1 flow-end); they are left out"
! grep -q "core.dropped" "$TMP/err" || fail "dropped events are a warning: $(cat "$TMP/err")"
expect_rc 0 "$TCONV" -q -w text-stacks "$IN"
[ ! -s "$TMP/err" ] || fail "-q still shows: $(cat "$TMP/err")"
# Self times add up to the busy time of each track: 500 + 30 + 300.
total=$(grep -o 'values=\[1,[0-9-]*\]' "$TMP/out" | sed 's/.*,\([0-9-]*\)\]/\1/' | paste -sd+ | bc)
[ "$total" = 830 ] || fail "self times sum to $total, expected 830"

# gzip is recognised by content, whatever the name; stdin works; -o writes the same bytes.
gzip -c "$IN" >"$TMP/nesting.bin"
expect_rc 0 "$TCONV" -w text -o "$TMP/gz.txt" "$TMP/nesting.bin"
golden core-nesting.text "$TMP/gz.txt"
expect_rc 0 sh -c "'$TCONV' -w text - < '$TMP/nesting.bin'"
golden core-nesting.text "$TMP/out"
expect_rc 0 sh -c "cat '$IN' | '$TCONV' -w text"
golden core-nesting.text "$TMP/out"

# Several inputs become one stream; their tracks stay apart (input index).
expect_rc 0 "$TCONV" -w text "$IN" "$TMP/nesting.bin"
[ "$(grep -c '^track ' "$TMP/out")" = 6 ] || fail "expected 6 tracks from 2 inputs"
expect_grep "$TMP/out" 'track T3 input=1 kind=thread pid="100" tid="7" process="trainer (rank 0)"'

# Deterministic: two runs, same bytes.
"$TCONV" -q -w text-stacks "$IN" >"$TMP/a"
"$TCONV" -q -w text-stacks "$IN" >"$TMP/b"
cmp "$TMP/a" "$TMP/b" || fail "output differs between runs"


# A directory reads every file below it in name order; files of unknown formats are skipped.
mkdir -p "$TMP/run/sub"
cp "$IN" "$TMP/run/b.tevt"
cp "$TMP/nesting.bin" "$TMP/run/sub/a.bin"
echo "notes" >"$TMP/run/README"
expect_rc 0 "$TCONV" -w text "$TMP/run"
[ "$(grep -c '^track ' "$TMP/out")" = 6 ] || fail "directory: expected 6 tracks"
expect_grep "$TMP/err" "'$TMP/run/README' (in '$TMP/run') is not in a format any reader recognises; skipped"
mkdir "$TMP/none"
echo "notes" >"$TMP/none/README"
expect_rc 1 "$TCONV" -w text "$TMP/none"
expect_grep "$TMP/err" "tconv: error: no file under '$TMP/none' is in a format tconv can read"
echo "convert: ok"
