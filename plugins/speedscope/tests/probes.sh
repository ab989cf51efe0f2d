#!/usr/bin/env bash
# Readers of self-describing formats must not claim each other's inputs. speedscope and Firefox
# profiles are JSON, as Chrome traces and TensorFlow memory profiles are; pprof is protobuf, as
# Perfetto traces are. Every file of the corpus and of the test data goes through the probes
# (probe_scan: the host's detection on the first 4096 bytes): the speedscope, firefox and pprof
# readers must win their own files and no other.
# usage: probes.sh PROBE_SCAN PLUGIN_DIR SOURCE_DIR CORPUS_DIR
set -uo pipefail
SCAN=$1
PLUGINS=$2
SRC=$3
CORPUS=$4
fails=0
fail() {
    echo "FAIL: $*"
    fails=$((fails + 1))
}
files=()
while IFS= read -r f; do files+=("$f"); done < <(
    { [ -d "$CORPUS" ] && find "$CORPUS" -type f -size -100M; find "$SRC/tests/data" "$SRC/plugins" \
        "$SRC/examples" -type f -path '*data*' -o -type f -path '*examples/traces/*'; } |
        grep -v '/_generated/\|\.md$\|\.c$\|\.py$\|\.sh$' | sort -u)
[ ${#files[@]} -gt 0 ] || exit 77
"$SCAN" "$PLUGINS" "${files[@]}" >"${TMPDIR:-/tmp}/probes.$$" 2>/dev/null
n=0
while IFS=$'\t' read -r reader f; do
    n=$((n + 1))
    case "$f" in
    *speedscope-firefox/*.speedscope.json | */speedscope/tests/data/*.speedscope.json) want=speedscope ;;
    *speedscope-firefox/* | */firefox/tests/data/*) want=firefox ;;
    *corpus/pprof/* | */sample/profiles/pprof/* | */pprof/tests/input/data/*.pb.gz | */pprof/tests/input/data/*.pprof | \
        */pprof/tests/input/data/*.prof | */pprof/tests/input/data/*.cpu) want=pprof ;;
    *) want=other ;;
    esac
    if [ "$want" = other ]; then
        case "$reader" in
        speedscope | firefox | pprof) fail "the $reader reader claims $f" ;;
        esac
    elif [ "$reader" != "$want" ]; then
        fail "$f is read by '$reader', not by the $want reader"
    fi
done <"${TMPDIR:-/tmp}/probes.$$"
rm -f "${TMPDIR:-/tmp}/probes.$$"
echo "probes: $n files, $fails misdetected"
[ $fails = 0 ]
