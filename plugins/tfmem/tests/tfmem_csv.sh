# tconv -r tfmem -w csv: every allocator's "allocated bytes" values, in time order, on the CSV
# rows that name the allocator (whatever the CSV writer's columns). Skips without a csv writer.
# shellcheck source=lib.sh
. "$(dirname "$0")/lib.sh"
has_writer csv || {
    echo "SKIP: no csv writer" >&2
    exit 77
}
ONE=$GEN/single/hostA.memory_profile.json.gz
expect_rc 0 "$TCONV" -r tfmem -w csv "$ONE"
cp out memory.csv
expect_rc 0 "$TCONV" -r tfmem -w text "$ONE"
"$PYTHON" - memory.csv out <<'PY'
import re, sys
csv_rows = open(sys.argv[1]).read().splitlines()
want = {}
tracks = {}
for line in open(sys.argv[2]):
    m = re.match(r'^track T(\d+) .* thread="([^"]*)"', line)
    if m:
        tracks[m.group(1)] = m.group(2)
for line in open(sys.argv[2]):
    m = re.match(r'^counter +\d+ T(\d+) name="allocated bytes" .* value=(\S+)', line)
    if m:
        want.setdefault(m.group(1), []).append(float(m.group(2)))
total = 0
for t, values in want.items():
    name = tracks[t]
    numbers = [float(x) for row in csv_rows if name in row
               for x in re.findall(r'(?<![\w.])-?\d+(?:\.\d+)?(?:e[+-]?\d+)?(?![\w.])', row)]
    i = 0
    for n in numbers:
        if i < len(values) and n == values[i]:
            i += 1
    if i != len(values):
        sys.exit("%s: %d of %d allocated-bytes values found in order in the CSV" %
                 (name, i, len(values)))
    total += i
if total != 38:
    sys.exit("%d values, expected 38" % total)
print("ok: %d values" % total)
PY
echo ok
