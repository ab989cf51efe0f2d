#!/usr/bin/env bash
# The perfetto reader on broken traces: a trace cut at any point, or with bytes changed, fails
# with `file:offset: what` and exit 1, leaves no output, and never crashes; a trace cut between
# two packets is a shorter trace. Also the in-tree round trips that need no corpus: every kind
# of event (all-phases.json, flows, async spans, counters with units, nested JSON args), a
# .pftrace.gz output, and stack samples.
# usage: errors.sh TCONV SOURCE_DIR
set -uo pipefail
TCONV=$1
SRC=$2
HERE=$(cd "$(dirname "$0")" && pwd)
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT
unset TCONV_PLUGIN_PATH
passed=0
failed=0
fail() { echo "FAIL: $*" >&2; failed=$((failed + 1)); }
ok() { passed=$((passed + 1)); }
NORM=$SRC/plugins/chrome/tests/roundtrip_norm.py

# Round trips of the in-tree traces.
for f in all-phases.json flow_simple.json async_begin_end.json nestable_async.json \
    instance_counters.json string-pid-tid.json unpaired-begin-end.json out-of-order.json \
    non-utf8.json; do
    in=$SRC/tests/data/chrome/$f
    "$TCONV" -q -r chrome -w text-ordered -o "$TMP/a.txt" "$in" || { fail "$f: not read"; continue; }
    "$TCONV" -q -r chrome -o "$TMP/t.pftrace" "$in" &&
        "$TCONV" -q -w text-ordered -o "$TMP/b.txt" "$TMP/t.pftrace" || { fail "$f: round trip"; continue; }
    for x in a b; do
        # Samples keep their stacks but not their names and values (checked below).
        grep -v '^sample' "$TMP/$x.txt" >"$TMP/$x.ns"
        mv "$TMP/$x.ns" "$TMP/$x.txt"
        python3 "$NORM" "$TMP/$x.txt" "$TMP/$x.n1"
        python3 "$HERE/renumber_flows.py" "$TMP/$x.n1" "$TMP/$x.norm"
    done
    if cmp -s "$TMP/a.norm" "$TMP/b.norm"; then ok; else
        fail "$f: the round trip differs"
        diff "$TMP/a.norm" "$TMP/b.norm" | head -4 >&2
    fi
done

# Nested JSON args keep their text, and odd numbers stay text.
cat >"$TMP/args.json" <<'JSON'
{"traceEvents":[
 {"ph":"X","pid":1,"tid":1,"ts":1,"dur":5,"name":"a","args":{"dims":[[1,3,224,224],[],{}],"m":{"k":[true,false,null],"e":1e5,"f":0.5,"g":-0,"h":18446744073709551615,"s":"q\"\\\n\u00e9"},"big":12345678901234567890123,"n":null,"b":true,"d":2.5}}
]}
JSON
"$TCONV" -q -w text -o "$TMP/a.txt" "$TMP/args.json"
"$TCONV" -q -o "$TMP/args.pftrace" "$TMP/args.json" && "$TCONV" -q -w text -o "$TMP/b.txt" "$TMP/args.pftrace"
if grep -q 'args=' "$TMP/a.txt" && [ "$(grep '^complete\|^begin' "$TMP/a.txt" | sed 's/.*args=//')" = \
    "$(grep '^begin' "$TMP/b.txt" | sed 's/.*args=//')" ]; then ok; else
    fail "args: $(grep -h 'args=' "$TMP/a.txt" "$TMP/b.txt" | cut -c1-300)"
fi

# .pftrace.gz is gzip and reads the same.
in=$SRC/tests/data/gpu/kineto.json
"$TCONV" -q -o "$TMP/k.pftrace" "$in" && "$TCONV" -q -o "$TMP/k.pftrace.gz" "$in"
if [ "$(head -c 2 "$TMP/k.pftrace.gz" | od -An -tx1 | tr -d ' ')" = 1f8b ] &&
    gzip -dc "$TMP/k.pftrace.gz" | cmp -s - "$TMP/k.pftrace"; then ok; else
    fail ".pftrace.gz is not the gzip of the .pftrace"
fi
"$TCONV" -q -W gzip=false -o "$TMP/k2.pftrace.gz" "$in" && cmp -s "$TMP/k2.pftrace.gz" "$TMP/k.pftrace" && ok ||
    fail "-W gzip=false"

# Stack samples: a perf capture's samples come back with their stacks.
perf=$SRC/plugins/perf/tests/data/fields.perf
if [ -f "$perf" ]; then
    "$TCONV" -q -w text -o "$TMP/p.txt" "$perf"
    "$TCONV" -q -o "$TMP/p.pftrace" "$perf" && "$TCONV" -q -w text -o "$TMP/p2.txt" "$TMP/p.pftrace"
    # Perfetto's frames have no file, line or flags.
    stacks() {
        grep '^sample ' "$1" | sed 's/.* stack=\(\[.*\]\) values.*/\1/; s/ file="[^"]*":[0-9]*//g; s/ ff=[0-9]*//g'
    }
    a=$(stacks "$TMP/p.txt" | md5sum)
    b=$(stacks "$TMP/p2.txt" | md5sum)
    n=$(grep -c '^sample ' "$TMP/p.txt")
    if [ "$n" -gt 0 ] && [ "$(grep -c '^sample ' "$TMP/p2.txt")" = "$n" ]; then ok; else
        fail "perf samples: $n read, $(grep -c '^sample ' "$TMP/p2.txt") back"
    fi
    [ "$a" = "$b" ] && ok || fail "perf samples: the stacks differ"
fi

