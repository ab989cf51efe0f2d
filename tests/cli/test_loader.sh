# Broken plugins each give one warning naming the file and the real reason; the rest still load.
source "$(dirname "$0")/lib.sh"

export TCONV_PLUGIN_PATH=$BROKEN_PLUGINS:$TEST_PLUGINS
expect_rc 0 "$TCONV" --list
B=$(cd "$BROKEN_PLUGINS" && pwd -P)
sed "s#$B#BROKEN#g" "$TMP/err" >"$TMP/warnings"
cat >"$TMP/expected" <<EOT
tconv: warning: skipping plugin 'BROKEN/tconv-broken-dataentry.so': 'tconv_plugin_describe' is not a function (plugins define it with TCONV_PLUGIN(), which exports a function returning the descriptor)
tconv: warning: skipping plugin 'BROKEN/tconv-broken-garbage.so': not a loadable shared object: BROKEN/tconv-broken-garbage.so: invalid ELF header
tconv: warning: skipping plugin 'BROKEN/tconv-broken-major.so': built for plugin ABI 2.0, but this tconv has ABI 1.7 (rebuild the plugin against this tconv's headers)
tconv: warning: skipping plugin 'BROKEN/tconv-broken-minor.so': needs plugin ABI 1.8, newer than this tconv's 1.7 (upgrade tconv)
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

# A plugin that crashes while it loads (in its constructor, its entry point, abort(), a
# descriptor the loader's checks crash on) is named, and the run ends with exit 1 (--list and a
# conversion alike; -j changes nothing: plugins load before any thread starts).
CRASH=$(dirname "$BROKEN_PLUGINS")/plugins-crash
for kind in crashctor crashentry abortentry baddesc; do
    for cmd in "--list" "-j 2 -w text $DATA/core/nesting.tevt"; do
        # shellcheck disable=SC2086
        expect_rc 1 env TCONV_PLUGIN_PATH="$TEST_PLUGINS:$CRASH/$kind" "$TCONV" $cmd
        expect_grep "$TMP/err" "plugin '$(cd "$CRASH/$kind" && pwd -P)/tconv-broken-$kind.so' crashed while loading"
    done
done

# --list and --help-plugin escape what a plugin names itself: no terminal escape gets through.
expect_rc 0 env TCONV_PLUGIN_PATH="$CRASH/escname" "$TCONV" --list
if grep -q $'\x1b' "$TMP/out"; then fail "--list printed a raw ESC from a plugin's name"; fi
expect_grep "$TMP/out" 'esc\x1b[31mred'
expect_grep "$TMP/out" 'reader  rd\x1b[2J'
expect_rc 0 env TCONV_PLUGIN_PATH="$CRASH/escname" "$TCONV" --help-plugin $'esc\x1b[31mred'
if grep -q $'\x1b' "$TMP/out"; then fail "--help-plugin printed a raw ESC from a plugin's name"; fi

# Plugins that someone else could have written are skipped, with a warning: a folder or a file
# writable by every user, or owned by another user than the one running tconv and root.
mkdir -p "$TMP/perm"
cp "$TEST_PLUGINS/tconv-tevt.so" "$TMP/perm/"
P=$(cd "$TMP/perm" && pwd -P)
expect_rc 0 env TCONV_PLUGIN_PATH="$P" "$TCONV" --list
expect_grep "$TMP/out" "reader  tevt"
chmod o+w "$P"
expect_rc 0 env TCONV_PLUGIN_PATH="$P" "$TCONV" --list
expect_grep "$TMP/err" "skipping plugin folder '$P': it is writable by every user"
if grep -q "tevt" "$TMP/out"; then fail "a plugin in a world-writable folder was loaded"; fi
chmod o-w "$P"
chmod o+w "$P/tconv-tevt.so"
expect_rc 0 env TCONV_PLUGIN_PATH="$P" "$TCONV" --list
expect_grep "$TMP/err" "skipping plugin '$P/tconv-tevt.so': it is writable by every user"
if grep -q "tevt" "$TMP/out"; then fail "a world-writable plugin was loaded"; fi
chmod o-w "$P/tconv-tevt.so"
if [ "$(id -u)" = 0 ]; then
    chown 65534 "$P/tconv-tevt.so"
    expect_rc 0 env TCONV_PLUGIN_PATH="$P" "$TCONV" --list
    expect_grep "$TMP/err" "skipping plugin '$P/tconv-tevt.so': it belongs to user 65534"
    chown 0 "$P/tconv-tevt.so"
    chown 65534 "$P"
    expect_rc 0 env TCONV_PLUGIN_PATH="$P" "$TCONV" --list
    expect_grep "$TMP/err" "skipping plugin folder '$P': it belongs to user 65534"
    if grep -q "tevt" "$TMP/out"; then fail "a plugin in another user's folder was loaded"; fi
    chown 0 "$P"
fi

# A relative entry of TCONV_PLUGIN_PATH is refused: it would load from wherever tconv runs.
(cd "$(dirname "$TEST_PLUGINS")" &&
    TCONV_PLUGIN_PATH="$(basename "$TEST_PLUGINS")" "$TCONV" --list >"$TMP/out" 2>"$TMP/err")
expect_grep "$TMP/err" "ignoring TCONV_PLUGIN_PATH entry '$(basename "$TEST_PLUGINS")': not an absolute path"
if grep -q "tevt" "$TMP/out"; then fail "a relative TCONV_PLUGIN_PATH entry was loaded"; fi
echo "loader: ok"
