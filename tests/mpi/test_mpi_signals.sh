# MPI mode and signals: a signal to any rank before rank 0 commits leaves no output and ends the
# job with the signal's status, whichever rank got it and whichever writer (rank 0's alone, or
# the otf2 writer on every rank); at any moment, an output is there exactly when the job ended
# with 0, and no temporary is left. A rank killed outright (SIGKILL) makes mpirun stop the
# others, and rank 0 removes its temporary before mpirun's SIGKILL follows; rank 0 killed
# outright leaves its temporary, which the next run to the same output removes.
# Arguments: TCONV TEST_PLUGINS SRC(tests)
set -euo pipefail
TCONV=$1
export TCONV_PLUGIN_PATH=$2
SRC_CH=$3/data/chrome
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT
fail() {
    echo "FAIL: $*" >&2
    exit 1
}
command -v mpirun >/dev/null || fail "no mpirun (install openmpi-bin)"
MPIRUN=(mpirun -q --oversubscribe --allow-run-as-root -n 2)
cd "$TMP"

# Two ~100 MB traces: each rank reads one for about a second.
for k in 0 1; do
    awk -v k=$k 'BEGIN { printf "{\"traceEvents\":[\n";
        for (i = 0; i < 1000000; i++)
            printf "{\"name\":\"f%d\",\"cat\":\"c\",\"ph\":\"X\",\"ts\":%d,\"dur\":%d,\"pid\":%d,\"tid\":%d,\"args\":{\"k\":\"v\"}},\n", i % 997, i * 10, 5 + i % 4, k, i % 8;
        printf "{\"name\":\"end\",\"ph\":\"i\",\"ts\":1,\"pid\":1,\"tid\":1}]}\n" }' >in$k.json
done

# rankpid OUT RANK: the pid of that rank of the job writing OUT (its command line names OUT).
rankpid() {
    local p
    for p in $(pgrep -f -- "$1"); do
        [ "$(cat "/proc/$p/comm" 2>/dev/null)" = tconv ] || continue
        if tr '\0' '\n' <"/proc/$p/environ" 2>/dev/null | grep -qx "OMPI_COMM_WORLD_RANK=$2"; then
            echo "$p"
            return 0
        fi
    done
    return 1
}

# job W OUT SIG RANK WHEN: runs the job writing OUT with writer W and sends SIG to RANK, at once
# when its temporary output appears (WHEN=early) or after WHEN seconds; sets RC.
job() {
    local w=$1 out=$2 sig=$3 rank=$4 when=$5 p= i
    rm -rf "$out"
    timeout 300 "${MPIRUN[@]}" "$TCONV" -q -w "$w" -o "$TMP/$out" in0.json in1.json \
        </dev/null >/dev/null 2>"$TMP/$out.err" &
    local job=$!
    for i in $(seq 1000); do
        p=$(rankpid "$TMP/$out" "$rank") && break
        sleep 0.01
    done
    [ -n "$p" ] || fail "$w: rank $rank of the job never started"
    if [ "$when" = early ]; then
        for i in $(seq 1000); do
            ls -A | grep -q "^\.$out\.tconv-" && break
            sleep 0.01
        done
    else
        sleep "$when"
    fi
    kill -"$sig" "$p" 2>/dev/null || true
    set +e
    wait "$job"
    RC=$?
    set -e
}

no_temps() {
    local left
    left=$(ls -A | grep '\.tconv-' || true)
    [ -z "$left" ] || fail "$1: temporaries left: $left"
}

# A signal during the run, to either rank: no output, the signal's status, every time.
for w in pprof otf2; do
    for rank in 0 1; do
        for sig in TERM INT; do
            for try in 1 2; do
                job "$w" "out.$w" "$sig" "$rank" early
                want=$((128 + $(kill -l "$sig")))
                [ "$RC" = "$want" ] || fail "$w: SIG$sig to rank $rank: exit $RC, expected $want"
                [ ! -e "out.$w" ] || fail "$w: SIG$sig to rank $rank: an output was committed"
                no_temps "$w: SIG$sig to rank $rank"
            done
        done
        echo "ok $w: SIGTERM and SIGINT to rank $rank during the run"
    done
done

# At any moment: an output exactly when the job ended with 0, else 143; nothing left behind.
for w in pprof otf2; do
    rank=0
    for when in 0.5 1 1.5 2 2.5 3 4 5; do
        rank=$((1 - rank))
        job "$w" "late.$w" TERM "$rank" "$when"
        if [ -e "late.$w" ]; then
            [ "$RC" = 0 ] || fail "$w: SIGTERM to rank $rank after ${when}s: output and exit $RC"
        else
            [ "$RC" = 143 ] || fail "$w: SIGTERM to rank $rank after ${when}s: no output, exit $RC"
        fi
        no_temps "$w: SIGTERM to rank $rank after ${when}s"
    done
    echo "ok $w: SIGTERM at eight moments, one outcome each"
done

# SIGKILL: to rank 1, mpirun stops rank 0 (SIGTERM, then SIGKILL a second later), which removes
# its temporary at once; to rank 0, the temporary stays, for the next run to remove.
for w in pprof otf2; do
    job "$w" "kill.$w" KILL 1 early
    [ "$RC" != 0 ] && [ ! -e "kill.$w" ] || fail "$w: SIGKILL to rank 1: exit $RC, or an output"
    no_temps "$w: SIGKILL to rank 1"
    job "$w" "kill.$w" KILL 0 early
    [ "$RC" != 0 ] && [ ! -e "kill.$w" ] || fail "$w: SIGKILL to rank 0: exit $RC, or an output"
    ls -A | grep -q "^\.kill\.$w\.tconv-" || fail "$w: SIGKILL to rank 0 left no temporary (test)"
    timeout 300 "${MPIRUN[@]}" "$TCONV" -q -w "$w" -o "$TMP/kill.$w" "$SRC_CH/all-phases.json" \
        "$SRC_CH/flow_simple.json" </dev/null || fail "$w: the run after a SIGKILL failed"
    no_temps "$w: the run after a SIGKILL to rank 0"
    echo "ok $w: SIGKILL to either rank"
done
