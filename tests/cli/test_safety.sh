# No user file is lost: what --force may replace, atomic replacement, temporaries after signals
# and kills, outputs that are inputs, owner and mode of replaced outputs, dangling links, full
# disks, deterministic OTF2 archives, padded gzip input.
source "$(dirname "$0")/lib.sh"
CHROME=$DATA/chrome/flow_simple.json
PERF=$SRC/../plugins/perf/tests/data/fields.perf
NOEXCHANGE=$(dirname "$TEST_PLUGINS")/noexchange.so
command -v otf2-print >/dev/null || { echo "otf2-print missing (otf2-tools): skipping" >&2; exit 77; }
W=$TMP/w
mkdir "$W"
cd "$W"

no_temps() { # no_temps DIR WHAT: no ".*.tconv-*" entry is left in DIR
    local left
    left=$(ls -A "$1" | grep '\.tconv-' || true)
    [ -z "$left" ] || fail "$2: temporaries left in $1: $left"
}

archive_ok() { # archive_ok DIR WHAT: DIR is an archive otf2-print reads
    otf2-print "$1/traces.otf2" >/dev/null 2>"$TMP/print.err" ||
        fail "$2: '$1' is not a readable archive: $(head -3 "$TMP/print.err")"
}

# --- --force replaces only an empty directory or an OTF2 archive ---------------------------------
mkdir precious precious/src
echo thesis >precious/thesis.tex
echo code >precious/src/main.c
expect_rc 2 "$TCONV" -w otf2 -o precious --force "$CHROME"
expect_grep "$TMP/err" "holds 'precious/src', which is not part of an OTF2 archive"
[ "$(cat precious/thesis.tex)" = thesis ] && [ -f precious/src/main.c ] ||
    fail "--force over a directory of other files changed it"
no_temps . "refused --force"

# An archive with something else in it, even inside its trace folder, is not replaced either.
"$TCONV" -q -w otf2 -o arch "$CHROME"
echo notes >arch/traces/notes.txt
expect_rc 2 "$TCONV" -w otf2 -o arch --force "$CHROME"
expect_grep "$TMP/err" "holds 'arch/traces/notes.txt'"
[ -f arch/traces/notes.txt ] || fail "--force deleted a file inside a trace folder"
rm arch/traces/notes.txt
"$TCONV" -q -w otf2 -o arch --force "$CHROME"
archive_ok arch "--force over an archive"

# '.', '..', the folder holding the current directory, '/' and mount points: never.
mkdir -p dot/inner
(
    cd dot/inner
    expect_rc 2 "$TCONV" -w otf2 -o . --force "$CHROME"
    expect_grep "$TMP/err" "never replaces '.' or '..'"
    expect_rc 2 "$TCONV" -w otf2 -o .. --force "$CHROME"
    expect_rc 2 "$TCONV" -w otf2 -o "$W/dot" --force "$CHROME"
    expect_grep "$TMP/err" "holds the current directory"
)
[ -z "$(ls -A dot/inner)" ] && [ "$(ls -A dot)" = inner ] || fail "-o . --force left: $(ls -A dot dot/inner)"
no_temps . "-o . --force"
expect_rc 2 "$TCONV" -w otf2 -o / --force "$CHROME"
if mountpoint -q /proc; then
    expect_rc 2 "$TCONV" -w otf2 -o /proc --force "$CHROME"
    expect_grep "$TMP/err" "is a mount point"
fi

# --- atomic replacement ----------------------------------------------------------------------------
# Eight runs at once to one output: all succeed, one valid archive, nothing else.
rm -rf conc
pids=
for i in 1 2 3 4 5 6 7 8; do
    "$TCONV" -q -w otf2 -o conc --force "$CHROME" 2>"$TMP/conc$i.err" &
    pids="$pids $!"
done
n=0
for p in $pids; do
    n=$((n + 1))
    wait "$p" || fail "concurrent --force run $n failed: $(cat "$TMP/conc$n.err")"
done
archive_ok conc "concurrent --force"
no_temps . "concurrent --force"

# Killed at any moment, a --force run leaves the old or the new archive under the name; the next
# run removes the temporaries the killed ones left.
awk 'BEGIN { printf "{\"traceEvents\":[\n";
    for (i = 0; i < 30000; i++)
        printf "{\"name\":\"f%d\",\"ph\":\"X\",\"ts\":%d,\"dur\":5,\"pid\":1,\"tid\":%d},\n", i % 97, i * 10, i % 8;
    printf "{\"name\":\"end\",\"ph\":\"i\",\"ts\":1,\"pid\":1,\"tid\":1}]}\n" }' >mid.json
