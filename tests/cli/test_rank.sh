# --rank N: the events of the inputs whose metadata says they are rank N (Kineto's
# distributedInfo, which may come after the events), whatever their position; inputs that say
# no rank are refused, never guessed.
source "$(dirname "$0")/lib.sh"
export TCONV_PLUGIN_PATH=$TEST_PLUGINS
HTA=$SRC/corpus/HolisticTraceAnalysis/tests/data/trace_filter
R0=$HTA/sampled_rank-0.json.gz
R1=$HTA/sampled_rank-1.json.gz
LATE=$DATA/rank/late-rank3.json # rank 3, said after its events
NONE=$DATA/rank/no-rank.json
[ -f "$R0" ] && [ -f "$R1" ] || {
    echo "SKIP: no HTA trace_filter traces in tests/corpus"
    exit 77
}

# Each rank alone, from the two real traces in either order, is that trace converted alone.
for r in 0 1; do
    eval "one=\$R$r"
    expect_rc 0 "$TCONV" -q -w folded -W unit=ns -o "$TMP/alone.folded" "$one"
    expect_rc 0 "$TCONV" -q --rank "$r" -w folded -W unit=ns -o "$TMP/rank.folded" "$R1" "$R0"
    cmp -s "$TMP/alone.folded" "$TMP/rank.folded" || fail "--rank $r differs from rank $r alone"
    expect_rc 0 "$TCONV" -q --rank "$r" -w text-ordered -W tracks=false -o "$TMP/rank.txt" "$R0" "$R1"
    grep -q "rank\\\\\":$r," "$TMP/rank.txt" || fail "--rank $r lost its own metadata"
    ! grep -q "rank\\\\\":$((1 - r))," "$TMP/rank.txt" || fail "--rank $r kept rank $((1 - r))"
done
[ -s "$TMP/alone.folded" ] || fail "empty folded output"

# A rank given after the events still selects; the note counts only the kept input's spans.
expect_rc 0 "$TCONV" --rank 3 -w folded -W unit=ns -o "$TMP/late.folded" "$R0" "$LATE"
printf 'aten::mm 10000\n' | diff - "$TMP/late.folded" >&2 || fail "--rank 3 output"
expect_grep "$TMP/err" "note: 1 span that is not work of its thread left out of self time (1 window)"

# No input is rank 2: a usage error that lists the ranks there are.
expect_rc 2 "$TCONV" --rank 2 -w folded -o "$TMP/x" "$R0" "$R1"
expect_grep "$TMP/err" "no input is rank 2; the inputs are ranks 0, 1"
[ ! -e "$TMP/x" ] || fail "an output was written without a matching rank"

# No input says a rank: a usage error that says how to see an input's rank.
expect_rc 2 "$TCONV" --rank 0 -w folded -o "$TMP/x" "$NONE" "$NONE"
expect_grep "$TMP/err" "--rank 0: no input says which rank it is"
expect_grep "$TMP/err" "tconv -w text INPUT | grep -E 'name=\"(distributedInfo|rank)\"'"

# Only some do: the run fails and names the input without one.
expect_rc 1 "$TCONV" --rank 0 -w folded -o "$TMP/x" "$R0" "$NONE"
expect_grep "$TMP/err" "input '$NONE' says no rank, and other inputs do"

# --keep-going: an input that failed is left out, not held against the others.
printf '{"traceEvents": [{"ph": "X", "name": "a", "pid": 1, "tid": 1, "ts": 0' >"$TMP/cut.json"
expect_rc 1 "$TCONV" -q --keep-going --rank 3 -w folded -W unit=ns -o "$TMP/kg.folded" \
    "$TMP/cut.json" "$LATE"
printf 'aten::mm 10000\n' | diff - "$TMP/kg.folded" >&2 || fail "--keep-going --rank 3 output"

# With --input, both must hold.
expect_rc 0 "$TCONV" -q --rank 3 --input 1 -w folded -W unit=ns -o "$TMP/both.folded" "$R0" "$LATE"
printf 'aten::mm 10000\n' | diff - "$TMP/both.folded" >&2 || fail "--rank 3 --input 1 output"
expect_rc 0 "$TCONV" -q --rank 3 --input 0 -w folded -o "$TMP/both.folded" "$R0" "$LATE"
[ ! -s "$TMP/both.folded" ] || fail "--rank 3 --input 0 kept events"

# Mistakes: not a rank; a writer that streams cannot wait for the rank.
expect_rc 2 "$TCONV" --rank x -w folded "$R0"
expect_grep "$TMP/err" "--rank 'x': give a rank"
expect_rc 2 "$TCONV" --rank -1 -w folded "$R0"
expect_rc 2 "$TCONV" --rank 0 -w text "$R0"
expect_grep "$TMP/err" "--rank cannot apply to it"
expect_grep <("$TCONV" --help) "--rank N"
echo "rank: ok"
