# README's "A trace as a profile": the commands it shows print what it shows, today. The
# example is what a reader first trusts, so it must be the real default view (no profiler
# window in it) and the note that says how to bring left-out spans back.
source "$(dirname "$0")/lib.sh"
export TCONV_PLUGIN_PATH=$TEST_PLUGINS
ROOT=$SRC/..
command -v go >/dev/null || {
    echo "SKIP: go is not installed"
    exit 77
}
export HOME=$TMP/home GOCACHE=$TMP/gocache GOPATH=$TMP/gopath GOFLAGS= GOPROXY=off TZ=UTC
export PPROF_TMPDIR=$TMP/pprof
mkdir -p "$HOME"

# The example: from "$ tconv -w pprof" to the closing fence, "..." cutting the long tail.
awk '/^\$ tconv -w pprof -o trace.pb.gz examples\/traces\/kineto-minitoy.json.gz$/ {on = 1}
     on && /^```$/ {exit}
     on {print}' "$ROOT/README.md" >"$TMP/shown"
[ -s "$TMP/shown" ] || fail "README has no pprof example"
! grep -q "PyTorch Profiler" "$TMP/shown" || fail "README's pprof example shows the profiler window"

# What those commands print now, in the README's order, cut where the README cuts.
(cd "$ROOT" && "$TCONV" -w pprof -o "$TMP/trace.pb.gz" examples/traces/kineto-minitoy.json.gz) \
    2>"$TMP/tconv.err"
{
    echo '$ tconv -w pprof -o trace.pb.gz examples/traces/kineto-minitoy.json.gz'
    cat "$TMP/tconv.err"
    echo '$ go tool pprof -top trace.pb.gz'
    (cd "$TMP" && go tool pprof -top trace.pb.gz 2>/dev/null)
} >"$TMP/real"
lines=$(grep -c '' "$TMP/shown")
if tail -n 1 "$TMP/shown" | grep -qx '\.\.\.'; then
    head -n $((lines - 1)) "$TMP/real" >"$TMP/cut"
    echo '...' >>"$TMP/cut"
else
    cp "$TMP/real" "$TMP/cut"
fi
diff -u "$TMP/shown" "$TMP/cut" >&2 || fail "README's pprof example differs from the real output"
expect_grep "$TMP/shown" "--all-spans counts them"
echo "readme: ok"
