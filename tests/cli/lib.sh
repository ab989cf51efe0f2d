# Shared by the CLI tests: arguments, a scratch folder, and assertions that say what differed.
set -euo pipefail
TCONV=$1
TEST_PLUGINS=$2
BROKEN_PLUGINS=$3
SRC=$4
DATA=$SRC/data
GOLDEN=$SRC/golden
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT
unset TCONV_PLUGIN_PATH

fail() {
    echo "FAIL: $*" >&2
    exit 1
}

# expect_rc CODE CMD...: run CMD, capture stdout/stderr in $TMP/out, $TMP/err
expect_rc() {
    local want=$1
    shift
    set +e
    "$@" >"$TMP/out" 2>"$TMP/err"
    local got=$?
    set -e
    if [ "$got" != "$want" ]; then
        echo "--- stdout" >&2
        head -c 3000 "$TMP/out" >&2
        echo "--- stderr" >&2
        head -c 3000 "$TMP/err" >&2
        fail "exit status $got, expected $want: $*"
    fi
}

expect_grep() { # expect_grep FILE PATTERN (fixed string)
    grep -qF -- "$2" "$1" || {
        cat "$1" >&2
        fail "'$2' not found in $(basename "$1")"
    }
}

# golden NAME FILE: compare FILE with tests/golden/NAME; UPDATE_GOLDEN=1 rewrites it.
golden() {
    if [ "${UPDATE_GOLDEN:-0}" = 1 ]; then
        cp "$2" "$GOLDEN/$1"
        return
    fi
    diff -u "$GOLDEN/$1" "$2" >&2 || fail "output differs from golden $1"
}
