# MPI mode: mpirun -n 1, 2 and 3 give the bytes of the single-process run, for every writer, on
# multi-rank Kineto traces (the corpus) and on the in-tree multi-input cases; otf2 archives read
# the same through otf2-print, definitions (-G) included. A malformed input ends the job on every
# rank: its message once, the exit status of the single-process run, no output.
# Arguments: TCONV TEST_PLUGINS SRC(tests) CORPUS
set -euo pipefail
TCONV=$1
export TCONV_PLUGIN_PATH=$2
SRC=$3
CORPUS=$4
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT
fail() {
    echo "FAIL: $*" >&2
    exit 1
}
command -v mpirun >/dev/null || fail "no mpirun (install openmpi-bin)"
# -q: no words of mpirun's own (it says that a rank failed, amid rank 0's messages);
# --oversubscribe: more ranks than this machine's cores; OpenMPI refuses root without the last.
MPIRUN=(mpirun -q --oversubscribe --allow-run-as-root)
CH=$SRC/data/chrome

# same NAME ARGS...: tconv ARGS -o OUT alone, then under mpirun -n 1, 2, 3: the same exit
# status, output (or none) and stderr (warnings, notes, the error: each once). Each run reads
# $STDIN as its standard input (mpirun gives it to rank 0).
STDIN=/dev/null
same() {
    local name=$1 rc a
    shift
    WARN_KINDS=
    for a in "$@"; do [ "$a" != otf2 ] || WARN_KINDS=1; done
    set +e
    "$TCONV" "$@" -o "$TMP/$name.s" <"$STDIN" >/dev/null 2>"$TMP/$name.s.err"
    local want=$?
    set -e
    for n in 1 2 3; do
        local out=$TMP/$name.$n
        set +e
        timeout 300 "${MPIRUN[@]}" -n "$n" "$TCONV" "$@" -o "$out" <"$STDIN" >/dev/null 2>"$out.err"
        rc=$?
        set -e
        [ "$rc" = "$want" ] || { cat "$out.err" >&2; fail "$name -n $n: exit $rc, alone $want"; }
        sed -i "s#$TMP/$name.$n#OUT#g" "$out.err"
        sed "s#$TMP/$name.s#OUT#g" "$TMP/$name.s.err" >"$TMP/$name.s.err2"
        if [ -e "$TMP/$name.s" ]; then # written: a success, or --keep-going's partial output
            [ -e "$out" ] || fail "$name -n $n: no output"
            diff -r "$TMP/$name.s" "$out" >&2 || fail "$name -n $n: output differs"
            if [ -d "$out" ]; then # an OTF2 archive, as its own reader sees it
                otf2-print "$out/traces.otf2" >"$out.print"
                otf2-print "$TMP/$name.s/traces.otf2" >"$TMP/$name.s.print"
                diff -q "$TMP/$name.s.print" "$out.print" >&2 || fail "$name -n $n: otf2-print differs"
                otf2-print -G "$out/traces.otf2" >"$out.print"
                otf2-print -G "$TMP/$name.s/traces.otf2" >"$TMP/$name.s.print"
                diff -q "$TMP/$name.s.print" "$out.print" >&2 || fail "$name -n $n: otf2-print -G differs"
            fi
        else
            [ ! -e "$out" ] || fail "$name -n $n: exit $rc, yet an output was written"
        fi
        if [ -n "$WARN_KINDS" ] && [ "$n" != 1 ]; then
            # The otf2 writer on every rank (docs/scale.md): the same messages but warnings,
            # of which the same kinds; their counts and first messages are each rank's.
            diff -u <(grep -v '^tconv: warning:' "$TMP/$name.s.err2") \
                <(grep -v '^tconv: warning:' "$out.err") >&2 || fail "$name -n $n: stderr differs"
            diff -u <(grep -o '\[[a-z0-9.)-]*' "$TMP/$name.s.err2" | sort) \
                <(grep -o '\[[a-z0-9.)-]*' "$out.err" | sort) >&2 ||
                fail "$name -n $n: warnings of other kinds"
        else
            diff -u "$TMP/$name.s.err2" "$out.err" >&2 || fail "$name -n $n: stderr differs"
        fi
    done
    echo "ok $name (exit $want)"
}

WRITERS="pprof folded csv summary chrome otf2"

# ---- in-tree multi-input cases -------------------------------------------------------------
for w in $WRITERS; do
    same "chrome-$w" -w "$w" "$CH/all-phases.json" "$CH/multi-thread-with-samples.json" \
        "$CH/nestable_async.json" "$CH/string-pid-tid.json" "$CH/metadata-after.json" \
        "$CH/flow_events_json_v2.json"
done
# Warnings from several ranks' inputs: counted and first-shown as by one process.
same warnings -w csv "$CH/bad-events.json" "$CH/out-of-order.json" "$CH/bad-events.json" \
    "$CH/non-utf8.json" "$CH/duplicate-keys.json"
