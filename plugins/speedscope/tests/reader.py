#!/usr/bin/env python3
"""The speedscope reader's totals per profile, and speedscope -> tconv -> speedscope.

usage: reader.py TCONV WORKDIR FILE...

For each speedscope FILE, read here with Python's json:
- each sampled profile's samples and the sum of its weights (in ns for a time unit, as given
  for bytes and "none") must be what `tconv -w text` shows on that profile's track: as many
  samples, and the same sum of the sample type of the profile's unit;
- each evented profile's busy time (the union of its outermost frames' intervals, in ns) must be
  the sum of self times `tconv -w text-stacks` gives its track;
- `tconv -o out.speedscope.json FILE` must give the same profiles, by name and in order, with
  the same frames (name, file, line) in every sample, the same weights, and the same open and
  close events at the same times, once units and the time base are made the same.
Exit 0 when all agree, 1 otherwise.
"""
import json
import math
import os
import re
import subprocess
import sys

FAILS = []
SCALE = {"nanoseconds": 1, "microseconds": 1e3, "milliseconds": 1e6, "seconds": 1e9,
         "bytes": 1, "none": 1}
TYPE = {"nanoseconds": "time", "microseconds": "time", "milliseconds": "time",
        "seconds": "time", "bytes": "space", "none": "weight"}


def fail(msg):
    FAILS.append(msg)
    print("FAIL: " + msg)


def rnd(x):
    return int(math.floor(x + 0.5)) if x >= 0 else -int(math.floor(-x + 0.5))


def busy(events, scale):
    total, depth, start = 0, 0, None
    for e in events:
        if e["type"] == "O":
            if depth == 0:
                start = rnd(e["at"] * scale)
            depth += 1
        elif depth:
            depth -= 1
            if depth == 0:
                total += rnd(e["at"] * scale) - start
    return total


def text_tracks(tconv, writer, path):
    out = subprocess.run([tconv, "-q", "-r", "speedscope", "-w", writer, path],
                         stdout=subprocess.PIPE, check=True).stdout.decode("utf-8", "replace")
    types = [l.split()[1].split("/")[0] for l in out.splitlines() if l.startswith("sampletype ")]
    tids = {}
    for l in out.splitlines():
        m = re.match(r'track T(\d+) .*pid="" tid="(\d+)"', l)
        if m:
            tids[m.group(1)] = int(m.group(2))
    per = {}
    for l in out.splitlines():
        m = re.match(r"sample\s+-?\d+ (?:dur=\d+ )?T(\d+) .*values=\[([-0-9,]+)\]", l)
        if m:
            per.setdefault(tids[m.group(1)], []).append([int(v) for v in m.group(2).split(",")])
    return types, per


def check_totals(tconv, path, doc):
    label = os.path.basename(path)
    before = len(FAILS)
    types, per = text_tracks(tconv, "text", path)
    _, stacks = text_tracks(tconv, "text-stacks", path)
    for i, p in enumerate(doc["profiles"]):
        scale = SCALE[p["unit"]]
        if p["type"] == "sampled":
            want = (len(p["samples"]), sum(rnd(w * scale) for w in p["weights"]))
            exact = sum(p["weights"]) * scale
            k = types.index(TYPE[p["unit"]])
            got = (len(per.get(i, [])), sum(v[k] for v in per.get(i, [])))
            if got != want or abs(got[1] - exact) > max(1, 1e-9 * abs(exact)) * len(p["weights"]):
                fail("%s: profile %d (%s): %s samples and weights, tconv %s" %
                     (label, i, p["name"], want, got))
        else:
            want = busy(p["events"], scale)
            # spans' self-time samples carry {count, self}, whatever types the file declared
            got = sum(v[1] for v in stacks.get(i, []))
            if got != want:
                fail("%s: profile %d (%s): busy %d ns, tconv's self times add up to %d" %
                     (label, i, p["name"], want, got))
    if len(FAILS) == before:
        print("%s: %d profiles' totals agree" % (label, len(doc["profiles"])))


def shape(doc, p):
    """A profile as frames and weights in ns (sampled) or events with times from the first
    one (evented)."""
    frames = doc["shared"]["frames"]
    scale = SCALE[p["unit"]]

    def fr(i):
        f = frames[i]
        return (f["name"], f.get("file"), f.get("line"))

    if p["type"] == "sampled":
        return ("sampled", TYPE[p["unit"]],
                [tuple(fr(i) for i in s) for s in p["samples"]],
                [rnd(w * scale) for w in p["weights"]])
    ev = p["events"]
    t0 = ev[0]["at"] if ev else 0
    # a call of no length weighs nothing; speedscope's view leaves it out too
    return ("evented", [(e["type"], fr(e["frame"])[0], rnd((e["at"] - t0) * scale))
                        for e in ev])


def drop_empty(seq):
    out = []
    for e in seq:
        if out and e[0] == "C" and out[-1][0] == "O" and out[-1][1:] == e[1:]:
            out.pop()
            continue
        out.append(e)
    return out


def check_roundtrip(tconv, work, path, doc):
    label = os.path.basename(path)
    out = os.path.join(work, label + ".out.speedscope.json")
    subprocess.run([tconv, "-q", "-o", out, path], check=True)
    back = json.load(open(out))
    if back.get("exporter", "").split("@")[0] != "tconv" or "$schema" not in back:
        fail("%s: the output lacks $schema or exporter tconv" % label)
    before = len(FAILS)
    names = [p["name"] for p in doc["profiles"]]
    if [p["name"] for p in back["profiles"]] != names:
        fail("%s: profiles %s came back as %s" % (label, names,
                                                  [p["name"] for p in back["profiles"]]))
        return
    for p, q in zip(doc["profiles"], back["profiles"]):
        a, b = shape(doc, p), shape(back, q)
        if a[0] == "evented" and b[0] == "evented":
            a, b = drop_empty(a[1]), drop_empty(b[1])
        if a != b:
            fail("%s: profile %s differs after the round trip" % (label, p["name"]))
    if len(FAILS) == before:
        print("%s: %d profiles come back with their frames and weights" % (label, len(names)))


def main():
    tconv, work = sys.argv[1:3]
    os.makedirs(work, exist_ok=True)
    for path in sys.argv[3:]:
        doc = json.load(open(path))
        check_totals(tconv, path, doc)
        check_roundtrip(tconv, work, path, doc)
    return 1 if FAILS else 0


if __name__ == "__main__":
    sys.exit(main())
