# Every counter value, activity and peak of the generated profiles against the profile read
# independently (check_values.py).
# shellcheck source=lib.sh
. "$(dirname "$0")/lib.sh"
CHECK=$SRC/check_values.py
RUN=$GEN/run/plugins/profile/2024_05_01_12_00_00
for p in "$GEN/single/hostA.memory_profile.json.gz" "$GEN/numeric/hostA.memory_profile.json" \
    "$GEN/v1/hostA.memory_profile.json.gz" "$RUN/hostA.memory_profile.json.gz" \
    "$RUN/hostB.memory_profile.json.gz"; do
    expect_rc 0 "$TCONV" -r tfmem -w text "$p"
    "$PYTHON" "$CHECK" "$p" out >check.log || {
        cat check.log >&2
        fail "values of $p"
    }
done
# The check itself notices a difference: hostB's dump is not hostA's profile.
expect_rc 0 "$TCONV" -r tfmem -w text "$RUN/hostB.memory_profile.json.gz"
if "$PYTHON" "$CHECK" "$RUN/hostA.memory_profile.json.gz" out >check.log 2>&1; then
    fail "check_values.py accepted the wrong dump"
fi
echo ok
