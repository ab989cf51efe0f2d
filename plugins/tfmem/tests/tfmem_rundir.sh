# A TensorFlow profiler run folder (two hosts, trace and memory profile each, and a file no
# reader knows) read into one stream: golden text, host metadata, and the memory activities on
# the trace's time base. Needs the chrome reader for the traces.
# shellcheck source=lib.sh
. "$(dirname "$0")/lib.sh"
has_reader chrome || {
    echo "SKIP: no chrome reader" >&2
    exit 77
}
RUN=$GEN/run
DIR=$RUN/plugins/profile/2024_05_01_12_00_00
expect_rc 0 "$TCONV" -w text "$RUN"
cp out run.text
expect_golden run.text run.text
expect_line err "tconv: warning: '$DIR/hostA.xplane.pb' (in '$RUN') is not in a format any reader recognises; skipped [core.skipped-file]"
# Inputs in name order: 0 hostA memory, 1 hostA trace, 2 hostB memory, 3 hostB trace. The host
# is on every memory track (hostA has three allocators, hostB two) and on the trace's process.
expect_count 4 run.text '^metadata .* name="host" text="hostA"$'
expect_count 3 run.text '^metadata .* name="host" text="hostB"$'
expect_count 5 run.text '^track T[0-9]+ input=(0|2) kind=thread pid="host(A|B)" tid="[a-zA-Z0-9_]+" process="host(A|B) memory"'
"$PYTHON" "$SRC/check_align.py" run.text 0:1:14 2:3:12 >align.log || {
    cat align.log >&2
    fail "memory activities are not on the trace's time base"
}
# The check notices a shift of 30 us.
if "$PYTHON" "$SRC/check_align.py" run.text 0:1:14 2:3:12 --shift-ns 30000 >align.log; then
    fail "check_align.py accepted shifted memory events"
fi
echo ok
