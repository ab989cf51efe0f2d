#!/bin/bash
# The memory table from memory counters (a TensorFlow memory profile, read by the tfmem reader)
# and from PyTorch [memory] events and counters together: every point once, in time order.
# usage: csv_memory.sh TCONV DATA GOLDEN; exit 77 without the tfmem reader.
set -euo pipefail
TCONV=$1
DATA=$2
GOLDEN=$3
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT
if ! "$TCONV" --list | grep -q "reader  tfmem"; then
    echo "SKIP: no tfmem reader"
    exit 77
fi
"$TCONV" -q -w csv -W table=memory -W eol=lf -o "$TMP/tfmem.csv" \
    "$DATA/allocators.memory_profile.json"
cmp "$GOLDEN/tfmem-memory.csv" "$TMP/tfmem.csv" || {
    diff "$GOLDEN/tfmem-memory.csv" "$TMP/tfmem.csv" || true
    echo "FAIL: memory table of the memory profile"
    exit 1
}
# The Chrome reader turns [memory] events into counters too: the kineto input's points come
# from the events alone, the memory profile's from its counters.
"$TCONV" -q -w csv -W table=memory -W eol=lf -o "$TMP/both.csv" "$DATA/kineto_small.json" \
    "$DATA/allocators.memory_profile.json"
cmp "$GOLDEN/both-memory.csv" "$TMP/both.csv" || {
    diff "$GOLDEN/both-memory.csv" "$TMP/both.csv" || true
    echo "FAIL: memory table of two inputs"
    exit 1
}
echo ok
