# Hostile streams: gzip that is truncated, corrupt or a bomb; standard input closed, or cut off
# by a producer that dies; standard output closed. Each ends with a clear error (exit 1) or a
# clean empty result, and a failed run leaves the old output as it was.
source "$(dirname "$0")/lib.sh"
cd "$TMP"
printf '[{"ph":"X","pid":1,"tid":1,"ts":1,"dur":2,"name":"a"},{"ph":"X","pid":1,"tid":1,"ts":5,"dur":2,"name":"b"}]' >t.json
gzip -9n -c t.json >t.json.gz
size=$(stat -c %s t.json.gz)

# Truncated: a cut of the compressed stream is an error naming the cause (one byte is not even
# the gzip magic, so it is read as JSON, which it is not either).
head -c 1 t.json.gz >cut.gz
expect 1 64 10 "$TCONV" -r chrome -w text cut.gz
expect_err "tconv: error: cut.gz:0: invalid JSON"
for cut in 2 10 $((size / 2)) $((size - 1)); do
    head -c $cut t.json.gz >cut.gz
    expect 1 64 10 "$TCONV" -r chrome -w text cut.gz
    expect_err "tconv: error: cut.gz: unexpected end of gzip data (the file is truncated)"
done
# Corrupt: a flipped byte in the deflate data or in the trailer's checksum.
for at in 12 $((size - 6)); do
    python3 -c "import sys; d = bytearray(open('t.json.gz', 'rb').read()); d[$at] ^= 0xff; open('bad.gz', 'wb').write(d)"
    expect 1 64 10 "$TCONV" -r chrome -w text bad.gz
    expect_err "tconv: error: bad.gz: invalid gzip data at compressed byte"
done
# Garbage after a valid member is another member that is not gzip.
{ cat t.json.gz; printf 'garbage'; } >tail.gz
expect 1 64 10 "$TCONV" -r chrome -w text tail.gz
expect_err "tconv: error: tail.gz: invalid gzip data"

# A bomb: 300 MB of JSON blanks in 300 KB (1000:1) is refused once it passes 256 MiB, with
# little memory; a cap of 10 MB stops it sooner.
{ printf '['; head -c 300M /dev/zero | tr '\0' ' '; printf ']'; } | gzip -9 >bomb.json.gz
expect 1 64 30 "$TCONV" -r chrome -w text -o out.txt bomb.json.gz
expect_err "bomb.json.gz: expands more than 1000:1"
expect_err "a gzip bomb, not a trace"
expect 1 64 10 "$TCONV" --max-input-bytes 10M -r chrome -w text -o out.txt bomb.json.gz
expect_err "bomb.json.gz: decompresses to more than 10485760 bytes, the limit; raise it with --max-input-bytes"
[ ! -e out.txt ] || fail "a failed run created its output"
rm -f bomb.json.gz

# Standard input closed: an error, also when an output file is opened first (it must not take
# the place of stdin, or tconv would read its own output).
expect 1 64 10 bash -c "'$TCONV' -r chrome -w text <&-"
expect_err "tconv: error: <stdin>: Bad file descriptor"
echo keep >old.txt
expect 1 64 10 bash -c "'$TCONV' -r chrome -w text -o old.txt <&-"
expect_err "tconv: error: <stdin>: Bad file descriptor"
[ "$(cat old.txt)" = keep ] || fail "stdin closed: the old output was replaced"
# ... and with stdin and stdout closed, an input file does not become stdout.
expect 0 64 10 bash -c "'$TCONV' -r chrome -w text -o new.txt t.json <&- >&-"
[ "$(grep -c '^complete' new.txt)" = 2 ] || fail "closed stdin and stdout: wrong output"
# Empty standard input: an empty trace (chrome), nothing to tell the format by (detection).
expect 0 64 10 bash -c "'$TCONV' -r chrome -w text </dev/null"
expect_err "<stdin>: no JSON value in the input: read as an empty trace [chrome.empty]"
expect 1 64 10 bash -c "'$TCONV' -w text </dev/null"
expect_err "tconv: error: '<stdin>' is empty: there is nothing to convert"
# A producer that dies mid-stream: a cut inside an event is an error, and nothing replaces the
# old output; a cut between events is a truncated trace, read with its warning.
expect 1 64 10 bash -c "head -c 40 t.json | '$TCONV' -r chrome -w text -o old.txt"
expect_err "tconv: error: <stdin>:"
[ "$(cat old.txt)" = keep ] || fail "cut stdin: the old output was replaced"
expect 1 64 10 bash -c "head -c $((size / 2)) t.json.gz | '$TCONV' -r chrome -w text -o old.txt"
expect_err "tconv: error: <stdin>: unexpected end of gzip data (the file is truncated)"
expect 0 64 10 bash -c "head -c 54 t.json | '$TCONV' -r chrome -w text"
expect_out 'name="a"'
# Standard output closed: a write error, not a crash.
expect 1 64 10 bash -c "'$TCONV' -r chrome -w text t.json >&-"
expect_err "tconv: error: cannot write '<stdout>': Bad file descriptor"
[ -z "$(ls -A | grep '\.tconv-')" ] || fail "a temporary file was left behind"
done_checks