grep -q "warning" "$TMP/warnings.s.err" || fail "warnings: the inputs gave no warning"
# A malformed input among good ones (read by rank 1 or 2): its message once, no output.
for w in folded otf2; do
    same "malformed-$w" -w "$w" "$CH/all-phases.json" "$CH/truncated-in-event.json" \
        "$CH/flow_simple.json"
done
grep -q "truncated-in-event.json" "$TMP/malformed-folded.s.err" || fail "malformed: no error named the input"
same keep-going --keep-going -w pprof "$CH/all-phases.json" "$CH/truncated-in-event.json" \
    "$CH/flow_simple.json" "$CH/unescaped-quote.json" "$CH/nestable_async.json"
# Partial results (pprof, folded: the other ranks send samples summed per stack): repair
# warnings of their inputs name the run's track numbers; an input with samples of its own stops
# them for the inputs after it, which rank 0 reads itself.
printf 'prog;main;work 5\n' >"$TMP/a.stacks"
P1=$CH/two-threads.json
P2=$CH/unpaired-begin-end.json
for w in pprof folded; do
    same "partial-$w" -w "$w" "$P1" "$P2" "$P2" "$P1"
    same "partial-samples-$w" -w "$w" "$P1" "$TMP/a.stacks" "$P2" "$P1"
done
grep -q "on track 3 is never ended" "$TMP/partial-pprof.s.err" || fail "partial: no repair warning"
# Mistakes in the command, found before anything is read: said once, exit 2.
same usage-writer -w nosuch "$CH/all-phases.json" "$CH/flow_simple.json"
same usage-option -w pprof -W nosuch=1 "$CH/all-phases.json" "$CH/flow_simple.json"
# A directory, and inputs only rank 0 reads (standard input; an OTF2 archive, whose reader
# does not run apart).
mkdir -p "$TMP/dir/sub"
cp "$CH/all-phases.json" "$TMP/dir/a.json"
cp "$CH/flow_simple.json" "$TMP/dir/sub/b.json"
echo notes >"$TMP/dir/README"
"$TCONV" -q -w otf2 -o "$TMP/archive" "$CH/nestable_async.json"
STDIN=$CH/multi-thread-with-samples.json
same dir-stdin -w folded "$TMP/dir" - "$TMP/archive/traces.otf2" "$CH/string-pid-tid.json"
STDIN=/dev/null

# Who reads what: rank 1 runs in a folder of its own (mpirun's MPMD form), where the relative
# input names are other files. The larger input goes to rank 0, the other to rank 1, which reads
# its own file of that name: the output is the single-process run of the files the ranks saw.
mkdir -p "$TMP/r0" "$TMP/r1"
cp "$CH/all-phases.json" "$TMP/r0/in0.json"
cp "$CH/flow_simple.json" "$TMP/r0/in1.json"
cp "$CH/nestable_async.json" "$TMP/r1/in1.json"
(cd "$TMP/r0" && "$TCONV" -q -w csv -o "$TMP/who.s" in0.json ../r1/in1.json)
(cd "$TMP/r0" && timeout 300 "${MPIRUN[@]}" -n 1 "$TCONV" -q -w csv -o "$TMP/who.2" in0.json in1.json \
    : -n 1 -wdir "$TMP/r1" "$TCONV" -q -w csv -o "$TMP/who.2" in0.json in1.json </dev/null)
sed -i 's#\.\./r1/in1.json#in1.json#g' "$TMP/who.s"
cmp "$TMP/who.s" "$TMP/who.2" || fail "who reads: rank 1 did not read the second input"
echo "ok who-reads"

# ---- multi-rank Kineto traces (the corpus) -----------------------------------------------------
HTA=$CORPUS/HolisticTraceAnalysis/tests/data
RANKS=("$HTA/trace_filter/sampled_rank-0.json.gz" "$HTA/trace_filter/sampled_rank-1.json.gz"
    "$HTA/cpu_only/rank-34.Jul_15_10_52_41.1074.pt.trace.json.gz"
    "$HTA/trace_file_list/inference_rank_1.json.gz" "$HTA/rank_non_gpu/rank_non_gpu.json.gz"
    "$HTA/mtia_inference_trace/mtia_inference_rank_0.json.gz"
    "$HTA/trace_compare/base/base.json.gz" "$HTA/trace_compare/test/test.json.gz")
for f in "${RANKS[@]}"; do
    [ -f "$f" ] || {
        echo "SKIP: no HTA rank traces in the corpus ($f)"
        exit 77
    }
done
for w in $WRITERS; do
    same "hta2-$w" -w "$w" "${RANKS[@]:0:2}"
    same "hta8-$w" -w "$w" "${RANKS[@]}"
done
same hta-gpu -w pprof -W gpu=attribute "${RANKS[@]:0:5}"
same hta-rank -w folded --rank 1 "${RANKS[@]:0:2}"
# A cut-off rank trace among good ones.
zcat "${RANKS[2]}" | head -c 50000 | gzip >"$TMP/cut.json.gz"
same hta-cut -w otf2 "${RANKS[@]:0:2}" "$TMP/cut.json.gz" "${RANKS[@]:3:2}"
