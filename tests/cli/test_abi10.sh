# Plugins built for ABI 1.0 keep working under 1.1: tconv-tevt10 is the tevt reader with the 1.0
# event size and a writer class of the 1.0 size whose later fields hold junk.
source "$(dirname "$0")/lib.sh"
export TCONV_PLUGIN_PATH=$TEST_PLUGINS

expect_rc 0 "$TCONV" --list
expect_grep "$TMP/out" "reader  tevt10"
expect_grep "$TMP/out" "writer  tevt10-out"
! grep -q "skipping plugin" "$TMP/err" || fail "a plugin was skipped: $(cat "$TMP/err")"

# A 1.0 reader sets no role nor correlation id: the core takes both from the category and the
# args, so GPU work is still charged to the launch that started it.
cat >"$TMP/gpu.tevt" <<'T'
#tevt
X 1 1 0 1000 step user_annotation
A correlation=7
X 1 1 100 50 cudaLaunchKernel cuda_runtime
A correlation=7
X 1 stream7 300 400 sgemm kernel
X 1 1 2000 10 Trace-window Trace
T
for r in tevt tevt10; do
    expect_rc 0 "$TCONV" -r $r -w folded -W value=gpu -o "$TMP/$r.folded" "$TMP/gpu.tevt"
    [ "$(cat "$TMP/$r.folded")" = "step;cudaLaunchKernel;[gpu] sgemm 400" ] ||
        fail "$r: GPU attribution gave: $(cat "$TMP/$r.folded")"
done

# A 1.0 writer gets every event, as pushed.
expect_rc 0 "$TCONV" -r tevt10 -w tevt10-out -o "$TMP/out.txt" "$TMP/gpu.tevt"
printf '%s\n' "complete 0 1000 nargs=0" "complete 100 50 nargs=1" "complete 300 400 nargs=1" \
    "complete 2000 10 nargs=0" >"$TMP/want.txt"
diff "$TMP/want.txt" "$TMP/out.txt" >&2 || fail "1.0 writer output differs"

# The host reads no field past a 1.0 class: its junk extension does not pick the writer.
expect_rc 2 "$TCONV" -r tevt10 -o "$TMP/x.tevt10out" "$TMP/gpu.tevt"
echo "abi10: ok"
