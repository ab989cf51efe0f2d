# Shared by the hostile-input tests: each runs the CLI on inputs made at test time (large ones
# are streamed, never committed) and asserts the outcome, the peak memory and the time.
# Arguments: TCONV SANITIZED(ON/OFF). Sanitizer builds get 4x the memory and 8x the time.
# TCONV_TEST_VALGRIND=1 (tests/valgrind/run.sh, where tconv runs under valgrind): the sizes of a
# sanitizer build, and no time or memory limit, since those measure valgrind.
set -euo pipefail
TCONV=$1
SANITIZED=${2:-OFF}
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT
unset TCONV_PLUGIN_PATH
MEM_SCALE=1
TIME_SCALE=1
LIMITS=1
if [ "${TCONV_TEST_VALGRIND:-0}" = 1 ]; then
    SANITIZED=ON
    LIMITS=0
fi
if [ "$SANITIZED" = ON ]; then
    MEM_SCALE=4
    TIME_SCALE=8
fi
[ -x /usr/bin/time ] || {
    echo "SKIP: /usr/bin/time (Debian package time) is needed to measure memory" >&2
    exit 77
}
checks=0

fail() {
    echo "FAIL: $*" >&2
    exit 1
}

# expect RC MAX_MB MAX_S CMD...: run CMD (stdout in $TMP/out, stderr in $TMP/err) and require
# exit status RC, no sanitizer report, a peak RSS under MAX_MB and a run time under MAX_S
# (both scaled for sanitizer builds). A pipeline is measured as a whole: give it as bash -c.
expect() {
    local want=$1 mb=$(($2 * MEM_SCALE)) secs=$(($3 * TIME_SCALE)) wait
    shift 3
    wait=$((secs + 60))
    [ $LIMITS = 1 ] || wait=7200
    set +e
    timeout $wait /usr/bin/time -f '%M %e' -o "$TMP/time" "$@" >"$TMP/out" 2>"$TMP/err"
    local rc=$?
    set -e
    local kb s
    read -r kb s < <(tail -n 1 "$TMP/time")
    checks=$((checks + 1))
    if [ "$rc" != "$want" ] || grep -qE 'runtime error|Sanitizer' "$TMP/err"; then
        echo "--- stderr" >&2
        head -c 3000 "$TMP/err" >&2
        fail "exit status $rc, expected $want: $*"
    fi
    if [ $LIMITS = 1 ]; then
        [ "$kb" -le $((mb * 1024)) ] || fail "peak memory $((kb / 1024)) MB over $mb MB: $*"
        awk -v s="$s" -v max="$secs" 'BEGIN { exit !(s <= max) }' ||
            fail "took $s s, over $secs s: $*"
    fi
    echo "ok: exit $rc, $((kb / 1024)) MB, $s s: ${*: -1}"
}

# expect_err PATTERN: the error (or warning) printed by the last expect, as a fixed string.
expect_err() {
    grep -qF -- "$1" "$TMP/err" || {
        cat "$TMP/err" >&2
        fail "stderr lacks: $1"
    }
}

expect_out() {
    grep -qF -- "$1" "$TMP/out" || {
        head -c 2000 "$TMP/out" >&2
        fail "stdout lacks: $1"
    }
}

done_checks() {
    echo "$(basename "$0" .sh): $checks checks passed"
}
