# What a run reads: directory inputs (each file once, links that loop or lead up not followed,
# what cannot be read named), --keep-going, inputs whose sample types differ, inputs a reader
# does not recognise.
source "$(dirname "$0")/lib.sh"
IN=$DATA/core/nesting.tevt
export TCONV_PLUGIN_PATH=$TEST_PLUGINS

# run_as_user CMD...: CMD as an unprivileged user (as root: nobody via setpriv), so that
# permissions apply; returns 77 from the script when that is impossible.
run_as_user() {
    if [ "$(id -u)" != 0 ]; then
        "$@"
    elif command -v setpriv >/dev/null; then
        setpriv --reuid=65534 --regid=65534 --clear-groups "$@"
    else
        echo "SKIP: running as root without setpriv: cannot test unreadable files" >&2
        exit 77
    fi
}

# ---- directories -------------------------------------------------------------------------
# A link to the folder itself, links up to its parent and beyond, a second name for a file and
# a dangling link: each regular file is read once, and the run ends.
mkdir -p "$TMP/loop/d/sub"
cp "$IN" "$TMP/loop/d/a.tevt"
cp "$IN" "$TMP/loop/d/sub/b.tevt"
ln -s . "$TMP/loop/d/self"
ln -s .. "$TMP/loop/d/sub/up"
ln -s .. "$TMP/loop/d/parent"
ln -s / "$TMP/loop/d/root"
ln -s a.tevt "$TMP/loop/d/c.tevt"
ln -s sub "$TMP/loop/d/sub2"
ln -s nowhere "$TMP/loop/d/dangling"
cp "$IN" "$TMP/loop/outside.tevt"
(cd "$TMP/loop" && timeout 20 "$TCONV" -v -w text d/ >"$TMP/out" 2>"$TMP/err") ||
    fail "symlink loop: exit $? ($(cat "$TMP/err"))"
grep '^tconv: reading' "$TMP/err" >"$TMP/reads" || true
cat >"$TMP/expected" <<'EOT'
tconv: reading 'd/a.tevt' with the tevt reader
tconv: reading 'd/sub/b.tevt' with the tevt reader
EOT
diff -u "$TMP/expected" "$TMP/reads" >&2 || fail "directory with loops: files not read exactly once"
[ "$(grep -c '^track ' "$TMP/out")" = 6 ] || fail "directory with loops: expected 6 tracks"
expect_grep "$TMP/err" "tconv: warning: cannot read 'd/dangling' (in 'd/'): No such file or directory; skipped [core.unreadable]"
if grep -q '//' "$TMP/err"; then fail "a path with '//': $(grep '//' "$TMP/err")"; fi

# The same folder named twice, or a file named beside its folder, is read once.
(cd "$TMP/loop" && "$TCONV" -v -w text d d/sub d/a.tevt >"$TMP/out" 2>"$TMP/err") ||
    fail "named twice: exit $?"
[ "$(grep -c '^tconv: reading' "$TMP/err")" = 2 ] || fail "named twice: $(cat "$TMP/err")"

# What cannot be read below a directory is a warning that names it; the rest is converted.
mkdir -p "$TMP/perm/d/locked"
cp "$IN" "$TMP/perm/d/a.tevt"
cp "$IN" "$TMP/perm/d/locked/x.tevt"
cp "$IN" "$TMP/perm/d/secret.tevt"
chmod 000 "$TMP/perm/d/locked" "$TMP/perm/d/secret.tevt"
chmod 755 "$TMP" "$TMP/perm"
(cd "$TMP/perm" && run_as_user "$TCONV" -w text d >"$TMP/out" 2>"$TMP/err") ||
    fail "unreadable entries: exit $? ($(cat "$TMP/err"))"
