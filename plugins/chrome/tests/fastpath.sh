#!/usr/bin/env bash
# The reader's fast path for flat event objects (chrome_fast.c) against its general path
# (TCONV_CHROME_FAST=0), on generated inputs near the fast path's shape (fastpath_gen.py): same
# bytes, messages and status, plain and --strict (tests/fastpath-compare.sh).
# usage: fastpath.sh TCONV
set -uo pipefail
tconv=${1:?usage: fastpath.sh TCONV}
here=$(cd "$(dirname "$0")" && pwd)
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

python3 "$here/fastpath_gen.py" "$work/in" 35 || exit 1
bash "$here/../../../tests/fastpath-compare.sh" "$tconv" chrome TCONV_CHROME_FAST "$work/in"
