#!/bin/bash
# The default line end is CRLF (RFC 4180) after every record, and only there: a name holding
# a newline keeps it inside its quoted field. usage: csv_eol.sh TCONV DATA GOLDEN
set -euo pipefail
TCONV=$1
DATA=$2
GOLDEN=$3
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT
"$TCONV" -q -w csv -o "$TMP/crlf.csv" "$DATA/kineto_small.json"
sed 's/$/\r/' "$GOLDEN/kineto-events.csv" >"$TMP/want.csv"
cmp "$TMP/want.csv" "$TMP/crlf.csv" || { echo "FAIL: CRLF output differs"; exit 1; }
# names.json: records end in CRLF, the newlines inside quoted names stay LF.
"$TCONV" -q -w csv -o "$TMP/names.csv" "$DATA/names.json"
python3 - "$TMP/names.csv" "$GOLDEN/names-events.csv" <<'PY'
import csv, io, sys
crlf = open(sys.argv[1], newline="", encoding="utf-8").read()
lf = open(sys.argv[2], newline="", encoding="utf-8").read()
want = list(csv.reader(io.StringIO(lf, newline="")))
assert list(csv.reader(io.StringIO(crlf, newline=""))) == want, "CRLF and LF tables differ"
# Every line break outside quotes ends a record and must be CRLF.
quoted, ends = False, 0
for i, c in enumerate(crlf):
    if c == '"':
        quoted = not quoted
    elif c == "\n" and not quoted:
        assert i > 0 and crlf[i - 1] == "\r", "record %d ends in a bare LF" % (ends + 1)
        ends += 1
assert ends == len(want), (ends, len(want))
print("ok: %d records, each ended by CRLF" % ends)
PY
