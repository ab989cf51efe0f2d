#!/usr/bin/env python3
"""The rocprof reader against its inputs read independently of tconv: rocprofv3 JSON with
python's json module, rpd databases with SQL run by the sqlite3 shell.

usage: rocprof_check.py TCONV SQLITE3 GO WORK FILE...

For each FILE:
  kernels   per kernel name, calls and total ns of the csv kernels table = the kernel
            dispatches (JSON: named by their kernel symbol's formatted name) or the
            KernelExecution ops (rpd: their description), grouped by name
  copies    count and total ns of the memory copies (rpd: the Copy* ops)
  calls     per name, count and total ns of the HIP calls (JSON: hip_api records named by
            strings.buffer_records; rpd: rocpd_api rows named hip*)
  gpu       `go tool pprof -raw` of -W gpu=attribute: the gpu/nanoseconds total = the summed
            duration of the GPU work whose correlation id names an API call
  launches  folded -W value=gpu: each kernel's and copy's time on exactly the stack of the
            spans that enclose its launching call on that call's thread, the call last
Exit 0 when all hold, 1 otherwise.
"""
import csv
import gzip
import io
import json
import re
import subprocess
import sys
from collections import defaultdict

TCONV, SQLITE3, GO, WORK = sys.argv[1:5]
FILES = sys.argv[5:]
failures = 0


def fail(msg):
    global failures
    failures += 1
    print("FAIL: " + msg)


def sql(db, query):
    out = subprocess.run([SQLITE3, "-readonly", "-json", "file:%s?immutable=1" % db, query],
                         check=True, capture_output=True, text=True).stdout
    return json.loads(out) if out.strip() else []


def tconv(*args):
    r = subprocess.run([TCONV, "-q"] + list(args), capture_output=True)
    if r.returncode != 0:
        fail("tconv %s: exit %d: %s" % (" ".join(args), r.returncode, r.stderr.decode()[:500]))
    return r.stdout.decode("utf-8", "replace")


def csv_rows(path, table):
    return list(csv.DictReader(io.StringIO(tconv("-w", "csv", "-W", "table=" + table,
                                                 "-W", "eol=lf", path))))


def compare(what, got, want):
    if got == want:
        return
    keys = sorted(set(got) | set(want), key=str)
    bad = [k for k in keys if got.get(k) != want.get(k)]
    for k in bad[:5]:
        fail("%s: %r: tconv %r, expected %r" % (what, k, got.get(k), want.get(k)))
    if len(bad) > 5:
        fail("%s: %d more differences" % (what, len(bad) - 5))


def add(d, k, ns):
    v = d.setdefault(k, [0, 0])
    v[0] += 1
    v[1] += ns


def tuples(d):
    return {k: tuple(v) for k, v in d.items()}


class Model:
    """What an input holds, in the reader's terms, from the input itself."""

    def __init__(self):
        self.kernels = {}    # name -> [calls, ns]
        self.copies = {}     # "copies" -> [count, ns]
        self.calls = {}      # HIP call name -> [count, ns]
        self.spans = defaultdict(list)  # thread -> (start, end, name, order): CPU spans
        self.launch = {}     # correlation id -> (thread, start, end)
        self.work = []       # (correlation id, name, ns)


def json_model(path):
    m = Model()
    opener = gzip.open if path.endswith(".gz") else open
    with opener(path, "rt", encoding="utf-8") as f:
        doc = json.load(f)
    order = 0
    for proc in doc["rocprofiler-sdk-tool"]:
        names = {(k, i): op for k, rec in enumerate(proc["strings"]["buffer_records"])
                 for i, op in enumerate(rec["operations"])}
        markers = {e["key"]: e["value"] for e in proc["strings"].get("marker_api", [])}
        symbols = {s["kernel_id"]: s["formatted_kernel_name"] for s in proc["kernel_symbols"]}
        pid = proc["metadata"]["pid"]
        br = proc["buffer_records"]
        for r in br.get("kernel_dispatch", []):
            ns = r["end_timestamp"] - r["start_timestamp"]
            name = symbols[r["dispatch_info"]["kernel_id"]]
            add(m.kernels, name, ns)
            m.work.append((r["correlation_id"]["internal"], name, ns))
        for r in br.get("memory_copy", []):
            ns = r["end_timestamp"] - r["start_timestamp"]
            add(m.copies, "copies", ns)
            m.work.append((r["correlation_id"]["internal"], names[(r["kind"], r["operation"])], ns))
        for key in ("marker_api", "hip_api", "hsa_api", "rccl_api"):
            for r in br.get(key, []):
                op = names[(r["kind"], r["operation"])]
                if key == "marker_api":
                    if "Mark" in op or "RangeStart" in op:
                        continue  # instants, and ranges on the process's async track
                    name = markers.get(r["correlation_id"]["internal"], op)
                else:
                    name = op
                t = (pid, r["thread_id"])
                s, e = r["start_timestamp"], r["end_timestamp"]
                m.spans[t].append((s, e, name, order))
                order += 1
                if key == "hip_api":
                    add(m.calls, name, e - s)
                if key != "marker_api":
                    m.launch[r["correlation_id"]["internal"]] = (t, s, e)
    return m


