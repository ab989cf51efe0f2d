# Broken plugins each give one warning naming the file and the real reason; the rest still load.
source "$(dirname "$0")/lib.sh"

export TCONV_PLUGIN_PATH=$BROKEN_PLUGINS:$TEST_PLUGINS
expect_rc 0 "$TCONV" --list
B=$(cd "$BROKEN_PLUGINS" && pwd -P)
sed "s#$B#BROKEN#g" "$TMP/err" >"$TMP/warnings"
cat >"$TMP/expected" <<EOT
tconv: warning: skipping plugin 'BROKEN/tconv-broken-garbage.so': not a loadable shared object: BROKEN/tconv-broken-garbage.so: invalid ELF header
tconv: warning: skipping plugin 'BROKEN/tconv-broken-major.so': built for plugin ABI 2.0, but this tconv has ABI 1.1 (rebuild the plugin against this tconv's headers)
tconv: warning: skipping plugin 'BROKEN/tconv-broken-minor.so': needs plugin ABI 1.2, newer than this tconv's 1.1 (upgrade tconv)
tconv: warning: skipping plugin 'BROKEN/tconv-broken-noentry.so': no entry point 'tconv_plugin_describe' (is it a tconv plugin? plugins define it with TCONV_PLUGIN())
tconv: warning: skipping plugin 'BROKEN/tconv-broken-undefined.so': not a loadable shared object: BROKEN/tconv-broken-undefined.so: undefined symbol: tconv_test_missing_fn (the plugin needs a symbol that neither tconv nor its libraries provide)
EOT
diff -u "$TMP/expected" "$TMP/warnings" >&2 || fail "loader warnings differ"
expect_grep "$TMP/out" "reader  tevt"
expect_grep "$TMP/out" "writer  text "
if grep -q broken "$TMP/out"; then fail "a broken plugin was listed"; fi

# The run still works, and -q silences the warnings.
expect_rc 0 "$TCONV" -q -w text "$DATA/core/nesting.tevt"
[ ! -s "$TMP/err" ] || fail "-q still printed: $(cat "$TMP/err")"
[ -s "$TMP/out" ] || fail "no output with broken plugins around"

# --plugin-path works like the environment variable.
unset TCONV_PLUGIN_PATH
expect_rc 0 "$TCONV" --plugin-path "$TEST_PLUGINS" --list
expect_grep "$TMP/out" "reader  tevt"
expect_rc 0 "$TCONV" --list
if grep -q "tevt" "$TMP/out"; then fail "test plugin listed without its path"; fi

# First plugin of a name wins: a copy of the text plugin earlier in the path shadows the built one.
mkdir "$TMP/first"
cp "$(dirname "$TCONV")/plugins/tconv-text.so" "$TMP/first/tconv-text.so"
expect_rc 0 env TCONV_PLUGIN_PATH="$TMP/first" "$TCONV" --list
[ "$(grep -c '^text ' "$TMP/out")" = 1 ] || fail "text plugin listed more than once"
expect_grep "$TMP/out" "$TMP/first/tconv-text.so"
echo "loader: ok"
