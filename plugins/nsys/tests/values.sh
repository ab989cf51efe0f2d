#!/usr/bin/env bash
# Every number the nsys reader gives against the export read with SQL (nsys_check.py says
# which): the exports kept beside the tests and, when present, every nsys export of the corpus.
# usage: values.sh TCONV SRC WORK CORPUS
TCONV=$1 SRC=$2 WORK=$3/values CORPUS=$4
. "$SRC/lib.sh"
need sqlite3
need python3
need go
files=()
for f in "$SRC"/data/*.sqlite.gz; do
    gzip -dc "$f" >"$TMP/$(basename "$f" .gz)"
    files+=("$TMP/$(basename "$f" .gz)")
done
for f in "$CORPUS"/nsys/*.sqlite; do [ -f "$f" ] && files+=("$f"); done
python3 "$SRC/nsys_check.py" "$TCONV" "$(command -v sqlite3)" "$(command -v go)" "$TMP" \
    "${files[@]}" || fail "nsys_check.py"
finish
