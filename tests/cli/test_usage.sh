# Exit codes and messages of the command line contract.
source "$(dirname "$0")/lib.sh"
IN=$DATA/core/nesting.tevt
export TCONV_PLUGIN_PATH=$TEST_PLUGINS

expect_rc 0 "$TCONV" --help
expect_grep "$TMP/out" "usage: tconv"
expect_grep "$TMP/out" "TCONV_PLUGIN_PATH"
expect_rc 0 "$TCONV" --version
# The numbers come from the generated header, the one place the build defines them.
vh=$(dirname "$TCONV")/include/tconv/version.h
num() { awk -v k="$1" '$1 == "#define" && $2 == k { gsub(/"/, "", $3); print $3 }' "$vh"; }
want="tconv $(num TCONV_VERSION) (plugin ABI $(num TCONV_ABI_MAJOR).$(num TCONV_ABI_MINOR))"
[ "$(cat "$TMP/out")" = "$want" ] || fail "version: $(cat "$TMP/out"), want $want"

expect_rc 2 "$TCONV" -w nosuch "$IN"
expect_grep "$TMP/err" "unknown writer 'nosuch'; available writers: "
grep -qE "available writers: (.*, )?text, text-ordered, text-stacks(,|$)" "$TMP/err" || fail "writer list: $(cat "$TMP/err")"
expect_rc 2 "$TCONV" -r nosuch -w text "$IN"
expect_grep "$TMP/err" "unknown reader 'nosuch'; available readers: tevt"
expect_rc 2 "$TCONV" "$IN"
expect_grep "$TMP/err" "no writer: give one with -w"
expect_rc 2 "$TCONV" -w text -W nosuch=1 "$IN"
expect_grep "$TMP/err" "writer text: unknown option 'nosuch'; valid options: tracks"
expect_rc 2 "$TCONV" -w text -W tracks=maybe "$IN"
expect_grep "$TMP/err" "option 'tracks': 'maybe' is not true or false"
expect_rc 2 "$TCONV" -r tevt -w text -R x=1 "$IN"
expect_grep "$TMP/err" "reader tevt: unknown option 'x'; valid options: none"
expect_rc 2 "$TCONV" -w text -R x=1 "$IN"
expect_grep "$TMP/err" "tconv: no reader has the option 'x'; see --help-plugin READER"
expect_rc 2 "$TCONV" --bogus
expect_grep "$TMP/err" "unknown option '--bogus'"
expect_rc 2 "$TCONV" -w
expect_grep "$TMP/err" "needs an argument"
expect_rc 2 "$TCONV" --help-plugin nosuch
expect_grep "$TMP/err" "no plugin, reader or writer named 'nosuch'"
expect_rc 0 "$TCONV" --help-plugin text
expect_grep "$TMP/out" "writer text-ordered (plugin text,"
expect_grep "$TMP/out" "tracks         bool         end with the track table and sample types (default: true)"

# A value of the right type but out of the option's range is a usage error too, found before
# anything is read; so is a value only the plugin can judge (pprof's end before start).
expect_rc 2 "$TCONV" -w summary -W top=0 "$IN"
expect_grep "$TMP/err" "tconv: writer summary: option 'top': 0 is out of range; it must be at least 1"
expect_rc 2 "$TCONV" -w summary -W width=3 "$IN"
expect_grep "$TMP/err" "option 'width': 3 is out of range; it must be 0 or at least 8"
expect_rc 0 "$TCONV" -w summary -W width=0 "$IN"
expect_rc 2 "$TCONV" -w pprof -o "$TMP/p.pb.gz" -W start=5 -W end=1 "$IN"
expect_grep "$TMP/err" "pprof: end=1 must be after start=5"
[ ! -e "$TMP/p.pb.gz" ] || fail "a usage error left an output"
expect_rc 0 "$TCONV" --help-plugin summary
expect_grep "$TMP/out" "width          int 0|8..    cut names"

# Conversion errors exit 1 and say where.
expect_rc 1 "$TCONV" -w text "$TMP/missing.tevt"
expect_grep "$TMP/err" "tconv: error: cannot open input '$TMP/missing.tevt': No such file or directory"
printf 'not a known format\n' >"$TMP/unknown.dat"
expect_rc 1 "$TCONV" -w text "$TMP/unknown.dat"
expect_grep "$TMP/err" "cannot tell the format of '$TMP/unknown.dat'; tried readers: tevt"
printf '#tevt\nX 1 1 0 5 ok\nQ what\n' >"$TMP/bad.tevt"
expect_rc 1 "$TCONV" -w text -o "$TMP/out.txt" "$TMP/bad.tevt"
expect_grep "$TMP/err" "tconv: error: $TMP/bad.tevt:3: cannot read this line: 'Q what'"
[ ! -e "$TMP/out.txt" ] || fail "a failed run left an output file"
ls -A "$TMP" | grep -q '^\.out\.txt' && fail "a failed run left a temporary file"

# A failed run does not clobber an existing output.
echo "precious" >"$TMP/keep.txt"
expect_rc 1 "$TCONV" -w text -o "$TMP/keep.txt" "$TMP/bad.tevt"
[ "$(cat "$TMP/keep.txt")" = precious ] || fail "failed run clobbered the old output"
echo "usage: ok"
