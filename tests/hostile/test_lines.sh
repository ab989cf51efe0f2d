# Hostile text for the line-oriented readers (perf script, folded stacks): a 100 MB line, a
# 100 000-frame folded stack, NUL bytes, bytes that are not UTF-8, an empty file, a file without
# any line break. These formats are bytes, as the reference tools read them: NUL and non-UTF-8
# bytes are kept as they are (the text writer shows them escaped), a line over the 64 MiB cap is
# an error at its line number.
source "$(dirname "$0")/lib.sh"
cd "$TMP"

python3 -c "import sys; sys.stdout.write('a;' + 'x' * (100 << 20) + ' 1\n')" >long.folded
expect 1 200 10 "$TCONV" -r folded -w folded long.folded
expect_err "tconv: error: long.folded:1: line longer than 64 MiB: this is not a line-oriented text file"
python3 -c "import sys; sys.stdout.write('app 1/1 [000] 1.0: 1 cycles:\n\tff ' + 'x' * (100 << 20) + ' (/x.so)\n')" >long.perf
expect 1 200 10 "$TCONV" -r perf -w text long.perf
expect_err "tconv: error: long.perf:2: line longer than 64 MiB"
rm -f long.folded long.perf
# Just under the cap: read.
python3 -c "import sys; sys.stdout.write('a;' + 'x' * (60 << 20) + ' 1\n')" >wide.folded
expect 0 400 20 "$TCONV" -r folded -w folded -o wide.out wide.folded
cmp -s wide.folded wide.out || fail "a 60 MB folded line did not come back as it was"
rm -f wide.folded wide.out

awk 'BEGIN { for (i = 0; i < 100000; i++) printf "%sf%d", i ? ";" : "", i; print " 7" }' >deep.folded
for w in folded text-ordered pprof; do
    expect 0 100 20 "$TCONV" -r folded -w $w -o deep.out deep.folded
done
expect 0 100 20 "$TCONV" -r folded -w folded -o deep.out deep.folded
cmp -s deep.folded deep.out || fail "the 100 000-frame stack did not come back as it was"

printf 'a;b\0c 1\n\0\0\0 2\n' >nul.folded
expect 0 64 10 "$TCONV" -r folded -w text nul.folded
expect_out 'stack=["a";"b\x00c"] values=[1]'
expect_out 'stack=["\x00\x00\x00"] values=[2]'
printf 'app 1/1 [000] 1.0: 1 cycles:\n\tff f\0g (/x\0.so)\n\n' >nul.perf
expect 0 64 10 "$TCONV" -r perf -w text nul.perf
expect_out '"f\x00g"@"/x\x00.so"'
printf 'a;\xff\xfe 1\n' >bad-utf8.folded
expect 0 64 10 "$TCONV" -r folded -w text bad-utf8.folded
expect_out 'stack=["a";"\xff\xfe"]'
printf 'app\xff 1/1 [000] 1.0: 1 cycles:\n\tff f\xc3 (/x.so)\n\n' >bad-utf8.perf
expect 0 64 10 "$TCONV" -r perf -w text bad-utf8.perf
expect_out 'stack=["app\xff";"f\xc3"@"/x.so"'
# Binary garbage: nothing the probes recognise; with -r, positioned errors or counted skips.
# The same garbage every run (seeded): with -r perf, random bytes may or may not hold a line
# that parses as a sample, and with none the run is refused as a misread (exit 1).
python3 -c 'import random, sys; random.seed(20261125); sys.stdout.buffer.write(bytes(random.getrandbits(8) for _ in range(1000000)))' >noise.bin
expect 1 64 10 "$TCONV" -w text noise.bin
expect_err "tconv: error: cannot tell the format of 'noise.bin'"
expect 1 64 10 "$TCONV" -r folded -w text noise.bin
expect_err "tconv: error: noise.bin:"
expect 0 64 10 "$TCONV" -r perf -w text -o /dev/null noise.bin

: >empty
for r in perf folded; do
    expect 0 64 10 "$TCONV" -r $r -w text empty
done
# No line break at all: the whole file is one line (under the cap).
head -c 10000000 /dev/zero | tr '\0' 'x' >one-line.folded
expect 1 64 10 "$TCONV" -r folded -w folded one-line.folded
expect_err "one-line.folded"
done_checks
