# Golden text dumps (core `text` writer) of the small Chrome traces in tests/data/chrome and in
# this folder's data/ (file names matter there: a TensorFlow trace's host comes from its name):
# the events, their exact nanosecond times, the tracks, the warnings and the exit status.
# UPDATE_GOLDEN=1 rewrites the golden files instead of comparing.
# usage: golden.sh TCONV GOLDEN_DIR DATA_DIR...
set -euo pipefail
TCONV=$(cd "$(dirname "$1")" && pwd)/$(basename "$1")
GOLDEN=$(cd "$2" && pwd)
shift 2
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT
unset TCONV_PLUGIN_PATH
shopt -s nullglob

failed=0
n=0
for data in "$@"; do
    # Run from the data folder so that messages name the file relatively.
    cd "$data"
    for f in *.json *.json.gz; do
        out=$TMP/$f.text
        [ ! -e "$out" ] || { echo "FAIL: two inputs named $f" >&2; failed=$((failed + 1)); }
        set +e
        "$TCONV" -r chrome -w text "$f" >"$out" 2>"$TMP/err"
        rc=$?
        set -e
        { echo "--- stderr"; cat "$TMP/err"; echo "--- exit $rc"; } >>"$out"
        n=$((n + 1))
        if [ "${UPDATE_GOLDEN:-0}" = 1 ]; then
            cp "$out" "$GOLDEN/$f.text"
        elif ! diff -u "$GOLDEN/$f.text" "$out" >&2; then
            echo "FAIL: $f differs from golden $f.text" >&2
            failed=$((failed + 1))
        fi
    done
    cd - >/dev/null
done
# Every golden file must still have its input.
for g in "$GOLDEN"/*.text; do
    [ -e "$TMP/$(basename "$g")" ] || { echo "FAIL: golden $(basename "$g") has no input" >&2; failed=$((failed + 1)); }
done
echo "golden: $((n - failed)) of $n inputs match"
[ "$failed" = 0 ]
