# Hostile times: ts of 1e308, negative, NaN-like text, beyond int64 nanoseconds; negative and
# huge durations, spans whose end or length would overflow int64. Readers keep every time within
# 2^62 ns (146 years) of the origin, so no sum or difference of two times overflows in the core's
# stages or the writers (a sanitizer build would report it): what lies beyond is refused with a
# counted warning, or clamped where the format has no way to say it (perf).
source "$(dirname "$0")/lib.sh"
cd "$TMP"
cat >ts.json <<'JSON'
[{"ph":"X","pid":1,"tid":1,"ts":1e308,"dur":1,"name":"huge"},
{"ph":"X","pid":1,"tid":1,"ts":-5,"dur":1,"name":"negative ts"},
{"ph":"X","pid":1,"tid":1,"ts":"NaN","dur":1,"name":"nan"},
{"ph":"X","pid":1,"tid":1,"ts":"-Infinity","dur":1,"name":"inf"},
{"ph":"X","pid":1,"tid":1,"ts":9223372036854776,"dur":1,"name":"beyond int64 ns"},
{"ph":"X","pid":1,"tid":1,"ts":-9223372036854776,"dur":1,"name":"below int64 ns"},
{"ph":"X","pid":1,"tid":1,"ts":4611686018427388,"dur":1,"name":"beyond 2^62 ns"},
{"ph":"X","pid":1,"tid":1,"ts":1,"dur":-1,"name":"negative dur"},
{"ph":"X","pid":1,"tid":1,"ts":1,"dur":1e308,"name":"huge dur"},
{"ph":"X","pid":1,"tid":1,"ts":4611686018427,"dur":4611686018427387,"name":"end beyond 2^62 ns"},
{"ph":"X","pid":1,"tid":1,"ts":-4611686018427387,"dur":4611686018427387,"name":"whole range"},
{"ph":"B","pid":1,"tid":1,"ts":-4611686018427387,"name":"longest span"},
{"ph":"E","pid":1,"tid":1,"ts":4611686018427387},
{"ph":"X","pid":1,"tid":1,"ts":1.0e-400,"dur":1,"name":"tiny"}]
JSON
for w in text text-ordered text-stacks; do
    expect 0 64 10 "$TCONV" -r chrome -w $w ts.json
    expect_err '[chrome.bad-event, 9 times; first shown]'
done
expect_out 'sample     -4611686018427387000 dur=9223372036854774000 T0 name="longest span"'
"$TCONV" -q -r chrome -w text ts.json >kept.txt
for name in "negative ts" "whole range" "longest span" tiny; do
    grep -qF "name=\"$name\"" kept.txt || fail "'$name' was not kept"
done
[ "$(grep -c '^complete\|^begin' kept.txt)" = 4 ] || fail "events beyond the range were kept"
# With --strict the first one is an error at its offset.
expect 1 64 10 "$TCONV" --strict -r chrome -w text ts.json
expect_err 'tconv: error: ts.json:1: '

# Writers that add durations up (self time per stack, totals) must not overflow on spans of
# the largest length, several times over: a sanitizer build reports it if they do.
awk 'BEGIN { printf "["; for (i = 0; i < 5; i++)
    printf "%s{\"ph\":\"X\",\"pid\":1,\"tid\":%d,\"ts\":-4611686018427387,\"dur\":4611686018427387,\"name\":\"a\"}", i ? "," : "", i
    print "]" }' >long.json
for w in pprof folded otf2 summary html; do
    rm -rf long.out
    expect 0 64 10 "$TCONV" -r chrome -w $w -o long.out long.json
done
for table in ops stacks; do
    expect 0 64 10 "$TCONV" -r chrome -w csv -W table=$table -o long.out long.json
done

# perf: eleven digits of seconds are clamped to 2^62 - 1 ns (no way to skip a time field).
printf 'app 1/1 [000] 99999999999.123456789:   1 cycles:\n\tffff1 f+0x1 (/lib/x.so)\n\n' >big.perf
printf 'app 1/1 [000] 9223372036.854775808:   1 cycles:\n\tffff1 f+0x1 (/lib/x.so)\n' >>big.perf
expect 0 64 10 "$TCONV" -r perf -w text big.perf
[ "$(grep -c '^sample     4611686018427387903 ' "$TMP/out")" = 2 ] || fail "perf times not clamped"

# folded, extended form: a 19-digit time beyond 2^62 ns is not a time (an error at its line,
# or with lenient a counted skip).
printf '1700000000000000000 app 1 1 0 a;b\n9999999999999999999 app 1 1 0 a;b\n' >ts.folded
expect 1 64 10 "$TCONV" -r folded -w text ts.folded
expect_err "ts.folded:2: expected 'TIMESTAMP_NS COMM PID TID CPU"
expect 0 64 10 "$TCONV" -r folded -R lenient=true -w text-ordered ts.folded
expect_out 'sample     1700000000000000000 '

# tfmem: an offset beyond 2^62 ns is a usage error (exit 2), refused before reading; picosecond times beyond int64 are
# bad numbers (counted, the snapshot skipped).
printf '{"memoryProfilePerAllocator":{"a":{"memoryProfileSnapshots":[{"timeOffsetPs":"99999999999999999999"},{"timeOffsetPs":"-9223372036854775808","aggregationStats":{}}]}}}' >t.memory_profile.json
expect 2 64 10 "$TCONV" -r tfmem -R time-offset=9223372036854775000 -w text t.memory_profile.json
expect_err "tconv: tfmem: -R time-offset=9223372036854775000 is out of range"
for w in text text-stacks; do
    expect 0 64 10 "$TCONV" -r tfmem -R time-offset=-4611686018427387000 -R activities=span -w $w t.memory_profile.json
    expect_err "[tfmem.bad-number]"
done
done_checks
