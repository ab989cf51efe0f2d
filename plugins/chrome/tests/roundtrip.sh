#!/usr/bin/env bash
# The chrome writer's round trip: for every Chrome trace of the corpus that the reader converts,
# `tconv -w text-ordered IN` equals `tconv -w chrome IN | tconv -w text-ordered -` once flow ids
# are renumbered (roundtrip_norm.py: the reader hashes them). Also a perf script capture through
# chrome: its stack samples come back as nested spans, a frame staying open across the
# consecutive samples that share it, so its span count is the number of frames opened. And a .json.gz output is gzip that reads the same.
# usage: roundtrip.sh TCONV CORPUS_DIR    (exit 77 when the corpus is absent)
set -euo pipefail
TCONV=$1
CORPUS=$2
HERE=$(cd "$(dirname "$0")" && pwd)
[ -d "$CORPUS" ] || { echo "corpus absent: skipped"; exit 77; }
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT
unset TCONV_PLUGIN_PATH
T() { "$TCONV" -q "$@"; }

# How many slices the samples of a text dump become: each sample opens the frames it does not
# share, from the root, with the sample before it on its track (those stay open across both).
frames() {
    python3 -c '
import re, sys
item = re.compile(r"\"(?:[^\"\\]|\\.)*\"(?:@\"(?:[^\"\\]|\\.)*\")?")
n = 0
prev = {}
for line in open(sys.argv[1], encoding="utf-8", errors="replace"):
    if line.startswith("sample "):
        track = line.split()[2]
        m = re.search(r" stack=\[(.*)\] values=", line)
        cur = item.findall(m.group(1)) if m and m.group(1) else []
        old = prev.get(track, [])
        k = 0
        while k < len(old) and k < len(cur) and old[k] == cur[k]:
            k += 1
        n += len(cur) - k
        prev[track] = cur
print(n)' "$1"
}

n=0
passed=0
failed=0
while IFS= read -r -d '' f; do
    first=$(gzip -dcf "$f" 2>/dev/null | head -c 64 | tr -d ' \t\r\n' | head -c 1 || true)
    [ "$first" = "{" ] || [ "$first" = "[" ] || continue
    # Only what the reader takes: the corpus also holds JSON that is no trace, and truncated
    # traces, which chrome.corpus covers.
    T -r chrome -w text-ordered -o "$TMP/a.txt" "$f" 2>/dev/null || continue
    n=$((n + 1))
    if ! T -r chrome -w chrome -W lanes=false -o "$TMP/out.json" "$f" 2>"$TMP/err" ||
        ! T -r chrome -w text-ordered -o "$TMP/b.txt" - <"$TMP/out.json" 2>>"$TMP/err"; then
        echo "FAIL: $f: $(head -c 400 "$TMP/err")" >&2
        failed=$((failed + 1))
        continue
    fi
    if grep -q '^sample ' "$TMP/a.txt"; then
        # Stack samples come back as nested spans: count the frames they open.
        want=$(($(grep -c '^begin ' "$TMP/a.txt" || true) + $(frames "$TMP/a.txt")))
        got=$(grep -c '^begin ' "$TMP/b.txt" || true)
        if [ "$want" = "$got" ]; then
            passed=$((passed + 1))
        else
            echo "FAIL: $f: $want spans and sample frames, $got spans read back" >&2
            failed=$((failed + 1))
        fi
        continue
    fi
    python3 "$HERE/roundtrip_norm.py" "$TMP/a.txt" "$TMP/a.norm"
    python3 "$HERE/roundtrip_norm.py" "$TMP/b.txt" "$TMP/b.norm"
    if cmp -s "$TMP/a.norm" "$TMP/b.norm"; then
        passed=$((passed + 1))
    else
        echo "FAIL: $f: the round trip differs:" >&2
        { diff "$TMP/a.norm" "$TMP/b.norm" || true; } | head -6 | cut -c1-300 >&2
        failed=$((failed + 1))
    fi
done < <(find "$CORPUS" -type f \( -name '*.json' -o -name '*.gz' -o -name '*.trace' \) \
    -not -path '*/_generated/*' -print0 | sort -z)
echo "round trip: $n Chrome traces: $passed equal"

# perf script -> chrome -> text-ordered: the samples' frames as nested spans.
perf=$CORPUS/FlameGraph/test/perf-vertx-stacks-01.txt
# The first of a list by sed, which reads it all: head exits at its first line, and sort, still
# writing a list longer than a pipe write, dies of SIGPIPE, which pipefail and set -e turn into
# this script's silent end (seen on a loaded machine).
[ -f "$perf" ] || perf=$(find "$CORPUS" -name '*.txt' -path '*perf*' | sort | sed -n 1p)
if [ -n "$perf" ] && [ -f "$perf" ]; then
    T -w text -o "$TMP/p.txt" "$perf"
    frames=$(frames "$TMP/p.txt")
    T -w chrome -o "$TMP/p.json" "$perf"
    T -w text-ordered -o "$TMP/p2.txt" "$TMP/p.json"
    spans=$(grep -c '^begin ' "$TMP/p2.txt" || true)
    if [ "$frames" -gt 0 ] && [ "$frames" = "$spans" ]; then
        passed=$((passed + 1))
        echo "perf: $(basename "$perf"): $frames frames, $spans spans"
    else
        echo "FAIL: perf $perf: $frames frames in the samples, $spans spans read back" >&2
        failed=$((failed + 1))
    fi
fi

# .json.gz by the name: gzip, and the same events.
k=$(find "$CORPUS" -name '*.pt.trace.json.gz' | sort | sed -n 1p)
if [ -n "$k" ]; then
    T -o "$TMP/k.json" "$k"
    T -o "$TMP/k.json.gz" "$k"
    if [ "$(head -c 2 "$TMP/k.json.gz" | od -An -tx1 | tr -d ' ')" = 1f8b ] &&
        gzip -dc "$TMP/k.json.gz" | cmp -s - "$TMP/k.json"; then
        passed=$((passed + 1))
    else
        echo "FAIL: -o x.json.gz is not the gzip of -o x.json" >&2
        failed=$((failed + 1))
    fi
fi
echo "$passed passed, $failed failed"
[ "$n" -gt 0 ] && [ "$failed" = 0 ]
