# -j N: inputs read on N threads give the same output bytes, the same messages on stderr and the
# same exit status as -j 1, which reads them one after another on one thread: for every writer,
# on real multi-rank Kineto traces and on the inputs of the other multi-input tests, with
# warnings, with a malformed input (with and without --keep-going), with inputs whose sample
# types differ, with launch stacks, with a directory, and with standard input among the inputs.
source "$(dirname "$0")/lib.sh"
source "$(dirname "$0")/jobs-lib.sh"
export TCONV_PLUGIN_PATH=$TEST_PLUGINS
IN=$DATA/core/nesting.tevt
CH=$DATA/chrome
G=$DATA/gpu

WRITERS="pprof folded csv summary chrome otf2 text text-ordered text-stacks flamegraph"

# ---- the held-in multi-input cases -------------------------------------------------------------
gzip -c "$IN" >"$TMP/nesting.bin"
for w in $WRITERS; do
    same "tevt-$w" -w "$w" "$IN" "$TMP/nesting.bin" "$IN"
    same "chrome-$w" -w "$w" "$CH/all-phases.json" "$CH/multi-thread-with-samples.json" \
        "$CH/nestable_async.json" "$CH/string-pid-tid.json" "$CH/metadata-after.json" \
        "$CH/flow_events_json_v2.json"
done
# Warnings counted in several inputs: the same first messages and counts, in the same order.
same warnings -w text-ordered "$CH/bad-events.json" "$CH/out-of-order.json" "$CH/bad-events.json" \
    "$CH/non-utf8.json" "$CH/duplicate-keys.json"
grep -q "warning" "$TMP/warnings.1.err" || fail "warnings: the inputs gave no warning"
same warnings-v -v -w folded "$CH/bad-events.json" "$CH/out-of-order.json" "$CH/non-utf8.json"
# The finish of pprof and folded flushes tracks on the threads: spans never ended, closed at
# their track's last time 83 hours later (a length the ordering stage keeps in a full copy),
# with the repair warnings, on six tracks of each of two inputs.
for k in 0 1; do
    {
        printf '{"traceEvents":['
        for t in 0 1 2 3 4 5; do
            printf '{"ph":"X","name":"a%s","cat":"cpu_op","pid":%s,"tid":%s,"ts":0,"dur":5},' "$t" "$k" "$t"
            printf '{"ph":"B","name":"open%s","cat":"cpu_op","pid":%s,"tid":%s,"ts":10},' "$t" "$k" "$t"
            printf '{"ph":"X","name":"far","cat":"cpu_op","pid":%s,"tid":%s,"ts":300000000000,"dur":1}' "$k" "$t"
            [ "$t" = 5 ] || printf ','
        done
        printf ']}\n'
    } >"$TMP/far$k.json"
done
for w in pprof folded otf2; do
    same "far-$w" -w "$w" "$TMP/far0.json" "$TMP/far1.json"
done
grep -q "never ended" "$TMP/far-folded.1.err" || fail "far: no repair warning"
# pprof, folded and otf2 flush an input's spans as soon as it is read (`same` compares with every
# flush at the end): the repair warnings of the first input's flush still come after the reader's
# warnings of the second, as when all is flushed at the end.
for w in pprof folded otf2; do
    same "early-warnings-$w" -w "$w" "$TMP/far0.json" "$CH/bad-events.json"
    sed -n '/warning/{s/.*\[\([a-z.-]*\)[],].*/\1/p}' "$TMP/early-warnings-$w.1.err" | head -1 |
        grep -qv '^order\.' || fail "early-warnings-$w: the flush's warning came first"
done
# A malformed input among good ones: its error, no output; with --keep-going, the rest.
for w in text folded pprof otf2; do
    same "malformed-$w" -w "$w" "$CH/all-phases.json" "$CH/truncated-in-event.json" "$CH/flow_simple.json"
    same "keepgoing-$w" --keep-going -w "$w" "$CH/all-phases.json" "$CH/truncated-in-event.json" \
        "$CH/flow_simple.json" "$CH/unescaped-quote.json" "$CH/nestable_async.json"
done
grep -q "truncated-in-event.json" "$TMP/malformed-text.1.err" || fail "malformed: no error named the input"
grep -q "2 of 5 inputs failed" "$TMP/keepgoing-text.1.err" || fail "keep-going: no count of failed inputs"
# Sample types that differ: found when the later input is replayed, as when it is read.
printf 'prog;main;work 5\n' >"$TMP/a.stacks"
printf 'prog;main;idle 3\n' >"$TMP/b.stacks"
printf 'prog 1/1 [000] 1.000000:        948 cycles:u:\n\t  400010 work+0x10 (/bin/prog)\n\n' >"$TMP/c.perf"
same mixed-types -w folded "$TMP/a.stacks" "$TMP/c.perf" "$TMP/b.stacks"
same mixed-types-kg --keep-going -w pprof "$TMP/a.stacks" "$TMP/c.perf" "$TMP/b.stacks"
grep -q "have different sample types" "$TMP/mixed-types.1.err" || fail "mixed types: no error"
# Partial results (pprof, folded): a worker runs the stages on the input it read and hands on
# its samples summed per stack. A later input's repair warnings then still name the run's track
# numbers (the worker's own are 1 and 2); after an input with samples of its own the spans go
# to the writer at the end, so the inputs after it are read in line.
P1=$CH/two-threads.json
P2=$CH/unpaired-begin-end.json
for w in pprof folded; do
    same "partial-$w" -w "$w" "$P1" "$P2" "$P2"
    same "partial-samples-$w" -w "$w" "$P1" "$TMP/a.stacks" "$P2" "$P1"
