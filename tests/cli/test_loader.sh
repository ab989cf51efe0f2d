# Broken plugins each give one warning naming the file and the real reason; the rest still load.
source "$(dirname "$0")/lib.sh"

export TCONV_PLUGIN_PATH=$BROKEN_PLUGINS:$TEST_PLUGINS
expect_rc 0 "$TCONV" --list
B=$(cd "$BROKEN_PLUGINS" && pwd -P)
sed "s#$B#BROKEN#g" "$TMP/err" >"$TMP/warnings"
cat >"$TMP/expected" <<EOT
tconv: warning: skipping plugin 'BROKEN/tconv-broken-dataentry.so': 'tconv_plugin_describe' is not a function (plugins define it with TCONV_PLUGIN(), which exports a function returning the descriptor)
tconv: warning: skipping plugin 'BROKEN/tconv-broken-garbage.so': not a loadable shared object: BROKEN/tconv-broken-garbage.so: invalid ELF header
tconv: warning: skipping plugin 'BROKEN/tconv-broken-major.so': built for plugin ABI 2.0, but this tconv has ABI 1.5 (rebuild the plugin against this tconv's headers)
tconv: warning: skipping plugin 'BROKEN/tconv-broken-minor.so': needs plugin ABI 1.6, newer than this tconv's 1.5 (upgrade tconv)
tconv: warning: skipping plugin 'BROKEN/tconv-broken-noentry.so': no entry point 'tconv_plugin_describe' (is it a tconv plugin? plugins define it with TCONV_PLUGIN())
tconv: warning: skipping plugin 'BROKEN/tconv-broken-noname.so': its name is empty (give the descriptor a name)
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
# A reader that pushes a string id the table never gave out: an error from the sink, for every
# writer (the folded and OTF2 writers used to hang on it), with no output left behind.
printf '#tevt\nP 1 1 0 5 main;@99999999\n' >"$TMP/badframe.tevt"
printf '#tevt\nX 1 1 0 10 @4000000000\n' >"$TMP/badname.tevt"
for w in folded otf2 pprof text; do
    for f in badframe badname; do
        rm -rf "$TMP/o"
        expect_rc 1 timeout 20 "$TCONV" --plugin-path "$TEST_PLUGINS" -w "$w" -o "$TMP/o" "$TMP/$f.tevt"
        expect_grep "$TMP/err" "which does not exist"
        expect_grep "$TMP/err" "get ids from tconv_string_intern"
        [ ! -e "$TMP/o" ] || fail "$w: output left after an invalid string id"
    done
done
echo "loader: ok"
