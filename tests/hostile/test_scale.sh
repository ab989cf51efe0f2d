# Hostile sizes: millions of distinct names, a million tracks, a perf stack of 100 000 frames,
# storms of unbalanced B/E events. Inputs are streamed from awk, never stored. Time must stay
# linear and memory proportional to what has to be kept (names, tracks, buffered events).
source "$(dirname "$0")/lib.sh"
cd "$TMP"
# 10 million names take 15 s and 460 MB in a release build; a sanitizer build runs 2 million.
names=10000000
[ "$SANITIZED" = ON ] && names=2000000

gen_names() { # distinct event names, streamed
    awk -v n=$names 'BEGIN { printf "["; for (i = 0; i < n; i++)
        printf "{\"ph\":\"X\",\"pid\":1,\"tid\":1,\"ts\":%d,\"dur\":1,\"name\":\"n%d\"},", i, i
        print "{}]" }'
}
export -f gen_names
export names
expect 0 $((names / 20000 + 100)) 60 bash -c "gen_names | '$TCONV' -r chrome -w text -o /dev/null -"
# Folded stacks: each distinct stack is kept until the end (equal ones add up), about 150 bytes
# each with the folded writer's table: a fifth as many.
stacks=$((names / 5))
expect 0 $((stacks / 6000 + 100)) 60 bash -c "awk -v n=$stacks 'BEGIN { for (i = 0; i < n; i++) printf \"main;f%d 1\\n\", i }' | '$TCONV' -r folded -w folded -o out.folded -"
[ "$(wc -l <out.folded)" = $stacks ] || fail "folded: expected $stacks stacks"
rm -f out.folded

# A million tracks (threads of one process), through the direct and the ordered path. The
# ordering stage starts each track with room for 32 events (1.3 KB), so a million tracks of one
# event take 1.4 GB there. A sanitizer build runs a quarter of them.
tracks=1000000
[ "$SANITIZED" = ON ] && tracks=250000
for w in text text-ordered; do
    mb=$((tracks / 2500 + 100))
    [ $w = text-ordered ] && mb=$((tracks / 650 + 100))
    expect 0 $mb 60 bash -c "awk -v n=$tracks 'BEGIN { printf \"[\"; for (i = 0; i < n; i++)
        printf \"{\\\"ph\\\":\\\"X\\\",\\\"pid\\\":1,\\\"tid\\\":%d,\\\"ts\\\":%d,\\\"dur\\\":1,\\\"name\\\":\\\"a\\\"},\", i, i
        print \"{}]\" }' | '$TCONV' -r chrome -w $w -o tracks.txt -"
    [ "$(grep -c '^track ' tracks.txt)" = $tracks ] || fail "$w: expected $tracks tracks"
done
# As many processes, each named by metadata before its thread shows up (two tracks each): a new
# track finds its process's name, and the name its process's tracks, without a scan of all
# tracks. A scan made this quadratic: 200 000 processes took 13 s, a million 15 CPU minutes.
expect 0 $((tracks / 2000 + 100)) 30 bash -c "awk -v n=$tracks 'BEGIN { printf \"[\"; for (i = 0; i < n; i++)
    printf \"{\\\"ph\\\":\\\"M\\\",\\\"pid\\\":%d,\\\"name\\\":\\\"process_name\\\",\\\"args\\\":{\\\"name\\\":\\\"p%d\\\"}},{\\\"ph\\\":\\\"X\\\",\\\"pid\\\":%d,\\\"tid\\\":1,\\\"ts\\\":%d,\\\"dur\\\":1,\\\"name\\\":\\\"a\\\"},\", i, i, i, i
    print \"{}]\" }' | '$TCONV' -r chrome -w text -o tracks.txt -"
[ "$(grep -c '^track .* process="p[0-9]*"$' tracks.txt)" = $((2 * tracks)) ] ||
    fail "processes: expected $((2 * tracks)) tracks with their process's name"
grep -qx "track T$((2 * tracks - 1)) input=0 kind=thread pid=\"$((tracks - 1))\" tid=\"1\" process=\"p$((tracks - 1))\"" tracks.txt ||
    fail "processes: the last thread lacks its process's name"