"$TCONV" -q -w otf2 -o killed mid.json
for delay in 0.05 0.1 0.2 0.3 0.4 0.5 0.6 0.8 1.0 1.2; do
    "$TCONV" -q -w otf2 -o killed --force mid.json &
    p=$!
    sleep "$delay"
    kill -KILL "$p" 2>/dev/null || true
    wait "$p" 2>/dev/null || true
    # Definitions and event files there, whichever archive it is (a full print takes seconds).
    otf2-print -G killed/traces.otf2 >/dev/null 2>&1 && [ -f killed/traces/0.evt ] ||
        fail "after a kill at ${delay}s, 'killed' is no archive: $(ls -A killed 2>&1)"
done
"$TCONV" -q -w otf2 -o killed --force "$CHROME"
archive_ok killed "the run after the kills"
no_temps . "the run after the kills"

# Stale temporaries of a process that is gone are removed; those of a live process are not.
dead=$(sh -c 'echo $$')
echo old >".stale.txt.tconv-$dead-AbCdEf"
mkdir ".stale.txt.tconv-$dead-GhIjKl" && echo old >".stale.txt.tconv-$dead-GhIjKl/x"
echo live >".stale.txt.tconv-$$-MnOpQr"
touch -d '-1 minute' ".stale.txt.tconv-"*
"$TCONV" -w text -o stale.txt "$CHROME"
[ ! -e ".stale.txt.tconv-$dead-AbCdEf" ] && [ ! -e ".stale.txt.tconv-$dead-GhIjKl" ] ||
    fail "a killed run's temporaries were not removed"
[ -f ".stale.txt.tconv-$$-MnOpQr" ] || fail "a live process's temporary was removed"
rm ".stale.txt.tconv-$$-MnOpQr"

# A file system without renameat2's exchange: two renames, the same outcome.
if [ -f "$NOEXCHANGE" ]; then
    "$TCONV" -q -w otf2 -o fallback "$CHROME"
    LD_PRELOAD=$NOEXCHANGE "$TCONV" -q -w otf2 -o fallback --force mid.json
    archive_ok fallback "--force without exchange"
    [ "$(otf2-print fallback/traces.otf2 | grep -c ENTER)" -gt 1000 ] || fail "fallback: not replaced"
    expect_rc 2 env LD_PRELOAD="$NOEXCHANGE" "$TCONV" -w otf2 -o precious --force "$CHROME"
    [ -f precious/thesis.tex ] || fail "fallback: --force deleted a foreign directory"
    no_temps . "--force without exchange"
fi

# --- signals ---------------------------------------------------------------------------------------
# SIGINT, SIGTERM, SIGXCPU and SIGXFSZ in the middle of a ~100 MB Chrome trace: exit 128+signal,
# no temporary file or directory. Started with SIGINT at its default (a shell starts background jobs ignoring it).
awk 'BEGIN { printf "{\"traceEvents\":[\n";
    for (i = 0; i < 1000000; i++)
        printf "{\"name\":\"function_number_%d\",\"cat\":\"cat\",\"ph\":\"X\",\"ts\":%d,\"dur\":%d,\"pid\":1,\"tid\":%d,\"args\":{\"k\":\"v\"}},\n", i % 997, i * 10, 5 + i % 4, i % 8;
    printf "{\"name\":\"end\",\"ph\":\"i\",\"ts\":1,\"pid\":1,\"tid\":1}]}\n" }' >big.json
mkdir sig
for sig in INT TERM XCPU XFSZ; do
    for w in "-w otf2 -o sig/arch" "-w pprof -o sig/out.pb.gz"; do
        # shellcheck disable=SC2086
        env --default-signal=INT "$TCONV" -q $w big.json &
        p=$!
        for _ in $(seq 500); do
            ls -A sig | grep -q '\.tconv-' && break
            sleep 0.01
        done
        sleep 0.3
        kill -"$sig" "$p"
        set +e
        wait "$p"
        rc=$?
        set -e
        want=$((128 + $(kill -l "$sig")))
        [ "$rc" = "$want" ] || fail "SIG$sig to '$w' exited $rc, expected $want"
        [ -z "$(ls -A sig)" ] || fail "SIG$sig to '$w' left: $(ls -A sig)"
    done
done

# The limits: past the CPU time limit (SIGXCPU, soft limit only: the hard one is SIGKILL) a
# run stops as on SIGTERM, and says why; a write past the file size limit fails with EFBIG
# (SIGXFSZ stays blocked in the writing thread), said as the limit. Nothing is left behind, for
# every kind of output (a file, -j 2, an SVG, an HTML page, an OTF2 directory).
set +e
(ulimit -S -t 1 && exec "$TCONV" -q -j 1 -w otf2 -o sig/cpu big.json big.json big.json big.json \
    big.json big.json big.json big.json) \
    2>"$TMP/err"