done
grep -q "on track 3 is never ended" "$TMP/partial-pprof.1.err" || fail "partial: no repair warning"
grep -q "on track 4 has no open span" "$TMP/partial-pprof.1.err" || fail "partial: no end warning"
# pprof's time window reads each sample's time, which a sum does not keep: no partial results.
for k in 3 4; do
    printf '{"traceEvents":[%s,%s,%s]}\n' "{\"ph\":\"X\",\"name\":\"a\",\"pid\":$k,\"tid\":1,\"ts\":0,\"dur\":10}" \
        "{\"ph\":\"X\",\"name\":\"a\",\"pid\":$k,\"tid\":1,\"ts\":100,\"dur\":10}" \
        "{\"ph\":\"X\",\"name\":\"a\",\"pid\":$k,\"tid\":1,\"ts\":200,\"dur\":10}" >"$TMP/p$k.json"
done
same partial-window -w pprof -W start=50000 "$TMP/p3.json" "$TMP/p4.json" "$TMP/p3.json" "$TMP/p4.json"
# Launch stacks (declared by the folded reader) matched to launches of another input.
same launch -v -w folded -W value=gpu "$G/uprobe-order.folded" "$G/uprobe-order.json"
same launch-time -w pprof -W gpu=attribute -R tolerance=2us "$G/uprobe-time.folded" "$G/uprobe-time.json"
# A directory with a file of no known format, and standard input among the inputs.
mkdir -p "$TMP/dir/sub"
cp "$CH/all-phases.json" "$TMP/dir/a.json"
cp "$IN" "$TMP/dir/sub/b.tevt"
echo notes >"$TMP/dir/README"
same dir -w text "$TMP/dir" "$CH/flow_simple.json"
for j in 1 2 "2 --jobs-memory 1"; do
    # shellcheck disable=SC2086 # j is -j's argument and maybe a budget
    "$TCONV" -j $j -w text "$CH/all-phases.json" - "$IN" <"$TMP/nesting.bin" >"$TMP/stdin.${j// /}" 2>&1
done
cmp "$TMP/stdin.1" "$TMP/stdin.2" || fail "standard input among the inputs: -j 2 differs"
cmp "$TMP/stdin.1" "$TMP/stdin.2--jobs-memory1" || fail "standard input among the inputs: a budget differs"

# ---- -j itself ------------------------------------------------------------------------------
expect_rc 2 "$TCONV" -j 0 -w text "$IN"
expect_grep "$TMP/err" "-j '0': give a number of threads from 1 to 4096"
expect_rc 2 "$TCONV" -j x -w text "$IN"
expect_rc 0 "$TCONV" --help
expect_grep "$TMP/out" "-j, --jobs N"
expect_grep "$TMP/out" "--jobs-memory SIZE"
expect_rc 2 "$TCONV" -j 2 --jobs-memory 5X -w text "$IN"
expect_grep "$TMP/err" "--jobs-memory: '5X' is not a size"
expect_rc 0 "$TCONV" -j 2 --jobs-memory 0 -w text "$IN" "$IN"

# ---- the byte budget bounds memory -----------------------------------------------------------
# Six generated rank traces of 20 MB (a recording of ~10 MB each, for chrome): without a budget
# -j 6 holds several recordings at once (~80 MB peak against ~13 MB for -j 1). The bound is the
# budget, plus the recording the main thread waits for, plus a report's step per thread: with
# 8 MB, six threads begin at once and must wait at 8 MB (~30 MB; ~55 MB when they do not wait);
# with 1 byte no thread begins an input once a recording has reported (~15 to 24 MB). pprof
# gets partial results (summed samples, not events): -j 6 holds about what -j 1 does, with no
# budget. Peak RSS of each run, from getrusage. Not under a sanitizer (its own memory).
libs=$(ldd "$TCONV" 2>/dev/null || true)
if [[ $libs == *libasan* || $libs == *libtsan* ]] || ! command -v python3 >/dev/null; then
    echo "skipped: the memory check (a sanitizer build, or no python3)"