rm -f tracks.txt

# A perf sample with a 100 000-frame call chain, twice, into every kind of writer path.
awk 'BEGIN { for (s = 0; s < 2; s++) { printf "app 1/1 [000] %d.000000: 1 cycles:\n", s + 1
    for (i = 0; i < 100000; i++) printf "\t%x f%d_%d+0x1 (/lib/x.so)\n", i, s, i; print "" } }' >deep.perf
for w in text text-ordered folded; do
    expect 0 100 20 "$TCONV" -r perf -w $w -o deep.out deep.perf
done
[ "$(tr -cd ';' <deep.out | wc -c)" = 200000 ] || fail "folded: expected 2 x 100 000 frames"

# B/E storms on one track: a million B never closed, a million E with nothing open, and a mix.
# Each repair is counted; the ordered writer closes or drops them in linear time.
storm() { # storm KIND: the awk program for a storm
    case $1 in
    b) echo 'printf "{\"ph\":\"B\",\"pid\":1,\"tid\":1,\"ts\":%d,\"name\":\"b\"},", i' ;;
    e) echo 'printf "{\"ph\":\"E\",\"pid\":1,\"tid\":1,\"ts\":%d},", i' ;;
    m) echo 'printf "{\"ph\":\"%s\",\"pid\":1,\"tid\":1,\"ts\":%d,\"name\":\"x\"},", i % 3 ? "B" : "E", i' ;;
    esac
}
for k in b e m; do
    awk "BEGIN { printf \"[\"; for (i = 0; i < 1000000; i++) $(storm $k); print \"{}]\" }" >storm.json
    expect 0 64 20 "$TCONV" -r chrome -w text -o /dev/null storm.json
    expect 0 300 30 "$TCONV" -r chrome -w text-ordered -o /dev/null storm.json
done
expect_err "[order.unclosed-span, 333333 times; first shown]"
expect_err "has no open span; dropped [order.end-without-begin]"
# Stack writers repeat every open span in each sample, so their output grows with the square of
# the nesting depth; 3000 unclosed B give 4.5 million frames.
awk 'BEGIN { printf "["; for (i = 0; i < 3000; i++) printf "{\"ph\":\"B\",\"pid\":1,\"tid\":1,\"ts\":%d,\"name\":\"b\"},", i; print "{}]" }' >nest.json
expect 0 300 30 "$TCONV" -r chrome -w text-stacks -o /dev/null nest.json
expect 0 300 30 "$TCONV" -r chrome -w folded -o /dev/null nest.json
# Writers that aggregate by stack keep stacks as a prefix tree: memory follows the number of
# distinct stacks, not their summed depth. 8000 nested spans (8000 stacks of up to 8000
# frames, 32 million in all) took 130 MB as one copy per stack, and 1.7 GB at 30 000 deep.
awk 'BEGIN { printf "["; for (i = 0; i < 8000; i++) printf "{\"ph\":\"X\",\"pid\":1,\"tid\":1,\"ts\":%d,\"dur\":%d,\"name\":\"f%d\"},", i, 2 * (8000 - i), i; print "{}]" }' >deep.json
expect 0 40 30 "$TCONV" -r chrome -w folded -W unit=ns -o /dev/null deep.json
expect 0 40 30 "$TCONV" -r chrome -w csv -W table=stacks -o /dev/null deep.json
# The summary lists processes with their threads: two sorts, not a scan of all tracks per
# process, which took 28.6 s for 100 000 processes (quadratic; a million, about 48 minutes).
procs=200000
[ "$SANITIZED" = ON ] && procs=50000
awk -v n=$procs 'BEGIN { printf "["; for (i = 0; i < n; i++) printf "{\"ph\":\"X\",\"pid\":%d,\"tid\":1,\"ts\":%d,\"dur\":1,\"name\":\"f\"},", i, i; print "{}]" }' >procs.json
expect 0 $((procs / 1000 + 100)) 20 "$TCONV" -r chrome -w summary -o summary.txt procs.json
[ "$(grep -c '^  pid ' summary.txt)" = $procs ] || fail "summary: expected $procs processes"
done_checks
