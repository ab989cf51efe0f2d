#!/usr/bin/env python3
"""PyTorch [memory] instants as counter series: for each real Kineto trace of the corpus, the
"allocated bytes" and "reserved bytes" series that the chrome reader derives per device must end
at the last value and reach the peak computed here from the raw events (Total Allocated /
Total Reserved when the trace has them, else the running sum of Bytes).

usage: tfmem_pytorch.py TCONV CORPUS_DIR
Exit 77 when the corpus is absent or the chrome reader does not derive these series.
"""
import gzip
import json
import re
import subprocess
import sys

TRACES = [
    "HolisticTraceAnalysis/tests/data/df_index_resolver/df_index_resolver.json.gz",
    "kineto/tb_plugin/samples/resnet50_num_workers_0/worker0.1623143089861.pt.trace.json.gz",
]
DEVICE_TYPES = {0: "cpu", 1: "cuda"}


def device(args):
    kind = DEVICE_TYPES.get(args.get("Device Type"), "device%s" % args.get("Device Type"))
    return kind if kind == "cpu" else "%s:%s" % (kind, args.get("Device Id"))


def expected(path):
    with gzip.open(path) as f:
        doc = json.load(f)
    events = doc["traceEvents"] if isinstance(doc, dict) else doc
    mem = sorted((e for e in events if e.get("name") == "[memory]"), key=lambda e: e["ts"])
    series = {}
    running = {}
    for e in mem:
        a = e.get("args", {})
        d = device(a)
        if "Total Allocated" in a:
            alloc = a["Total Allocated"]
        else:
            running[d] = running.get(d, 0) + a["Bytes"]
            alloc = running[d]
        series.setdefault(("allocated bytes", d), []).append(alloc)
        if "Total Reserved" in a:
            series.setdefault(("reserved bytes", d), []).append(a["Total Reserved"])
    return {k: (v[-1], max(v), len(v)) for k, v in series.items()}


def converted(tconv, path):
    out = subprocess.run([tconv, "-q", "-r", "chrome", "-w", "text-ordered", path],
                         check=True, stdout=subprocess.PIPE, text=True).stdout
    series = {}
    pat = re.compile(r'^counter +\d+ T\d+ name="(allocated bytes|reserved bytes)"'
                     r' .*key="([^"]*)" value=(\S+)')
    for line in out.splitlines():
        m = pat.match(line)
        if m:
            series.setdefault((m.group(1), m.group(2)), []).append(float(m.group(3)))
    return {k: (v[-1], max(v), len(v)) for k, v in series.items()}


def main():
    tconv, corpus = sys.argv[1], sys.argv[2]
    failed = False
    for rel in TRACES:
        path = "%s/%s" % (corpus, rel)
        try:
            want = expected(path)
        except FileNotFoundError:
            print("SKIP: corpus file %s absent" % rel)
            sys.exit(77)
        got = converted(tconv, path)
        if not got:
            print("SKIP: the chrome reader derives no memory counters from [memory] events")
            sys.exit(77)
        for key in sorted(want):
            w = want[key]
            g = got.get(key)
            ok = g is not None and g[0] == w[0] and g[1] == w[1] and g[2] == w[2]
            failed |= not ok
            print("%s %s %s: last %s peak %s values %s%s" % (
                "ok  " if ok else "FAIL", rel.split("/")[-1], key, w[0], w[1], w[2],
                "" if ok else " (got %s)" % (g,)))
        for key in sorted(set(got) - set(want)):
            failed = True
            print("FAIL unexpected series %s" % (key,))
    sys.exit(1 if failed else 0)


if __name__ == "__main__":
    main()
