#!/usr/bin/env python3
"""PyTorch [memory] instants as counter series, on the real Kineto traces of the corpus: the
"allocated bytes" and "reserved bytes" series that the chrome reader derives per (pid, device)
must have as many values as the trace has [memory] instants, end at the last value and reach the
peak computed here from the raw events: Total Allocated / Total Reserved when the event has them,
else the running sum of Bytes per (pid, device) in file order. The figures are also pinned, so
that a change of this script cannot move both sides at once. The [memory] instants themselves
must stay.

usage: memory_counters.py TCONV CORPUS_DIR
Traces absent from the corpus are skipped; exit 77 when all are.
"""
import gzip
import json
import re
import subprocess
import sys

TRACES = {
    "HolisticTraceAnalysis/tests/data/df_index_resolver/df_index_resolver.json.gz": {
        ("783658", "allocated bytes", "cuda:1"): (4096614400, 6629508096, 26770),
        ("783658", "reserved bytes", "cuda:1"): (12782141440, 12782141440, 26770),
        ("783658", "allocated bytes", "cpu"): (0, 8, 1240),
        ("783658", "reserved bytes", "cpu"): (0, 0, 1240),
    },
    # 2021 Kineto: Bytes only.
    "kineto/tb_plugin/samples/resnet50_num_workers_0/worker0.1623143089861.pt.trace.json.gz": {
        ("25738", "allocated bytes", "cpu"): (19267840, 57803264, 4618),
        ("25738", "allocated bytes", "cuda:0"): (0, 2791636480, 8220),
    },
}
# c10::DeviceType, lower case as torch prints devices.
DEVICE_TYPES = ["cpu", "cuda", "mkldnn", "opengl", "opencl", "ideep", "hip", "fpga", "maia",
                "xla", "vulkan", "metal", "xpu", "mps", "meta", "hpu", "ve", "lazy", "ipu",
                "mtia", "privateuseone"]


def device(args):
    kind, index = args["Device Type"], args.get("Device Id")
    if kind == 0:
        return "cpu"
    name = DEVICE_TYPES[kind] if 0 < kind < len(DEVICE_TYPES) else "device%d" % kind
    return name if index is None or index < 0 else "%s:%d" % (name, index)


def expected(path):
    with gzip.open(path) as f:
        doc = json.load(f)
    events = doc["traceEvents"] if isinstance(doc, dict) else doc
    points = {}  # (pid, series, device) -> [(ts, file position, value)]
    running = {}
    instants = 0
    for pos, e in enumerate(events):
        if e.get("name") != "[memory]" or e.get("ph") not in ("i", "I"):
            continue
        instants += 1
        a = e.get("args", {})
        pid, d = str(e.get("pid", "")), device(a)
        running[(pid, d)] = running.get((pid, d), 0) + a.get("Bytes", 0)
        alloc = a["Total Allocated"] if "Total Allocated" in a else running[(pid, d)]
        points.setdefault((pid, "allocated bytes", d), []).append((e["ts"], pos, alloc))
        if "Total Reserved" in a:
            points.setdefault((pid, "reserved bytes", d), []).append(
                (e["ts"], pos, a["Total Reserved"]))
    # text-ordered delivers each track's values in time order, file order among equal times.
    series = {}
    for key, pts in points.items():
        values = [v for _, _, v in sorted(pts)]
        series[key] = (values[-1], max(values), len(values))
    return series, instants


def converted(tconv, path):
    out = subprocess.run([tconv, "-q", "-r", "chrome", "-w", "text-ordered", path],
                         check=True, stdout=subprocess.PIPE, text=True).stdout
    tracks = {}
    points = {}
    instants = 0
    pat = re.compile(r'^counter +\d+ T(\d+) name="(allocated bytes|reserved bytes)"'
                     r' cat="memory" key="([^"]*)" value=(\S+) unit="bytes"$')
    track = re.compile(r'^track T(\d+) input=0 kind=(\w+) pid="([^"]*)" tid="([^"]*)"')
    for line in out.splitlines():
        m = pat.match(line)
        if m:
            points.setdefault((m.group(1), m.group(2), m.group(3)), []).append(float(m.group(4)))
            continue
        if line.startswith("instant ") and 'name="[memory]"' in line:
            instants += 1
            continue
        m = track.match(line)
        if m:
            tracks[m.group(1)] = m.groups()[1:]
    series = {}
    for (t, name, dev), values in points.items():
        kind, pid, tid = tracks[t]
        if kind != "process" or tid != "":
            print("FAIL %s %s: on track T%s (%s, pid %r tid %r), not its process track"
                  % (name, dev, t, kind, pid, tid))
            return None, instants
        series[(pid, name, dev)] = (values[-1], max(values), len(values))
    return series, instants


def main():
    tconv, corpus = sys.argv[1], sys.argv[2]
    failed = False
    absent = 0
    for rel, pinned in TRACES.items():
        path = "%s/%s" % (corpus, rel)
        try:
            want, want_instants = expected(path)
        except FileNotFoundError:
            print("skipped: corpus file %s absent" % rel)
            absent += 1
            continue
        got, got_instants = converted(tconv, path)
        name = rel.split("/")[-1]
        if got is None:
            failed = True
            continue
        if want != pinned:
            failed = True
            print("FAIL %s: the raw events give %s, pinned %s" % (name, want, pinned))
        if got_instants != want_instants:
            failed = True
            print("FAIL %s: %d [memory] instants kept, expected %d"
                  % (name, got_instants, want_instants))
        for key in sorted(want):
            w, g = want[key], got.get(key)
            ok = g is not None and g == tuple(float(x) for x in w)
            failed |= not ok
            print("%s %s pid %s %s %s: last %s peak %s values %s%s" % (
                "ok  " if ok else "FAIL", name, key[0], key[1], key[2], w[0], w[1], w[2],
                "" if ok else " (got %s)" % (g,)))
        for key in sorted(set(got) - set(want)):
            failed = True
            print("FAIL %s: unexpected series %s" % (name, key))
    if absent == len(TRACES):
        print("SKIP: none of the %d traces is in %s" % (absent, corpus))
        sys.exit(77)
    sys.exit(1 if failed else 0)


if __name__ == "__main__":
    main()
