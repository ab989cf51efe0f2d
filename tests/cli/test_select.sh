# Selection: --window (relative, absolute, units), --steps (Kineto ProfilerStep#N or a named
# pattern), --input. Totals of a selection are the busy time inside it.
source "$(dirname "$0")/lib.sh"
export TCONV_PLUGIN_PATH=$TEST_PLUGINS
IN=$DATA/roles/steps.json
# (Steps keep a frame each here, to show which were selected; merged below.)
fold() { expect_rc 0 "$TCONV" -q -w folded -W unit=ns -W steps=keep "$@" -o "$TMP/f" "$IN"; }
# (Lines of value 0, a span whose children fill the window, say nothing: not compared.)
want() {
    printf '%s\n' "$@" >"$TMP/want"
    grep -v ' 0$' "$TMP/f" | diff "$TMP/want" - >&2 || fail "folded output for: $ARGS"
}

# Step 2 is [1100, 2100] us: its own time, mm inside it, and add on thread 2 cut at 2100.
ARGS="--steps 2"; fold --steps 2
want "ProfilerStep#2 700000" "ProfilerStep#2;aten::mm 300000" "aten::add 200000"
ARGS="--steps 2-3"; fold --steps 2-3
want "ProfilerStep#2 700000" "ProfilerStep#2;aten::mm 300000" "ProfilerStep#3 900000" \
    "ProfilerStep#3;iter 7 100000" "aten::add 400000"
# The same window by time, relative to the first event (0) and absolute.
ARGS="--window 1.1ms:2100us"; fold --window 1.1ms:2100us
want "ProfilerStep#2 700000" "ProfilerStep#2;aten::mm 300000" "aten::add 200000"
ARGS="--window @1100000ns:2.1ms"; fold --window @1100000ns:2.1ms
want "ProfilerStep#2 700000" "ProfilerStep#2;aten::mm 300000" "aten::add 200000"
# Open-ended, and a span cut at the window's start.
ARGS="--window 1.3ms:"; fold --window 1.3ms:
want "ProfilerStep#2 600000" "ProfilerStep#2;aten::mm 200000" "ProfilerStep#3 900000" \
    "ProfilerStep#3;iter 7 100000" "aten::add 400000"
# A user's step pattern.
ARGS="--steps 7 --step-name 'iter '"; fold --steps 7 --step-name "iter "
want "ProfilerStep#3;iter 7 100000" "aten::add 100000"
# The name alone: the separator before the number is not part of it.
ARGS="--steps 7 --step-name iter"; fold --steps 7 --step-name iter
want "ProfilerStep#3;iter 7 100000" "aten::add 100000"
# Spans named just so are steps too, counted from 1 in the order they start (not the file's),
# and a name that merely begins so is none ("iteration_bwd").
cat >"$TMP/bare.json" <<'JSON'
[{"ph":"X","name":"iteration","pid":1,"tid":1,"ts":600,"dur":400},
 {"ph":"X","name":"iteration","pid":1,"tid":1,"ts":0,"dur":100},
 {"ph":"X","name":"iteration","pid":1,"tid":1,"ts":200,"dur":300},
 {"ph":"X","name":"iteration_bwd","pid":1,"tid":1,"ts":250,"dur":50},
 {"ph":"X","name":"iteration#9","pid":1,"tid":1,"ts":1100,"dur":100}]
JSON
expect_rc 0 "$TCONV" -q -w folded -W unit=ns --steps 2 --step-name iteration -o "$TMP/f" "$TMP/bare.json"
ARGS="bare --steps 2 --step-name iteration"
want "iteration 250000" "iteration;iteration_bwd 50000"
expect_rc 0 "$TCONV" -q -w folded -W unit=ns --steps 9 --step-name iteration -o "$TMP/f" "$TMP/bare.json"
ARGS="bare --steps 9 --step-name iteration"
want "iteration 100000"
# A name that matches nothing is said, not silently an empty breakdown or selection.
expect_rc 0 "$TCONV" -w summary --step-name iterashun -o "$TMP/s" "$TMP/bare.json"
expect_grep "$TMP/err" "--step-name 'iterashun' matched no span"
expect_rc 0 "$TCONV" -w summary --step-name iteration -o "$TMP/s" "$TMP/bare.json"
! grep -q "matched no span" "$TMP/err" || fail "--step-name iteration: warned though it matched"
# By default the steps selected are one ProfilerStep frame (the core's steps stage), or one frame
# named after the user's pattern, whose steps they are then.
merged() { expect_rc 0 "$TCONV" -q -w folded -W unit=ns "$@" -o "$TMP/f" "$IN"; }
ARGS="--steps 2-3 (merged)"; merged --steps 2-3
want "ProfilerStep 1600000" "ProfilerStep;aten::mm 300000" "ProfilerStep;iter 7 100000" \
    "aten::add 400000"
ARGS="--step-name 'iter ' (merged)"; merged --step-name "iter "
want "ProfilerStep#1 500000" "ProfilerStep#1;aten::mm 500000" "ProfilerStep#2 700000" \
    "ProfilerStep#2;aten::mm 300000" "ProfilerStep#3 900000" "ProfilerStep#3;iter 100000" \
    "aten::add 400000"

# Inputs: the second copy only (0-based).
expect_rc 0 "$TCONV" -q -w text-ordered --input 1 -o "$TMP/t" "$IN" "$DATA/roles/lanes.json"
! grep -q "aten::mm" "$TMP/t" || fail "--input 1 kept input 0's events"
expect_grep "$TMP/t" "volta_sgemm"

# Mistakes are usage errors that say how to write it.
expect_rc 2 "$TCONV" -w folded --window 2 "$IN"
expect_grep "$TMP/err" "give START:END"
expect_rc 2 "$TCONV" -w folded --window 1x:2s "$IN"
expect_rc 2 "$TCONV" -w folded --window 2s:1s "$IN"
expect_grep "$TMP/err" "the end must be after the start"
expect_rc 2 "$TCONV" -w folded --steps 3-1 "$IN"
expect_rc 2 "$TCONV" -w text --steps 1 "$IN"
expect_grep "$TMP/err" "streams events"
expect_rc 2 "$TCONV" -w folded --input x "$IN"
echo "select: ok"