else
    mkdir "$TMP/big"
    python3 "$SRC/bench/gen_trace.py" --ranks 6 "$TMP/big" 20 >/dev/null
    rss() { # rss WRITER ARGS...: peak RSS in MB of tconv ARGS -w WRITER on the six traces
        local w=$1
        shift
        python3 -c 'import resource, subprocess, sys
subprocess.run(sys.argv[1:], check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
print(resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss // 1024)' \
            "$TCONV" "$@" -w "$w" -o "$TMP/big.out" "$TMP"/big/rank-*.json
    }
    # The budget's bounds are measured with the inputs read by read(); a mapped input (the
    # default) adds the pages of it that are mapped while it is read, up to about 2 MB of page
    # cache per reading thread, bounded on its own below.
    one=$(TCONV_MMAP=0 rss chrome -j 1)
    free=$(TCONV_MMAP=0 rss chrome -j 6 --jobs-memory 0)
    held8=$(TCONV_MMAP=0 rss chrome -j 6 --jobs-memory 8M)
    held1=$(TCONV_MMAP=0 rss chrome -j 6 --jobs-memory 1)
    mapped8=$(rss chrome -j 6 --jobs-memory 8M)
    echo "peak RSS, chrome: -j 1 $one MB, -j 6 $free MB, with --jobs-memory 8M $held8 MB," \
        "1 byte $held1 MB; with the inputs mapped, --jobs-memory 8M $mapped8 MB"
    [ "$free" -gt $((one + 30)) ] || fail "-j 6 without a budget held no more than -j 1 ($free, $one MB)"
    [ "$held8" -lt $((one + 25)) ] || fail "-j 6 --jobs-memory 8M held $held8 MB, -j 1 $one MB"
    [ "$held1" -lt $((one + 20)) ] || fail "-j 6 --jobs-memory 1 held $held1 MB, -j 1 $one MB"
    [ "$mapped8" -lt $((held8 + 6 * 3)) ] ||
        fail "-j 6 --jobs-memory 8M held $mapped8 MB with its inputs mapped, $held8 MB without"
    pone=$(rss pprof -j 1)
    pfree=$(rss pprof -j 6 --jobs-memory 0)
    echo "peak RSS, pprof: -j 1 $pone MB, -j 6 $pfree MB"
    [ "$pfree" -lt $((pone + 15)) ] || fail "pprof -j 6 held $pfree MB, -j 1 $pone MB: no partial results?"
fi

# ---- real multi-rank traces (the in-tree corpus slice) -----------------------------------------
HTA=$SRC/corpus/HolisticTraceAnalysis/tests/data
RANKS=("$HTA/trace_filter/sampled_rank-0.json.gz" "$HTA/trace_filter/sampled_rank-1.json.gz"
    "$HTA/cpu_only/rank-34.Jul_15_10_52_41.1074.pt.trace.json.gz"
    "$HTA/trace_file_list/inference_rank_1.json.gz" "$HTA/rank_non_gpu/rank_non_gpu.json.gz"
    "$HTA/mtia_inference_trace/mtia_inference_rank_0.json.gz")
for f in "${RANKS[@]}"; do
    [ -f "$f" ] || {
        echo "SKIP: no HTA rank traces in tests/corpus ($f)"
        exit 77
    }
done
for w in $WRITERS; do
    same "hta-$w" -w "$w" "${RANKS[@]}"
done
same hta-gpu -w pprof -W gpu=attribute "${RANKS[@]}"
same hta-rank -w folded --rank 1 "${RANKS[@]:0:2}"
same hta-window -w csv --window 1ms:20ms "${RANKS[@]}"
same hta-input -w folded --input 1 "${RANKS[@]}"
same hta-steps -w summary --steps 1-2 "${RANKS[@]}"
same hta-keepgoing --keep-going -w pprof "${RANKS[0]}" "$CH/truncated-in-event.json" "${RANKS[@]:1}"

# perf script captures (the perf reader runs on worker threads too), and captures of different
# events, refused at the second input's first sample.
FG=$SRC/corpus/FlameGraph/test
SP=$SRC/corpus/speedscope/sample/profiles/linux-perf
PERF=("$FG/perf-java-stacks-01.txt" "$FG/perf-java-stacks-02.txt" "$FG/perf-js-stacks-01.txt")
for f in "${PERF[@]}" "$SP/simple.linux-perf.txt" "$SP/rust-mangled.linux-perf.txt"; do
    [ -f "$f" ] || {
        echo "SKIP: no perf captures in tests/corpus ($f)"
        exit 77
    }
done
for w in pprof folded flamegraph text-ordered; do
    same "perf-$w" -r perf -w "$w" "${PERF[@]}"
done
same perf-mixed -r perf -w pprof "$SP/simple.linux-perf.txt" "${PERF[@]}" "$SP/rust-mangled.linux-perf.txt"
grep -q "have different sample types" "$TMP/perf-mixed.1.err" || fail "perf-mixed: no error"
