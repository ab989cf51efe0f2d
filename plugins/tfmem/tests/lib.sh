# Shared by the tfmem tests: arguments, generated profiles in a scratch folder, assertions.
# Set TFMEM_UPDATE_GOLDEN=1 to rewrite the golden files from the current output.
set -euo pipefail
TCONV=$1
PYTHON=$2
GENERATOR=$3
SRC=$4
GOLDEN=$SRC/golden
mkdir -p "$5"
TMP=$(mktemp -d "$5/run.XXXXXX")
trap 'rm -rf "$TMP"' EXIT
unset TCONV_PLUGIN_PATH

fail() {
    echo "FAIL: $*" >&2
    exit 1
}

[ -x "$PYTHON" ] || {
    echo "SKIP: python3 not found" >&2
    exit 77
}

# The generated profiles, in $GEN (run from inside $TMP so that messages name relative paths).
GEN=gen
cd "$TMP"
"$PYTHON" "$GENERATOR" "$GEN"

# expect_rc CODE CMD...: run CMD, stdout in $TMP/out, stderr in $TMP/err
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

# expect_golden FILE NAME: FILE must equal golden/NAME
expect_golden() {
    if [ "${TFMEM_UPDATE_GOLDEN:-0}" = 1 ]; then
        cp "$1" "$GOLDEN/$2"
        return
    fi
    diff -u "$GOLDEN/$2" "$1" >&2 || fail "output differs from golden/$2"
}

# expect_same A B: two outputs must be identical
expect_same() {
    cmp -s "$1" "$2" || {
        diff -u "$1" "$2" | head -40 >&2
        fail "$1 and $2 differ"
    }
}

# expect_count N FILE PATTERN: exactly N lines of FILE match the extended regex
expect_count() {
    local got
    got=$(grep -cE -- "$3" "$2" || true)
    [ "$got" = "$1" ] || fail "$got lines of $(basename "$2") match '$3', expected $1"
}

# expect_line FILE TEXT: FILE holds a line equal to TEXT
expect_line() {
    grep -qxF -- "$2" "$1" || {
        cat "$1" >&2
        fail "no line '$2' in $(basename "$1")"
    }
}

has_reader() {
    "$TCONV" --list | grep -qE "^ +reader +$1 "
}

has_writer() {
    "$TCONV" --list | grep -qE "^ +writer +$1 "
}
