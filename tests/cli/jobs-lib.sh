# For the -j tests (sourced after lib.sh): run one conversion with several -j values and
# compare everything a user sees.

# same NAME ARGS...: tconv ARGS -o OUT with -j 1, 2 and 4 (and the default), and with byte
# budgets for the inputs read ahead (--jobs-memory) that make threads wait: 1 byte (a thread
# ahead waits at its first event, the main thread gives up what it began ahead) and 64K; the
# outputs (file or directory), stderr and exit status must be equal, and an output must exist
# exactly when the run succeeded. A run that hangs (threads waiting for one another) fails after
# JOBS_TIMEOUT seconds. OUT is $TMP/NAME.J (J as in JOBS_RUNS: 2m1 is -j 2 --jobs-memory 1).
JOBS_RUNS="1 2 4 default 2m1 4m64K"
same() {
    local name=$1
    shift
    local j rc
    for j in $JOBS_RUNS; do
        local jarg=(-j "$j")
        case $j in
        default) jarg=() ;;
        *m*) jarg=(-j "${j%%m*}" --jobs-memory "${j#*m}") ;;
        esac
        set +e
        timeout "${JOBS_TIMEOUT:-300}" "$TCONV" "${jarg[@]}" "$@" -o "$TMP/$name.$j" \
            >"$TMP/$name.$j.stdout" 2>"$TMP/$name.$j.err"
        rc=$?
        set -e
        [ "$rc" != 124 ] || fail "$name ${jarg[*]}: no end after ${JOBS_TIMEOUT:-300} s"
        echo "$rc" >"$TMP/$name.$j.rc"
        # -v ends with the run's throughput, the one line that may differ between runs.
        sed -i -e "s#$TMP/$name.$j#OUT#g" -e '/ MB\/s of input$/d' "$TMP/$name.$j.err"
        if [ "$rc" = 0 ] || [ "$rc" = 4 ]; then
            [ -e "$TMP/$name.$j" ] || fail "$name -j $j: exit $rc and no output"
        elif [ "$rc" != 1 ] || ! grep -q "inputs failed; the output holds" "$TMP/$name.$j.err"; then
            [ ! -e "$TMP/$name.$j" ] || fail "$name -j $j: exit $rc, yet an output was written"
        fi
    done
    # The stack writers flush an input's spans as soon as it is read: with every flush at the
    # end instead (TCONV_FLUSH_AT_END, -j 1), the same, but for how much the ordering stage
    # held at most (-v), which the early flush lowers.
    set +e
    TCONV_FLUSH_AT_END=1 timeout "${JOBS_TIMEOUT:-300}" "$TCONV" -j 1 "$@" -o "$TMP/$name.end" \
        >"$TMP/$name.end.stdout" 2>"$TMP/$name.end.err"
    echo $? >"$TMP/$name.end.rc"
    set -e
    sed -i -e "s#$TMP/$name.end#OUT#g" -e '/ MB\/s of input$/d' "$TMP/$name.end.err"
    local held='s/^\(tconv: ordering stage: [0-9]* events buffered\).*/\1/'
    cmp -s "$TMP/$name.1.rc" "$TMP/$name.end.rc" ||
        fail "$name: exit $(cat "$TMP/$name.1.rc") with early flushes, $(cat "$TMP/$name.end.rc") at the end"
    diff -u <(sed "$held" "$TMP/$name.end.err") <(sed "$held" "$TMP/$name.1.err") >&2 ||
        fail "$name: stderr differs with every flush at the end"
    if [ -e "$TMP/$name.1" ] || [ -e "$TMP/$name.end" ]; then
        diff -r "$TMP/$name.end" "$TMP/$name.1" >&2 || fail "$name: output differs with every flush at the end"
    fi
    for j in ${JOBS_RUNS#1 }; do
        cmp -s "$TMP/$name.1.rc" "$TMP/$name.$j.rc" ||
            fail "$name: exit $(cat "$TMP/$name.$j.rc") with -j $j, $(cat "$TMP/$name.1.rc") with -j 1"
        diff -u "$TMP/$name.1.err" "$TMP/$name.$j.err" >&2 || fail "$name: stderr differs with -j $j"
        if [ -e "$TMP/$name.1" ] || [ -e "$TMP/$name.$j" ]; then
            diff -r "$TMP/$name.1" "$TMP/$name.$j" >&2 || fail "$name: output differs with -j $j"
        fi
    done
    echo "ok $name (exit $(cat "$TMP/$name.1.rc"))"
}
