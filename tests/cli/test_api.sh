# The library's boundary: the tconv program uses only what the public headers declare (so any
# program embedding libtconv can do what it does), and libtconv exports nothing they do not.
source "$(dirname "$0")/lib.sh"

command -v nm >/dev/null || { echo "no nm: skipping" >&2; exit 77; }
INCLUDE=$SRC/../include/tconv
LIB=$(dirname "$TCONV")/lib/libtconv.so

# Every identifier declared in a public header (functions and macros alike).
cat "$INCLUDE"/*.h | grep -oE '\btconv_[a-z0-9_]+\b' | sort -u >"$TMP/declared"

nm -D --undefined-only "$TCONV" | awk '{print $NF}' | sed 's/@.*//' | grep '^tconv_' |
    sort -u >"$TMP/used"
[ -s "$TMP/used" ] || fail "the tconv program links no tconv_ symbol: is it still built on libtconv?"
comm -23 "$TMP/used" "$TMP/declared" >"$TMP/private"
[ ! -s "$TMP/private" ] || fail "tconv uses symbols no public header declares: $(tr '\n' ' ' <"$TMP/private")"

nm -D --defined-only "$LIB" | awk '{print $NF}' | sed 's/@.*//' | grep '^tconv_' |
    sort -u >"$TMP/exported"
comm -23 "$TMP/exported" "$TMP/declared" >"$TMP/stray"
[ ! -s "$TMP/stray" ] || fail "libtconv exports symbols no public header declares: $(tr '\n' ' ' <"$TMP/stray")"

# And the headers do not promise what the library lacks: every declared function is exported.
grep -hoE '\btconv_[a-z0-9_]+\(' "$INCLUDE"/*.h | tr -d '(' | sort -u >"$TMP/functions"
# Inline helpers are defined in the headers, and the plugin entry point by each plugin.
{
    grep -hoE 'static inline [^(]*\btconv_[a-z0-9_]+\(' "$INCLUDE"/*.h | grep -oE 'tconv_[a-z0-9_]+'
    echo tconv_plugin_describe
} | sort -u >"$TMP/not-in-lib"
comm -23 "$TMP/functions" "$TMP/exported" | comm -23 - "$TMP/not-in-lib" >"$TMP/missing"
[ ! -s "$TMP/missing" ] || fail "declared but not exported by libtconv: $(tr '\n' ' ' <"$TMP/missing")"
echo "api: ok ($(wc -l <"$TMP/used") symbols used by tconv, $(wc -l <"$TMP/exported") exported)"
