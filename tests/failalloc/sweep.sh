# sweep.sh TCONV SHIM SRC: for a few small reader -> writer conversions, makes each allocation
# of the run fail in turn (the failalloc shim) and requires every run to end cleanly: exit 1 with
# a "tconv: error:" message, or exit 0 with exactly the output of a run without failure. Never a
# signal or a hang, and a failed run leaves the old output file as it was and no temporary file.
# Conversions with more allocations than MAX_RUNS are sampled at an even stride.
set -euo pipefail
TCONV=$1
SHIM=$2
SRC=$3
MAX_RUNS=${FAILALLOC_MAX_RUNS:-400}
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT
unset TCONV_PLUGIN_PATH
fail() {
    echo "FAIL: $*" >&2
    exit 1
}

total=0
# [ROPTS='OPTION...'] sweep READER WRITER INPUT [WRITER_OPTION...]: ROPTS are more options of
# the runs (reader options, -j).
sweep() {
    local reader=$1 writer=$2 in=$3 out=$TMP/out.txt
    shift 3
    local wopts=() ropts=()
    for o in "$@"; do wopts+=(-W "$o"); done
    read -r -a ropts <<<"${ROPTS:-}"
    "$TCONV" -q "${ropts[@]}" -r "$reader" -w "$writer" "${wopts[@]}" -o "$TMP/want" "$in" ||
        fail "$reader -> $writer $* fails"
    rm -f "$TMP/count"
    FAILALLOC_REPORT=$TMP/count LD_PRELOAD=$SHIM "$TCONV" -q "${ropts[@]}" -r "$reader" \
        -w "$writer" "${wopts[@]}" -o "$out" "$in" || fail "$reader -> $writer $* fails under the shim"
    local n
    n=$(cat "$TMP/count")
    [ "$n" -gt 0 ] || fail "the shim counted no allocation"
    local step=$(((n + MAX_RUNS - 1) / MAX_RUNS)) failed=0 runs=0
    for ((k = 1; k <= n; k += step)); do
        echo keep >"$out"
        set +e
        FAILALLOC_N=$k LD_PRELOAD=$SHIM timeout 30 "$TCONV" -q "${ropts[@]}" -r "$reader" \
            -w "$writer" "${wopts[@]}" -o "$out" "$in" >/dev/null 2>"$TMP/err"
        local rc=$?
        set -e
        runs=$((runs + 1))
        local what="$reader -> $writer${*:+ $*}, allocation $k of $n"
        case $rc in
        0) cmp -s "$TMP/want" "$out" || fail "$what: exit 0 with a different output" ;;
        1)
            failed=$((failed + 1))
            grep -q '^tconv: error: ' "$TMP/err" || fail "$what: exit 1 without a message"
            [ "$(cat "$out")" = keep ] || fail "$what: the old output was replaced"
            ;;
        *)
            cat "$TMP/err" >&2
            fail "$what: exit status $rc (a signal or a hang)"
            ;;
        esac
        [ -z "$(ls -A "$TMP" | grep '\.tconv-')" ] || fail "$what: a temporary file is left"
    done
    echo "ok: $reader -> $writer${*:+ $*}: $n allocations, $runs runs, $failed clean errors"
    total=$((total + runs))
}

sweep chrome text "$SRC/tests/fuzz/seeds/chrome/kineto.json"
sweep chrome text-stacks "$SRC/tests/fuzz/seeds/chrome/object-all.json"
sweep tfmem text-ordered "$SRC/tests/fuzz/seeds/tfmem/v1.json"
sweep perf text-stacks "$SRC/plugins/perf/tests/data/fields.perf"
sweep folded text "$SRC/plugins/folded/tests/golden/fractional.folded"
# The writers that aggregate (folded, csv, summary) keep tables that grow with the input.
kineto=$SRC/plugins/csv/tests/data/kineto_small.json
sweep chrome folded "$kineto"
sweep chrome folded "$kineto" value=gpu
sweep perf folded "$SRC/plugins/perf/tests/data/fields.perf"
sweep folded folded "$SRC/plugins/folded/tests/golden/fractional.folded"
for table in events ops kernels stacks memory counters; do
    sweep chrome csv "$kineto" table=$table
done
sweep chrome summary "$kineto"
sweep perf summary "$SRC/plugins/perf/tests/data/fields.perf"
# SQLite readers: an allocation SQLite cannot make is an error, never a name or a row read as
# absent. The gzip inputs go through the temporary copy; with TCONV_SPLIT_BYTES the CPU samples'
# frames are read on a thread of their own (the nsys plugin's nsys_chains.c).
if "$TCONV" --list 2>/dev/null | grep -q "reader  nsys"; then
    nsys=$SRC/plugins/nsys/tests/data/pipit-saxpy-mpi-cuda-rank0-cut.sqlite.gz
    ROPTS="-j 1 -R samples=true" sweep nsys text-ordered "$nsys"
    TCONV_SPLIT_BYTES=1 ROPTS="-j 2 -R samples=true" sweep nsys text-ordered "$nsys"
    ROPTS="-j 1" sweep nsys text-ordered "$SRC/plugins/nsys/tests/data/fuser-64ee035-report1.sqlite.gz"
fi
if "$TCONV" --list 2>/dev/null | grep -q "reader  rocprof"; then
    ROPTS="-j 1" sweep rocprof text-ordered \
        "$SRC/plugins/rocprof/tests/data/rocmProfileData-matmul_result.rpd.gz"
fi
echo "failalloc: $total runs passed"
