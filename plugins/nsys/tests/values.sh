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
# CPU samples numbered against time: half of the ids of the pipit export moved far above the
# rest, so the reader meets samples both in and out of id order (its scan of the frames serves
# the first, a lookup by key the others) and its frames must not change.
mixed=$TMP/pipit-ids-out-of-order.sqlite
cp "$TMP/pipit-saxpy-mpi-cuda-rank0-cut.sqlite" "$mixed"
sqlite3 "$mixed" "UPDATE COMPOSITE_EVENTS SET id = 1099511627776 - id WHERE id % 2 = 1;
                  UPDATE SAMPLING_CALLCHAINS SET id = 1099511627776 - id WHERE id % 2 = 1;" ||
    fail "cannot renumber the samples of $mixed"
files+=("$mixed")
for f in "$CORPUS"/nsys/*.sqlite; do [ -f "$f" ] && files+=("$f"); done
python3 "$SRC/nsys_check.py" "$TCONV" "$(command -v sqlite3)" "$(command -v go)" "$TMP" \
    "${files[@]}" || fail "nsys_check.py"
finish
