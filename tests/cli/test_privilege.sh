# tconv refuses to run with privileges its user does not have (setuid, setgid, file
# capabilities: AT_SECURE), before it loads a plugin or opens a file. Proven on a setuid-root copy
# and a copy with a file capability, run by an unprivileged user; skipped, saying why, only where
# that cannot be arranged.
source "$(dirname "$0")/lib.sh"

skip() {
    echo "SKIP: $*" >&2
    exit 77
}
[ "$(id -u)" = 0 ] || skip "not root: cannot make a setuid-root copy of tconv to run as another user"
command -v setpriv >/dev/null || skip "no setpriv to run the copy as an unprivileged user"

# A folder where the set-user-id bit counts (not mounted nosuid) that the user can reach.
DIR=
for d in "$TMP" "$(dirname "$TCONV")"; do
    if ! findmnt -n -o OPTIONS -T "$d" 2>/dev/null | tr ',' '\n' | grep -qx nosuid; then
        DIR=$(mktemp -d "$d/priv.XXXXXX")
        break
    fi
done
[ -n "$DIR" ] || skip "every candidate folder is mounted nosuid"
trap 'rm -rf "$TMP" "$DIR"' EXIT
chmod 755 "$TMP" "$DIR"
cp "$TCONV" "$DIR/tconv"
chmod 755 "$DIR/tconv"
as_user() { setpriv --reuid=65534 --regid=65534 --clear-groups "$@"; }

# The copy as it is: the user runs it like any program.
expect_rc 0 as_user env TCONV_PLUGIN_PATH="$TEST_PLUGINS" "$DIR/tconv" --list
expect_grep "$TMP/out" "reader  tevt"

# setuid root: refused, with nothing loaded or read, whatever the environment asks.
chmod u+s "$DIR/tconv"
expect_rc 2 as_user env TCONV_PLUGIN_PATH="$TEST_PLUGINS" "$DIR/tconv" --list
expect_grep "$TMP/err" "tconv: refusing to run with raised privileges (setuid, setgid or file capabilities)"
[ ! -s "$TMP/out" ] || fail "a setuid tconv printed: $(cat "$TMP/out")"
echo secret >"$DIR/root-only"
chmod 600 "$DIR/root-only"
expect_rc 2 as_user "$DIR/tconv" -w text "$DIR/root-only"
if grep -q secret "$TMP/out" "$TMP/err"; then fail "a setuid tconv showed a root-only file"; fi
chmod u-s "$DIR/tconv"

# setgid: the same.
chgrp 0 "$DIR/tconv"
chmod g+s "$DIR/tconv"
expect_rc 2 as_user "$DIR/tconv" --list
expect_grep "$TMP/err" "refusing to run with raised privileges"
chmod g-s "$DIR/tconv"

# A file capability, which comparing user ids would miss.
if command -v setcap >/dev/null && setcap cap_dac_read_search+ep "$DIR/tconv" 2>/dev/null; then
    expect_rc 2 as_user "$DIR/tconv" --list
    expect_grep "$TMP/err" "refusing to run with raised privileges"
    echo "privilege: ok (setuid, setgid, file capability)"
else
    echo "privilege: ok (setuid, setgid; file capabilities not available here)"
fi
