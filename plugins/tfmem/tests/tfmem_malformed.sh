# Malformed profiles: a positioned error or counted warnings, never a crash. The messages of
# every case are in golden/malformed.err, with exit status and event counts.
# shellcheck source=lib.sh
. "$(dirname "$0")/lib.sh"
BAD=$GEN/bad
: >report
run_case() { # run_case NAME RC ARGS...
    local name=$1 rc=$2
    shift 2
    expect_rc "$rc" "$TCONV" -w text "$@"
    {
        echo "== $name: exit $rc, $(grep -c '^instant' out || true) instants," \
            "$(grep -c '^counter' out || true) counters"
        cat err
    } >>report
}
run_case empty 1 -r tfmem "$BAD/empty.json"
run_case truncated 1 -r tfmem "$BAD/truncated.json"
run_case array 1 -r tfmem "$BAD/array.json"
run_case no-allocators 1 -r tfmem "$BAD/no-allocators.json"
run_case allocators-array 1 -r tfmem "$BAD/allocators-array.json"
run_case no-time 0 -r tfmem "$BAD/no-time.json"
run_case bad-bytes 0 -r tfmem "$BAD/bad-bytes.json"
run_case bad-records 0 -r tfmem "$BAD/bad-records.json"
run_case no-time-strict 1 -r tfmem --strict "$BAD/no-time.json"
run_case bad-bytes-strict 1 -r tfmem -R strict=true "$BAD/bad-bytes.json"
run_case bad-records-strict 1 -r tfmem --strict "$BAD/bad-records.json"
# Found by its content even when malformed inside.
run_case allocators-array-auto 1 "$BAD/allocators-array.json"
expect_golden report malformed.err
echo ok