chmod 700 "$TMP"
expect_grep "$TMP/err" "tconv: warning: cannot read the directory 'd/locked' (in 'd'): Permission denied; skipped [core.unreadable-dir]"
expect_grep "$TMP/err" "cannot open input 'd/secret.tevt': Permission denied (in 'd'); skipped"
[ "$(grep -c '^track ' "$TMP/out")" = 3 ] || fail "unreadable entries: expected 3 tracks"
chmod 755 "$TMP/perm/d/locked"
# ---- --keep-going --------------------------------------------------------------------------
# b fails on its last line, after pushing all its other events. Without --keep-going nothing is
# written; with it, b is reported and left out whole: the output is the one of a run where b
# was an input without events, for writers fed directly (text, csv), through the ordering stage
# (text-ordered) and through the stack stage (text-stacks, folded, pprof).
mkdir "$TMP/kg"
cp "$IN" "$TMP/kg/a.tevt"
{ cat "$IN"; echo "Q what"; } >"$TMP/kg/b.tevt"
cp "$IN" "$TMP/kg/c.tevt"
printf '#tevt\n' >"$TMP/empty.tevt"
expect_rc 1 "$TCONV" -w text -o "$TMP/kg.txt" "$TMP/kg/a.tevt" "$TMP/kg/b.tevt" "$TMP/kg/c.tevt"
[ ! -e "$TMP/kg.txt" ] || fail "without --keep-going a failed input left an output"
for w in text csv text-ordered text-stacks folded pprof; do
    rm -f "$TMP/kg.out" "$TMP/kg.want"
    expect_rc 1 "$TCONV" --keep-going -w "$w" -o "$TMP/kg.out" "$TMP/kg/a.tevt" "$TMP/kg/b.tevt" "$TMP/kg/c.tevt"
    expect_grep "$TMP/err" "tconv: error: $TMP/kg/b.tevt:21: cannot read this line: 'Q what'"
    expect_grep "$TMP/err" "tconv: error: 1 of 3 inputs failed; the output holds the other 2"
    expect_rc 0 "$TCONV" -w "$w" -o "$TMP/kg.want" "$TMP/kg/a.tevt" "$TMP/empty.tevt" "$TMP/kg/c.tevt"
    cmp "$TMP/kg.out" "$TMP/kg.want" || fail "--keep-going -w $w: the failed input's events reached the output"
done
# A directory: the same, named by its path; -q does not hide the input's error.
expect_rc 1 "$TCONV" -q --keep-going -w text -o "$TMP/kg.out" "$TMP/kg"
expect_grep "$TMP/err" "tconv: error: $TMP/kg/b.tevt:21: cannot read this line"
expect_grep "$TMP/err" "1 of 3 inputs failed"
# Inputs that cannot be opened or recognised count as failed; when all fail nothing is written.
printf 'what is this\n' >"$TMP/unknown.dat"
expect_rc 1 "$TCONV" --keep-going -w text -o "$TMP/kg.out" "$TMP/unknown.dat" "$TMP/missing" "$TMP/kg/a.tevt"
expect_grep "$TMP/err" "tconv: error: cannot tell the format of '$TMP/unknown.dat'"
expect_grep "$TMP/err" "tconv: error: cannot open input '$TMP/missing': No such file or directory"
expect_grep "$TMP/err" "2 of 3 inputs failed; the output holds the other 1"
rm -f "$TMP/kg.out"
expect_rc 1 "$TCONV" --keep-going -w text -o "$TMP/kg.out" "$TMP/kg/b.tevt" "$TMP/missing"
expect_grep "$TMP/err" "tconv: error: 2 of 2 inputs failed; nothing was written"
[ ! -e "$TMP/kg.out" ] || fail "--keep-going: all inputs failed, yet an output was written"
# Inputs whose sample types differ: the one that differs is left out.
printf 'prog;main;work 5\n' >"$TMP/kg1.stacks"
printf 'prog;main;idle 3\n' >"$TMP/kg2.stacks"
printf 'prog 1/1 [000] 1.000000:        948 cycles:u:\n\t  400010 work+0x10 (/bin/prog)\n\n' >"$TMP/kg.perf"
expect_rc 1 "$TCONV" --keep-going -w folded "$TMP/kg1.stacks" "$TMP/kg.perf" "$TMP/kg2.stacks"
expect_grep "$TMP/err" "have different sample types"
printf 'prog;main;idle 3\nprog;main;work 5\n' >"$TMP/kg.want"
cmp "$TMP/out" "$TMP/kg.want" || fail "--keep-going with mixed sample types: $(cat "$TMP/out")"
expect_rc 0 "$TCONV" --help
expect_grep "$TMP/out" "--keep-going"