# Broken traces. The base: a trace of every kind of event.
"$TCONV" -q -r chrome -o "$TMP/base.pftrace" "$SRC/tests/data/chrome/all-phases.json"
size=$(stat -c %s "$TMP/base.pftrace")
# Cuts (every byte of the first packets, then every 7th): an error at an offset, or (between
# packets) a trace that reads.
cuts=0
errs=0
for ((n = 1; n < size; n += (n < 300 ? 1 : 7))); do
    head -c $n "$TMP/base.pftrace" >"$TMP/cut.pftrace"
    rm -f "$TMP/out.txt"
    "$TCONV" -q -r perfetto -w text -o "$TMP/out.txt" "$TMP/cut.pftrace" 2>"$TMP/err"
    rc=$?
    cuts=$((cuts + 1))
    if [ $rc -eq 0 ]; then continue; fi
    errs=$((errs + 1))
    if [ $rc -ne 1 ] || ! grep -q "cut.pftrace:[0-9]*: " "$TMP/err" || [ -e "$TMP/out.txt" ]; then
        fail "cut at $n: exit $rc, $(head -c 200 "$TMP/err")"
        break
    fi
done
[ $errs -gt 0 ] && ok || fail "no cut was an error"
echo "cuts: $cuts, errors: $errs; e.g. $(head -c 200 "$TMP/err")"

# Changed bytes: a bad tag at the top, a length past the end, a malformed packet.
printf '\x0f\x00' >"$TMP/tag.pftrace"
printf '\x0a\xff\xff\xff\xff\x0f\x00' >"$TMP/len.pftrace"
printf '\x0a\x03\x50\x01\x0f' >"$TMP/pkt.pftrace"
for b in tag len pkt; do
    "$TCONV" -q -r perfetto -w text -o "$TMP/out.txt" "$TMP/$b.pftrace" 2>"$TMP/err"
    rc=$?
    if [ $rc -eq 1 ] && grep -q "$b.pftrace:[0-9]*: " "$TMP/err" && [ ! -e "$TMP/out.txt" ]; then
        ok
        echo "$b: $(head -1 "$TMP/err")"
    else
        fail "$b: exit $rc, $(head -c 200 "$TMP/err")"
    fi
done
# Random bytes flipped in the base trace: never a crash.
cp "$TMP/base.pftrace" "$TMP/flip.pftrace"
crashes=0
for ((i = 0; i < 200; i++)); do
    cp "$TMP/base.pftrace" "$TMP/flip.pftrace"
    off=$(((i * 7919) % size))
    printf "\\x$(printf %02x $(((i * 37 + 11) % 256)))" |
        dd of="$TMP/flip.pftrace" bs=1 seek=$off conv=notrunc status=none
    "$TCONV" -q -r perfetto -w text-ordered -o "$TMP/out.txt" "$TMP/flip.pftrace" 2>"$TMP/err"
    rc=$?
    [ $rc -le 2 ] || crashes=$((crashes + 1))
done
[ $crashes = 0 ] && ok || fail "$crashes of 200 changed traces crashed the reader"

# The reader's features on a hand-written trace (data/features.txtpb says which): its dump, and
# the note and warnings it gives.
if command -v protoc >/dev/null; then
    grep -v '^#' "$HERE/data/features.txtpb" |
        protoc --proto_path="$SRC/proto" --encode=tconv.perfetto.Trace \
            "$SRC/proto/perfetto_trace.proto" >"$TMP/features.pftrace"
    "$TCONV" -r perfetto -w text -o "$TMP/features.txt" "$TMP/features.pftrace" 2>"$TMP/err"
    if cmp -s "$HERE/data/features.txt" "$TMP/features.txt" &&
        grep -q 'were skipped (chrome_events 1)' "$TMP/err" &&
        grep -q 'perfetto.no-callstack' "$TMP/err" && grep -q 'perfetto.no-descriptor' "$TMP/err"; then
        ok
    else
        fail "features.txtpb: $(diff "$HERE/data/features.txt" "$TMP/features.txt" | head -5) $(head -c 300 "$TMP/err")"
    fi
fi

# Times at the edges of int64 (a legacy X event's µs, deltas, a clock snapshot's offset): no
# overflow (the sanitizer build checks), events beyond 2^62 ns skipped by the core.
if command -v protoc >/dev/null; then
    cat >"$TMP/huge.txt" <<'TXT'
packet { timestamp: 9223372036854775813 trusted_packet_sequence_id: 1 track_event { name: "x" legacy_event { phase: 88 duration_us: 4611686018427387904 } } }
packet { timestamp: 5 trusted_packet_sequence_id: 1 track_event { name: "y" timestamp_delta_us: 9223372036854775807 legacy_event { phase: 73 } } }
packet { timestamp: 5 trusted_packet_sequence_id: 2 timestamp_clock_id: 64 track_event { name: "z" type: TYPE_INSTANT } }
packet { trusted_packet_sequence_id: 2 clock_snapshot { clocks { clock_id: 64 timestamp: 18446744073709551615 unit_multiplier_ns: 1000 } clocks { clock_id: 6 timestamp: 9223372036854775807 } } }
packet { timestamp: 7 trusted_packet_sequence_id: 2 timestamp_clock_id: 64 track_event { name: "z" type: TYPE_INSTANT } }
TXT
    protoc --proto_path="$SRC/proto" --encode=tconv.perfetto.Trace "$SRC/proto/perfetto_trace.proto" \
        <"$TMP/huge.txt" >"$TMP/huge.pftrace"
    if "$TCONV" -q -r perfetto -w text-ordered -o "$TMP/out.txt" "$TMP/huge.pftrace"; then ok; else
        fail "huge times"
    fi
fi

echo "$passed passed, $failed failed"
[ "$failed" = 0 ]
