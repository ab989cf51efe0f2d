# tconv -w otf2 -o out RUN_DIR: golden otf2-print output (events, definitions, markers) and exact
# counts of metric values and markers.
# shellcheck source=lib.sh
. "$(dirname "$0")/lib.sh"
OTF2_PRINT=$6
OTF2_MARKER=$7
has_reader chrome && has_writer otf2 && [ -x "$OTF2_PRINT" ] && [ -x "$OTF2_MARKER" ] || {
    echo "SKIP: needs the chrome reader, the otf2 writer, otf2-print and otf2-marker" >&2
    exit 77
}
expect_rc 0 "$TCONV" -w otf2 -W args=true -o archive "$GEN/run"
"$OTF2_PRINT" archive/traces.otf2 >events.txt
"$OTF2_PRINT" -G archive/traces.otf2 >defs.txt
"$OTF2_MARKER" archive/traces.otf2 >markers.txt
# Five series per snapshot: hostA 38 snapshots, hostB 30.
expect_count 340 events.txt '^METRIC '
expect_count 5 defs.txt '^METRIC_MEMBER '
expect_count 1 defs.txt '^METRIC_MEMBER .*Name: "allocated bytes" .*Unit: "bytes"'
expect_count 1 defs.txt '^METRIC_MEMBER .*Name: "fragmentation" .*Unit: "ratio"'
# One marker per activity and per allocator's peak.
expect_count 73 markers.txt '^MARKER '
expect_count 5 markers.txt '^MARKER_DEF '
expect_golden events.txt run.otf2-print
expect_golden defs.txt run.otf2-defs
expect_golden markers.txt run.otf2-markers
echo ok
