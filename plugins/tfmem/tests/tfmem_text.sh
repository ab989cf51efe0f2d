# The text dump of generated memory profiles: golden files, and the options.
# shellcheck source=lib.sh
. "$(dirname "$0")/lib.sh"
ONE=$GEN/single/hostA.memory_profile.json.gz

# A profile as the profiler writes it (int64s as strings, gzip).
expect_rc 0 "$TCONV" -r tfmem -w text "$ONE"
cp out single.text
expect_golden single.text single.text
[ ! -s err ] || fail "unexpected messages: $(cat err)"
expect_count 38 single.text '^instant .* name="(ALLOCATION|DEALLOCATION|RESERVATION|EXPANSION)"'
expect_count 3 single.text '^instant .* name="peak"'
expect_count 190 single.text '^counter '

# int64s as JSON numbers, not compressed: the same events.
expect_rc 0 "$TCONV" -r tfmem -w text "$GEN/numeric/hostA.memory_profile.json"
expect_same single.text out

# Found without -r.
expect_rc 0 "$TCONV" -w text "$ONE"
expect_same single.text out

# Version 1: the sampled timeline and the peak's snapshots, merged.
expect_rc 0 "$TCONV" -r tfmem -w text "$GEN/v1/hostA.memory_profile.json.gz"
expect_golden out v1.text

# Activities as spans up to the allocator's next snapshot.
expect_rc 0 "$TCONV" -r tfmem -R activities=span -w text "$GEN/v1/hostA.memory_profile.json.gz"
expect_golden out v1-span.text

# Counters only: the same counters, no activity instants.
expect_rc 0 "$TCONV" -r tfmem -R activities=none -w text "$ONE"
expect_count 0 out '^instant .* name="(ALLOCATION|DEALLOCATION|RESERVATION|EXPANSION)"'
expect_count 3 out '^instant .* name="peak"'
grep '^counter ' single.text >want
grep '^counter ' out >got
expect_same want got

# time-offset moves every event and nothing else.
expect_rc 0 "$TCONV" -r tfmem -R time-offset=-40000 -w text "$ONE"
shift_back='{ if ($1 != "metadata" && $1 != "track") $2 = $2 + 40000; print }'
awk "$shift_back" out >got
awk '{ print }' single.text | awk '{ $1 = $1; print }' >want
awk '{ $1 = $1; print }' got >got2
expect_same want got2

# The host from -R host=, and none from stdin.
expect_rc 0 "$TCONV" -r tfmem -R host=gpu7 -w text "$ONE"
expect_line out 'metadata   0 T0 name="process_name" text="gpu7 memory"'
expect_count 3 out '^metadata .* name="host" text="gpu7"$'
expect_line out 'track T0 input=0 kind=thread pid="gpu7" tid="GPU_0_bfc" process="gpu7 memory" thread="GPU_0_bfc"'
zcat "$ONE" | expect_rc 0 "$TCONV" -r tfmem -w text -
expect_count 0 out 'name="host"'
expect_line out 'track T2 input=0 kind=thread pid="memory" tid="mklcpu" process="memory" thread="mklcpu"'
echo ok
