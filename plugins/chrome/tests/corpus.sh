# Every JSON file of the shared corpus, plain and gzip: valid JSON converts with exit 0; invalid
# JSON either converts (truncated traces that viewers accept) or fails with exit 1 and a
# positioned message; valid JSON that is no trace at all (an array of arrays) fails with exit 1
# and says so, rather than passing for an empty trace; nothing crashes; the plain and the gzip form give the same bytes.
# usage: corpus.sh TCONV CORPUS_DIR    (exit 77 when the corpus is absent)
set -euo pipefail
TCONV=$1
CORPUS=$2
[ -d "$CORPUS" ] || { echo "corpus absent: skipped"; exit 77; }
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT
unset TCONV_PLUGIN_PATH

n=0
converted=0
positioned=0
foreign=0
failed=0
while IFS= read -r -d '' f; do
    # Only files whose first bytes are a JSON container.
    first=$(gzip -dcf "$f" 2>/dev/null | head -c 64 | tr -d ' \t\r\n' | head -c 1 || true)
    [ "$first" = "{" ] || [ "$first" = "[" ] || continue
    n=$((n + 1))
    set +e
    "$TCONV" -q -r chrome -w text -o "$TMP/plain.txt" "$f" 2>"$TMP/err"
    rc=$?
    set -e
    valid=1
    gzip -dcf "$f" | python3 -c 'import json,sys; json.load(sys.stdin)' 2>/dev/null || valid=0
    if [ "$rc" = 0 ]; then
        converted=$((converted + 1))
    elif [ "$rc" = 1 ] && [ "$valid" = 0 ] && grep -qE "^tconv: error: .*:[0-9]+: " "$TMP/err"; then
        positioned=$((positioned + 1))
        continue
    elif [ "$rc" = 1 ] && [ "$valid" = 1 ] &&
        grep -q "the chrome reader found nothing it recognises" "$TMP/err"; then
        foreign=$((foreign + 1))
        continue
    else
        echo "FAIL: $f: exit $rc (valid JSON: $valid): $(head -c 400 "$TMP/err")" >&2
        failed=$((failed + 1))
        continue
    fi
    # The other form (gzip of a plain file, or the plain text of a gzip file) reads the same.
    # It keeps the file's name, which can matter (a TensorFlow trace's host).
    other=$TMP/other/$(basename "$f")
    mkdir -p "$TMP/other"
    if [ "$(head -c 2 "$f" | od -An -tx1 | tr -d ' ')" = 1f8b ]; then
        gzip -dc "$f" >"$other"
    else
        gzip -c "$f" >"$other"
    fi
    if ! "$TCONV" -q -r chrome -w text -o "$TMP/other.txt" "$other" 2>"$TMP/err" ||
        ! cmp -s "$TMP/plain.txt" "$TMP/other.txt"; then
        echo "FAIL: $f: its other (plain/gzip) form converts differently" >&2
        failed=$((failed + 1))
    fi
done < <(find "$CORPUS" -type f \( -name '*.json' -o -name '*.gz' -o -name '*.trace' \) \
    -not -path '*/_generated/*' -print0 | sort -z)
echo "corpus: $n JSON files: $converted converted, $positioned rejected with a position," \
    "$foreign refused as no Chrome trace"
echo "$((converted + positioned + foreign)) passed, $failed failed"
[ "$n" -gt 0 ] && [ "$failed" = 0 ]
