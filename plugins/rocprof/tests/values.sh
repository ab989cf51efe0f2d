#!/usr/bin/env bash
# Every number the rocprof reader gives against its inputs read with python and SQL
# (rocprof_check.py says which): the inputs kept beside the tests and, when present, the
# corpus's rocprofv3 JSON and rpd database.
# usage: values.sh TCONV SRC WORK CORPUS
TCONV=$1 SRC=$2 WORK=$3/values CORPUS=$4
. "$SRC/../../nsys/tests/lib.sh"
need sqlite3
need python3
need go
gzip -dc "$SRC/data/rocmProfileData-matmul_result.rpd.gz" >"$TMP/matmul.rpd"
files=("$SRC/data/synthetic-rocprofv3-api.json" "$SRC/data/tracelens-908_results-cut.json.gz"
    "$TMP/matmul.rpd")
for f in "$CORPUS"/rocm/*; do [ -f "$f" ] && files+=("$f"); done
python3 "$SRC/rocprof_check.py" "$TCONV" "$(command -v sqlite3)" "$(command -v go)" "$TMP" \
    "${files[@]}" || fail "rocprof_check.py"
finish