rc=$?
set -e
[ "$rc" = 152 ] || fail "past the CPU time limit: exit $rc, expected 152"
expect_grep "$TMP/err" "the CPU time limit (ulimit -t) was reached; nothing was written"
[ -z "$(ls -A sig)" ] || fail "past the CPU time limit: left $(ls -A sig)"
for w in "-w chrome -o sig/out.json" "-j 2 -w chrome -o sig/out.json" "-w flamegraph -o sig/out.svg" \
    "-w html -o sig/out.html" "-w otf2 -o sig/arch"; do
    set +e
    # shellcheck disable=SC2086
    (ulimit -f 64 && exec "$TCONV" -q $w big.json "$CHROME") 2>"$TMP/err"
    rc=$?
    set -e
    [ "$rc" = 1 ] || fail "past the file size limit, '$w': exit $rc, expected 1"
    grep -qE "file too large: the file size limit \(ulimit -f\) is 65536 bytes|File is too large" \
        "$TMP/err" || fail "past the file size limit, '$w': $(cat "$TMP/err")"
    [ -z "$(ls -A sig)" ] || fail "past the file size limit, '$w': left $(ls -A sig)"
done

# A run blocked on a silent pipe cannot notice the signal: the signal thread removes its
# temporary itself while the run still holds it.
mkfifo quiet
sleep 30 >quiet &
holder=$!
"$TCONV" -q -r chrome -w otf2 -o sig/blocked <quiet &
p=$!
for _ in $(seq 500); do
    ls -A sig | grep -q '\.tconv-' && break
    sleep 0.01
done
kill -TERM "$p"
set +e
wait "$p"
rc=$?
set -e
kill "$holder" 2>/dev/null || true
[ "$rc" = 143 ] || fail "SIGTERM to a blocked run exited $rc, expected 143"
[ -z "$(ls -A sig)" ] || fail "SIGTERM to a blocked run left: $(ls -A sig)"

# --- outputs that are inputs -----------------------------------------------------------------------
cp "$PERF" same.txt
cp same.txt same.orig
expect_rc 2 "$TCONV" -r perf -o same.txt same.txt
expect_grep "$TMP/err" "output 'same.txt' is also the input 'same.txt'"
cmp -s same.txt same.orig || fail "-o same.txt same.txt changed the input"
gzip -c "$CHROME" >t.pb.gz
cp t.pb.gz t.orig
expect_rc 2 "$TCONV" -o t.pb.gz t.pb.gz
cmp -s t.pb.gz t.orig || fail "-o t.pb.gz t.pb.gz changed the input"
ln t.pb.gz hard.pb.gz
expect_rc 2 "$TCONV" -o hard.pb.gz t.pb.gz
ln -s t.pb.gz soft.pb.gz
expect_rc 2 "$TCONV" -o soft.pb.gz t.pb.gz
expect_rc 2 "$TCONV" -o t.pb.gz - <t.pb.gz
expect_grep "$TMP/err" "is also the input (standard input)"
mkdir runs && cp "$CHROME" runs/
expect_rc 2 "$TCONV" -o runs/all.pb.gz runs
expect_grep "$TMP/err" "is inside the input directory 'runs'"
[ ! -e runs/all.pb.gz ] || fail "an output inside an input directory was written"
"$TCONV" -q -w otf2 -o runarch "$CHROME"
cp "$CHROME" runarch/traces.def
expect_rc 2 "$TCONV" -w otf2 -o runarch --force runarch/traces.def
cmp -s runarch/traces.def "$CHROME" || fail "an input inside the output directory was replaced"
cmp -s t.pb.gz t.orig || fail "an output-is-input run changed the input"
# An archive named by its anchor file is read through its other files too (the reader's
# members): none of them, nor anything in its trace folder, may be the output (-j alike).
"$TCONV" -q -w otf2 -o memarch "$CHROME"
cp -r memarch memarch.orig
for o in memarch/traces.def memarch/traces.marker memarch/traces/0.evt memarch/traces/0.def \
    memarch/traces memarch/traces/new.folded; do
    for j in 1 2; do
        expect_rc 2 "$TCONV" -j $j -w folded -o "$o" memarch/traces.otf2 "$CHROME"
        expect_grep "$TMP/err" "the input 'memarch/traces.otf2'"
    done
