# Overlapping kernels on one GPU stream keep their whole length on lanes ("stream 7 #2"),
# with no clipping warning; a thread track still clips (and warns).
source "$(dirname "$0")/lib.sh"
export TCONV_PLUGIN_PATH=$TEST_PLUGINS
IN=$DATA/roles/lanes.json

expect_rc 0 "$TCONV" -w text-ordered -o "$TMP/o.txt" "$IN"
[ ! -s "$TMP/err" ] || fail "warnings: $(cat "$TMP/err")"
expect_grep "$TMP/o.txt" 'begin      60000 T2 name="elementwise"'
expect_grep "$TMP/o.txt" 'end        90000 T2 name="elementwise"'
expect_grep "$TMP/o.txt" 'end        67000 T1 name="volta_sgemm"'
expect_grep "$TMP/o.txt" 'track T2 input=0 kind=gpu pid="0" tid="stream 7 #2"'

# Kernel time is the raw sum of durations, attributed to the launches.
expect_rc 0 "$TCONV" -w folded -W value=gpu -W unit=ns -o "$TMP/g.folded" "$IN"
printf '%s\n' "cudaLaunchKernel;[gpu] elementwise 30000" "cudaLaunchKernel;[gpu] volta_sgemm 47000" \
    >"$TMP/want"
diff "$TMP/want" "$TMP/g.folded" >&2 || fail "GPU folded output"

# The same spans on a CPU thread nest by clipping.
sed 's/"stream 7"/"7"/; s/"cat":"kernel"/"cat":"cpu_op"/g; s/"cat":"gpu_user_annotation"/"cat":"cpu_op"/' \
    "$IN" >"$TMP/cpu.json"
expect_rc 0 "$TCONV" -w text-ordered -o "$TMP/c.txt" "$TMP/cpu.json"
expect_grep "$TMP/err" "clipped to the parent's end [order.child-outlives-parent]"
echo "lanes: ok"
