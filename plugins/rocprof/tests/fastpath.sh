#!/usr/bin/env bash
# The rocprofv3 JSON reader's fast path for records (rocprof_jfast.c) against the lexer
# (TCONV_ROCPROF_FAST=0), on the test documents in other layouts and with records near the fast
# path's shape (fastpath_gen.py): same bytes, messages and status, plain and --strict
# (tests/fastpath-compare.sh).
# usage: fastpath.sh TCONV SRC WORK
set -uo pipefail
tconv=${1:?usage: fastpath.sh TCONV SRC WORK} src=$2 work=$3/fastpath
rm -rf "$work"
mkdir -p "$work"
trap 'rm -rf "$work"' EXIT

python3 "$src/fastpath_gen.py" "$work/in" "$src/data/synthetic-rocprofv3-api.json" \
    "$src/data/tracelens-908_results-cut.json.gz" || exit 1
bash "$src/../../../tests/fastpath-compare.sh" "$tconv" rocprof TCONV_ROCPROF_FAST "$work/in"
