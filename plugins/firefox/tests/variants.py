#!/usr/bin/env python3
"""Writes the layouts of the Firefox Profiler's formats that no public file of the corpus has,
made from the ones it has, for the reader's tests.

usage: variants.py SAMPLY_PROCESSED_JSON GECKO_JSON OUTDIR

- processed-v53.json.gz: the samply profile as processed versions 50 and later lay it out: the
  strings shared by all threads in profile.shared.stringArray, sample times as timeDeltas, a
  weight per sample, and markers of every phase (instant, interval, start, end) with data.
- processed-tracing.json: the same stacks weighted in milliseconds (weightType "tracing-ms").
- processed-shared.json: the v53 layout with the tables every thread indexes in profile.shared
  (stackTable, frameTable, funcTable, resourceTable) and the functions' files as indices into a
  table of sources, where newer versions may keep them.
- gecko-phases.json: the Gecko profile with markers in the newer Gecko layout (startTime,
  endTime, phase, category) instead of one time and data.interval.
"""
import copy
import gzip
import json
import os
import sys


def processed_v53(src):
    d = copy.deepcopy(src)
    d["meta"]["preprocessedProfileVersion"] = 53
    shared = []
    index = {}

    def intern(s):
        if s not in index:
            index[s] = len(shared)
            shared.append(s)
        return index[s]

    def remap(col, strings):
        return [None if v is None else intern(strings[v]) for v in col]

    for t in d["threads"]:
        strings = t.pop("stringArray")
        t["funcTable"]["name"] = remap(t["funcTable"]["name"], strings)
        t["funcTable"]["fileName"] = remap(t["funcTable"]["fileName"], strings)
        t["resourceTable"]["name"] = remap(t["resourceTable"]["name"], strings)
        s = t["samples"]
        times = s.pop("time")
        s["timeDeltas"] = [times[0]] + [b - a for a, b in zip(times, times[1:])] if times else []
        s["weight"] = [1 + i % 3 for i in range(len(times))]
        n = len(times)
        if n:
            t0, t1 = times[0], times[-1]
            names = [intern("Instant"), intern("Interval"), intern("Paired"), intern("Paired")]
            t["markers"] = {
                "length": 5,
                "name": names + [intern("Interval")],
                "startTime": [t0, t0, t0 + 1, None, t0 + 2],
                "endTime": [None, t1, None, t0 + 3, t0 + 2.5],
                "phase": [0, 1, 2, 3, 1],
                "category": [0, 1, 1, 1, 2],
                "data": [{"type": "Text", "name": "hello"}, None, {"type": "Paired"}, None,
                         {"type": "Nested", "count": 3, "ok": True, "list": [1, 2]}],
            }
    d["shared"] = {"stringArray": shared}
    return d


def processed_shared(src):
    d = processed_v53(src)
    t = d["threads"][-1]
    for name in ("stackTable", "frameTable", "funcTable", "resourceTable"):
        d["shared"][name] = t.pop(name)
    fn = d["shared"]["funcTable"]
    files = fn.pop("fileName")
    strings = d["shared"]["stringArray"]
    for i in range(0, len(files), 7):  # samply's unsymbolicated functions have no files
        strings.append("src/file%d.c" % i)
        files[i] = len(strings) - 1
    sources = sorted({f for f in files if f is not None})
    d["shared"]["sources"] = {"length": len(sources), "filename": sources}
    fn["source"] = [None if f is None else sources.index(f) for f in files]
    d["threads"] = [t]
    return d


def processed_tracing(src):
    d = copy.deepcopy(src)
    for t in d["threads"]:
        s = t["samples"]
        s["weightType"] = "tracing-ms"
        s["weight"] = [0.25 * (1 + i % 4) for i in range(len(s["time"]))]
    return d


def gecko_phases(src):
    d = copy.deepcopy(src)

    def convert(profile):
        for t in profile["threads"]:
            m = t["markers"]
            sch = m["schema"]
            rows = []
            for row in m["data"]:
                name, time, data = row[sch["name"]], row[sch["time"]], row[sch["data"]]
                iv = data.get("interval") if isinstance(data, dict) else None
                if iv == "start":
                    rows.append([name, time, None, 2, 0, data])
                elif iv == "end":
                    rows.append([name, None, time, 3, 0, data])
                elif isinstance(data, dict) and "startTime" in data and "endTime" in data:
                    rows.append([name, data["startTime"], data["endTime"], 1, 0, data])
                else:
                    rows.append([name, time, None, 0, 0, data])
            t["markers"] = {"schema": {"name": 0, "startTime": 1, "endTime": 2, "phase": 3,
                                       "category": 4, "data": 5}, "data": rows}
        for p in profile.get("processes", []):
            convert(p)

    convert(d)
    d["meta"]["version"] = 27
    return d


def main():
    samply, gecko, out = sys.argv[1:4]
    os.makedirs(out, exist_ok=True)
    src = json.load(open(samply))
    with gzip.open(os.path.join(out, "processed-v53.json.gz"), "wt") as f:
        json.dump(processed_v53(src), f)
    with open(os.path.join(out, "processed-shared.json"), "w") as f:
        json.dump(processed_shared(src), f)
    with open(os.path.join(out, "processed-tracing.json"), "w") as f:
        json.dump(processed_tracing(src), f)
    with open(os.path.join(out, "gecko-phases.json"), "w") as f:
        json.dump(gecko_phases(json.load(open(gecko))), f)


if __name__ == "__main__":
    main()
