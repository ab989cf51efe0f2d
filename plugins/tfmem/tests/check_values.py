#!/usr/bin/env python3
"""Checks tconv's text dump of a memory profile against the profile itself, read here
independently: per allocator, every snapshot's five counter values and its activity, in time
order, and the peak.

usage: check_values.py PROFILE TEXT_DUMP
"""
import gzip
import json
import re
import sys

STATS = [("heapAllocatedBytes", "allocated bytes", "bytes"),
         ("stackReservedBytes", "reserved bytes", "bytes"),
         ("freeMemoryBytes", "free bytes", "bytes"),
         ("fragmentation", "fragmentation", "ratio"),
         ("peakBytesInUse", "peak bytes in use", "bytes")]

LINE = re.compile(r'^(\w+) +(-?\d+)(?: dur=\d+)? T(\d+) name="([^"]*)"(.*)$')


def load(path):
    with open(path, "rb") as f:
        data = f.read()
    if data[:2] == b"\x1f\x8b":
        data = gzip.decompress(data)
    return json.loads(data)


def expected(profile):
    """Per allocator: the counter tuples, the activity tuples, the peak tuple."""
    out = {}
    for name, p in profile["memoryProfilePerAllocator"].items():
        snaps = []
        seq = 0
        for li, key in enumerate(("memoryProfileSnapshots", "sampledTimelineSnapshots")):
            for s in p.get(key, []):
                snaps.append((int(s["timeOffsetPs"]) // 1000, seq, li, s))
                seq += 1
        snaps.sort(key=lambda x: (x[0], x[1]))
        kept = []
        for ts, seq, li, s in snaps:
            if any(k[0] == ts and k[2] != li and k[3] == s for k in kept):
                continue
            kept.append((ts, seq, li, s))
        counters, acts = [], []
        for ts, _, _, s in kept:
            m = s["activityMetadata"]
            acts.append((ts, m["memoryActivity"], m["tfOpName"], int(m["allocationBytes"])))
            for field, series, unit in STATS:
                counters.append((ts, series, float(s["aggregationStats"][field]), unit))
        summ = p["profileSummary"]
        peak = (int(summ["peakStatsTimePs"]) // 1000, int(summ["peakStats"]["peakBytesInUse"]))
        out[name] = (counters, acts, peak)
    return out


def parsed(text):
    tracks = {}
    events = {}
    for line in text.splitlines():
        m = re.match(r'^track T(\d+) .* thread="([^"]*)"$', line)
        if m:
            tracks[int(m.group(1))] = m.group(2)
            continue
        m = LINE.match(line)
        if not m:
            continue
        kind, ts, track, name, rest = m.group(1), int(m.group(2)), int(m.group(3)), \
            m.group(4), m.group(5)
        counters, acts, peaks = events.setdefault(track, ([], [], []))
        if kind == "counter":
            value = float(re.search(r' value=(\S+)', rest).group(1))
            unit = re.search(r' unit="([^"]*)"', rest).group(1)
            counters.append((ts, name, value, unit))
        elif kind == "instant" and name == "peak":
            peaks.append((ts, int(re.search(r'"peakBytesInUse":(\d+)', rest).group(1))))
        elif kind == "instant":
            op = re.search(r'"tfOpName":"([^"]*)"', rest).group(1)
            size = int(re.search(r'"allocationBytes":(\d+)', rest).group(1))
            acts.append((ts, name, op, size))
    return {tracks[t]: (c, a, p[0] if p else None) for t, (c, a, p) in events.items()}


def main():
    want = expected(load(sys.argv[1]))
    with open(sys.argv[2]) as f:
        got = parsed(f.read())
    if sorted(want) != sorted(got):
        sys.exit("allocators: got %s, expected %s" % (sorted(got), sorted(want)))
    for name in sorted(want):
        for what, w, g in zip(("counters", "activities", "peak"), want[name], got[name]):
            if w != g:
                if isinstance(w, list):
                    for i, (a, b) in enumerate(zip(w, g)):
                        if a != b:
                            sys.exit("%s %s #%d: got %s, expected %s" % (name, what, i, b, a))
                sys.exit("%s %s: got %d, expected %d (%s / %s)" % (
                    name, what, len(g) if g else 0, len(w), g, w))
        print("%s: %d counter values, %d activities, peak at %d ns" % (
            name, len(want[name][0]), len(want[name][1]), want[name][2][0]))


if __name__ == "__main__":
    main()
