#!/usr/bin/env python3
"""Checks that a run folder's memory activities fall on the trace's time base: each memory
activity of a host (but deallocations, whose op the profiler copies from the allocation) lies
within a span of that host's trace whose long_name is the activity's tfOpName.

usage: check_align.py TEXT_DUMP MEMORY_INPUT:TRACE_INPUT:COUNT... [--shift-ns N]
  COUNT is the exact number of activities that must be matched for that pair of inputs;
  --shift-ns moves the memory events first (a misalignment the check must notice).
"""
import re
import sys

LINE = re.compile(r'^(\w+) +(-?\d+)(?: dur=(\d+))? T(\d+) name="([^"]*)"(.*)$')
TRACK = re.compile(r'^track T(\d+) input=(\d+) ')


def main():
    args = sys.argv[1:]
    shift = 0
    if "--shift-ns" in args:
        i = args.index("--shift-ns")
        shift = int(args[i + 1])
        del args[i:i + 2]
    with open(args[0]) as f:
        lines = f.read().splitlines()
    track_input = {}
    for line in lines:
        m = TRACK.match(line)
        if m:
            track_input[int(m.group(1))] = int(m.group(2))
    spans = {}  # input -> [(start, end, long_name)]
    acts = {}   # input -> [(ts, activity, op)]
    for line in lines:
        m = LINE.match(line)
        if not m:
            continue
        kind, ts, dur, track, name, rest = m.groups()
        inp = track_input[int(track)]
        if kind == "complete":
            op = re.search(r'"long_name":"([^"]*)"', rest)
            if op:
                spans.setdefault(inp, []).append((int(ts), int(ts) + int(dur), op.group(1)))
        elif kind == "instant" and name not in ("peak", "DEALLOCATION"):
            op = re.search(r'"tfOpName":"([^"]*)"', rest)
            acts.setdefault(inp, []).append((int(ts) + shift, name, op.group(1)))
    failed = False
    for pair in args[1:]:
        mem, tr, count = (int(x) for x in pair.split(":"))
        ops = {s[2] for s in spans.get(tr, [])}
        matched = 0
        for ts, name, op in acts.get(mem, []):
            if op not in ops:
                continue
            if any(a <= ts <= b and o == op for a, b, o in spans[tr]):
                matched += 1
            else:
                print("input %d: %s of %s at %d ns lies outside every %s span of input %d"
                      % (mem, name, op, ts, op, tr))
        print("inputs %d/%d: %d activities within their op's span (expected %d)"
              % (mem, tr, matched, count))
        failed |= matched != count
    sys.exit(1 if failed else 0)


if __name__ == "__main__":
    main()
