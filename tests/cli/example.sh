# The out-of-tree examples: install tconv into a temporary prefix, build examples/jsonl (a
# writer) and examples/spanlog (a reader) against it with pkg-config only, run their harness
# tests (make check: tconv/harness.h, in-process), load them through TCONV_PLUGIN_PATH and check
# what they make.
source "$(dirname "$0")/lib.sh"
BUILD=$5
PREFIX=$TMP/prefix
cmake --install "$BUILD" --prefix "$PREFIX" >/dev/null
pc=$(find "$PREFIX" -name tconv.pc | head -n1)
[ -n "$pc" ] || fail "tconv.pc not installed"
plugindir=$(PKG_CONFIG_PATH=$(dirname "$pc") pkg-config --variable=plugindir tconv)
[ "$(realpath "$plugindir")" = "$(realpath "$PREFIX/lib/tconv/plugins")" ] ||
    fail "plugindir variable is $plugindir"
[ -x "$PREFIX/bin/tconv" ] || fail "CLI not installed"
[ -f "$PREFIX/include/tconv/tconv.h" ] || fail "headers not installed"
[ -f "$PREFIX/lib/tconv/plugins/tconv-text.so" ] || fail "plugins not installed"
# The manual page where man finds it, and the completions where bash-completion and zsh look.
MANWIDTH=80 man -M "$PREFIX/share/man" tconv 2>/dev/null | grep -q '^NAME' || fail "man tconv: no page"
[ -f "$PREFIX/share/bash-completion/completions/tconv" ] || fail "bash completion not installed"
[ -f "$PREFIX/share/zsh/site-functions/_tconv" ] || fail "zsh completion not installed"

mkdir "$TMP/ex"
# As the README says it: the search path on make's command line, not in the environment.
make -s -C "$SRC/../examples/jsonl" PKG_CONFIG_PATH="$(dirname "$pc")" O="$TMP/ex" >"$TMP/make.log" 2>&1 ||
    { cat "$TMP/make.log" >&2; fail "example did not build"; }
[ ! -s "$TMP/make.log" ] || { cat "$TMP/make.log" >&2; fail "example build printed warnings"; }
nm -D --defined-only "$TMP/ex/tconv-jsonl.so" | awk '{print $3}' >"$TMP/exports"
[ "$(cat "$TMP/exports")" = tconv_plugin_describe ] || fail "exports: $(cat "$TMP/exports")"

export TCONV_PLUGIN_PATH=$TMP/ex:$TEST_PLUGINS
expect_rc 0 "$PREFIX/bin/tconv" --list
expect_grep "$TMP/out" "writer  jsonl"
expect_rc 0 "$PREFIX/bin/tconv" -w jsonl "$DATA/core/nesting.tevt"
[ "$(wc -l <"$TMP/out")" = 17 ] || fail "expected 17 events"
python3 -c '
import json, sys
rows = [json.loads(l) for l in open(sys.argv[1])]
assert rows[0] == {"kind": "complete", "ts": 1000, "dur": 500, "pid": "100", "tid": "7",
                   "name": "step", "cat": "train"}, rows[0]
assert rows[4]["args"] == {"bytes": 4096, "device": "cuda"}, rows[4]
assert rows[5]["series"] == "used" and rows[5]["value"] == 2048, rows[5]
' "$TMP/out" || fail "jsonl output is not what was expected"
# The installed harness passes it.
expect_rc 0 "$PREFIX/bin/tconv-plugin-check" "$TMP/ex/tconv-jsonl.so"
expect_grep "$TMP/out" "ok   writer jsonl: every event kind, the same bytes twice"

# Its writer class declares "jsonl": the output's name picks it.
expect_rc 0 "$PREFIX/bin/tconv" -o "$TMP/auto.jsonl" "$DATA/core/nesting.tevt"
[ "$(wc -l <"$TMP/auto.jsonl")" = 17 ] || fail "-o x.jsonl did not pick the jsonl writer"
# Its harness test, built and run against the install alone. A test program links libtconv
# itself: under a sanitizer build of tconv it must bring the sanitizer's runtime too.
CHECK_CFLAGS=()
if ldd "$(find "$PREFIX" -name 'libtconv.so.*' | head -n1)" | grep -q libasan; then
    CHECK_CFLAGS=(CFLAGS="-O1 -g -fsanitize=address,undefined -fno-omit-frame-pointer")
fi
make -s -C "$SRC/../examples/jsonl" PKG_CONFIG_PATH="$(dirname "$pc")" O="$TMP/ex" "${CHECK_CFLAGS[@]}" check \
    >"$TMP/check.log" 2>&1 || { cat "$TMP/check.log" >&2; fail "jsonl: make check failed"; }
grep -q "test_jsonl: ok" "$TMP/check.log" || { cat "$TMP/check.log" >&2; fail "jsonl: no test ran"; }

# The reader: built, its harness test passes, and tconv reads its sample through it.
mkdir "$TMP/sl"
SPANLOG=$SRC/../examples/spanlog
make -s -C "$SPANLOG" PKG_CONFIG_PATH="$(dirname "$pc")" O="$TMP/sl" >"$TMP/make.log" 2>&1 ||
    { cat "$TMP/make.log" >&2; fail "spanlog did not build"; }
[ ! -s "$TMP/make.log" ] || { cat "$TMP/make.log" >&2; fail "spanlog build printed warnings"; }
[ "$(nm -D --defined-only "$TMP/sl/tconv-spanlog.so" | awk '{print $3}')" = tconv_plugin_describe ] ||
    fail "spanlog exports more than its entry point"
make -s -C "$SPANLOG" PKG_CONFIG_PATH="$(dirname "$pc")" O="$TMP/sl" "${CHECK_CFLAGS[@]}" check \
    >"$TMP/check.log" 2>&1 ||
    { cat "$TMP/check.log" >&2; fail "spanlog: make check failed"; }
grep -q "test_spanlog: ok" "$TMP/check.log" || { cat "$TMP/check.log" >&2; fail "spanlog: no test ran"; }
export TCONV_PLUGIN_PATH=$TMP/sl:$TEST_PLUGINS
expect_rc 0 "$PREFIX/bin/tconv" --list
expect_grep "$TMP/out" "reader  spanlog"
# detected by its first line; self times of its spans, under their threads' names
expect_rc 0 "$PREFIX/bin/tconv" -w folded -W root=comm "$SPANLOG/sample.spanlog"
cat >"$TMP/want" <<'EOT'
main;step 150000
main;step;backward 450000
main;step;forward 200000
main;step;forward;matmul 200000
loader;read batch 900000
EOT
sort "$TMP/want" >"$TMP/want.sorted"
sort "$TMP/out" >"$TMP/got.sorted"
diff -u "$TMP/want.sorted" "$TMP/got.sorted" >&2 || fail "spanlog -> folded: wrong stacks"
expect_rc 0 "$PREFIX/bin/tconv-plugin-check" "$TMP/sl/tconv-spanlog.so" "$SPANLOG/sample.spanlog"
expect_grep "$TMP/out" "ok   reader spanlog"
echo "example: ok"
