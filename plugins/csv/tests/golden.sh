#!/bin/bash
# Golden tests of a writer: each line of CASES is "name input options...", the output of
# "tconv -w WRITER options... DATA/input" must equal GOLDEN/name.EXT byte for byte.
# usage: golden.sh TCONV TEST_PLUGIN_DIR WRITER EXT CASES DATA GOLDEN [--update]
set -euo pipefail
TCONV=$1
export TCONV_PLUGIN_PATH=$2
WRITER=$3
EXT=$4
CASES=$5
DATA=$6
GOLDEN=$7
UPDATE=${8:-}
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT

failed=0
n=0
while read -r name input opts; do
    case "$name" in '' | '#'*) continue ;; esac
    n=$((n + 1))
    # shellcheck disable=SC2086 # options are words
    if ! "$TCONV" -q -w "$WRITER" $opts -o "$TMP/$name.$EXT" "$DATA/$input" 2>"$TMP/err"; then
        echo "FAIL $name: tconv failed: $(cat "$TMP/err")"
        failed=$((failed + 1))
        continue
    fi
    if [ "$UPDATE" = "--update" ]; then
        cp "$TMP/$name.$EXT" "$GOLDEN/$name.$EXT"
    elif ! cmp -s "$TMP/$name.$EXT" "$GOLDEN/$name.$EXT"; then
        echo "FAIL $name: output differs from $name.$EXT"
        diff "$GOLDEN/$name.$EXT" "$TMP/$name.$EXT" | head -20 || true
        failed=$((failed + 1))
    fi
done <"$CASES"
echo "$n cases, $failed failed"
[ "$n" -gt 0 ] && [ "$failed" -eq 0 ]