# ---- inputs with different sample types ----------------------------------------------------
# A perf capture with periods (cycles) and a folded file of counts: refused before any output,
# naming both, for every writer (the folded writer once wrote the 948-cycle stack as 1, and
# pprof failed with an internal error); two inputs with the same types add up exactly.
printf 'prog 1/1 [000] 1.000000:        948 cycles:u:\n\t  400010 work+0x10 (/bin/prog)\n\t  400000 main+0x0 (/bin/prog)\n\n' >"$TMP/perf.txt"
printf 'prog;main;work 5\n' >"$TMP/torch.stacks"
for w in folded pprof text; do
    for order in "$TMP/perf.txt $TMP/torch.stacks" "$TMP/torch.stacks $TMP/perf.txt"; do
        # shellcheck disable=SC2086
        expect_rc 1 "$TCONV" -w "$w" -o "$TMP/mixed.out" $order
        expect_grep "$TMP/err" "have different sample types"
        expect_grep "$TMP/err" "samples/count, cycles/count"
        expect_grep "$TMP/err" "'$TMP/perf.txt'"
        expect_grep "$TMP/err" "'$TMP/torch.stacks'"
        [ ! -e "$TMP/mixed.out" ] || fail "$w: mixed sample types left an output"
    done
done
# Spans of one input (self times in ns) and samples of another (cycles) in one profile.
expect_rc 1 "$TCONV" -w folded "$IN" "$TMP/perf.txt"
expect_grep "$TMP/err" "input '$IN' has spans, which the folded writer gets as samples of samples/count, wall/nanoseconds, and input '$TMP/perf.txt' has stack samples of samples/count, cycles/count"
# Writers that keep spans as spans (text, csv, chrome) hold both: only a profile refuses them,
# in either order (the text writer once refused spans before samples, naming input '(null)').
for w in text csv chrome; do
    expect_rc 0 "$TCONV" -w "$w" -o "$TMP/both.out" "$IN" "$TMP/perf.txt"
    expect_rc 0 "$TCONV" -w "$w" -o "$TMP/both.out" "$TMP/perf.txt" "$IN"
done
# Same types: exact sums.
printf 'prog;main;work 7\n' >"$TMP/more.stacks"
expect_rc 0 "$TCONV" -w folded "$TMP/torch.stacks" "$TMP/more.stacks"
[ "$(cat "$TMP/out")" = "prog;main;work 12" ] || fail "same sample types: $(cat "$TMP/out")"

# ---- recognise, don't misread ---------------------------------------------------------------
CHROME=$DATA/chrome/all-phases.json
printf 'PERFILE2\150\0\0\0\0\0\0\0\1\2\3\4' >"$TMP/perf.data"
for r in "" "-r perf"; do
    # shellcheck disable=SC2086
    expect_rc 1 "$TCONV" $r -w folded -o "$TMP/p.folded" "$TMP/perf.data"
    expect_grep "$TMP/err" "tconv: error: $TMP/perf.data: this is a binary perf.data; run \`perf script -i $TMP/perf.data > $TMP/perf.data.txt\` first"
    [ ! -e "$TMP/p.folded" ] || fail "perf.data: an output was written"
done
# A named reader that recognises nothing in a non-empty input fails, and says what it looks like.
expect_rc 1 "$TCONV" -q -r perf -w folded -o "$TMP/p.folded" "$CHROME"
expect_grep "$TMP/err" "tconv: error: $CHROME: the perf reader found nothing it recognises in this input"
expect_grep "$TMP/err" "hint: it looks like chrome input: give -r chrome, or no -r to detect it"
[ ! -e "$TMP/p.folded" ] || fail "misread: an output was written"
# Empty traces stay valid: '[]' (named or detected), an empty or blank file with -r.
printf '[]\n' >"$TMP/empty.json"
expect_rc 0 "$TCONV" -r chrome -w text "$TMP/empty.json"
expect_rc 0 "$TCONV" -w text "$TMP/empty.json"
: >"$TMP/empty.txt"
expect_rc 0 "$TCONV" -r perf -w folded "$TMP/empty.txt"
printf '\n  \n' >"$TMP/blank.txt"
expect_rc 0 "$TCONV" -r perf -w folded "$TMP/blank.txt"
# ---- bounded reads ---------------------------------------------------------------------------
# tfmem loads its document whole, so it is capped like the others: a device that never ends
# fails at once, and an endless JSON document fails at the cap, both in little memory.
expect_rc 1 timeout 10 "$TCONV" -r tfmem -w text /dev/zero
expect_grep "$TMP/err" "tconv: error: /dev/zero:0: invalid JSON: byte 0x00 where the document should start"
expect_rc 1 timeout 20 sh -c "{ printf '{\"a\": \"'; yes x | tr -d '\\n'; } | '$TCONV' -r tfmem -R max-bytes=4194304 -w text"
expect_grep "$TMP/err" "tconv: error: <stdin>: larger than 4194304 bytes, the most the tfmem reader loads"
expect_rc 2 "$TCONV" -r tfmem -R max-bytes=0 -w text /dev/null
echo "inputs: ok"