def rpd_model(db):
    m = Model()
    order = 0
    for r in sql(db, "SELECT a.id, a.pid, a.tid, a.start, a.end, s.string AS name, "
                     "g.string AS args FROM rocpd_api a JOIN rocpd_string s ON "
                     "s.id = a.apiName_id JOIN rocpd_string g ON g.id = a.args_id "
                     "ORDER BY a.start, a.id"):
        t = (r["pid"], r["tid"])
        name = r["name"]
        if name == "UserMarker":
            if r["end"] == r["start"]:
                continue
            name = r["args"] or name
        elif name.startswith("hip"):
            add(m.calls, name, r["end"] - r["start"])
        m.spans[t].append((r["start"], r["end"], name, order))
        order += 1
        if r["name"] != "UserMarker" and "::writeRows" not in name and \
                name != "hcc_activity_callback":
            m.launch[r["id"]] = (t, r["start"], r["end"])
    for r in sql(db, "SELECT o.start, o.end, d.string AS descr, ty.string AS type, "
                     "(SELECT min(api_id) FROM rocpd_api_ops x WHERE x.op_id = o.id) AS api "
                     "FROM rocpd_op o JOIN rocpd_string d ON d.id = o.description_id "
                     "JOIN rocpd_string ty ON ty.id = o.opType_id"):
        ns = r["end"] - r["start"]
        name = r["descr"] or r["type"]
        if "Kernel" in r["type"]:
            add(m.kernels, name, ns)
        elif "Copy" in r["type"]:
            add(m.copies, "copies", ns)
        elif "Fill" not in r["type"]:
            continue
        m.work.append((r["api"], name, ns))
    return m


def check(path):
    name = path.rsplit("/", 1)[-1]
    m = rpd_model(path) if not path.endswith((".json", ".json.gz")) else json_model(path)
    events = csv_rows(path, "events")
    got = {r["name"]: (int(r["calls"]), int(r["total_ns"])) for r in csv_rows(path, "kernels")}
    compare(name + " kernels", got, tuples(m.kernels))
    g = {}
    calls = {}
    for r in events:
        if r["kind"] == "span" and r["category"] == "gpu_memcpy":
            add(g, "copies", int(r["dur_ns"]))
        if r["kind"] == "span" and r["category"] == "cuda_runtime":
            add(calls, r["name"], int(r["dur_ns"]))
    compare(name + " copies", tuples(g), tuples(m.copies))
    compare(name + " HIP calls", tuples(calls), tuples(m.calls))

    # GPU attribution: pprof's gpu total, and each activity under its launch's stack
    want_total = sum(ns for c, _, ns in m.work if c in m.launch)
    pb = "%s/%s.gpu.pb.gz" % (WORK, name)
    tconv("-w", "pprof", "-W", "gpu=attribute", "-o", pb, path)
    raw = subprocess.run([GO, "tool", "pprof", "-raw", pb], capture_output=True, text=True)
    types = re.search(r"^(samples/count .*)$", raw.stdout, re.M)
    if raw.returncode != 0 or not types or "gpu/nanoseconds" not in types.group(1):
        fail("%s: go tool pprof -raw: %s" % (name, raw.stderr[:300]))
    else:
        col = types.group(1).split().index("gpu/nanoseconds")
        total = 0
        for line in raw.stdout.split("\nLocations")[0].splitlines():
            mm = re.match(r"^\s+((?:-?\d+\s+)*-?\d+):", line)
            if mm:
                total += int(mm.group(1).split()[col])
        compare(name + " pprof gpu total", {"gpu ns": total}, {"gpu ns": want_total})
    want = defaultdict(int)
    for c, leaf, ns in m.work:
        if c not in m.launch:
            continue
        t, s, e = m.launch[c]
        stack = sorted((x for x in m.spans[t] if x[0] <= s and x[1] >= e),
                       key=lambda x: (x[0], -(x[1] - x[0]), x[3]))
        want[";".join(x[2] for x in stack) + ";[gpu] " + leaf] += ns
    got = defaultdict(int)
    for line in tconv("-w", "folded", "-W", "value=gpu", path).splitlines():
        stack, _, v = line.rpartition(" ")
        got[stack] += int(v)
    compare(name + " launch stacks", dict(got), dict(want))
    print("%s: %d kernel names, %d launches compared" % (name, len(m.kernels), len(want)))


for f in FILES:
    check(f)
sys.exit(1 if failures else 0)
