# Folders that do not hold one profiler run: an error that lists what was found, and no output.
# shellcheck source=lib.sh
. "$(dirname "$0")/lib.sh"
AMB=$GEN/ambiguous
: >report
for case in dup runs same-host; do
    expect_rc 1 "$TCONV" -w text -o "$case.txt" "$AMB/$case"
    [ ! -e "$case.txt" ] || fail "$case: output written despite the error"
    {
        echo "== $case"
        grep '^tconv: error:' err
    } >>report
done
expect_golden report ambiguous.err

# Memory profiles of two runs, read on purpose (-r tfmem: the traces are skipped).
expect_rc 0 "$TCONV" -r tfmem -R merge-runs=true -w text "$AMB/runs"
expect_count 2 out '^metadata .* name="process_name"'
expect_line err "tconv: warning: '$AMB/runs/plugins/profile/2024_05_01_12_00_00/hostA.trace.json.gz' (in '$AMB/runs') is not in a format tfmem recognises; skipped [core.skipped-file, 2 times; first shown]"
# Without merge-runs the same is an error.
expect_rc 1 "$TCONV" -r tfmem -w text "$AMB/runs"
# One of them named alone is fine; two files of one host named on the command line are as
# ambiguous as a folder holding them.
expect_rc 0 "$TCONV" -r tfmem -w text "$AMB/dup/hostA.memory_profile.json.gz"
[ ! -s err ] || fail "unexpected messages: $(cat err)"
expect_rc 1 "$TCONV" -r tfmem -w text "$AMB/dup/hostA.memory_profile.json.gz" \
    "$GEN/run/plugins/profile/2024_05_01_12_00_00/hostA.memory_profile.json.gz"
expect_line err "tconv: error: $GEN/run/plugins/profile/2024_05_01_12_00_00/hostA.memory_profile.json.gz:0: host 'hostA' has more than one memory profile; found '$AMB/dup/hostA.memory_profile.json.gz' (read already) and '$GEN/run/plugins/profile/2024_05_01_12_00_00/hostA.memory_profile.json.gz'. Keep one profile per host: name the file to read, or convert the runs separately"
echo ok
