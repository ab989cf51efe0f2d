# The manual page (docs/tconv.1): groff finds nothing to warn about, man renders it, and it
# keeps up with the program: every option of --help, every reader and writer of --list, and
# every output ending a writer is picked by.
source "$(dirname "$0")/lib.sh"
PAGE=$SRC/../docs/tconv.1
command -v groff >/dev/null || { echo "SKIP: groff is not installed (.ci/install-deps)"; exit 77; }

LC_ALL=C.UTF-8 groff -ww -z -man -t "$PAGE" 2>"$TMP/groff.err" || fail "groff failed"
[ ! -s "$TMP/groff.err" ] || { cat "$TMP/groff.err" >&2; fail "groff warns about docs/tconv.1"; }
MANWIDTH=100 LC_ALL=C.UTF-8 man -l "$PAGE" >"$TMP/page" 2>"$TMP/man.err" || fail "man -l failed"
[ ! -s "$TMP/man.err" ] || { cat "$TMP/man.err" >&2; fail "man -l printed messages"; }
for s in NAME SYNOPSIS DESCRIPTION OPTIONS FORMATS "WRITER INFERENCE" "EXIT STATUS" ENVIRONMENT \
    FILES EXAMPLES; do
    grep -q "^$s\$" "$TMP/page" || fail "section $s missing"
done

# Every option --help lists, as the page's option list shows it (an option line).
"$TCONV" --help | awk '/^  +-/ { for (i = 1; i <= NF && $i ~ /^-/; i++) { sub(/,$/, "", $i); print $i } }' \
    >"$TMP/options"
[ "$(wc -l <"$TMP/options")" -gt 20 ] || fail "too few options read from --help"
while read -r opt; do
    grep -qE "^       ($opt|.*, $opt)([ ,]|\$)" "$TMP/page" || fail "option $opt of --help is not in the manual page"
done <"$TMP/options"

# Every reader and writer --list shows, under its kind in FORMATS.
awk '/^FORMATS$/ { on = 1; next } /^[A-Z]/ { on = 0 } on' "$TMP/page" >"$TMP/formats"
awk '/^   Readers$/ { k = "reader" } /^   Writers$/ { k = "writer" } /^       [a-z0-9-]+( |$)/ { print k, $1 }' \
    "$TMP/formats" | sort >"$TMP/documented"
"$TCONV" --list | awk '$1 == "reader" || $1 == "writer" { print $1, $2 }' | sort >"$TMP/listed"
diff -u "$TMP/listed" "$TMP/documented" >&2 ||
    fail "FORMATS in docs/tconv.1 differs from tconv --list (- listed, + documented)"

# Every ending that picks a writer, in WRITER INFERENCE.
awk '/^WRITER INFERENCE$/ { on = 1; next } /^[A-Z]/ { on = 0 } on' "$TMP/page" >"$TMP/inference"
while read -r kind name; do
    [ "$kind" = writer ] || continue
    exts=$("$TCONV" --help-plugin "$name" | sed -n 's/^  picked by output names ending in: //p')
    for e in ${exts//|/ }; do
        grep -qE "(^|[ ,])\\.${e//./\\.}(,|[[:space:]])" "$TMP/inference" ||
            fail "writer $name is picked by .$e, which WRITER INFERENCE does not show"
    done
done <"$TMP/listed"
echo "manpage: ok"