done
expect_rc 2 "$TCONV" -r otf2 -w text -o memarch/traces.def memarch/traces.otf2
ln -s memarch/traces.def deflink.txt
expect_rc 2 "$TCONV" -w text -o deflink.txt memarch/traces.otf2
diff -r memarch memarch.orig >&2 || fail "a run into a file of its input archive changed the archive"
"$TCONV" -q -w folded -o memarch.folded memarch/traces.otf2 # beside it is fine

# --- replaced outputs keep owner, group and mode; a dangling link is refused ---------------------
if [ "$(id -u)" = 0 ]; then
    echo old >owned.txt
    chown 65534:65534 owned.txt
    chmod 640 owned.txt
    "$TCONV" -w text -o owned.txt "$CHROME"
    [ "$(stat -c '%u:%g %a' owned.txt)" = "65534:65534 640" ] ||
        fail "a replaced file has $(stat -c '%u:%g %a' owned.txt), expected 65534:65534 640"
    mkdir ownarch
    chown 65534:65534 ownarch
    chmod 750 ownarch
    "$TCONV" -q -w otf2 -o ownarch "$CHROME"
    [ "$(stat -c '%u:%g %a' ownarch)" = "65534:65534 750" ] ||
        fail "a replaced directory has $(stat -c '%u:%g %a' ownarch), expected 65534:65534 750"
fi
ln -s missing/target.txt dangling.txt
expect_rc 2 "$TCONV" -w text -o dangling.txt "$CHROME"
expect_grep "$TMP/err" "is a symbolic link to 'missing/target.txt', which does not exist"
[ -L dangling.txt ] && [ ! -e missing ] || fail "a dangling -o link was replaced or written through"
no_temps . "a dangling link"

# --- OTF2 archives: the umask's permissions, and the same bytes every time ------------------------
(umask 027 && "$TCONV" -q -w otf2 -o masked "$CHROME")
[ "$(stat -c %a masked)" = 750 ] || fail "archive made under umask 027 has mode $(stat -c %a masked)"
(umask 022 && "$TCONV" -q -w otf2 -o open "$CHROME")
[ "$(stat -c %a open)" = 755 ] || fail "archive made under umask 022 has mode $(stat -c %a open)"
"$TCONV" -q -w otf2 -o det1 mid.json
sleep 1
"$TCONV" -q -w otf2 -o det2 mid.json
diff -r det1 det2 >/dev/null || fail "two OTF2 runs of one input differ"
archive_ok det1 "a deterministic archive"
"$TCONV" -q -w otf2 -o det3 "$CHROME"
[ "$(otf2-print -I det1/traces.otf2 | grep -i identifier)" != \
    "$(otf2-print -I det3/traces.otf2 | grep -i identifier)" ] ||
    fail "different inputs give the same trace identifier"

# --- gzip: zero padding after the last member, as gzip -t accepts --------------------------------
gzip -c "$CHROME" >pad.json.gz
head -c 4096 /dev/zero >>pad.json.gz
gzip -t pad.json.gz 2>/dev/null || fail "gzip -t refuses the padded file (test setup)"
expect_rc 0 "$TCONV" -w text -o pad.txt pad.json.gz
printf x >>pad.json.gz
expect_rc 1 "$TCONV" -w text -o pad.txt pad.json.gz
expect_grep "$TMP/err" "data after the zero padding"

# --- a full disk -----------------------------------------------------------------------------------
# A 64 KiB tmpfs in a mount namespace of our own (root, or an unprivileged user namespace).
mkdir small
cat >full.sh <<'EOF'
set -u
mount -t tmpfs -o size=64k tmpfs "$2" || exit 77
cd "$2"
"$1" -q -w text -o out.txt "$3" 2>"$4/text.err"
echo "text $?" >"$4/rc"
"$1" -q -w otf2 -o arch "$3" 2>"$4/otf2.err"
echo "otf2 $?" >>"$4/rc"
ls -A >"$4/left"
EOF
set +e
unshare -r -m bash full.sh "$TCONV" "$W/small" "$W/mid.json" "$W" 2>"$TMP/unshare.err"
rc=$?
set -e
if [ -f "$W/rc" ]; then
    [ "$(tr '\n' ' ' <"$W/rc")" = "text 1 otf2 1 " ] || fail "full disk: exit statuses $(cat "$W/rc")"
    expect_grep "$W/text.err" "No space left on device"
    expect_grep "$W/otf2.err" "No space left on device"
    [ ! -s "$W/left" ] || fail "full disk: left $(cat "$W/left")"
else
    echo "no mount namespace ($rc: $(cat "$TMP/unshare.err")): full-disk checks skipped" >&2
fi
echo "safety: ok"
