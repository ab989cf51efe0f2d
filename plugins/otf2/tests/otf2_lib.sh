# Shared by the otf2 test scripts: arguments, a scratch folder, conversion and assertions.
# Arguments: TCONV OTF2_CHECK TEVT_PLUGIN_DIR TEST_SRC_DIR TMP_PARENT [CORPUS_DIR]
set -euo pipefail
TCONV=$1
CHECK=$2
TEVT_DIR=$3
SRC=$4
TMP_PARENT=$5
CORPUS=${6:-}
DATA=$SRC/data
GOLDEN=$SRC/golden
mkdir -p "$TMP_PARENT"
TMP=$(mktemp -d "$TMP_PARENT/run.XXXXXX")
trap 'rm -rf "$TMP"' EXIT
export TCONV_PLUGIN_PATH=$TEVT_DIR
export LC_ALL=C

if ! command -v otf2-print >/dev/null 2>&1; then
    echo "otf2-print is not installed: skipping" >&2
    exit 77
fi

fail() {
    echo "FAIL: $*" >&2
    exit 1
}

# Whether the reader's plugin was built (a build may leave plugins out): chrome beside the CLI,
# the core's test reader tevt in the test plugin folder.
have_reader() {
    case $1 in
    tevt) [ -f "$TEVT_DIR/tconv-tevt.so" ] ;;
    *) [ -f "$(dirname "$TCONV")/plugins/tconv-$1.so" ] ;;
    esac
}

# convert OUT_DIR ARGS...: tconv -w otf2 -o OUT_DIR ARGS; stderr kept in OUT_DIR.stderr.
convert() {
    local out=$1
    shift
    "$TCONV" -w otf2 -o "$out" "$@" 2>"$out.stderr" || {
        cat "$out.stderr" >&2
        fail "tconv -w otf2 -o $out $* failed"
    }
}

# readable DIR: otf2-print reads every event and definition without complaint, and otf2-check
# finds every invariant holding; its report is left in DIR.check.
readable() {
    local dir=$1
    otf2-print "$dir/traces.otf2" >"$dir.print" 2>"$dir.print.err" ||
        fail "otf2-print failed on $dir: $(head -5 "$dir.print.err")"
    otf2-print -G "$dir/traces.otf2" >"$dir.defs" 2>>"$dir.print.err" ||
        fail "otf2-print -G failed on $dir: $(head -5 "$dir.print.err")"
    if [ -s "$dir.print.err" ]; then
        cat "$dir.print.err" >&2
        fail "otf2-print wrote errors for $dir"
    fi
    "$CHECK" "$dir/traces.otf2" >"$dir.check" 2>"$dir.check.err" || {
        cat "$dir.check.err" >&2
        fail "otf2-check found problems in $dir"
    }
}

# check_value DIR KEY VALUE: the otf2-check count KEY of DIR is VALUE.
check_value() {
    local got
    got=$(awk -v k="$2" '$1 == k { print $2 }' "$1.check")
    [ "$got" = "$3" ] || fail "$(basename "$1"): $2 is '$got', expected $3"
}

# golden NAME FILE: compare FILE with golden/NAME; UPDATE_GOLDEN=1 rewrites it.
golden() {
    if [ "${UPDATE_GOLDEN:-0}" = 1 ]; then
        cp "$2" "$GOLDEN/$1"
        return
    fi
    diff -u "$GOLDEN/$1" "$2" >&2 || fail "output differs from golden $1"
}
