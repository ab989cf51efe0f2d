# Output failures are detected and reported, and never cost an existing output.
source "$(dirname "$0")/lib.sh"
IN=$DATA/core/nesting.tevt
export TCONV_PLUGIN_PATH=$TEST_PLUGINS

# A full device: the write error is reported, exit 1.
if [ -w /dev/full ]; then
    expect_rc 1 "$TCONV" -w text -o /dev/full "$IN"
    expect_grep "$TMP/err" "tconv: error: "
    expect_grep "$TMP/err" "No space left on device"
    expect_rc 1 sh -c "'$TCONV' -w text '$IN' > /dev/full"
    expect_grep "$TMP/err" "No space left on device"
fi

# A folder we cannot write to (skipped as root, who can write anywhere).
if [ "$(id -u)" != 0 ]; then
    mkdir "$TMP/ro"
    echo keep >"$TMP/ro/out.txt"
    chmod 555 "$TMP/ro"
    expect_rc 1 "$TCONV" -w text -o "$TMP/ro/out.txt" "$IN"
    expect_grep "$TMP/err" "cannot write '$TMP/ro/out.txt'"
    [ "$(cat "$TMP/ro/out.txt")" = keep ] || fail "read-only folder: old output changed"
    chmod 755 "$TMP/ro"
fi

# The output's folder does not exist.
expect_rc 1 "$TCONV" -w text -o "$TMP/nope/out.txt" "$IN"
expect_grep "$TMP/err" "cannot write '$TMP/nope/out.txt': No such file or directory"

# An input that fails half-way (truncated gzip) leaves the old output as it was and no temp.
echo keep >"$TMP/out.txt"
gzip -c "$IN" | head -c 100 >"$TMP/cut.gz"
expect_rc 1 "$TCONV" -r tevt -w text -o "$TMP/out.txt" "$TMP/cut.gz"
expect_grep "$TMP/err" "unexpected end of gzip data (the file is truncated)"
[ "$(cat "$TMP/out.txt")" = keep ] || fail "failed run clobbered the output"
[ -z "$(ls -A "$TMP" | grep '^\.out\.txt\.tconv')" ] || fail "temporary file left behind"

# stdin closed at once is an empty input, not a hang or a crash.
expect_rc 0 sh -c "'$TCONV' -r tevt -w text < /dev/null"
echo "iofail: ok"
