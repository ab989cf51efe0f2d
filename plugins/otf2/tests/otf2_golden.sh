#!/usr/bin/env bash
# Golden otf2-print output for small Chrome traces: each data/<case>.json is converted with
# -r chrome -w otf2 (plus the options in data/<case>.opts, if any); the events (otf2-print),
# the definitions (otf2-print -G), the markers (otf2-marker) and tconv's warnings must equal
# golden/<case>.txt, and otf2-check must find every invariant holding.
source "$(dirname "$0")/otf2_lib.sh"

have_reader chrome || { echo "no chrome reader in this build: skipping" >&2; exit 77; }

n=0
for input in "$DATA"/*.json; do
    name=$(basename "$input" .json)
    opts=()
    [ -f "$DATA/$name.opts" ] && read -r -a opts <"$DATA/$name.opts"
    out=$TMP/$name
    # From the data folder, so that warnings name the input as the golden file does.
    (cd "$DATA" && convert "$out" -r chrome "${opts[@]}" "$name.json")
    readable "$out"
    {
        echo "### otf2-print"
        cat "$out.print"
        echo "### otf2-print -G"
        cat "$out.defs"
        echo "### otf2-marker"
        otf2-marker "$out/traces.otf2" 2>&1 || true
        echo
        echo "### tconv stderr"
        cat "$out.stderr"
    } >"$TMP/$name.txt"
    golden "$name.txt" "$TMP/$name.txt"
    n=$((n + 1))
done
[ "$n" -ge 7 ] || fail "only $n golden cases found in $DATA"
echo "$n golden cases"
